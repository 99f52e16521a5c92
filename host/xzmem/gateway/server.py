"""The host gateway devices connect out to, and through which host tools reach them.

Paths on one port:
- `/mcp/`          a device dials in as an MCP endpoint client (it is the MCP server on the socket);
                   token in `?token=`, device id in the `Device-Id` header or `?device=`.
- `/xiaozhi/v1/`   a device speaks the xiaozhi WebSocket protocol (hello, `{"type":"mcp"}` envelopes);
                   token as `Authorization: Bearer`, id in `Device-Id`.
- `/devices/<id>/mcp`  host tools (xzmem CLI, chat, the MCP SDK) connect here and talk plain MCP
                   to that device; request ids are rewritten so that several callers never clash.
- `GET /devices`   JSON list of the connected devices.

Credentials: the gateway's token is the host's; it opens `/devices` paths and nothing else. Each
device connects with its own token, derived from the gateway's token and its device id
(`device_token()`, printed by `xzmem gateway --device-config ID`): it binds that id, so a device
cannot connect as another one, take over its id, or reach any device's memory through `/devices`.
An answer from a device is passed on only for a request that was sent to that same device.

One session per device id: a device that reconnects (with its token) replaces its old session. Reminders a device
sends (notifications/message from logger memory.reminder, or listen/detect text) are handed to
`on_event` and forwarded to the host tools attached to that device.
"""

import asyncio
import base64
import hashlib
import hmac
import itertools
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import parse_qs, urlparse

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

ENDPOINT_PATH = "/mcp/"
XIAOZHI_PATH = "/xiaozhi/v1/"
DEVICES_PATH = "/devices"
DEFAULT_PORT = 8766
REMINDER_LOGGER = "memory.reminder"
HELLO_TIMEOUT = 10.0
DEVICE_GONE = -32000  # JSON-RPC server error: the device is not (or no longer) connected
DEVICE_ID = re.compile(r"[A-Za-z0-9:._-]{1,64}")  # MAC forms, `xzmem sim` ids, names a user picks


def device_token(gateway_token: str, device_id: str) -> str:
    """The token device `device_id` connects with: an HMAC of its id under the gateway's token, so
    the gateway keeps no list, and knowing one device's token tells nothing about another's."""
    mac = hmac.new(gateway_token.encode(), b"xzmem device " + device_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:18]).decode()


@dataclass
class Event:
    """Something a user may want to see."""

    kind: str  # connected, disconnected, reminder, or refused (a device with a wrong token)
    device_id: str
    link: str  # endpoint or xiaozhi
    data: dict = field(default_factory=dict)


@dataclass(eq=False)
class DeviceSession:
    device_id: str
    link: str
    ws: ServerConnection
    session_id: str | None = None
    connected_at: float = field(default_factory=time.time)

    async def send(self, payload: dict) -> None:
        if self.link == "xiaozhi":
            await self.ws.send(json.dumps({"session_id": self.session_id, "type": "mcp", "payload": payload}, ensure_ascii=False))
        else:
            await self.ws.send(json.dumps(payload, ensure_ascii=False))


@dataclass
class _Pending:
    client: ServerConnection
    original_id: object
    session: DeviceSession


def _error(rid, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def _norm(path: str) -> str:
    return path if path.endswith("/") else path + "/"


def request_token(request: Request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    values = parse_qs(urlparse(request.path).query).get("token")
    return values[0] if values else None


def _pick_mcp(connection, offered):
    # Host MCP clients ask for the "mcp" subprotocol; devices ask for none. Both are welcome.
    return "mcp" if "mcp" in offered else None


class Gateway:
    """A websockets server; `async with Gateway(token) as gw:` runs it (port 0 picks a free one)."""

    def __init__(self, token: str, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 on_event: Callable[[Event], None] | None = None, hello_timeout: float = HELLO_TIMEOUT):
        if not token:
            raise ValueError("the gateway needs a token: devices and host tools must present it")
        self.token = token
        self.host = host
        self.port = port
        self.on_event = on_event or (lambda event: None)
        self.hello_timeout = hello_timeout
        self.devices: dict[str, DeviceSession] = {}
        self.clients: dict[str, set[ServerConnection]] = {}
        self._pending: dict[str, _Pending] = {}
        self.refused_devices: dict[str, int] = {}  # device id -> connections refused for a wrong token
        self.forged_answers = 0  # answers from a device for no request sent to it, dropped
        self._ids = itertools.count(1)
        self._server = None

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.stop()

    async def start(self) -> "Gateway":
        self._server = await serve(self._handle, self.host, self.port, process_request=self._check,
                                   select_subprotocol=_pick_mcp, max_size=1 << 20)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def serve_forever(self) -> None:
        await self._server.serve_forever()

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def device_url(self, device_id: str) -> str:
        return f"{self.url}{DEVICES_PATH}/{device_id}/mcp?token={self.token}"

    def listing(self) -> list[dict]:
        return [{"device_id": s.device_id, "link": s.link, "connected_at": int(s.connected_at),
                 "clients": len(self.clients.get(s.device_id, ()))} for s in self.devices.values()]

    # ---- HTTP: routing, tokens, the device list ----

    def device_endpoint_url(self, device_id: str) -> str:
        """The endpoint_url device `device_id` dials, with its own token."""
        return f"{self.url}{ENDPOINT_PATH}?token={device_token(self.token, device_id)}"

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        path = urlparse(request.path).path
        token = request_token(request)
        if token is None:
            return connection.respond(HTTPStatus.UNAUTHORIZED, "missing or wrong token\n")
        if _norm(path) in (ENDPOINT_PATH, XIAOZHI_PATH):
            device_id = self._device_id(request)
            if not device_id:
                return connection.respond(HTTPStatus.BAD_REQUEST, "say which device: a Device-Id header or ?device=ID\n")
            if not DEVICE_ID.fullmatch(device_id):
                return connection.respond(HTTPStatus.BAD_REQUEST, "a device id is 1-64 of A-Z a-z 0-9 : . _ -\n")
            if not hmac.compare_digest(token.encode(), device_token(self.token, device_id).encode()):
                self.refused_devices[device_id] = self.refused_devices.get(device_id, 0) + 1
                self.on_event(Event("refused", device_id, "endpoint" if _norm(path) == ENDPOINT_PATH else "xiaozhi"))
                return connection.respond(HTTPStatus.UNAUTHORIZED, f"wrong token for device {device_id}: each device "
                                          f"has its own (xzmem gateway --device-config {device_id})\n")
            return None
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "missing or wrong token\n")
        if path.rstrip("/") == DEVICES_PATH:
            body = json.dumps(self.listing(), ensure_ascii=False).encode()
            return Response(200, "OK", Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body)))]), body)
        target = self._target(path)
        if target is not None:
            if target not in self.devices:
                return connection.respond(HTTPStatus.NOT_FOUND, f"device {target} is not connected\n")
            return None
        return connection.respond(HTTPStatus.NOT_FOUND, "paths: /mcp/, /xiaozhi/v1/, /devices, /devices/<id>/mcp\n")

    @staticmethod
    def _device_id(request: Request) -> str:
        values = parse_qs(urlparse(request.path).query).get("device")
        return (values[0] if values else request.headers.get("Device-Id", "")).strip()

    @staticmethod
    def _target(path: str) -> str | None:
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == DEVICES_PATH.strip("/") and parts[2] == "mcp" and parts[1]:
            return parts[1]
        return None

    async def _handle(self, ws: ServerConnection) -> None:
        path = urlparse(ws.request.path).path
        if _norm(path) == ENDPOINT_PATH:
            await self._device(ws, "endpoint")
        elif _norm(path) == XIAOZHI_PATH:
            await self._device(ws, "xiaozhi")
        else:
            await self._client(ws, self._target(path))

    # ---- devices ----

    async def _device(self, ws: ServerConnection, link: str) -> None:
        session = DeviceSession(self._device_id(ws.request), link, ws)
        if link == "xiaozhi" and not await self._hello(session):
            return
        old = self.devices.get(session.device_id)
        self.devices[session.device_id] = session
        if old is not None:
            self._drop(old, "the device connected again")
            asyncio.create_task(old.ws.close(1000, "replaced by a new connection"))
        self.on_event(Event("connected", session.device_id, link))
        try:
            async for message in ws:
                if isinstance(message, bytes):
                    continue  # audio: nothing here plays it
                try:
                    msg = json.loads(message)
                except ValueError:
                    continue
                if link == "xiaozhi":
                    await self._from_xiaozhi(session, msg)
                else:
                    await self._from_device(session, msg)
        except ConnectionClosed:
            pass
        finally:
            if self.devices.get(session.device_id) is session:
                del self.devices[session.device_id]
                self.on_event(Event("disconnected", session.device_id, link))
            self._drop(session, "the device disconnected before answering")

    async def _hello(self, session: DeviceSession) -> bool:
        try:
            hello = json.loads(await asyncio.wait_for(session.ws.recv(), self.hello_timeout))
        except (TimeoutError, asyncio.TimeoutError, ConnectionClosed, ValueError, TypeError):
            await session.ws.close(1002, "expected a hello")
            return False
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            await session.ws.close(1002, "expected a hello")
            return False
        session.session_id = str(uuid.uuid4())
        await session.ws.send(json.dumps({"type": "hello", "transport": "websocket", "session_id": session.session_id,
                                          "audio_params": hello.get("audio_params") or {}}))
        return True

    async def _from_xiaozhi(self, session: DeviceSession, msg) -> None:
        if not isinstance(msg, dict):
            return
        if msg.get("type") == "mcp":
            await self._from_device(session, msg.get("payload"))
        elif msg.get("type") == "listen" and msg.get("state") == "detect" and isinstance(msg.get("text"), str):
            await self._reminder(session, {"text": msg["text"]})

    async def _from_device(self, session: DeviceSession, msg) -> None:
        if isinstance(msg, list):
            for m in msg:
                await self._from_device(session, m)
            return
        if not isinstance(msg, dict):
            return
        if "method" in msg:
            params = msg.get("params") or {}
            if msg["method"] == "notifications/message" and isinstance(params, dict) and params.get("logger") == REMINDER_LOGGER:
                data = params.get("data")
                await self._reminder(session, data if isinstance(data, dict) else {"text": str(data)}, msg)
            return
        gid = msg.get("id")
        pending = self._pending.get(gid) if isinstance(gid, str) else None
        if pending is None:
            return  # an answer nobody waits for (its caller left)
        if pending.session is not session:
            self.forged_answers += 1  # another device's request: only the device asked may answer it
            return
        del self._pending[gid]
        msg["id"] = pending.original_id
        try:
            await pending.client.send(json.dumps(msg, ensure_ascii=False))
        except ConnectionClosed:
            pass

    async def _reminder(self, session: DeviceSession, data: dict, notification: dict | None = None) -> None:
        self.on_event(Event("reminder", session.device_id, session.link, data))
        text = json.dumps(notification or {"jsonrpc": "2.0", "method": "notifications/message",
                                           "params": {"level": "info", "logger": REMINDER_LOGGER, "data": data}}, ensure_ascii=False)
        for client in list(self.clients.get(session.device_id, ())):
            try:
                await client.send(text)
            except ConnectionClosed:
                pass

    def _drop(self, session: DeviceSession, why: str) -> None:
        """Answer every request still waiting on this device session with an error."""
        for gid, p in list(self._pending.items()):
            if p.session is session:
                del self._pending[gid]
                asyncio.create_task(self._tell(p.client, _error(p.original_id, DEVICE_GONE, why)))

    @staticmethod
    async def _tell(client: ServerConnection, text: str) -> None:
        try:
            await client.send(text)
        except ConnectionClosed:
            pass

    # ---- host tools ----

    async def _client(self, ws: ServerConnection, device_id: str) -> None:
        self.clients.setdefault(device_id, set()).add(ws)
        try:
            async for message in ws:
                await self._from_client(ws, device_id, message)
        except ConnectionClosed:
            pass
        finally:
            self.clients[device_id].discard(ws)
            for gid, p in list(self._pending.items()):
                if p.client is ws:
                    del self._pending[gid]

    async def _from_client(self, ws: ServerConnection, device_id: str, message) -> None:
        try:
            msg = json.loads(message)
        except ValueError:
            await ws.send(_error(None, -32700, "parse error: the message is not JSON"))
            return
        if not isinstance(msg, dict):
            await ws.send(_error(None, -32600, "send one JSON-RPC object per message (batches are not forwarded)"))
            return
        session = self.devices.get(device_id)
        if "method" not in msg:
            return  # a response: devices send no requests through the gateway
        if "id" not in msg:
            if session is not None:
                await session.send(msg)  # notifications/initialized, cancelled...
            return
        if session is None:
            await ws.send(_error(msg["id"], DEVICE_GONE, f"device {device_id} is not connected"))
            return
        original, gid = msg["id"], f"gw-{next(self._ids)}"
        self._pending[gid] = _Pending(ws, original, session)
        msg["id"] = gid
        try:
            await session.send(msg)
        except ConnectionClosed:
            self._pending.pop(gid, None)
            await ws.send(_error(original, DEVICE_GONE, f"device {device_id} went away"))
