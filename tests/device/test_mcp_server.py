# memory.server: token check before the upgrade, sessions, client limit, broadcast, crash isolation,
# driven through in-memory streams so that it runs under MicroPython too.

import json
import struct
import unittest

from memory import gate, mcp, server, ws
from ws_fakes import FakeStream, close_code, ensure_sha1, read_frames

ensure_sha1()

KEY = b"\x01\x02\x03\x04"
TOKEN = "tok/en+1"


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."

    def call(self, arguments, link):
        return {"echo": arguments, "trusted": link.trusted}


class Broken(mcp.Dispatcher):
    async def handle_async(self, text, link):
        raise RuntimeError("bug")


def make_server(d=None, **kwargs):
    if d is None:
        d = mcp.Dispatcher()
        d.add(Echo())
    logged = []
    s = server.Server(d, TOKEN, host="127.0.0.1", log=logged.append, **kwargs)
    s.logged = logged
    return s


def upgrade(target="/mcp", auth="Bearer " + TOKEN, protocols="mcp"):
    head = "GET %s HTTP/1.1\r\nHost: dev\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" % target
    head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    if auth:
        head += "Authorization: %s\r\n" % auth
    if protocols:
        head += "Sec-WebSocket-Protocol: %s\r\n" % protocols
    return (head + "\r\n").encode()


def text_frame(obj):
    return ws.encode_frame(ws.OP_TEXT, json.dumps(obj).encode(), True, KEY)


def close_frame(code=1000):
    return ws.encode_frame(ws.OP_CLOSE, struct.pack(">H", code), True, KEY)


def split_reply(out):
    head, _, rest = bytes(out).partition(b"\r\n\r\n")
    return head.decode(), read_frames(rest)


async def session(s, *frames, **upgrade_args):
    stream = FakeStream(upgrade(**upgrade_args) + b"".join(frames))
    await s._serve(stream, stream)
    return stream


class SocketBudget(unittest.TestCase):
    def test_clients_shrink_with_the_links_so_sockets_stay_under_esp_idfs_ten(self):
        # listener + links + clients + one connection accepted only to be refused + one for NTP or DNS
        held = [1 + links + server.client_budget(links) + 1 + 1 for links in (0, 1, 2)]
        self.assertEqual([server.client_budget(links) for links in (0, 1, 2)], [6, 5, 4])
        self.assertTrue(max(held) < 10)


class Auth(unittest.TestCase):
    def test_token_rules(self):
        self.assertTrue(gate.same_secret("abc", "abc"))
        for bad in ("", "ab", "abcd", "abd", "ABC"):
            self.assertTrue(not gate.same_secret(bad, "abc"), bad)
        self.assertRaises(ValueError, server.Server, mcp.Dispatcher(), "")
        self.assertRaises(ValueError, server.Server, mcp.Dispatcher(), None)

    async def test_bearer_and_query_tokens_are_accepted(self):
        for args in ({}, {"auth": "bearer " + TOKEN}, {"auth": None, "target": "/mcp?token=tok%2Fen%2B1"}):
            s = make_server()
            stream = await session(s, text_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"}), close_frame(), **args)
            head, frames = split_reply(stream.out)
            self.assertTrue(head.startswith("HTTP/1.1 101 "), (args, head))
            self.assertEqual(json.loads(frames[0][3]), {"jsonrpc": "2.0", "id": 1, "result": {}})
            self.assertEqual(close_code(frames[1]), 1000)
            self.assertEqual(s.connections, [])

    async def test_missing_or_wrong_token_is_401_before_upgrade(self):
        cases = (
            {"auth": None},
            {"auth": "Bearer wrong"},
            {"auth": "Basic " + TOKEN},
            {"auth": None, "target": "/mcp?token=wrong"},
            {"auth": None, "target": "/mcp?token="},
            {"auth": "Bearer " + TOKEN + "x"},
        )
        for args in cases:
            s = make_server()
            stream = await session(s, text_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"}), **args)
            head, _ = split_reply(stream.out)
            self.assertTrue(head.startswith("HTTP/1.1 401 Unauthorized"), (args, head))
            self.assertTrue("Sec-WebSocket-Accept" not in head)
            self.assertTrue(stream.closed)
            self.assertEqual(s.refused, 1)

    async def test_other_paths_are_404(self):
        stream = await session(make_server(), target="/other?token=" + TOKEN)
        self.assertTrue(bytes(stream.out).startswith(b"HTTP/1.1 404 "))

    async def test_client_limit_is_503(self):
        s = make_server(max_clients=1)
        s.connections.append(object())
        stream = await session(s)
        self.assertTrue(bytes(stream.out).startswith(b"HTTP/1.1 503 "))


class Sessions(unittest.TestCase):
    async def test_requests_are_answered_in_order_with_the_subprotocol(self):
        s = make_server()
        stream = await session(
            s,
            text_frame({"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "echo", "arguments": {"x": 1}}}),
            text_frame({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ws.encode_frame(ws.OP_BINARY, b'{"jsonrpc":"2.0","id":"b","method":"ping"}', True, KEY),
            ws.encode_frame(ws.OP_TEXT, b"not json", True, KEY),
            close_frame(),
        )
        head, frames = split_reply(stream.out)
        self.assertTrue(head.endswith("\r\nSec-WebSocket-Protocol: mcp"), head)
        replies = [json.loads(f[3]) for f in frames if f[1] == ws.OP_TEXT]
        self.assertEqual([r["id"] for r in replies], ["a", "b", None])
        self.assertEqual(json.loads(replies[0]["result"]["content"][0]["text"]), {"echo": {"x": 1}, "trusted": True})
        self.assertEqual(replies[2]["error"]["code"], -32700)

    async def test_a_crash_in_one_connection_is_logged_and_contained(self):
        s = make_server(Broken())
        stream = await session(s, text_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        self.assertEqual(s.connections, [])
        self.assertTrue(stream.closed)
        self.assertEqual(len(s.logged), 1)
        self.assertIn("bug", s.logged[0])

    async def test_an_oversized_message_is_answered_with_its_id_and_the_session_goes_on(self):
        s = make_server()
        big = {"jsonrpc": "2.0", "id": "w-1", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "记" * 6000}}}
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        stream = await session(s, text_frame(big), text_frame(ping), close_frame())
        _, frames = split_reply(stream.out)
        answers = [json.loads(f[3].decode()) for f in frames if f[1] == ws.OP_TEXT]
        self.assertEqual(answers[0]["id"], "w-1")
        self.assertEqual(answers[0]["error"]["code"], -32600)
        message = answers[0]["error"]["message"]
        self.assertTrue(str(ws.MAX_MESSAGE) in message and str(len(json.dumps(big).encode())) in message, message)
        self.assertEqual(answers[1], {"jsonrpc": "2.0", "id": 2, "result": {}})
        self.assertEqual(close_code(frames[-1]), 1000)

    async def test_a_message_over_what_can_be_read_past_still_closes_with_1009(self):
        s = make_server()
        stream = await session(s, ws.frame_header(ws.OP_TEXT, ws.SKIP_MAX + 1, True, KEY))
        _, frames = split_reply(stream.out)
        self.assertEqual(close_code(frames[-1]), 1009)
        self.assertEqual(s.connections, [])

    async def test_broadcast_reaches_live_connections(self):
        s = make_server()
        live = [FakeStream() for _ in range(3)]
        for f in live:
            s.connections.append(server.Connection(ws.WebSocket(f, f, False), ("10.0.0.2", 5)))
        live[1].closed = True  # a client that dropped: its write fails
        note = mcp.notification("notifications/message", {"level": "info", "logger": "memory.reminder", "data": {"title": "x"}})
        self.assertEqual(await s.broadcast(note), 2)
        for f in (live[0], live[2]):
            self.assertEqual(json.loads(read_frames(f.out)[0][3])["method"], "notifications/message")
