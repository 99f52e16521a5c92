# Streamed tool results: the read overview in pieces, piecewise JSON-RPC replies, fragmented frames,
# and every link that sends them (server, endpoint, xiaozhi), over in-memory streams.

import asyncio
import json
import unittest

import esp32
from memory import clock, endpoint, mcp, reminder, server, ws, wsclient, xiaozhi
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.tools import MemoryTool
from store_helpers import Clock, FakeArchive, fill_every_type
from ws_fakes import FakeStream, ensure_sha1, in_task, read_frames

ensure_sha1()

KEY = b"\x05\x06\x07\x08"
TOKEN = "tok-stream"
# Quotes, backslashes, control characters, CJK and an emoji: everything escaping must get right.
PIECES = ['{"a":"引号\\"', "反斜杠\\\\", "\n\t\x01", "😀", "", "x" * 1500, '记忆"}']


class Pieces(mcp.Tool):
    """Answers with PIECES as a Streamed result; `fail_at` makes the piece with that index raise."""

    name = "pieces"
    description = "Returns its text in pieces."

    def __init__(self, fail_at=None):
        self.fail_at = fail_at

    def call(self, arguments, link):
        return mcp.Streamed(self._pieces)

    def _pieces(self):
        for i in range(len(PIECES)):
            if i == self.fail_at:
                raise OSError(5)
            yield PIECES[i]


class Whole(mcp.Tool):
    """The same text as one str: the plain path to compare with."""

    name = "whole"
    description = "Returns its text whole."

    def call(self, arguments, link):
        return "".join(PIECES)


def dispatcher(fail_at=None):
    d = mcp.Dispatcher()
    d.add(Pieces(fail_at))
    d.add(Whole())
    return d


def request(name, rid=1, arguments=None):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}})


def joined(reply):
    return reply if isinstance(reply, str) else "".join(reply)


def messages(data):
    """The text messages in bytes a WebSocket wrote, fragments joined: [(text, [frame payloads])]."""
    out = []
    parts = None
    for fin, op, _, payload in read_frames(data):
        if op == ws.OP_TEXT:
            parts = [payload]
        elif op == ws.OP_CONT:
            parts.append(payload)
        else:
            continue
        if fin:
            out.append((b"".join(parts).decode(), parts))
    return out


def full_memory():
    """A MemoryService over a store with every type at capacity."""
    clock.set_utc_offset(8 * 3600)
    esp32.configure_nvs(None, reserve=200)
    store = Store(archiver=FakeArchive(), now=Clock())
    fill_every_type(store)
    store.flush()
    return MemoryService(store, Schedules(store, Event))


def read_dispatcher(memory):
    d = mcp.Dispatcher()
    d.add(MemoryTool(memory))
    return d


class DispatcherStreams(unittest.TestCase):
    def test_streamed_reply_is_the_plain_reply_in_pieces(self):
        d = dispatcher()
        link = mcp.Link("t")
        streamed = d.handle(request("pieces", "id-7"), link)
        self.assertFalse(isinstance(streamed, str))
        reply = json.loads(joined(streamed))
        self.assertEqual(reply, json.loads(d.handle(request("whole", "id-7"), link)))
        self.assertEqual(reply["id"], "id-7")
        self.assertEqual(reply["result"]["content"][0]["text"], "".join(PIECES))
        self.assertEqual(reply["result"]["isError"], False)

    def test_other_answers_stay_strings(self):
        d = dispatcher()
        for msg in (request("whole"), '{"jsonrpc":"2.0","id":2,"method":"ping"}', "not json"):
            self.assertTrue(isinstance(d.handle(msg, mcp.Link("t")), str), msg)

    def test_failing_at_the_first_piece_is_a_plain_refusal(self):
        reply = dispatcher(fail_at=0).handle(request("pieces"), mcp.Link("t"))
        self.assertTrue(isinstance(reply, str))
        result = json.loads(reply)["result"]
        self.assertEqual(result["isError"], True)
        self.assertTrue("storage failed" in result["content"][0]["text"] and "error" not in result, result)

    def test_failing_part_way_still_gives_valid_json_marked_as_error(self):
        reply = json.loads(joined(dispatcher(fail_at=3).handle(request("pieces", 4), mcp.Link("t"))))
        self.assertEqual(reply["id"], 4)
        result = reply["result"]
        self.assertEqual(result["isError"], True)
        text = result["content"][0]["text"]
        self.assertTrue(text.startswith("".join(PIECES[:3]) + "\n[result cut off] the memory storage failed"), text)
        self.assertTrue("error" not in result)

    def test_batches_and_the_serial_path_join_the_pieces(self):
        d = dispatcher()
        batch = "[%s,%s]" % (request("pieces", 1), request("whole", 2))
        out = json.loads(d.handle(batch, mcp.Link("t")))
        self.assertEqual([r["result"]["content"][0]["text"] for r in out], ["".join(PIECES)] * 2)
        self.assertEqual(mcp.tool_result(mcp.Streamed(Pieces()._pieces))["content"][0]["text"], "".join(PIECES))

    def test_an_empty_stream_is_an_empty_text(self):
        d = mcp.Dispatcher()
        tool = Whole()
        tool.call = lambda arguments, link: mcp.Streamed(lambda: iter(()))
        d.add(tool)
        reply = json.loads(joined(d.handle(request("whole"), mcp.Link("t"))))
        self.assertEqual(reply["result"]["content"][0]["text"], "")


class Overview(unittest.TestCase):
    def test_full_overview_in_small_pieces(self):
        memory = full_memory()
        s = memory.store
        upcoming = memory.schedules.upcoming()  # as the read found them: it marks due ones reminded
        reply = read_dispatcher(memory).handle(request("memory", 1, {"action": "read"}), mcp.Link("t"))
        self.assertFalse(isinstance(reply, str))
        pieces = list(reply)
        self.assertTrue(max([len(p.encode()) for p in pieces]) < 1024, max([len(p) for p in pieces]))
        ov = json.loads(json.loads("".join(pieces))["result"]["content"][0]["text"])
        self.assertEqual(ov["preferences"]["likes"], [x["content"] for x in s.read("like")])
        self.assertEqual(len(ov["preferences"]["dislikes"]), 8)
        self.assertEqual(ov["family"][0], {"relation": s.read("family")[0]["relation"], "name": s.read("family")[0]["name"], "closeness": 1})
        self.assertEqual(ov["facts"], [x["content"] for x in s.read("fact")[-5:]])  # the five newest
        self.assertEqual([len(ov[k]) for k in ("traits", "habits", "goals", "moments")], [10, 10, 5, 3])
        self.assertEqual(ov["moments"][-1], {"topic": s.read("moment")[-1]["topic"], "content": s.read("moment")[-1]["content"]})
        self.assertEqual(ov["schedules"], upcoming)
        self.assertEqual(len(ov["schedules"]), 16)
        self.assertEqual(ov["profile"], {"name": s.read("name")[0]["content"], "age": 30, "gender": "female",
                                         "location": s.read("location")[0]["content"], "birthday": "1996-03-15"})
        self.assertEqual((ov["total_coins_spent"], ov["relationship"], ov["mood"]), (120, "close_friend", "开心"))
        self.assertTrue(ov["style"].startswith("深厚期"), ov["style"])
        self.assertEqual(ov["now"], clock.format_local(clock.now()) if clock.is_set() else None)

    def test_empty_memory_overview(self):
        esp32.configure_nvs(None, reserve=200)
        store = Store(now=Clock())
        memory = MemoryService(store, Schedules(store, Event))
        ov = json.loads("".join(memory.overview_json()))
        self.assertEqual(ov["profile"], {})
        self.assertEqual(ov["preferences"], {"likes": [], "dislikes": []})
        self.assertEqual([ov[k] for k in ("family", "facts", "traits", "habits", "goals", "moments", "schedules")], [[]] * 7)
        self.assertEqual((ov["total_coins_spent"], ov["mood"]), (0, ""))

    def test_read_with_a_type_streams_one_record_per_piece(self):
        reply = read_dispatcher(full_memory()).handle(request("memory", 1, {"action": "read", "type": "goal"}), mcp.Link("t"))
        pieces = list(reply)
        self.assertTrue(len(pieces) >= 5)
        self.assertEqual(len(json.loads(json.loads("".join(pieces))["result"]["content"][0]["text"])["items"]), 5)


    def test_recall_of_any_limit_goes_out_one_record_per_piece(self):
        memory = full_memory()
        d = read_dispatcher(memory)
        reply = d.handle(request("memory", 2, {"action": "recall", "type": "fact", "limit": 50}), mcp.Link("t"))
        pieces = list(reply)
        result = json.loads(json.loads("".join(pieces))["result"]["content"][0]["text"])
        self.assertEqual(result, json.loads(json.dumps(memory.recall("fact", limit=50))))
        self.assertTrue(result["count"] >= 10)
        self.assertTrue(len(pieces) >= result["count"])
        self.assertTrue(max([len(p.encode()) for p in pieces]) < 1024)


class SlowStream(FakeStream):
    """A writer whose drain lets other tasks run, as a real socket's does when its buffer fills."""

    async def drain(self):
        await asyncio.sleep(0)


class Fragments(unittest.TestCase):
    async def test_pieces_go_out_as_one_message_in_small_whole_character_frames(self):
        stream = FakeStream()
        sock = ws.WebSocket(stream, stream, False)
        await sock.send(iter(PIECES), frame_size=16)
        frames = read_frames(bytes(stream.out))
        self.assertEqual([f[1] for f in frames], [ws.OP_TEXT] + [ws.OP_CONT] * (len(frames) - 1))
        self.assertEqual([f[0] for f in frames], [False] * (len(frames) - 1) + [True])
        self.assertEqual(b"".join([f[3] for f in frames]).decode(), "".join(PIECES))
        for f in frames:
            self.assertTrue(13 <= len(f[3]) <= 16 or f is frames[-1], len(f[3]))
            f[3].decode()  # no character is split between frames

    async def test_default_frame_size_and_client_masking(self):
        stream = FakeStream()
        sock = ws.WebSocket(stream, stream, True)
        await sock.send(iter(PIECES))
        frames = read_frames(bytes(stream.out))
        self.assertEqual([f[2] for f in frames], [True] * len(frames))
        self.assertEqual(len(frames[0][3]), ws.STREAM_FRAME)
        self.assertEqual(b"".join([f[3] for f in frames]).decode(), "".join(PIECES))

    async def test_an_empty_iterator_is_one_empty_text_message(self):
        stream = FakeStream()
        await ws.WebSocket(stream, stream, False).send(iter(()))
        self.assertEqual(read_frames(bytes(stream.out)), [(True, ws.OP_TEXT, False, b"")])

    async def test_our_reader_reassembles_what_our_writer_fragments(self):
        out = FakeStream()
        await ws.WebSocket(out, out, True).send(iter(PIECES), frame_size=8)
        inp = FakeStream(bytes(out.out))
        got = await ws.WebSocket(inp, inp, False).recv()
        self.assertEqual(got if isinstance(got, str) else str(got, "utf-8"), "".join(PIECES))

    async def test_a_producer_failing_before_any_frame_leaves_the_socket_usable(self):
        def bad():
            raise ValueError("no pieces")
            yield "never"

        stream = FakeStream()
        sock = ws.WebSocket(stream, stream, False)
        self.assertRaises(ValueError, lambda: _run_now(sock.send(bad())))
        self.assertEqual(bytes(stream.out), b"")
        await sock.send("still here")
        self.assertEqual(messages(bytes(stream.out))[0][0], "still here")

    async def test_a_producer_failing_after_frames_went_out_closes_with_1011(self):
        def cut():
            yield "x" * 40
            raise ValueError("broken producer")

        stream = FakeStream()
        sock = ws.WebSocket(stream, stream, False)
        try:
            await sock.send(cut(), frame_size=16)
            self.fail("no ConnectionClosed")
        except ws.ConnectionClosed as e:
            self.assertEqual(e.code, 1011)
        frames = read_frames(bytes(stream.out))
        self.assertEqual(frames[-1][1], ws.OP_CLOSE)
        self.assertEqual(frames[-1][3][:2], b"\x03\xf3")
        self.assertTrue(sock.closed)

    async def test_another_task_cannot_send_inside_a_fragmented_message(self):
        stream = SlowStream()
        sock = ws.WebSocket(stream, stream, False)
        big = asyncio.create_task(sock.send(iter(PIECES), frame_size=64))
        await asyncio.sleep(0)
        await sock.send("reminder")
        await big
        texts = [m[0] for m in messages(bytes(stream.out))]
        self.assertEqual(texts, ["".join(PIECES), "reminder"])


class SharedFrameBuffer(unittest.TestCase):
    async def test_two_connections_streaming_at_once_each_send_their_own_text(self):
        await in_task(self._two_streams())

    async def _two_streams(self):
        # Both gather frames in the one shared buffer, and each drain lets the other run; a
        # character cut by a frame's end (3-byte 记 against 1,024-byte frames) must stay its own.
        texts = ["记" * 700 + "a", "b" + "忆" * 900]
        streams = [SlowStream(), SlowStream()]
        sends = [asyncio.create_task(ws.WebSocket(streams[i], streams[i], False).send(iter([texts[i][:300], texts[i][300:]])))
                 for i in range(2)]
        for task in sends:
            await task
        for i in range(2):
            [(got, parts)] = messages(bytes(streams[i].out))
            self.assertEqual(got, texts[i])
            self.assertTrue(len(parts) >= 2)


def _run_now(coro):
    # Drives a coroutine that never waits (a FakeStream send) without an event loop.
    try:
        coro.send(None)
    except StopIteration:
        pass


def upgrade():
    return ("GET /mcp HTTP/1.1\r\nHost: dev\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            "Authorization: Bearer %s\r\nSec-WebSocket-Protocol: mcp\r\n\r\n" % TOKEN).encode()


class YieldingStream(FakeStream):
    async def readexactly(self, n):
        await asyncio.sleep(0)
        return await FakeStream.readexactly(self, n)


class FakeConnect:
    def __init__(self, stream):
        self.stream = stream

    async def __call__(self, url, headers=None, subprotocols=(), ssl=None, max_size=ws.MAX_MESSAGE):
        return ws.WebSocket(self.stream, self.stream, True)


def server_text(obj):
    return ws.encode_frame(ws.OP_TEXT, json.dumps(obj).encode())


class Links(unittest.TestCase):
    def setUp(self):
        self.real_connect = wsclient.connect
        self.plain = json.loads(dispatcher().handle(request("whole", 3), mcp.Link("t")))

    def tearDown(self):
        wsclient.connect = self.real_connect

    async def test_server_sends_a_streamed_answer_fragmented(self):
        s = server.Server(dispatcher(), TOKEN, host="127.0.0.1", log=lambda m: None)
        stream = FakeStream(upgrade() + ws.encode_frame(ws.OP_TEXT, request("pieces", 3).encode(), True, KEY)
                            + ws.encode_frame(ws.OP_CLOSE, b"\x03\xe8", True, KEY))
        await s._serve(stream, stream)
        rest = bytes(stream.out).partition(b"\r\n\r\n")[2]
        (text, parts), = messages(rest)
        self.assertTrue(len(parts) > 1)
        self.assertEqual(json.loads(text), self.plain)

    async def test_endpoint_sends_a_streamed_answer_fragmented_and_counts_it_healthy(self):
        stream = YieldingStream(server_text(json.loads(request("pieces", 3))))
        wsclient.connect = FakeConnect(stream)
        link = endpoint.EndpointLink("ws://h/mcp/", dispatcher(), reminder.Announcer(), log=lambda m: None)
        await asyncio.create_task(link.run_once())
        (text, parts), = messages(bytes(stream.out))
        self.assertTrue(len(parts) > 1)
        self.assertEqual(json.loads(text), self.plain)
        self.assertTrue(link.healthy)

    async def test_xiaozhi_envelope_is_streamed_with_the_session_id(self):
        stream = YieldingStream(server_text({"type": "hello", "transport": "websocket", "session_id": "s-2"})
                                + server_text({"session_id": "s-2", "type": "mcp", "payload": json.loads(request("pieces", 3))}))
        wsclient.connect = FakeConnect(stream)
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "tk", "24:0a:c4:12:34:56", "cid", dispatcher(), log=lambda m: None)
        await asyncio.create_task(link.run_once())
        sent = messages(bytes(stream.out))
        self.assertEqual(json.loads(sent[0][0])["type"], "hello")
        self.assertTrue(len(sent[1][1]) > 1)
        self.assertEqual(json.loads(sent[1][0]), {"session_id": "s-2", "type": "mcp", "payload": self.plain})

    async def test_xiaozhi_on_text_returns_pieces_only_for_streamed_answers(self):
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "tk", "d", "c", dispatcher(), log=lambda m: None)
        plain = await link.on_text(json.dumps({"type": "mcp", "payload": json.loads(request("whole", 3))}))
        streamed = await link.on_text(json.dumps({"type": "mcp", "payload": json.loads(request("pieces", 3))}))
        self.assertTrue(isinstance(plain, str))
        self.assertFalse(isinstance(streamed, str))
        self.assertEqual(json.loads("".join(streamed)), json.loads(plain))
