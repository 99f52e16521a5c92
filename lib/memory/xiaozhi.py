# xiaozhi link: the device side of the xiaozhi WebSocket protocol, used for MCP and reminders only.
#
# Headers Authorization / Protocol-Version / Device-Id / Client-Id, a hello with features.mcp, MCP in
# {"type":"mcp","payload":...} envelopes both ways, reminders as listen/detect text. No audio.

import asyncio

from micropython import const

from memory import mcp, outlink, ws

PROTOCOL_VERSION = const(1)
HELLO_TIMEOUT = const(10)
_MAX_SAID = const(200)  # characters of a server's plain-text message that are logged  # seconds the server has to answer our hello, as the xiaozhi firmware waits
_AUDIO_PARAMS = {"format": "opus", "sample_rate": 16000, "channels": 1, "frame_duration": 60}


def hello_message():
    """The device hello: protocol version 1, MCP supported, WebSocket transport."""
    return mcp.dumps({"type": "hello", "version": PROTOCOL_VERSION, "features": {"mcp": True}, "transport": "websocket", "audio_params": _AUDIO_PARAMS})


def envelope(kind_json, session_id):
    """Prefix for a message of one type (given as JSON text), with the session id once the server gave one."""
    if session_id is None:
        return '{"type":%s' % kind_json
    return '{"session_id":%s,"type":%s' % (mcp.dumps(session_id), kind_json)


def mcp_envelope(payload, session_id=None):
    """{"session_id":..,"type":"mcp","payload":..} around a JSON-RPC message that is already text.

    A payload given as an iterator of pieces (a streamed answer) gives an iterator of pieces too.
    """
    head = envelope('"mcp"', session_id) + ',"payload":'
    if isinstance(payload, str):
        return head + payload + "}"
    return _enclosed(head, payload, "}")


def _enclosed(head, pieces, tail):
    yield head
    yield from pieces
    yield tail


def listen_detect(text, session_id=None):
    """The message that makes a xiaozhi server respond to `text` as if the user had said it."""
    return envelope('"listen"', session_id) + ',"state":"detect","text":' + mcp.dumps(text) + "}"


class HelloError(Exception):
    pass


class XiaozhiLink(outlink.OutboundLink):
    """Serves the dispatcher to a xiaozhi server (xinnan xiaozhi-esp32-server, xzmem gateway)."""

    kind = "xiaozhi"

    def __init__(self, url, token, device_id, client_id, dispatcher, announcer=None, prefix="", **kwargs):
        super().__init__(url, dispatcher, announcer, **kwargs)
        self.token = token
        self.device_id = device_id
        self.client_id = client_id
        self.prefix = prefix
        self.hello_timeout = HELLO_TIMEOUT
        self.session_id = None
        self.ready = False  # the server answered our hello

    def headers(self):
        h = [("Protocol-Version", str(PROTOCOL_VERSION)), ("Device-Id", self.device_id), ("Client-Id", self.client_id)]
        if self.token:
            h.insert(0, ("Authorization", "Bearer " + self.token))
        return h

    async def session(self, sock):
        self.session_id = None
        self.ready = False
        await sock.send(hello_message())
        timer = asyncio.create_task(self._hello_deadline(sock))
        try:
            while True:
                try:
                    msg = await sock.recv()
                except ws.MessageTooBig as e:  # read past: answered in an envelope, the link goes on
                    await sock.send(mcp_envelope(self.dispatcher.too_big(e), self.session_id))
                    continue
                if isinstance(msg, bytes):
                    continue  # audio frames: this link has no speaker
                out = await self.on_text(msg)
                msg = None
                if out is not None:
                    await sock.send(out)
                out = None  # not held while the next message is awaited (a streamed answer holds its records)
                await asyncio.sleep(0)  # a turn for the other links after each message (memory.server)
        finally:
            timer.cancel()

    async def _hello_deadline(self, sock):
        await asyncio.sleep(self.hello_timeout)
        if not self.ready:
            self.log("%s: no hello from the server in %d s, reconnecting" % (self.link.name, self.hello_timeout))
            sock.abort()

    async def on_text(self, text):
        """What to send back for one text message from the server: None, a str, or an iterator of pieces."""
        try:
            if not mcp.whole_json(text):
                raise ValueError("cut off")
            msg = mcp.loads(text)
        except ValueError:
            # A server that refuses the token may say so in plain text before it closes: show its words.
            said = text[:_MAX_SAID] if isinstance(text, str) else str(text[: ws.char_start(text, _MAX_SAID)], "utf-8")
            self.log("%s: the server said (not JSON): %s" % (self.link.name, said))
            return None
        if not isinstance(msg, dict):
            return None
        kind = msg.get("type")
        if kind == "mcp":
            payload = msg.get("payload")
            if not isinstance(payload, (dict, list)):
                self.log("%s: ignored an mcp message without a payload object" % self.link.name)
                return None
            reply = await self.dispatcher.handle_parsed_async(payload, self.link)
            return None if reply is None else mcp_envelope(reply, self.session_id)
        if kind == "hello":
            self.on_hello(msg)
        return None  # stt, tts, llm, system...: a voice client's business, not ours

    def on_hello(self, msg):
        if msg.get("transport") != "websocket":
            raise HelloError("server hello has transport %r, expected websocket" % (msg.get("transport"),))
        sid = msg.get("session_id")
        self.session_id = sid if isinstance(sid, str) and sid else None
        if not self.ready:
            self.ready = True
            self.healthy = True
            self.attach_reminders()

    def reminder_message(self, item):
        return listen_detect(self.prefix + item["text"], self.session_id)
