"""Shared pieces of the link tests: device code on sys.path, small tools, a running server."""

import asyncio
import sys
from contextlib import asynccontextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from memory import mcp, server  # noqa: E402

TOKEN = "s3cret-tok/en+="


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."
    input_schema = {"type": "object", "properties": {"text": {"type": "string"}}}

    def call(self, arguments, link):
        return {"echo": arguments, "trusted": link.trusted}


class Note(mcp.Tool):
    """A validating tool with state, so that rejected calls can be shown to change nothing."""

    name = "note"
    description = "Stores short notes by slot."
    input_schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["put", "get"]},
            "slot": {"type": "integer", "minimum": 0, "maximum": 7},
            "text": {"type": "string", "minLength": 1, "maxLength": 32},
        },
        "required": ["action", "slot"],
        "additionalProperties": False,
    }

    def __init__(self):
        self.slots = {}

    def call(self, arguments, link):
        slot = arguments["slot"]
        if arguments["action"] == "get":
            return {"slot": slot, "text": self.slots.get(slot)}
        if "text" not in arguments:
            raise mcp.ToolError("text is required for put")
        self.slots[slot] = arguments["text"]
        return {"slot": slot, "result": "UPDATED"}


class HostOnly(mcp.Tool):
    name = "sync"
    description = "Host-only tool."
    user_only = True

    def call(self, arguments, link):
        return {"ok": True}


def dispatcher():
    d = mcp.Dispatcher()
    for tool in (Echo(), Note(), HostOnly()):
        d.add(tool)
    return d


@asynccontextmanager
async def serving(d=None, token=TOKEN, **kwargs):
    """A Server on 127.0.0.1 and a free port; stopped on exit."""
    s = server.Server(d or dispatcher(), token, host="127.0.0.1", port=0, log=lambda msg: None, **kwargs)
    await s.start()
    try:
        yield s
    finally:
        await s.stop()


@asynccontextmanager
async def running(link):
    """Run an outbound link's reconnect loop for the block, then cancel it."""
    task = asyncio.create_task(link.run())
    try:
        yield link
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass


async def until(condition, timeout=5.0):
    """Wait until `condition()` holds, polling every 20 ms; fail after `timeout` seconds."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")
