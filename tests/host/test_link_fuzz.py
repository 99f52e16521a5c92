"""Hypothesis throws malformed JSON-RPC, frames and tool arguments at the link: every request gets a
valid answer, the server and healthy connections stay up, rejected calls change no stored data."""

import asyncio
import json
import socket
import struct
import threading

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from link_helpers import TOKEN, Note, dispatcher
from memory import mcp, server, ws, wsclose
from websockets.sync.client import connect

pytestmark = pytest.mark.timeout(120)

FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
WIRE = settings(max_examples=1000, deadline=None, suppress_health_check=list(HealthCheck))
FRAMES = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
CODES = {-32700, -32600, -32601, -32602}  # -32603 would mean a bug in the dispatcher
UPGRADE = (
    b"GET /mcp HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    b"Authorization: Bearer " + TOKEN.encode() + b"\r\n\r\n"
)


class ServerThread:
    """Our server on its own event loop in a thread, so that tests can use blocking clients."""

    def __init__(self, d):
        self.loop = asyncio.new_event_loop()
        self.server = server.Server(d, TOKEN, host="127.0.0.1", port=0, max_clients=8, log=lambda msg: None)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.ready = threading.Event()
        self.thread.start()
        assert self.ready.wait(10)

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.start())
        self.ready.set()
        self.loop.run_forever()

    def stop(self):
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def live():
    d = dispatcher()
    t = ServerThread(d)
    t.note = d.find("note")
    with connect(t.server.url, subprotocols=["mcp"], additional_headers={"Authorization": "Bearer " + TOKEN}) as c:
        t.client = c
        yield t
    t.stop()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ids = st.none() | st.integers(-(2**63), 2**63) | st.text(max_size=40) | st.booleans() | st.floats() | st.lists(st.integers(), max_size=2)
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "notifications/initialized", "resources/read", ""]) | st.text(max_size=12)
note_args = st.dictionaries(
    st.sampled_from(["action", "slot", "text", "extra"]),
    st.sampled_from(["put", "get", "PUT"]) | st.integers(-3, 10) | st.text(max_size=40) | json_values,
    max_size=4,
)
params = (
    st.none()
    | json_values
    | st.fixed_dictionaries({}, optional={"cursor": st.text(max_size=10) | json_values, "withUserTools": json_values})
    | st.fixed_dictionaries(
        {"name": st.sampled_from(["echo", "note", "sync", "nope"]) | json_values},
        optional={"arguments": note_args | json_values},
    )
)


@st.composite
def rpc_messages(draw):
    msg = {}
    if draw(st.booleans()):
        msg["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2]))
    if draw(st.integers(0, 3)):
        msg["id"] = draw(ids)
    if draw(st.integers(0, 5)):
        msg["method"] = draw(methods)
    if draw(st.booleans()):
        msg["params"] = draw(params)
    if draw(st.integers(0, 9)) == 0:
        msg["result"] = draw(json_values)
    return msg


def is_request(msg):
    """Whether this message must be answered: requests and invalid messages are, notifications and
    responses (a message with result or error and no method) are not."""
    if not isinstance(msg, dict):
        return True
    if "id" in msg and not mcp._valid_id(msg["id"]):
        return True
    if msg.get("method") is None and ("result" in msg or "error" in msg):
        return False
    if msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
        return True
    return "id" in msg


def check_response(r, msg):
    assert r["jsonrpc"] == "2.0"
    assert ("result" in r) != ("error" in r)
    if "error" in r:
        assert r["error"]["code"] in CODES
        assert isinstance(r["error"]["message"], str)
    if isinstance(msg, dict) and "id" in msg and mcp._valid_id(msg["id"]):
        assert r["id"] == msg["id"]
    if "result" in r and isinstance(msg, dict) and msg.get("method") == "tools/call":
        res = r["result"]
        assert isinstance(res["isError"], bool)
        assert res["content"][0]["type"] == "text"
        assert sorted(res) == ["content", "isError"] and len(res["content"]) == 1


# ---- the dispatcher alone: thousands of messages, fast ----


def joined(out):
    """An answer as one text: tools/list (and a streamed tool result) come as pieces."""
    return out if out is None or isinstance(out, str) else "".join(out)


@FUZZ
@given(st.text(max_size=60) | st.binary(max_size=60).map(lambda b: b.decode("latin-1")))
def test_any_text_gets_a_valid_answer(text):
    d = dispatcher()
    out = joined(d.handle(text, mcp.Link("fuzz", True)))
    if out is not None:
        r = json.loads(out)
        for one in r if isinstance(r, list) else [r]:
            check_response(one, None)


@FUZZ
@given(rpc_messages() | json_values | st.lists(rpc_messages(), min_size=1, max_size=3))
def test_every_request_is_answered_once_and_correctly(msg):
    d = dispatcher()
    text = json.dumps(msg)
    out = joined(d.handle(text, mcp.Link("fuzz", len(text) % 2 == 0)))
    if isinstance(msg, list) and msg:
        expected = [m for m in msg if is_request(m)]
        got = json.loads(out) if out is not None else []
        assert isinstance(got, list)
        assert len(got) == len(expected)
        for r, m in zip(got, expected, strict=True):
            check_response(r, m)
        return
    if not is_request(msg):
        assert out is None
        return
    assert out is not None
    check_response(json.loads(out), msg)


@FUZZ
@given(note_args | json_values)
def test_rejected_tool_calls_leave_stored_data_alone(args):
    d = dispatcher()
    note = d.find("note")
    note.slots = {1: "kept"}
    before = dict(note.slots)
    r = json.loads(d.handle(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "note", "arguments": args}}), mcp.Link("f", True)))
    accepted = "result" in r and not r["result"]["isError"]
    if accepted and args.get("action") == "put":
        assert note.slots == {**before, args["slot"]: args["text"]}
    else:
        assert note.slots == before


# ---- over the wire ----


def exchange(c, text, expect):
    """Send one message then a marker ping; return the answers that came before the marker's."""
    c.send(text)
    c.send('{"jsonrpc":"2.0","id":"marker","method":"ping"}')
    answers = []
    while True:
        r = json.loads(c.recv(timeout=10))
        if isinstance(r, dict) and r.get("id") == "marker":
            assert len(answers) == expect, (text, answers)
            return answers
        answers.append(r)


@WIRE
@given(rpc_messages())
def test_wire_requests_all_answered_on_one_connection(live, msg):
    for r in exchange(live.client, json.dumps(msg), 1 if is_request(msg) else 0):
        check_response(r, msg)


@WIRE
@given(note_args)
def test_wire_note_calls_change_data_only_when_accepted(live, args):
    before = dict(live.note.slots)
    msg = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "note", "arguments": args}}
    (r,) = exchange(live.client, json.dumps(msg), 1)
    check_response(r, msg)
    if not r["result"]["isError"] and args.get("action") == "put":
        before[args["slot"]] = args["text"]
    assert live.note.slots == before


@st.composite
def frames(draw):
    """A client frame with random flags, opcode, mask and a length that may lie."""
    op = draw(st.integers(0, 15))
    fin = draw(st.booleans())
    rsv = draw(st.sampled_from([0, 0, 0, 0x10, 0x40]))
    payload = draw(st.binary(max_size=40))
    masked = draw(st.integers(0, 4)) != 0
    declared = draw(st.sampled_from([len(payload), len(payload), 126, 127, 20000, 1 << 40, max(0, len(payload) - 3)]))
    b0 = (0x80 if fin else 0) | rsv | op
    if declared < 126:
        head = struct.pack(">BB", b0, (0x80 if masked else 0) | declared)
    elif declared < 65536:
        head = struct.pack(">BBH", b0, (0x80 if masked else 0) | 126, declared)
    else:
        head = struct.pack(">BBQ", b0, (0x80 if masked else 0) | 127, declared)
    key = draw(st.binary(min_size=4, max_size=4)) if masked else b""
    return head + key + (ws.mask(payload, key) if masked else payload)


def read_server_frames(data, complete):
    """Parse what the server sent back; every frame must be well formed and unmasked.

    After a reset (the server closed with our garbage unread) the tail may be lost: `complete` False.
    """
    out, i = [], 0
    while i < len(data):
        if i + 2 > len(data):
            assert not complete, "truncated frame header"
            break
        b0, b1 = data[i], data[i + 1]
        assert not b1 & 0x80 and not b0 & 0x70
        n, i = b1 & 0x7F, i + 2
        if n == 126:
            n, i = struct.unpack(">H", data[i : i + 2])[0], i + 2
        elif n == 127:
            n, i = struct.unpack(">Q", data[i : i + 8])[0], i + 8
        if i + n > len(data):
            assert not complete, "truncated frame"
            break
        out.append((b0 & 0x0F, data[i : i + n]))
        i += n
    return out


@FRAMES
@given(st.lists(frames() | st.binary(min_size=1, max_size=30), min_size=1, max_size=4))
def test_malformed_frames_close_cleanly_and_the_server_lives_on(live, chunks):
    sock = socket.create_connection(("127.0.0.1", live.server.port), timeout=10)
    try:
        sock.sendall(UPGRADE)
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 101 ")
        rest = head.split(b"\r\n\r\n", 1)[1]
        try:
            sock.sendall(b"".join(chunks))
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may already have closed on the first bad frame
        data = rest
        complete = True
        while True:
            try:
                more = sock.recv(65536)
            except ConnectionResetError:
                complete = False
                break
            if not more:
                break
            data += more
    finally:
        sock.close()
    for op, payload in read_server_frames(data, complete):
        assert op in (ws.OP_TEXT, ws.OP_PONG, ws.OP_CLOSE)
        code = struct.unpack(">H", payload[:2])[0] if op == ws.OP_CLOSE and payload else None
        event(f"server sent opcode {op}" + (f" code {code}" if code else ""))
        if op == ws.OP_TEXT:
            check_response(json.loads(payload), None)
        if op == ws.OP_CLOSE and payload:
            assert wsclose.valid_close_code(struct.unpack(">H", payload[:2])[0])
    (r,) = exchange(live.client, '{"jsonrpc":"2.0","id":1,"method":"ping"}', 1)
    assert r["result"] == {}


def test_no_connection_is_leaked(live):
    for _ in range(100):
        if len(live.server.connections) == 1:
            break
        threading.Event().wait(0.05)
    assert len(live.server.connections) == 1  # only the healthy client of this module
    assert isinstance(live.note, Note)
