"""Talking to one device: MCP over WebSocket (the mcp SDK's ClientSession) or over a serial REPL (mpremote).

`DeviceClient` is the only way the host reaches a device. Every tool call answers the JSON the tool
put in its text content, or raises `DeviceError` with one line a user can act on.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from xzmem.device.address import is_websocket_target, serial_port
from xzmem.device.errors import DeviceError

# The device's vocabulary, as lib/memory/tool_schema.py defines it (a test keeps the two equal).
MEMORY_TYPES = (
    "name", "age", "gender", "location", "birthday",
    "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal",
    "schedule", "chat", "coins", "mood",
)
RECALL_TYPES = ("fact", "moment", "event")

# Called with the device's notifications/message params (mcp.types.LoggingMessageNotificationParams:
# level, logger, data).
OnMessage = Callable[[Any], Awaitable[None]]


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
        # Each link's module is imported only when a device of its kind is opened (see mcp_link).
        if is_websocket_target(target):
            from xzmem.device.mcp_link import WebSocketLink

            self._link: Any = WebSocketLink(
                target, token, connect_timeout, call_timeout, reconnect_attempts, backoff, on_message
            )
        else:
            from xzmem.device.serial_link import SerialLink

            self._link = SerialLink(serial_port(target), call_timeout, serial_transport)
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

