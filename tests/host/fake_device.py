"""A stand-in device for host tests: the mcp SDK's own MCP server over WebSocket (uvicorn, 127.0.0.1).

It serves `memory` and `memory_sync` as docs/sync.md describes them, small but honest where the
host relies on it: the token guard (HTTP 401), `withUserTools` listing, batch_id dedup over the
last 32 batches, export paging. `DeviceState` outlives a server, so a test can stop the "device"
and start it again with its memory intact. Faults: drop the connection before or after applying
a chosen batch, hang there, or refuse it.
"""

import contextvars
import json
import logging
import threading
import time
import warnings
from urllib.parse import parse_qs

import anyio
import mcp.types as types
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.websocket import websocket_server
from mcp.shared.message import SessionMessage
from starlette.responses import PlainTextResponse
from starlette.websockets import WebSocket

_connection = contextvars.ContextVar("fake_device_connection")
logging.getLogger("mcp.server.lowlevel.server").setLevel(logging.ERROR)
_REMEMBERED_BATCHES = 32


class DeviceState:
    """The fake device's memory and counters."""

    def __init__(self, device_id="fake-esp32-01", token="secret"):
        self.device_id = device_id
        self.token = token
        self.items = {}  # type -> [dict]
        self.applied = []  # batch ids in the order they were applied (each once)
        self.recent = []  # the last 32 (batch_id, answer)
        self.apply_calls = 0
        self.handshakes = 0  # WebSocket connection attempts, refused ones included
        self.announce = []  # texts sent as memory.reminder notifications before the next answer
        # apply call number (1-based) -> "drop_before_apply" | "drop_after_apply" | "hang_after_apply"
        # | "tool_error"
        self.faults = {}
        self.profile = {}
        self.coins = 0

    def write(self, record):
        kind = record["type"]
        fields = {k: v for k, v in record.items() if k not in ("type", "op", "action")}
        if kind in ("name", "age", "gender", "location", "birthday"):
            changed = self.profile.get(kind) != fields.get("content")
            self.profile[kind] = fields.get("content")
            return "UPDATED" if changed else "NOOP"
        if kind == "coins":
            self.coins += int(fields.get("content", 0))
            return "UPDATED"
        bucket = self.items.setdefault(kind, [])
        if any(item.get("content") == fields.get("content") for item in bucket):
            return "NOOP"
        bucket.append(fields)
        return "ADDED"

    def delete(self, kind, content):
        bucket = self.items.get(kind, [])
        kept = [item for item in bucket if item.get("content") != content]
        self.items[kind] = kept
        return "DELETED" if len(kept) < len(bucket) else "NOOP"

    def apply_op(self, op):
        name = op.get("op")
        if name == "write":
            return {"op": name, "result": self.write(op)}
        if name == "delete":
            return {"op": name, "result": self.delete(op["type"], op.get("content"))}
        if name == "coins":
            self.coins += int(op["amount"])
            return {"op": name, "result": "UPDATED"}
        return {"op": name, "result": "REFUSED", "detail": f"unknown op {name!r}"}

    def records(self):
        out = [{"type": k, "content": v} for k, v in sorted(self.profile.items())]
        for kind in sorted(self.items):
            out.extend(dict(item, type=kind) for item in self.items[kind])
        return out


class ToolError(Exception):
    pass


def _read(state, args):
    kind = args.get("type")
    if kind:
        if kind in ("name", "age", "gender", "location", "birthday"):
            return {"type": kind, "items": [{"content": state.profile.get(kind)}] if kind in state.profile else []}
        return {"type": kind, "items": list(state.items.get(kind, []))}
    return {
        "profile": dict(state.profile),
        "preferences": {
            "likes": [i["content"] for i in state.items.get("like", [])],
            "dislikes": [i["content"] for i in state.items.get("dislike", [])],
        },
        "family": list(state.items.get("family", [])),
        "facts": [i["content"] for i in state.items.get("fact", [])],
        "schedules": list(state.items.get("schedule", [])),
        "total_coins_spent": state.coins,
        "relationship": {"stage": "stranger"},
    }


def _recall(state, args):
    kind = args.get("type")
    if kind not in ("fact", "moment", "event"):
        raise ToolError(f"recall type must be fact, moment or event, got {kind!r}")
    items = list(state.items.get("schedule" if kind == "event" else kind, []))
    keyword = (args.get("keyword") or "").lower()
    if keyword:
        items = [i for i in items if keyword in str(i.get("content", "")).lower()]
    items = items[-int(args.get("limit", 10)) :]
    return {"type": kind, "count": len(items), "items": items}


def memory_tool(state, args):
    action = args.get("action")
    kind = args.get("type")
    if kind is not None and kind not in _MEMORY_TYPES:
        raise ToolError(f"unknown type {kind!r}")
    if action == "read":
        return _read(state, args)
    if action == "write":
        return {"result": state.write(dict(args))}
    if action == "delete":
        return {"result": state.delete(kind, args.get("content"))}
    if action == "recall":
        return _recall(state, args)
    raise ToolError(f"unknown action {action!r}")


async def _apply(state, batch_id, ops, records=False):
    if not batch_id or not 1 <= len(batch_id) <= 64:
        raise ToolError(f"batch_id must be 1-64 chars, got {batch_id!r}")
    state.apply_calls += 1
    for seen, answer in state.recent:
        if seen == batch_id:
            return dict(answer, replayed=True)
    fault = state.faults.pop(state.apply_calls, None)
    if fault == "tool_error":
        raise ToolError("nvs full: OSError(-4357)")
    if fault == "drop_before_apply":
        await _connection.get()["drop"]()
        await anyio.sleep_forever()
    if records:
        results = [{"op": "import", "result": state.write(r)} for r in ops]
    else:
        results = [state.apply_op(op) for op in ops]
    answer = {"batch_id": batch_id, "replayed": False, "results": results}
    state.applied.append(batch_id)
    state.recent = (state.recent + [(batch_id, answer)])[-_REMEMBERED_BATCHES:]
    if fault == "drop_after_apply":
        await _connection.get()["drop"]()
        await anyio.sleep_forever()
    if fault == "hang_after_apply":
        await anyio.sleep_forever()
    return answer


async def sync_tool(state, args):
    action = args.get("action")
    if action == "apply":
        ops = args.get("ops") or []
        if not 1 <= len(ops) <= 64:
            raise ToolError(f"ops must hold 1-64 ops, got {len(ops)}")
        return await _apply(state, args.get("batch_id"), ops)
    if action == "import":
        return await _apply(state, args.get("batch_id"), args.get("records") or [], records=True)
    if action == "export":
        start = int(args.get("cursor") or 0)
        limit = int(args.get("limit", 100))
        records = state.records()
        end = start + limit
        return {"records": records[start:end], "next_cursor": str(end) if end < len(records) else None}
    if action == "stats":
        counts = {k: len(v) for k, v in state.items.items()}
        return {
            "device_id": state.device_id,
            "nvs": {"used": 10 * sum(counts.values()), "free": 1186, "usable": 1386},
            "archive": {"bytes": 0, "counts": counts, "dropped_segments": 0},
            "pending_writes": 0,
            "flash_bytes_written": 0,
            "keyed": 0,
        }
    raise ToolError(f"unknown memory_sync action {action!r}")


_MEMORY_TYPES = (
    "name", "age", "gender", "location", "birthday", "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal", "schedule", "chat", "coins", "mood",
)


def _mcp_server(state):
    server = Server("fake-xzmem-device")

    @server.list_tools()
    async def list_tools():
        tools = [types.Tool(name="memory", description="long-term memory", inputSchema={"type": "object"})]
        if _connection.get()["user_tools"]:
            tools.append(types.Tool(name="memory_sync", description="host sync", inputSchema={"type": "object"}))
        return tools

    @server.call_tool(validate_input=False)
    async def call_tool(name, arguments):
        while state.announce:
            await server.request_context.session.send_log_message(
                level="info", data=state.announce.pop(0), logger="memory.reminder"
            )
        try:
            if name == "memory":
                result = memory_tool(state, arguments)
            elif name == "memory_sync":
                result = await sync_tool(state, arguments)
            else:
                raise ToolError(f"unknown tool {name!r}")
        except (ToolError, KeyError, ValueError) as exc:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))], isError=True)
        return [types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))]

    return server


def _asgi_app(state):
    server = _mcp_server(state)

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "websocket":
            await PlainTextResponse("websocket only", status_code=400)(scope, receive, send)
            return
        state.handshakes += 1
        query = parse_qs(scope.get("query_string", b"").decode())
        headers = dict(scope.get("headers", []))
        offered = query.get("token", [""])[0] or headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        if scope["path"] != "/mcp" or offered != state.token:
            status = 404 if scope["path"] != "/mcp" else 401
            await WebSocket(scope, receive, send).send_denial_response(PlainTextResponse("no", status_code=status))
            return

        async def drop():
            await send({"type": "websocket.close", "code": 1011})

        _connection.set({"user_tools": False, "drop": drop})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                transport = websocket_server(scope, receive, send)
            async with transport as (read_stream, write_stream):
                sniffed_writer, sniffed = anyio.create_memory_object_stream[SessionMessage | Exception](0)

                async def sniff():
                    async with sniffed_writer:
                        async for item in read_stream:
                            root = getattr(getattr(item, "message", None), "root", None)
                            if isinstance(root, types.JSONRPCRequest) and root.method == "tools/list":
                                _connection.get()["user_tools"] = bool((root.params or {}).get("withUserTools"))
                            await sniffed_writer.send(item)

                async with anyio.create_task_group() as tg:
                    tg.start_soon(sniff)
                    await server.run(sniffed, write_stream, server.create_initialization_options())
                    tg.cancel_scope.cancel()
        except Exception:
            # A dropped connection ends the session with errors on the server side; the test
            # looks at what the client saw.
            pass

    return app


class FakeDevice:
    """Serves one DeviceState on ws://127.0.0.1:PORT/mcp from a background thread."""

    def __init__(self, state=None, port=0):
        self.state = state or DeviceState()
        self.port = port
        self._server = None
        self._thread = None

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}/mcp"

    def start(self):
        config = uvicorn.Config(
            _asgi_app(self.state), host="127.0.0.1", port=self.port, log_level="critical", lifespan="on"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake device did not start on port {self.port}")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self):
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
            self._thread.join(timeout=10)
            self._server = None

    def restart(self):
        self.stop()
        return self.start()
