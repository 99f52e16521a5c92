"""Talking to one device: MCP over WebSocket (the mcp SDK's ClientSession) or over a serial REPL (mpremote).

`DeviceClient` is the only way the host reaches a device. Every tool call answers the JSON the tool
put in its text content, or raises `DeviceError` with one line a user can act on.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from mpremote.transport import TransportError
from mpremote.transport_serial import SerialTransport
from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

# The device's vocabulary, as lib/memory/tool_schema.py defines it (a test keeps the two equal).
MEMORY_TYPES = (
    "name", "age", "gender", "location", "birthday",
    "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal",
    "schedule", "chat", "coins", "mood",
)
RECALL_TYPES = ("fact", "moment", "event")

# Called with the device's notifications/message params (level, logger, data).
OnMessage = Callable[[types.LoggingMessageNotificationParams], Awaitable[None]]

# mpremote's short names for serial ports.
_PORT_SHORTCUTS = {"a": "/dev/ttyACM", "u": "/dev/ttyUSB", "c": "COM"}
_RESULT_MARK = "@xzmem-result@"
CLOSE_TIMEOUT = 2.0


class DeviceError(Exception):
    """A device could not be reached or refused a call; the message is one line for the user."""

    def __init__(self, message: str, *, retryable: bool = True):
        super().__init__(" ".join(str(message).split()))
        self.retryable = retryable


def is_websocket_target(target: str) -> bool:
    return target.startswith(("ws://", "wss://"))


def redact(url: str) -> str:
    """The URL without its token, fit for messages and logs."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    return urlunsplit(parts._replace(query=urlencode(query)))


def with_token(url: str, token: str | None) -> str:
    """The URL carrying `token` as its `token` query parameter (replacing one already there)."""
    if not token:
        return url
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "token"]
    query.append(("token", token))
    return urlunsplit(parts._replace(query=urlencode(query)))


def serial_port(target: str) -> str:
    """`u0` → /dev/ttyUSB0, `a1` → /dev/ttyACM1, `c3` → COM3; anything else is the port itself."""
    match = re.fullmatch(r"([auc])(\d+)", target)
    return _PORT_SHORTCUTS[match.group(1)] + match.group(2) if match else target


def root_cause(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which anyio task groups wrap errors in."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (inner or list(exc.exceptions))[0]
    return exc


class DeviceClient:
    """An open link to one device: `async with DeviceClient(target, token) as device: ...`.

    `target` is `ws://HOST:PORT/mcp` (or wss://) or a serial port (`/dev/ttyUSB0`, `u0`). Over
    WebSocket a dropped connection is reopened with backoff on the next call (and a call cut off
    by the drop is sent again when `retry` is true: device calls are idempotent, op batches by
    their batch_id). `on_message(params)` receives the device's `notifications/message`
    (reminders come with logger "memory.reminder"); serial links have none.
    """

    def __init__(
        self,
        target: str,
        token: str | None = None,
        *,
        connect_timeout: float = 5.0,
        call_timeout: float = 30.0,
        reconnect_attempts: int = 5,
        backoff: tuple[float, float] = (0.5, 8.0),
        serial_transport: Callable[[str], Any] | None = None,
        on_message: OnMessage | None = None,
    ):
        self.target = target
        if is_websocket_target(target):
            self._link: _WebSocketLink | _SerialLink = _WebSocketLink(
                target, token, connect_timeout, call_timeout, reconnect_attempts, backoff, on_message
            )
        else:
            self._link = _SerialLink(serial_port(target), call_timeout, serial_transport)
        self._device_id: str | None = None

    @property
    def where(self) -> str:
        """The device's address without secrets."""
        return self._link.where

    async def __aenter__(self) -> DeviceClient:
        await self._link.open()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._link.close()

    async def call(self, tool: str, args: dict[str, Any] | None = None, *, retry: bool = True) -> Any:
        """Call a tool and answer the JSON of its text content; DeviceError on a tool error."""
        is_error, text = await self._link.call_tool(tool, dict(args or {}), retry)
        if is_error:
            raise DeviceError(f"device refused {tool}: {text}", retryable=False)
        try:
            return json.loads(text)
        except ValueError:
            raise DeviceError(f"device answered {tool} with text that is not JSON: {text[:80]!r}") from None

    async def memory(self, **args: Any) -> Any:
        return await self.call("memory", args)

    async def sync(self, **args: Any) -> Any:
        return await self.call("memory_sync", args)

    async def list_tools(self, with_user_tools: bool = True) -> list[dict[str, Any]]:
        """The device's tools as dicts (name, description, inputSchema, ...)."""
        return await self._link.list_tools(with_user_tools)

    async def device_id(self) -> str:
        """The device's identity: `device_id` from memory_sync stats, else its address."""
        if self._device_id is None:
            stats = await self.sync(action="stats")
            found = stats.get("device_id") if isinstance(stats, dict) else None
            self._device_id = str(found) if found else self._link.fallback_id
        return self._device_id


def _tool_result(result: types.CallToolResult) -> tuple[bool, str]:
    text = "".join(block.text for block in result.content if isinstance(block, types.TextContent))
    return bool(result.isError), text


class _ListUserToolsRequest(BaseModel):
    """tools/list with the device's `withUserTools` flag, which the SDK's ListToolsRequest drops."""

    method: Literal["tools/list"] = "tools/list"
    params: dict[str, Any]


@asynccontextmanager
async def _websocket_streams(url: str, open_timeout: float, lost: anyio.Event):
    """MCP messages over one WebSocket, as the stream pair ClientSession takes.

    Like the SDK's websocket_client, except that a dropped connection ends the streams (pending
    requests then fail with CONNECTION_CLOSED) and sets `lost`, instead of cancelling the caller.
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    async with ws_connect(url, subprotocols=[Subprotocol("mcp")], open_timeout=open_timeout, max_size=None) as ws:

        async def receive() -> None:
            async with read_writer:
                try:
                    async for text in ws:
                        try:
                            message = types.JSONRPCMessage.model_validate_json(text)
                        except ValidationError as exc:
                            await read_writer.send(exc)
                            continue
                        await read_writer.send(SessionMessage(message))
                except (ConnectionClosed, anyio.BrokenResourceError, anyio.ClosedResourceError):
                    pass
            lost.set()

        async def send() -> None:
            async with write_reader:
                try:
                    async for item in write_reader:
                        data = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
                        await ws.send(json.dumps(data, ensure_ascii=False))
                except ConnectionClosed:
                    lost.set()

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(receive)
                tg.start_soon(send)
                try:
                    yield read_stream, write_stream
                finally:
                    tg.cancel_scope.cancel()
        finally:
            # Closing the link cancels this task; without a shielded close the socket would stay
            # open until garbage collection, and a peer (the device, the gateway) would keep the
            # session of a client that left.
            with anyio.move_on_after(CLOSE_TIMEOUT, shield=True):
                await ws.close()


def _connect_error(where: str, exc: BaseException) -> DeviceError:
    exc = root_cause(exc)
    if isinstance(exc, DeviceError):
        return exc
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        if status in (401, 403):
            return DeviceError(f"device at {where} refused the token (HTTP {status})", retryable=False)
        return DeviceError(f"device at {where} answered HTTP {status}, not a WebSocket MCP server", retryable=False)
    if isinstance(exc, InvalidURI):
        return DeviceError(f"not a device URL: {where}", retryable=False)
    if isinstance(exc, TimeoutError):
        return DeviceError(f"device unreachable at {where}: no answer within the connect timeout")
    if isinstance(exc, ConnectionRefusedError):
        return DeviceError(f"device unreachable at {where}: connection refused")
    if isinstance(exc, OSError):
        return DeviceError(f"device unreachable at {where}: {exc.strerror or exc}")
    if isinstance(exc, McpError):
        return DeviceError(f"device at {where} failed the MCP handshake: {exc.error.message}", retryable=False)
    if isinstance(exc, (InvalidHandshake, ConnectionClosed)):
        return DeviceError(f"device at {where} broke off the WebSocket handshake: {exc}")
    return DeviceError(f"device at {where}: {type(exc).__name__}: {exc}")


class _WebSocketLink:
    """One MCP session at a time, held open by a background task and reopened after a drop."""

    def __init__(self, url, token, connect_timeout, call_timeout, reconnect_attempts, backoff, on_message):
        self._url = with_token(url, token)
        self.where = redact(self._url)
        self.fallback_id = self.where
        self._connect_timeout = connect_timeout
        self._call_timeout = call_timeout
        self._reconnect_attempts = reconnect_attempts
        self._backoff = backoff
        self._on_message = on_message
        self._session: ClientSession | None = None
        self._lost: anyio.Event | None = None
        self._in_flight: set[anyio.CancelScope] = set()
        self._lock = anyio.Lock()
        self._tg: anyio.abc.TaskGroup | None = None

    async def open(self) -> None:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        try:
            await self._connect()
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        if self._tg is not None:
            self._tg.cancel_scope.cancel()
            tg, self._tg = self._tg, None
            await tg.__aexit__(None, None, None)

    async def _connect(self) -> None:
        try:
            await self._tg.start(self._hold)
        except Exception as exc:
            raise _connect_error(self.where, exc) from None

    async def _hold(self, *, task_status) -> None:
        """Open a session, report it ready, keep it until the connection is lost or the link closes."""
        lost = anyio.Event()
        in_flight: set[anyio.CancelScope] = set()
        started = False
        try:
            async with (
                _websocket_streams(self._url, self._connect_timeout, lost) as (read_stream, write_stream),
                ClientSession(
                    read_stream,
                    write_stream,
                    read_timeout_seconds=timedelta(seconds=self._call_timeout),
                    logging_callback=self._on_message,
                ) as session,
            ):
                with anyio.fail_after(self._connect_timeout):
                    await session.initialize()
                self._session, self._lost, self._in_flight = session, lost, in_flight
                started = True
                task_status.started()
                await lost.wait()
        except Exception:
            # After start-up a failure only means the connection is gone: the next call reconnects.
            if not started:
                raise
        finally:
            # Requests still waiting would never hear back once the session is gone.
            for scope in in_flight:
                scope.cancel()
            if self._lost is lost:
                self._session, self._lost = None, None

    async def _current_session(self) -> ClientSession:
        async with self._lock:
            if self._session is not None:
                return self._session
            delay, most = self._backoff
            last: DeviceError | None = None
            for _ in range(max(1, self._reconnect_attempts)):
                try:
                    await self._connect()
                    return self._session
                except DeviceError as exc:
                    if not exc.retryable:
                        raise
                    last = exc
                await anyio.sleep(delay)
                delay = min(delay * 2, most)
            raise DeviceError(f"{last} (gave up after {self._reconnect_attempts} reconnect attempts)")

    def _drop(self, session: ClientSession) -> None:
        if self._session is session and self._lost is not None:
            self._lost.set()
            self._session, self._lost = None, None

    async def _request(self, what: str, send: Callable[[ClientSession], Awaitable[Any]], retry: bool) -> Any:
        attempts = 0
        while True:
            session = await self._current_session()
            in_flight = self._in_flight
            scope = anyio.CancelScope()
            in_flight.add(scope)
            try:
                with scope:
                    return await send(session)
                self._drop(session)
            except McpError as exc:
                if exc.error.code == types.CONNECTION_CLOSED:
                    self._drop(session)
                elif exc.error.code == 408:
                    raise DeviceError(
                        f"device at {self.where} did not answer {what} within {self._call_timeout:g} s"
                    ) from None
                else:
                    raise DeviceError(f"device refused {what}: {exc.error.message}", retryable=False) from None
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._drop(session)
            finally:
                in_flight.discard(scope)
            if not retry or attempts >= self._reconnect_attempts:
                raise DeviceError(f"connection to device at {self.where} dropped during {what}")
            attempts += 1

    async def call_tool(self, name: str, args: dict[str, Any], retry: bool) -> tuple[bool, str]:
        # A raw tools/call: ClientSession.call_tool would first list tools (without the device's
        # host-only tools) to validate output schemas the device does not declare.
        request = types.ClientRequest(
            types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=args))
        )
        result = await self._request(name, lambda s: s.send_request(request, types.CallToolResult), retry)
        return _tool_result(result)

    async def list_tools(self, with_user_tools: bool) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"withUserTools": True} if with_user_tools else {}
            if cursor:
                params["cursor"] = cursor
            request = _ListUserToolsRequest(params=params)
            page = await self._request(
                "tools/list", lambda s, r=request: s.send_request(r, types.ListToolsResult), True
            )
            tools.extend(t.model_dump(by_alias=True, exclude_none=True) for t in page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools


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
        "t = [{'name': 'memory', 'description': s.MEMORY_DESCRIPTION, 'inputSchema': s.MEMORY_SCHEMA}]",
    ]
    if with_user_tools:
        lines.append(
            "t.append({'name': 'memory_sync', 'description': s.SYNC_DESCRIPTION, 'inputSchema': s.SYNC_SCHEMA})"
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


class _SerialLink:
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
