"""A device over USB serial: each tool call runs as code on the board's raw REPL (mpremote)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import anyio
from mpremote.transport import TransportError
from mpremote.transport_serial import SerialTransport

from xzmem.device.errors import DeviceError

_RESULT_MARK = "@xzmem-result@"


def _last_error_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no error text"


def call_snippet(name: str, args: dict[str, Any]) -> str:
    """MicroPython code that runs one tool call on the board and prints the result after a marker."""
    args_json = json.dumps(args, ensure_ascii=True, separators=(",", ":"))
    return f"from memory import app\nprint({_RESULT_MARK!r} + app.call_tool({name!r}, {args_json!r}))\n"


def tools_snippet(with_user_tools: bool) -> str:
    """MicroPython code that prints the tool definitions from memory.tool_schema after a marker."""
    lines = [
        "import json",
        "from memory import tool_schema as s",
        "from memory import tool_text as d",
        "t = [{'name': 'memory', 'description': ''.join(d.MEMORY_DESCRIPTION), 'inputSchema': s.MEMORY_SCHEMA}]",
    ]
    if with_user_tools:
        lines.append(
            "t.append({'name': 'memory_sync', 'description': d.SYNC_DESCRIPTION, 'inputSchema': s.SYNC_SCHEMA})"
        )
    lines.append(f"print({_RESULT_MARK!r} + json.dumps(t))")
    return "\n".join(lines) + "\n"


def parse_marked_output(output: bytes) -> str:
    """The JSON text the snippet printed after the marker (the board may print other lines too)."""
    text = output.decode("utf-8", "replace")
    for line in reversed(text.splitlines()):
        at = line.find(_RESULT_MARK)
        if at >= 0:
            return line[at + len(_RESULT_MARK) :]
    raise DeviceError(f"the board printed no result: {text[-120:]!r}")


def parse_call_output(output: bytes) -> tuple[bool, str]:
    """(is_error, text) from `memory.app.call_tool`, which answers a CallToolResult as JSON.

    A bare tool result (no `content` list) is taken as a successful call's text.
    """
    text = parse_marked_output(output)
    try:
        data = json.loads(text)
    except ValueError:
        raise DeviceError(f"the board printed a result that is not JSON: {text[:80]!r}") from None
    if isinstance(data, dict) and isinstance(data.get("content"), list):
        body = "".join(c.get("text", "") for c in data["content"] if isinstance(c, dict))
        return bool(data.get("isError")), body
    return False, text


class SerialLink:
    """Tool calls run as code on the board's raw REPL (mpremote's SerialTransport).

    Entering the raw REPL interrupts the running firmware (Ctrl-C), as any mpremote command does.
    """

    def __init__(self, port: str, timeout: float, transport_factory: Callable[[str], Any] | None):
        self.where = port
        self.fallback_id = "serial:" + port
        self._timeout = timeout
        self._factory = transport_factory or SerialTransport
        self._transport: Any = None
        self._lock = anyio.Lock()

    def _open_sync(self) -> Any:
        try:
            transport = self._factory(self.where)
        except (TransportError, OSError) as exc:
            raise DeviceError(f"device unreachable at {self.where}: {exc}") from None
        try:
            transport.enter_raw_repl(soft_reset=False)
        except (TransportError, OSError) as exc:
            transport.close()
            raise DeviceError(f"no MicroPython REPL on {self.where}: {exc}") from None
        return transport

    async def open(self) -> None:
        self._transport = await anyio.to_thread.run_sync(self._open_sync)

    async def close(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            # An unplugged board cannot be tidied up; there is nothing else to release.
            with contextlib.suppress(OSError):
                transport.exit_raw_repl()
                transport.close()

    async def _exec(self, code: str) -> bytes:
        async with self._lock:
            try:
                out, err = await anyio.to_thread.run_sync(self._transport.exec_raw, code, self._timeout)
            except (TransportError, OSError) as exc:
                raise DeviceError(f"lost the board at {self.where}: {exc}") from None
        if err:
            message = _last_error_line(err.decode("utf-8", "replace"))
            raise DeviceError(f"the board at {self.where} raised {message}")
        return out

    async def call_tool(self, name: str, args: dict[str, Any], retry: bool) -> tuple[bool, str]:
        return parse_call_output(await self._exec(call_snippet(name, args)))

    async def list_tools(self, with_user_tools: bool) -> list[dict[str, Any]]:
        return json.loads(parse_marked_output(await self._exec(tools_snippet(with_user_tools))))
