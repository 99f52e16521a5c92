"""A device over WebSocket: one MCP session (the mcp SDK's ClientSession), reopened after a drop.

Imported only when a WebSocket device is opened: the SDK takes about a second to import, which every
other command (and `xzmem --help`) would otherwise pay.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, Literal

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.shared.message import SessionMessage
from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.typing import Subprotocol

from xzmem.device.address import redact, with_token
from xzmem.device.errors import DeviceError, root_cause

CLOSE_TIMEOUT = 2.0


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
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):  # one class from 3.11 on
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


class WebSocketLink:
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

