"""Test peers for the device's outbound links, written from the protocols rather than from our code.

- XiaozhiServer: a xiaozhi WebSocket server (78/xiaozhi-esp32 docs/websocket.md, mcp-protocol.md):
  checks the four headers, reads the device hello, answers with its own hello (or not), and talks
  MCP inside {"type":"mcp","payload":...} envelopes the way xinnan's server does (initialize and
  tools/list may come before its hello).
- EndpointRelay: an MCP endpoint like xinnan's mcp-endpoint-server: the device is the MCP server,
  and every request id is rewritten to "<uuid>_n_<id>" / "<uuid>_s_<id>" before it reaches it.
"""

import asyncio
import itertools
import json
import re
import uuid
from urllib.parse import parse_qs, quote, urlparse

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class Session:
    """One connected device as the server sees it: send MCP requests, collect what comes back."""

    def __init__(self, ws, headers, envelope=True):
        self.ws = ws
        self.headers = headers
        self.envelope = envelope
        self.hello = None  # the device's hello (xiaozhi)
        self.replies = {}  # payload id -> future
        self.listens = asyncio.Queue()  # listen messages (reminders on the xiaozhi link)
        self.notifications = asyncio.Queue()  # JSON-RPC notifications from the device
        self.raw = []  # every text message received, parsed
        self.session_id = None
        self.closed = asyncio.Event()

    async def send_mcp(self, payload):
        if self.envelope:
            msg = {"type": "mcp", "payload": payload}
            if self.session_id:
                msg["session_id"] = self.session_id
            await self.ws.send(json.dumps(msg))
        else:
            await self.ws.send(json.dumps(payload))

    async def request(self, method, params=None, rid=1, timeout=5):
        """Send a request and wait for the response with exactly this id (as the device echoes it)."""
        payload = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            payload["params"] = params
        fut = asyncio.get_running_loop().create_future()
        self.replies[json.dumps(rid)] = fut
        await self.send_mcp(payload)
        return await asyncio.wait_for(fut, timeout)

    def on_payload(self, payload):
        if isinstance(payload, dict) and "id" in payload and "method" not in payload:
            fut = self.replies.pop(json.dumps(payload["id"]), None)
            if fut and not fut.done():
                fut.set_result(payload)
        elif isinstance(payload, dict) and "method" in payload:
            self.notifications.put_nowait(payload)


class _Base:
    scheme = "ws"

    def __init__(self, ssl=None):
        self.ssl = ssl
        if ssl is not None:
            self.scheme = "wss"
        self.sessions = asyncio.Queue()
        self.errors = []  # protocol violations by the device
        self.count = 0
        self._server = None
        self.port = None

    async def __aenter__(self):
        self._server = await serve(self._handler, "127.0.0.1", 0, ssl=self.ssl)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self._server.close()
        await self._server.wait_closed()

    async def next_session(self, timeout=5):
        return await asyncio.wait_for(self.sessions.get(), timeout)

    async def _read(self, ws, session, on_message):
        try:
            async for message in ws:
                if isinstance(message, bytes):
                    self.errors.append("device sent a binary frame")
                    continue
                try:
                    data = json.loads(message)
                except ValueError:
                    self.errors.append(f"device sent non-JSON text {message[:60]!r}")
                    continue
                session.raw.append(data)
                on_message(data)
        except ConnectionClosed:
            pass
        finally:
            session.closed.set()


class XiaozhiServer(_Base):
    """`say_hello`: answer the device hello; `mcp_before_hello`: send initialize before answering (as xinnan does)."""

    def __init__(self, token, say_hello=True, mcp_before_hello=True, path="/xiaozhi/v1/", refuse_with=None):
        super().__init__()
        self.token = token
        # A wrong token: accept the upgrade, say this in plain text and close, as xinnan's server does.
        self.refuse_with = refuse_with
        self.say_hello = say_hello
        self.mcp_before_hello = mcp_before_hello
        self.path = path
        self.early_init = {}  # session number -> the initialize response that came before our hello

    @property
    def url(self):
        return f"ws://127.0.0.1:{self.port}{self.path}"

    def _check_headers(self, h):
        if h.get("Authorization") != f"Bearer {self.token}":
            self.errors.append(f"Authorization header is {h.get('Authorization')!r}")
        if h.get("Protocol-Version") != "1":
            self.errors.append(f"Protocol-Version header is {h.get('Protocol-Version')!r}")
        if not MAC.match(h.get("Device-Id", "")):
            self.errors.append(f"Device-Id is not a MAC: {h.get('Device-Id')!r}")
        if not UUID.match(h.get("Client-Id", "")):
            self.errors.append(f"Client-Id is not a UUID: {h.get('Client-Id')!r}")

    async def _handler(self, ws):
        self.count += 1
        n = self.count
        h = ws.request.headers
        if self.refuse_with is not None and h.get("Authorization") != f"Bearer {self.token}":
            await ws.send(self.refuse_with)
            await ws.close()
            return
        if urlparse(ws.request.path).path != self.path:
            self.errors.append(f"device asked for path {ws.request.path}")
        self._check_headers(h)
        session = Session(ws, h)
        try:
            first = json.loads(await asyncio.wait_for(ws.recv(), 5))
        except (TimeoutError, ConnectionClosed, ValueError) as e:
            self.errors.append(f"no hello from the device: {e!r}")
            return
        session.hello = first
        if first.get("type") != "hello" or first.get("transport") != "websocket" or first.get("version") != 1:
            self.errors.append(f"bad device hello {first}")
        if not (first.get("features") or {}).get("mcp"):
            self.errors.append("device hello lacks features.mcp")

        def on_message(data):
            kind = data.get("type")
            if kind == "mcp":
                session.on_payload(data.get("payload"))
            elif kind == "listen":
                session.listens.put_nowait(data)
            if session.session_id and kind in ("mcp", "listen") and data.get("session_id") != session.session_id:
                self.errors.append(f"message without our session_id: {data}")

        reader = asyncio.create_task(self._read(ws, session, on_message))
        if self.mcp_before_hello:
            init = await session.request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "XiaozhiClient", "version": "1.0.0"}}, rid=1)
            self.early_init[n] = init
        if self.say_hello:
            session.session_id = f"sess-{n}"
            await ws.send(json.dumps({"type": "hello", "transport": "websocket", "session_id": session.session_id, "audio_params": {"format": "opus", "sample_rate": 24000, "channels": 1, "frame_duration": 60}}))
        await self.sessions.put(session)
        await reader


class EndpointRelay(_Base):
    """The device connects to /mcp_endpoint/mcp/?token=T; requests reach it with relay-rewritten ids."""

    def __init__(self, token, path="/mcp_endpoint/mcp/", ssl=None):
        super().__init__(ssl)
        self.token = token
        self.path = path
        self.conn_uuid = str(uuid.uuid4())
        self._ids = itertools.count(3)

    @property
    def url(self):
        return f"{self.scheme}://127.0.0.1:{self.port}{self.path}?token={quote(self.token, safe='')}"

    def rewrite(self, rid):
        return f"{self.conn_uuid}_{'n' if isinstance(rid, int) else 's'}_{rid}"

    async def _handler(self, ws):
        self.count += 1
        target = urlparse(ws.request.path)
        if target.path != self.path or parse_qs(target.query).get("token") != [self.token]:
            self.errors.append(f"device connected to {ws.request.path}")
            await ws.close(4001, "bad token")
            return
        session = Session(ws, ws.request.headers, envelope=False)
        reader = asyncio.create_task(self._read(ws, session, session.on_payload))
        await self.sessions.put(session)
        await reader
