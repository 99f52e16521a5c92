# Outbound link sessions and the reconnect loop over in-memory streams, so they run under MicroPython too.

import asyncio
import json
import unittest

from memory import endpoint, mcp, reminder, ws, wsclient, xiaozhi
from ws_fakes import FakeStream, in_task, read_frames

ITEM = {"content": "喝水", "datetime": "2026-03-01 10:00", "priority": 3, "urgency": "normal", "missed": False, "minutes": 10, "text": "提醒一下，10:00 有「喝水」哦。"}


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."

    def call(self, arguments, link):
        return {"echo": arguments}


def dispatcher():
    d = mcp.Dispatcher()
    d.add(Echo())
    return d


class YieldingStream(FakeStream):
    """Lets other tasks run between reads; with `wait`, an empty stream waits instead of ending."""

    def __init__(self, incoming=b"", wait=False):
        FakeStream.__init__(self, incoming)
        self.wait = wait

    async def readexactly(self, n):
        await asyncio.sleep(0)
        while self.wait and len(self.incoming) < n and not self.closed:
            await asyncio.sleep(0.01)
        if self.closed:
            raise EOFError
        return await FakeStream.readexactly(self, n)


def server_frames(*messages):
    out = b""
    for m in messages:
        if isinstance(m, bytes):
            out += ws.encode_frame(ws.OP_BINARY, m)
        else:
            out += ws.encode_frame(ws.OP_TEXT, (m if isinstance(m, str) else json.dumps(m)).encode())
    return out


def sent(stream):
    return [f[3].decode() for f in read_frames(bytes(stream.out)) if f[1] == ws.OP_TEXT]


class Stop(Exception):
    pass


class Recorder:
    def __init__(self, stop_after):
        self.delays = []
        self.stop_after = stop_after

    async def __call__(self, seconds):
        self.delays.append(seconds)
        if len(self.delays) >= self.stop_after:
            raise Stop()
        await asyncio.sleep(0)


class FakeConnect:
    """Stands in for wsclient.connect: hands out prepared streams in turn; an exception in the list is raised."""

    def __init__(self, streams):
        self.streams = list(streams)
        self.calls = []

    async def __call__(self, url, headers=None, subprotocols=(), ssl=None, max_size=ws.MAX_MESSAGE):
        self.calls.append((url, list(headers or ())))
        s = self.streams.pop(0)
        if isinstance(s, Exception):
            raise s
        return ws.WebSocket(s, s, True)




class SessionTest(unittest.TestCase):
    def setUp(self):
        self.real_connect = wsclient.connect

    def tearDown(self):
        wsclient.connect = self.real_connect

    async def test_endpoint_session_answers_echoes_ids_and_survives_garbage(self):
        stream = YieldingStream(server_frames(
            {"jsonrpc": "2.0", "id": "u_n_3", "method": "initialize", "params": {}},
            "not json",
            b"\xff\xfe",
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"a": 1}}},
        ))
        wsclient.connect = FakeConnect([stream])
        announcer = reminder.Announcer()
        link = endpoint.EndpointLink("ws://h/mcp/?token=t", dispatcher(), announcer, "aa:bb", log=lambda m: None)
        await in_task(link.run_once())
        out = [json.loads(t) for t in sent(stream)]
        self.assertEqual(out[0]["id"], "u_n_3")
        self.assertEqual(out[0]["result"]["protocolVersion"], "2024-11-05")
        self.assertEqual(out[1]["error"]["code"], -32700)
        self.assertEqual(out[2]["error"]["code"], -32700)
        self.assertEqual(out[3]["id"], 4)
        self.assertEqual(len(out), 4)
        self.assertTrue(link.healthy)
        self.assertTrue(stream.closed)
        self.assertEqual(announcer._sinks, [])  # the dead link no longer takes reminders
        self.assertEqual(wsclient.connect.calls[0][1], [("Device-Id", "aa:bb")])

    async def test_reconnect_loop_resets_after_a_healthy_link_and_doubles_otherwise(self):
        wsclient.connect = FakeConnect([
            YieldingStream(server_frames({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
            YieldingStream(server_frames("garbage", "[]")),
            OSError(113),
            YieldingStream(b""),
        ])
        link = endpoint.EndpointLink("ws://h/mcp/", dispatcher(), sleep=Recorder(4), log=lambda m: None)
        try:
            await in_task(link.run())
        except Stop:
            pass
        self.assertEqual(link.sleep.delays, [1, 2, 4, 8])
        self.assertEqual(link.connects, 3)

    async def test_xiaozhi_session_mcp_before_and_after_hello_and_a_reminder(self):
        stream = YieldingStream(server_frames(
            {"type": "mcp", "payload": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}},
            {"type": "hello", "transport": "websocket", "session_id": "s1"},
            {"session_id": "s1", "type": "mcp", "payload": {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}},
            b"opus",
        ))
        wsclient.connect = FakeConnect([stream])
        announcer = reminder.Announcer()
        announcer.announce(ITEM)
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "tk", "24:0a:c4:12:34:56", "cid", dispatcher(), announcer, prefix="[device_call]", log=lambda m: None)
        await in_task(link.run_once())
        out = [json.loads(t) for t in sent(stream)]
        self.assertEqual(out[0]["type"], "hello")
        self.assertEqual(out[1], {"type": "mcp", "payload": {"jsonrpc": "2.0", "id": 1, "result": out[1]["payload"]["result"]}})
        rest = out[2:]
        listen = [m for m in rest if m["type"] == "listen"]
        listed = [m for m in rest if m["type"] == "mcp"]
        self.assertEqual(listen, [{"session_id": "s1", "type": "listen", "state": "detect", "text": "[device_call]" + ITEM["text"]}])
        self.assertEqual(listed[0]["session_id"], "s1")
        self.assertEqual(listed[0]["payload"]["result"]["tools"][0]["name"], "echo")
        self.assertEqual(announcer.undelivered(), 0)
        self.assertTrue(link.ready)
        headers = dict(wsclient.connect.calls[0][1])
        self.assertEqual(headers["Authorization"], "Bearer tk")
        self.assertEqual(headers["Protocol-Version"], "1")

    async def test_xiaozhi_without_server_hello_gives_up_in_time(self):
        stream = YieldingStream(server_frames({"type": "mcp", "payload": {"jsonrpc": "2.0", "id": 9, "method": "ping"}}), wait=True)
        wsclient.connect = FakeConnect([stream])
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "", "24:0a:c4:12:34:56", "cid", dispatcher(), log=lambda m: None)
        link.hello_timeout = 0.05
        await in_task(link.run_once())
        out = [json.loads(t) for t in sent(stream)]
        self.assertEqual(out[1]["payload"], {"jsonrpc": "2.0", "id": 9, "result": {}})
        self.assertFalse(link.ready)
        self.assertFalse(link.healthy)
        self.assertTrue(stream.closed)
        self.assertFalse("Authorization" in dict(wsclient.connect.calls[0][1]))

    async def test_silent_server_is_pinged_then_dropped(self):
        stream = YieldingStream(b"", wait=True)
        wsclient.connect = FakeConnect([stream])
        logs = []
        link = endpoint.EndpointLink("ws://h/mcp/", dispatcher(), idle_timeout=1, log=logs.append)
        await in_task(link.run_once())
        ops = [f[1] for f in read_frames(bytes(stream.out))]
        self.assertTrue(ws.OP_PING in ops)
        self.assertTrue(stream.closed)
        self.assertTrue("no frame" in logs[1])

    async def test_an_oversized_message_is_answered_on_both_outbound_links_and_they_go_on(self):
        big = {"jsonrpc": "2.0", "id": "r_n_7", "method": "tools/call", "params": {"name": "echo", "arguments": {"t": "记" * 6000}}}
        ping = {"jsonrpc": "2.0", "id": 8, "method": "ping"}
        stream = YieldingStream(server_frames(big, ping))
        wsclient.connect = FakeConnect([stream])
        link = endpoint.EndpointLink("ws://h/mcp/", dispatcher(), log=lambda m: None)
        await in_task(link.run_once())
        out = [json.loads(t) for t in sent(stream)]
        self.assertEqual((out[0]["id"], out[0]["error"]["code"]), ("r_n_7", -32600))
        self.assertTrue(str(ws.MAX_MESSAGE) in out[0]["error"]["message"], out[0])
        self.assertEqual(out[1], {"jsonrpc": "2.0", "id": 8, "result": {}})

        stream = YieldingStream(server_frames(
            {"type": "hello", "transport": "websocket", "session_id": "s2"},
            {"session_id": "s2", "type": "mcp", "payload": big},
            {"session_id": "s2", "type": "mcp", "payload": ping},
        ))
        wsclient.connect = FakeConnect([stream])
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "", "24:0a:c4:12:34:56", "cid", dispatcher(), log=lambda m: None)
        await in_task(link.run_once())
        out = [json.loads(t) for t in sent(stream)][1:]
        self.assertEqual((out[0]["session_id"], out[0]["type"]), ("s2", "mcp"))
        self.assertEqual((out[0]["payload"]["id"], out[0]["payload"]["error"]["code"]), ("r_n_7", -32600))
        self.assertEqual(out[1]["payload"], {"jsonrpc": "2.0", "id": 8, "result": {}})

    async def test_a_server_refusing_the_token_is_logged_in_its_own_words(self):
        close = ws.encode_frame(ws.OP_CLOSE, b"\x03\xf0" + "令牌无效".encode())  # 1008
        stream = YieldingStream(server_frames("认证失败") + close)
        wsclient.connect = FakeConnect([stream])
        logs = []
        link = xiaozhi.XiaozhiLink("ws://h/xiaozhi/v1/", "bad", "24:0a:c4:12:34:56", "cid", dispatcher(), log=logs.append)
        await in_task(link.run_once())
        said = " | ".join(logs)
        self.assertTrue("the server said (not JSON): 认证失败" in said, said)
        self.assertTrue("1008 令牌无效" in said, said)
