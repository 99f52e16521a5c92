"""Streamed answers against real peers: the read overview with every memory type full from a real
`xzmem sim` (the official MCP SDK client and the `websockets` library), and the xiaozhi and
endpoint links' fragmented answers to test servers built on `websockets`."""

import asyncio
import json
import warnings

import pytest
from link_helpers import dispatcher, running
from memory import endpoint, mcp, xiaozhi
from simdevice import TOKEN, SimDevice, call, session
from websockets.sync.client import connect
from xiaozhi_server import EndpointRelay, XiaozhiServer

warnings.filterwarnings("ignore", category=DeprecationWarning)
pytestmark = pytest.mark.timeout(120)


def text(prefix, i, width):
    """Text of about `width` UTF-8 bytes, mostly three-byte characters (the store cuts what is too long)."""
    base = f"{prefix}{i} "
    return base + "记" * ((width - len(base)) // 3)


def every_type_full():
    writes = [{"type": "name", "content": text("n", 0, 32)}, {"type": "age", "content": 30},
              {"type": "gender", "content": "female"}, {"type": "location", "content": text("l", 0, 32)},
              {"type": "birthday", "content": "1996-03-15"}]
    for i in range(8):
        writes += [{"type": "like", "content": text("like", i, 31)}, {"type": "dislike", "content": text("dis", i, 31)},
                   {"type": "family", "relation": text("r", i, 23), "name": text("m", i, 32), "closeness": 1 + i % 5}]
    writes += [{"type": "schedule", "content": text("e", i, 64), "datetime": f"2026-12-{i + 1:02d} 10:00",
                "priority": 1 + i % 5, "force": True} for i in range(16)]
    writes += [{"type": "fact", "content": text("f", i, 120)} for i in range(20)]
    for i in range(10):
        writes += [{"type": "trait", "content": text("t", i, 56)}, {"type": "habit", "content": text("h", i, 56)},
                   {"type": "moment", "topic": text("tp", i, 24), "content": text("mo", i, 124), "emotion": "happy",
                    "intensity": 4, "importance": 5}]
    writes += [{"type": "goal", "content": text("g", i, 88)} for i in range(5)]
    return writes + [{"type": "coins", "amount": 120}, {"type": "mood", "content": "开心"}]


def test_full_overview_reaches_the_sdk_and_websockets_in_fragments(tmp_path):
    with SimDevice(tmp_path / "dev", "--start-time", "2026-02-05T08:00") as device:
        async def through_sdk():
            async with session(device.url) as s:
                for w in every_type_full():
                    err, out = await call(s, "memory", {"action": "write", **w})
                    assert not err and out.get("result") != "REFUSED", (w, out)
                kinds = {}
                for kind in ("like", "dislike", "family", "fact", "trait", "habit", "goal", "moment"):
                    err, out = await call(s, "memory", {"action": "read", "type": kind})
                    kinds[kind] = out["items"]
                err, sched = await call(s, "memory", {"action": "read", "type": "schedule"})
                err, overview = await call(s, "memory", {"action": "read"})
                assert not err
                return kinds, sched["items"], overview

        kinds, schedules, overview = asyncio.run(through_sdk())
        # The overview says what the per-type reads (plain, unstreamed answers) say.
        assert overview["profile"]["age"] == 30 and overview["profile"]["birthday"] == "1996-03-15"
        assert overview["preferences"] == {"likes": [x["content"] for x in kinds["like"]],
                                           "dislikes": [x["content"] for x in kinds["dislike"]]}
        assert overview["family"] == [{k: x[k] for k in ("relation", "name", "closeness")} for x in kinds["family"]]
        assert len(overview["family"]) == 8
        assert overview["facts"] == [x["content"] for x in kinds["fact"][-5:]]
        for kind in ("trait", "habit", "goal"):
            assert overview[kind + "s"] == [x["content"] for x in kinds[kind]]
        assert overview["moments"] == [{"topic": x["topic"], "content": x["content"]} for x in kinds["moment"][-3:]]
        assert overview["schedules"] == schedules and len(schedules) == 16
        assert (overview["total_coins_spent"], overview["mood"]) == (120, "开心")

        request = {"jsonrpc": "2.0", "id": "read-1", "method": "tools/call",
                   "params": {"name": "memory", "arguments": {"action": "read"}}}
        with connect(device.url, subprotocols=["mcp"]) as c:
            c.send(json.dumps(request))
            fragments = list(c.recv_streaming())
        assert len(fragments) > 4  # the answer came as a text frame and continuation frames
        assert max(len(f.encode()) for f in fragments) <= 1024
        reply = json.loads("".join(fragments))
        assert reply["id"] == "read-1" and reply["result"]["isError"] is False
        assert json.loads(reply["result"]["content"][0]["text"]) == overview


RECORDS = [{"n": i, "content": f"第{i}条记忆，内容够长，好让回答跨过好几个帧。"} for i in range(120)]


class Records(mcp.Tool):
    """A streamed tool: a JSON array written one record at a time (several kilobytes in all)."""

    name = "records"
    description = "Every record, streamed."

    def call(self, arguments, link):
        return mcp.Streamed(self._pieces)

    def _pieces(self):
        yield "["
        for i, r in enumerate(RECORDS):
            yield ("," if i else "") + json.dumps(r, ensure_ascii=False)
        yield "]"


def streaming_dispatcher():
    d = dispatcher()
    d.add(Records())
    return d


def records_of(reply):
    assert reply["result"]["isError"] is False
    return json.loads(reply["result"]["content"][0]["text"])


def test_xiaozhi_link_streams_a_big_answer_in_its_envelope():
    async def main():
        async with XiaozhiServer(TOKEN, mcp_before_hello=False) as server:
            link = xiaozhi.XiaozhiLink(server.url, TOKEN, "24:0a:c4:12:34:56", "5f0c8d7e-2a41-4b6c-9d3e-0a1b2c3d4e5f",
                                       streaming_dispatcher(), log=lambda m: None)
            async with running(link):
                s = await server.next_session()
                reply = await s.request("tools/call", {"name": "records", "arguments": {}}, rid="r-1")
                assert reply["id"] == "r-1" and records_of(reply) == RECORDS
                envelope = [m for m in s.raw if m.get("type") == "mcp"][-1]
                assert envelope["session_id"] == "sess-1"
                assert (await s.request("ping", rid=2))["result"] == {}  # the link goes on after it
                assert server.errors == []

    asyncio.run(main())


def test_endpoint_link_streams_a_big_answer():
    async def main():
        async with EndpointRelay(TOKEN) as relay:
            link = endpoint.EndpointLink(relay.url, streaming_dispatcher(), log=lambda m: None)
            async with running(link):
                s = await relay.next_session()
                rid = relay.rewrite(1)
                reply = await s.request("tools/call", {"name": "records", "arguments": {}}, rid=rid)
                assert reply["id"] == rid and records_of(reply) == RECORDS
                assert link.healthy
                assert relay.errors == []

    asyncio.run(main())
