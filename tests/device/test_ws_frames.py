# memory.ws: frames, masking, fragmentation, control frames, close codes and the HTTP upgrade,
# over in-memory streams (the WebAssembly port has no sockets).

import asyncio
import struct
import unittest

from memory import ws, wsclient, wshttp
from ws_fakes import FakeStream, close_code, ensure_sha1, in_task, read_frames

ensure_sha1()

KEY = b"\x37\xfa\x21\x3d"  # the masking key of RFC 6455 section 5.7


def client_frame(op, payload, fin=True):
    """A frame as a client sends it (masked)."""
    return ws.encode_frame(op, payload, fin, KEY)


def server_side(*frames):
    s = FakeStream(b"".join(frames))
    return s, ws.WebSocket(s, s, False)


def client_side(*frames):
    s = FakeStream(b"".join(frames))
    return s, ws.WebSocket(s, s, True)


async def expect_close(test, sock, code):
    try:
        got = await sock.recv()
    except ws.ConnectionClosed as e:
        test.assertEqual(e.code, code)
        return
    test.fail("expected close %d, received %r" % (code, got[:40]))


class Framing(unittest.TestCase):
    def test_rfc_masked_hello(self):
        frame = client_frame(ws.OP_TEXT, b"Hello")
        self.assertEqual(frame, bytes([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]))

    def test_mask_round_trip_and_lengths(self):
        for n in (0, 1, 3, 4, 5, 125, 126, 1000, 16384):
            data = bytes([(i * 7) % 256 for i in range(n)])
            self.assertEqual(ws.mask(ws.mask(data, KEY), KEY), data)
            self.assertEqual(len(ws.mask(data, KEY)), n)

    def test_header_length_forms(self):
        self.assertEqual(len(ws.frame_header(ws.OP_TEXT, 125)), 2)
        self.assertEqual(ws.frame_header(ws.OP_TEXT, 126), b"\x81\x7e\x00\x7e")
        self.assertEqual(ws.frame_header(ws.OP_BINARY, 65535), b"\x82\x7e\xff\xff")
        self.assertEqual(ws.frame_header(ws.OP_BINARY, 65536), b"\x82\x7f" + struct.pack(">Q", 65536))
        self.assertEqual(ws.frame_header(ws.OP_CONT, 3, fin=False), b"\x00\x03")

    async def test_server_reads_masked_text_and_binary(self):
        _, sock = server_side(client_frame(ws.OP_TEXT, "你好 memory".encode()), client_frame(ws.OP_BINARY, b"\x00\xff"))
        self.assertEqual(await sock.recv(), "你好 memory")
        self.assertEqual(await sock.recv(), b"\x00\xff")

    async def test_client_reads_unmasked_rfc_fragments(self):
        # RFC 6455 5.7: "Hel" then "lo", unmasked, from a server
        _, sock = client_side(bytes([0x01, 0x03, 0x48, 0x65, 0x6C]), bytes([0x80, 0x02, 0x6C, 0x6F]))
        self.assertEqual(await sock.recv(), "Hello")

    async def test_a_whole_buffer_in_one_frame_comes_as_a_view_of_it(self):
        payload = "记".encode() * (ws.MAX_MESSAGE // 3) + b"a" * (ws.MAX_MESSAGE % 3)
        _, sock = server_side(client_frame(ws.OP_TEXT, payload))
        got = await sock.recv()
        self.assertTrue(isinstance(got, memoryview), type(got))
        self.assertEqual(bytes(got), payload)

    async def test_long_text_that_is_not_utf8_closes_with_1007(self):
        # Checked in 256-byte pieces: the bad byte sits past the first piece, and a character
        # straddles a piece's end (a cut there must not read as an error).
        payload = bytearray("记".encode() * 900)
        payload[2000] = 0xFF
        s, sock = server_side(client_frame(ws.OP_TEXT, bytes(payload)))
        await expect_close(self, sock, 1007)
        self.assertEqual(close_code(read_frames(s.out)[-1]), 1007)
        _, sock = server_side(client_frame(ws.OP_TEXT, "记".encode() * 900))
        self.assertEqual(bytes(await sock.recv()), "记".encode() * 900)

    async def test_client_sends_masked_server_sends_plain(self):
        c, client = client_side()
        await client.send("hi")
        s, server = server_side()
        await server.send(b"\x01\x02")
        self.assertEqual(read_frames(c.out), [(True, ws.OP_TEXT, True, b"hi")])
        self.assertEqual(read_frames(s.out), [(True, ws.OP_BINARY, False, b"\x01\x02")])
        self.assertEqual(s.out[:2], b"\x82\x02")

    async def test_send_in_fragments(self):
        s, sock = server_side()
        await sock.send("abcdefgh", frame_size=3)
        frames = read_frames(s.out)
        self.assertEqual([(f[0], f[1], f[3]) for f in frames], [(False, ws.OP_TEXT, b"abc"), (False, ws.OP_CONT, b"def"), (True, ws.OP_CONT, b"gh")])


    async def test_big_masked_frame_goes_out_whole_and_unmasks(self):
        # Over STREAM_FRAME, the payload is masked piece by piece behind its header: one frame.
        data = bytes([(i * 31) % 256 for i in range(ws.STREAM_FRAME * 3 + 5)])
        c, client = client_side()
        await client.send(data)
        await client.send(b"tail")
        self.assertEqual(read_frames(c.out), [(True, ws.OP_BINARY, True, data), (True, ws.OP_BINARY, True, b"tail")])

    def test_plain_masking_matches_the_rfc(self):
        out = bytearray(5)
        ws._mask_plain(out, b"Hello", 5, KEY)
        self.assertEqual(bytes(out), bytes([0x7F, 0x9F, 0x4D, 0x51, 0x58]))

    async def test_messages_read_one_after_another_keep_their_text(self):
        # Each small frame is unmasked into one shared buffer; what recv() returned must not change.
        _, sock = server_side(client_frame(ws.OP_TEXT, b"first message"), client_frame(ws.OP_TEXT, b"second"),
                              client_frame(ws.OP_BINARY, b"\x01\x02\x03"))
        first = await sock.recv()
        second = await sock.recv()
        third = await sock.recv()
        self.assertEqual((first, second, third), ("first message", "second", b"\x01\x02\x03"))

class Fragmentation(unittest.TestCase):
    async def test_fragments_with_a_ping_between_are_reassembled_and_ponged(self):
        s, sock = server_side(
            client_frame(ws.OP_TEXT, b'{"a":', fin=False),
            client_frame(ws.OP_PING, b"are you there"),
            client_frame(ws.OP_CONT, b"1", fin=False),
            client_frame(ws.OP_CONT, b"}"),
        )
        self.assertEqual(await sock.recv(), '{"a":1}')
        self.assertEqual(read_frames(s.out), [(True, ws.OP_PONG, False, b"are you there")])

    async def test_utf8_split_across_fragments(self):
        data = "记忆".encode()
        _, sock = server_side(client_frame(ws.OP_TEXT, data[:2], fin=False), client_frame(ws.OP_CONT, data[2:]))
        self.assertEqual(await sock.recv(), "记忆")

    async def test_pong_is_recorded_not_returned(self):
        _, sock = server_side(client_frame(ws.OP_PONG, b"xzmem"), client_frame(ws.OP_TEXT, b"next"))
        self.assertEqual(await sock.recv(), "next")
        self.assertEqual(sock.last_pong, b"xzmem")

    async def test_continuation_without_a_message_is_a_protocol_error(self):
        s, sock = server_side(client_frame(ws.OP_CONT, b"x"))
        await expect_close(self, sock, 1002)
        self.assertEqual(close_code(read_frames(s.out)[-1]), 1002)
        self.assertTrue(s.closed)

    async def test_new_message_inside_a_fragmented_one_is_a_protocol_error(self):
        s, sock = server_side(client_frame(ws.OP_TEXT, b"a", fin=False), client_frame(ws.OP_TEXT, b"b"))
        await expect_close(self, sock, 1002)


async def expect_too_big(test, sock, size):
    try:
        got = await sock.recv()
    except ws.MessageTooBig as e:
        test.assertEqual((e.size, e.limit), (size, ws.MAX_MESSAGE))
        return e.head
    test.fail("expected MessageTooBig, received %r" % (got[:40],))


class Limits(unittest.TestCase):
    async def test_frame_over_skip_max_refused_with_1009_before_reading_it(self):
        # Only the header arrives: the payload must not be waited for or allocated.
        s, sock = server_side(ws.frame_header(ws.OP_TEXT, ws.SKIP_MAX + 1, True, KEY))
        await expect_close(self, sock, 1009)
        self.assertEqual(close_code(read_frames(s.out)[-1]), 1009)
        self.assertTrue(s.closed)

    async def test_huge_64bit_length_refused_with_1009(self):
        s, sock = server_side(ws.frame_header(ws.OP_BINARY, 1 << 40, True, KEY))
        await expect_close(self, sock, 1009)

    async def test_a_message_over_the_limit_is_read_past_and_the_next_one_is_read(self):
        big = b'{"jsonrpc":"2.0","id":7,' + b"x" * 20000
        s, sock = server_side(client_frame(ws.OP_TEXT, big), client_frame(ws.OP_TEXT, "下一条".encode()))
        head = await expect_too_big(self, sock, len(big))
        self.assertEqual(head, big[:96])
        self.assertEqual(await sock.recv(), "下一条")
        self.assertFalse(sock.closed)
        self.assertEqual(s.out, b"")  # nothing said on the socket: answering is the caller's business

    async def test_fragments_adding_up_over_the_limit_are_read_past(self):
        part = b"x" * 1500
        s, sock = server_side(
            client_frame(ws.OP_TEXT, b"[1,", fin=False), client_frame(ws.OP_CONT, part, fin=False),
            client_frame(ws.OP_CONT, part, fin=False), client_frame(ws.OP_PING, b"p", fin=True),
            client_frame(ws.OP_CONT, part), client_frame(ws.OP_TEXT, b"after"),
        )
        head = await expect_too_big(self, sock, 3 + 3 * 1500)
        self.assertEqual(head, (b"[1," + part)[:96])
        self.assertEqual(await sock.recv(), "after")
        self.assertEqual([f[1] for f in read_frames(s.out)], [ws.OP_PONG])  # the ping in between was answered

    async def test_a_message_just_at_the_limit_is_whole(self):
        data = b"y" * ws.MAX_MESSAGE
        _, sock = server_side(client_frame(ws.OP_TEXT, data[:3000], fin=False), client_frame(ws.OP_CONT, data[3000:]))
        self.assertEqual(bytes(await sock.recv()), data)

    async def test_read_past_messages_may_not_add_up_past_skip_max(self):
        part = b"z" * 16000
        frames = [client_frame(ws.OP_TEXT, part, fin=False)] + [client_frame(ws.OP_CONT, part, fin=False)] * (ws.SKIP_MAX // 16000 + 1)
        _, sock = server_side(*frames)
        await expect_close(self, sock, 1009)

    async def test_recv_after_close_keeps_raising(self):
        _, sock = server_side(ws.frame_header(ws.OP_TEXT, ws.SKIP_MAX + 1, True, KEY))
        await expect_close(self, sock, 1009)
        await expect_close(self, sock, 1009)
        try:
            await sock.send("late")
        except ws.ConnectionClosed:
            pass
        else:
            self.fail("send after close was accepted")


class TrickleStream(FakeStream):
    """A FakeStream whose reads wait for bytes fed later, as a socket's do."""

    async def readexactly(self, n):
        while len(self.incoming) < n:
            await asyncio.sleep(0)
        return await FakeStream.readexactly(self, n)


async def read_copied(sock):
    # What every link does: use a long message before awaiting anything else.
    got = await sock.recv()
    return bytes(got) if isinstance(got, memoryview) else got


class SharedBuffer(unittest.TestCase):
    async def test_two_connections_long_messages_do_not_mix(self):
        await in_task(self._two_connections())

    async def _two_connections(self):
        # A's long message arrives slowly; B's is all there. B waits for the shared buffer until
        # A's message is whole and taken, then each reads its own text.
        a_text = b'{"from":"a","x":"' + b"a" * 3000 + b'"}'
        b_text = b'{"from":"b","x":"' + b"b" * 2500 + b'"}'
        a_frame = client_frame(ws.OP_TEXT, a_text)
        a_stream = TrickleStream(a_frame[:1500])
        b_stream = TrickleStream(client_frame(ws.OP_TEXT, b_text))
        a_task = asyncio.create_task(read_copied(ws.WebSocket(a_stream, a_stream, False)))
        await asyncio.sleep(0)
        b_task = asyncio.create_task(read_copied(ws.WebSocket(b_stream, b_stream, False)))
        for _ in range(20):
            await asyncio.sleep(0)
        self.assertFalse(a_task.done() or b_task.done())
        a_stream.feed(a_frame[1500:])
        self.assertEqual(await a_task, a_text)
        self.assertEqual(await b_task, b_text)

    async def test_a_short_message_does_not_wait_for_the_buffer(self):
        await in_task(self._short_message())

    async def _short_message(self):
        slow = TrickleStream(client_frame(ws.OP_TEXT, b"x" * 3000)[:100])
        slow_task = asyncio.create_task(read_copied(ws.WebSocket(slow, slow, False)))
        await asyncio.sleep(0)
        _, quick = server_side(client_frame(ws.OP_TEXT, b'{"short":1}'))
        self.assertEqual(await quick.recv(), '{"short":1}')
        self.assertFalse(slow_task.done())
        slow.feed(client_frame(ws.OP_TEXT, b"x" * 3000)[100:])
        self.assertEqual(await slow_task, b"x" * 3000)

    async def test_a_dropped_connection_frees_the_buffer(self):
        await in_task(self._dropped_connection())

    async def _dropped_connection(self):
        cut = FakeStream(client_frame(ws.OP_TEXT, b"c" * 3000)[:2000])  # ends inside the payload
        with self.assertRaises(ws.ConnectionClosed):
            await ws.WebSocket(cut, cut, False).recv()
        _, sock = server_side(client_frame(ws.OP_TEXT, b"d" * 3000))
        task = asyncio.create_task(read_copied(sock))
        for _ in range(100):  # half a second at most: a buffer never freed would keep it waiting
            if task.done():
                break
            await asyncio.sleep(0.005)
        self.assertTrue(task.done(), "the next long message still waits for the buffer")
        self.assertEqual(await task, b"d" * 3000)


class ProtocolErrors(unittest.TestCase):
    async def _closes_with(self, frame, code, client=False):
        s = FakeStream(frame)
        sock = ws.WebSocket(s, s, client)
        await expect_close(self, sock, code)
        frames = read_frames(s.out)
        self.assertEqual(frames[-1][1], ws.OP_CLOSE)
        self.assertEqual(close_code(frames[-1]), code)

    async def test_unmasked_client_frame(self):
        await self._closes_with(ws.encode_frame(ws.OP_TEXT, b"hi"), 1002)

    async def test_masked_server_frame(self):
        await self._closes_with(client_frame(ws.OP_TEXT, b"hi"), 1002, client=True)

    async def test_reserved_bits(self):
        frame = bytearray(client_frame(ws.OP_TEXT, b"hi"))
        frame[0] |= 0x40
        await self._closes_with(bytes(frame), 1002)

    async def test_unknown_opcode(self):
        await self._closes_with(client_frame(3, b"hi"), 1002)

    async def test_control_frame_over_125_bytes(self):
        await self._closes_with(client_frame(ws.OP_PING, b"p" * 126), 1002)

    async def test_fragmented_control_frame(self):
        await self._closes_with(client_frame(ws.OP_PING, b"p", fin=False), 1002)

    async def test_invalid_utf8_text(self):
        await self._closes_with(client_frame(ws.OP_TEXT, b"\xff\xfe"), 1007)

    async def test_close_with_one_byte_payload(self):
        await self._closes_with(client_frame(ws.OP_CLOSE, b"\x03"), 1002)

    async def test_close_with_a_code_not_for_the_wire(self):
        for code in (1005, 1006, 999, 2000, 5000):
            await self._closes_with(client_frame(ws.OP_CLOSE, struct.pack(">H", code)), 1002)

    async def test_close_reason_not_utf8(self):
        await self._closes_with(client_frame(ws.OP_CLOSE, struct.pack(">H", 1000) + b"\xc3"), 1007)

    async def test_stream_ending_mid_frame(self):
        s, sock = server_side(client_frame(ws.OP_TEXT, b"hello")[:4])
        await expect_close(self, sock, 1006)
        self.assertEqual(s.out, b"")


class Closing(unittest.TestCase):
    async def test_peer_close_is_echoed(self):
        s, sock = server_side(client_frame(ws.OP_CLOSE, struct.pack(">H", 4001) + b"bye"))
        try:
            await sock.recv()
        except ws.ConnectionClosed as e:
            self.assertEqual((e.code, e.reason), (4001, "bye"))
        self.assertEqual(close_code(read_frames(s.out)[0]), 4001)
        self.assertTrue(s.closed)
        self.assertTrue(sock.closed)

    async def test_empty_close_is_answered_with_1000(self):
        s, sock = server_side(client_frame(ws.OP_CLOSE, b""))
        await expect_close(self, sock, 1005)
        self.assertEqual(close_code(read_frames(s.out)[0]), 1000)

    async def test_our_close_waits_for_the_reply(self):
        s, sock = server_side(client_frame(ws.OP_TEXT, b"ignored"), client_frame(ws.OP_CLOSE, struct.pack(">H", 1000)))
        await sock.close(1001, "going")
        frames = read_frames(s.out)
        self.assertEqual(len(frames), 1)
        self.assertEqual(frames[0][3], struct.pack(">H", 1001) + b"going")
        self.assertEqual(sock.close_code, 1000)
        self.assertTrue(s.closed)

    async def test_client_close_handshake(self):
        c, sock = client_side(ws.encode_frame(ws.OP_CLOSE, struct.pack(">H", 1000)))
        await sock.close()
        self.assertEqual(read_frames(c.out), [(True, ws.OP_CLOSE, True, struct.pack(">H", 1000))])
        self.assertTrue(c.closed)


def upgrade_request(target="/mcp?token=a%20b&x=1", extra=""):
    return (
        "GET %s HTTP/1.1\r\nHost: dev:8765\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n%s\r\n" % (target, extra)
    ).encode()


class Handshake(unittest.TestCase):
    def test_rfc_accept_key(self):
        self.assertEqual(ws.accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")

    def test_query_and_url_parsing(self):
        self.assertEqual(wshttp.parse_query("token=a%2Fb%3D&t=x+y&token=second&flag"), {"token": "a/b=", "t": "x y", "flag": ""})
        self.assertEqual(wshttp.unquote("%E8%AE%B0%zz%4"), "记%zz%4")
        self.assertEqual(wsclient.parse_url("ws://192.168.1.9:8765/mcp?token=t"), (False, "192.168.1.9", 8765, "/mcp?token=t"))
        self.assertEqual(wsclient.parse_url("wss://api.example.com/mcp/?token=x"), (True, "api.example.com", 443, "/mcp/?token=x"))
        self.assertEqual(wsclient.parse_url("ws://host"), (False, "host", 80, "/"))
        self.assertEqual(wsclient.parse_url("ws://[::1]:9000?q=1"), (False, "::1", 9000, "/?q=1"))
        for bad in ("http://x/", "ws://:80/", "ws://h:0/", "ws://h:99999/", "ws://h:port/"):
            self.assertRaises(ValueError, wsclient.parse_url, bad)

    async def test_server_upgrade_with_subprotocol(self):
        s = FakeStream(upgrade_request(extra="Sec-WebSocket-Protocol: chat, mcp\r\nAuthorization: Bearer T\r\n"))
        req = await wshttp.read_request(s)
        self.assertEqual((req.method, req.path, req.query["token"], req.query["x"]), ("GET", "/mcp", "a b", "1"))
        self.assertEqual(req.headers["authorization"], "Bearer T")
        sock = await wshttp.accept(s, s, req, ("mcp",))
        head = bytes(s.out).decode()
        self.assertTrue(head.startswith("HTTP/1.1 101 "), head)
        self.assertIn("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", head)
        self.assertIn("Sec-WebSocket-Protocol: mcp\r\n", head)
        self.assertEqual(sock.subprotocol, "mcp")

    async def test_no_subprotocol_header_when_none_offered(self):
        s = FakeStream(upgrade_request())
        sock = await wshttp.accept(s, s, await wshttp.read_request(s), ("mcp",))
        self.assertTrue("Sec-WebSocket-Protocol" not in bytes(s.out).decode())
        self.assertIsNone(sock.subprotocol)

    async def test_bad_upgrades_are_refused_with_a_status(self):
        good = upgrade_request().decode()
        cases = (
            (good.replace("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"), 426),
            (good.replace("Upgrade: websocket", "Upgrade: h2c"), 426),
            (good.replace("dGhlIHNhbXBsZSBub25jZQ==", "short"), 400),
            (good.replace("GET ", "POST "), 400),
        )
        for text, status in cases:
            s = FakeStream(text.encode())
            req = await wshttp.read_request(s)
            try:
                await wshttp.accept(s, s, req, ("mcp",))
            except ws.HandshakeError as e:
                self.assertEqual(e.status, status, text)
            else:
                self.fail("accepted: %r" % text)

    async def test_garbage_requests_are_400(self):
        for text in (b"hello\r\n\r\n", b"GET /mcp HTTP/1.1\r\nno colon here\r\n\r\n", b"GET mcp HTTP/1.1\r\n\r\n", b"\xff\xfe /x HTTP/1.1\r\n\r\n",
                     b"GET /mcp HTTP/1.0\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"):
            try:
                await wshttp.read_request(FakeStream(text))
            except ws.HandshakeError as e:
                self.assertEqual(e.status, 400)
            else:
                self.fail("parsed %r" % text)
        many = b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 60 + b"\r\n"
        try:
            await wshttp.read_request(FakeStream(many))
        except ws.HandshakeError as e:
            self.assertEqual(e.status, 400)
        else:
            self.fail("accepted 60 headers")

    async def test_refusal_is_plain_http(self):
        s = FakeStream()
        await wshttp.respond(s, 401, "missing or wrong token", [("WWW-Authenticate", "Bearer")])
        text = bytes(s.out).decode()
        self.assertTrue(text.startswith("HTTP/1.1 401 Unauthorized\r\n"), text)
        self.assertIn("WWW-Authenticate: Bearer\r\n", text)
        self.assertTrue(text.endswith("\r\n\r\nmissing or wrong token"))
        self.assertTrue(s.closed)

    async def test_client_handshake_against_a_fake_server(self):
        def answer(written):
            if not written.endswith(b"\r\n\r\n"):
                return None
            head = written.decode()
            key = head.split("Sec-WebSocket-Key: ")[1].split("\r\n")[0]
            self.assertIn("Sec-WebSocket-Protocol: mcp\r\n", head)
            self.assertIn("Authorization: Bearer T\r\n", head)
            self.assertTrue(head.startswith("GET /mcp/?token=x HTTP/1.1\r\nHost: dev:80\r\n"))
            return (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Accept: %s\r\nSec-WebSocket-Protocol: mcp\r\n\r\n" % ws.accept_key(key)
            ).encode() + ws.encode_frame(ws.OP_TEXT, b"welcome")

        s = FakeStream(respond=answer)
        sock = await wsclient.handshake(s, s, "dev", 80, "/mcp/?token=x", [("Authorization", "Bearer T")], ("mcp",))
        s.respond = None
        self.assertEqual(sock.subprotocol, "mcp")
        self.assertEqual(await sock.recv(), "welcome")

    async def test_client_sees_refusal_status(self):
        def answer(written):
            if written.endswith(b"\r\n\r\n"):
                return b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n"
            return None

        s = FakeStream(respond=answer)
        try:
            await wsclient.handshake(s, s, "dev", 80, "/mcp", None, ("mcp",))
        except ws.HandshakeError as e:
            self.assertEqual(e.status, 401)
        else:
            self.fail("handshake succeeded against a 401")

    async def test_client_rejects_wrong_accept(self):
        def answer(written):
            if written.endswith(b"\r\n\r\n"):
                return b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: nope\r\n\r\n"
            return None

        s = FakeStream(respond=answer)
        self.assertRaises(ws.HandshakeError, _run_sync, wsclient.handshake(s, s, "dev", 80, "/", None, ()))

    async def test_connect_dials_the_remembered_address_and_forgets_it_when_that_fails(self):
        # DNS blocks MicroPython's event loop: a known host is dialled by address, the name kept for TLS.
        dialled = []

        async def refuse(host, port, ssl=None, server_hostname=None):
            dialled.append((host, port, server_hostname))
            raise OSError(111, "connection refused")

        saved = getattr(asyncio, "open_connection", None)
        asyncio.open_connection = refuse
        try:
            for url in ("wss://device.example/mcp", "ws://device.example:8080/mcp"):
                wsclient._addresses["device.example"] = "192.0.2.7"
                try:
                    await wsclient.connect(url)
                except OSError:
                    pass
                self.assertFalse("device.example" in wsclient._addresses)
        finally:
            asyncio.open_connection = saved
        self.assertEqual(dialled, [("192.0.2.7", 443, "device.example"), ("192.0.2.7", 8080, None)])


def _run_sync(coro):
    # Drive a coroutine that never really waits (fake streams) to its end.
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value
    raise AssertionError("coroutine waited on something")
