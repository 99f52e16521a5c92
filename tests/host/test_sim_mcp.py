"""The simulated device over MCP with the official SDK: every memory action, memory_sync, restarts."""

import asyncio
import warnings
from contextlib import asynccontextmanager

import pytest
from simdevice import TOKEN, SimDevice, call, session
from xzmem.device.client import DeviceClient, DeviceError

warnings.filterwarnings("ignore", category=DeprecationWarning)


def run(coro):
    return asyncio.run(coro)


async def sdk_tool_names(s):
    return [t.name for t in (await s.list_tools()).tools]


@asynccontextmanager
async def host_client(device):
    """The host's own device client (the SDK's ClientSession underneath): it can ask for user tools."""
    async with DeviceClient(device.url.split("?")[0], token=TOKEN) as c:
        yield c


async def sync(c, args):
    try:
        return False, await c.sync(**args)
    except DeviceError as e:
        return True, str(e)


@pytest.fixture
def device(tmp_path):
    with SimDevice(tmp_path / "dev", "--start-time", "2026-02-05T08:00") as d:
        yield d


def test_every_memory_action_through_the_sdk(device):
    async def scenario():
        async with session(device.url) as s:
            assert await sdk_tool_names(s) == ["memory"]
            writes = [
                {"type": "name", "content": "王浩宇"},
                {"type": "age", "content": 25},
                {"type": "like", "content": "打篮球"},
                {"type": "dislike", "content": "香菜"},
                {"type": "family", "relation": "妈妈", "name": "李娟", "closeness": 5},
                {"type": "fact", "content": "主人在北京工作"},
                {"type": "trait", "content": "乐观"},
                {"type": "habit", "content": "每天跑步"},
                {"type": "goal", "content": "学会游泳"},
                {"type": "moment", "topic": "生日", "content": "一起庆祝了25岁生日", "emotion": "happy", "intensity": 5},
                {"type": "schedule", "content": "团队会议", "datetime": "2026-02-05 14:00", "priority": 4},
                {"type": "schedule", "content": "每天早餐提醒", "datetime": "2026-02-06 08:00", "repeat": "daily"},
                {"type": "coins", "amount": 35},
            ]
            for w in writes:
                err, out = await call(s, "memory", {"action": "write", **w})
                assert not err, (w, out)
                assert out["result"] in ("ADDED", "UPDATED"), (w, out)
            err, out = await call(s, "memory", {"action": "write", "type": "like", "content": "打篮球"})
            assert out["result"] == "NOOP"
            err, ov = await call(s, "memory", {"action": "read"})
            assert ov["profile"]["name"] == "王浩宇" and ov["profile"]["age"] == 25
            assert ov["preferences"] == {"likes": ["打篮球"], "dislikes": ["香菜"]}
            assert ov["family"] == [{"relation": "妈妈", "name": "李娟", "closeness": 5}]
            assert [x["content"] for x in ov["schedules"]] == ["团队会议", "每天早餐提醒"]
            assert ov["total_coins_spent"] == 35 and ov["relationship"] == "acquaintance"
            err, fam = await call(s, "memory", {"action": "read", "type": "family"})
            assert fam["items"][0]["name"] == "李娟"
            err, out = await call(s, "memory", {"action": "complete_schedule", "content": "早餐"})
            assert out["next"]["datetime"] == "2026-02-07 08:00"
            err, out = await call(s, "memory", {"action": "recall", "type": "fact", "keyword": "北京"})
            assert out["count"] == 1 and out["items"][0]["content"] == "主人在北京工作"
            err, out = await call(s, "memory", {"action": "search", "keyword": "篮球"})
            assert [i["type"] for i in out["items"]] == ["like"]
            err, out = await call(s, "memory", {"action": "delete", "type": "schedule", "content": "团队会议"})
            assert out["result"] == "DELETED"
            err, out = await call(s, "memory", {"action": "delete", "type": "dislike", "content": "香菜"})
            assert out["result"] == "DELETED"

    run(scenario())


def test_bad_arguments_are_tool_errors_and_change_nothing(device):
    async def scenario():
        async with session(device.url) as s:
            await call(s, "memory", {"action": "write", "type": "name", "content": "小明"})
            # Refusals are one sentence in the device's language (zh by default), naming the field in words.
            bad = [
                ({"action": "fly"}, "操作"),
                ({"action": "write", "type": "pet", "content": "x"}, "没有这个类型：pet"),
                ({"action": "write", "type": "age", "content": 200}, "年龄要在这个范围：0 到 150"),
                ({"action": "write", "type": "birthday", "content": "2026-02-30"}, "生日的格式不对"),
                ({"action": "write", "type": "schedule", "content": "会", "datetime": "2026-02-30 10:00"}, "时间的格式不对"),
                ({"action": "write", "type": "schedule", "content": "会", "datetime": "2026-02-10 10:00",
                  "repeat": "hourly"}, "重复方式"),
                ({"action": "write", "type": "schedule", "content": "生日", "datetime": "02-30"}, "时间的格式不对"),
                ({"action": "write", "type": "schedule", "content": "生日", "datetime": "03-15",
                  "significance": 7}, "重要性要在这个范围"),
                ({"action": "write", "type": "schedule", "content": "", "datetime": "2026-02-10 10:00"}, "内容"),
                ({"action": "recall", "type": "fact", "limit": 500}, "条数"),
                ({"action": "recall", "type": "fact", "start_date": "2026/01/01"}, "开始日期"),
                ({"action": "write"}, "缺少类型"),
            ]
            for args, word in bad:
                err, text = await call(s, "memory", args)
                assert err, args
                assert word in text, (args, text)
            err, ov = await call(s, "memory", {"action": "read"})
            assert ov["profile"] == {"name": "小明"} and ov["schedules"] == []

    run(scenario())


def test_memory_sync_is_for_trusted_callers_and_replays_batches(device):
    async def scenario():
        async with host_client(device) as c, session(device.url) as s:
            assert [t["name"] for t in await c.list_tools(with_user_tools=True)] == ["memory", "memory_sync"]
            ops = [{"op": "write", "type": "like", "content": "猫"},
                   {"op": "put_mem", "key": "mem_001", "category": "preference", "payload": "喜欢安静的咖啡馆",
                    "importance": 7, "source": "user", "tags": ["咖啡"]},
                   {"op": "coins", "amount": 10},
                   {"op": "write", "type": "age", "content": 999}]
            err, first = await sync(c, {"action": "apply", "batch_id": "b-1", "ops": ops})
            assert not err and first["replayed"] is False
            assert [r["result"] for r in first["results"]] == ["ADDED", "ADDED", "ADDED", "REFUSED"]
            assert "age" in first["results"][3]["detail"]
            err, again = await sync(c, {"action": "apply", "batch_id": "b-1", "ops": ops})
            assert again["replayed"] is True and again["results"] == first["results"]
            err, ov = await call(s, "memory", {"action": "read"})
            assert ov["total_coins_spent"] == 10
            err, found = await call(s, "memory", {"action": "search", "keyword": "咖啡"})
            assert found["items"][0]["key"] == "mem_001"
            err, st = await sync(c, {"action": "stats"})
            # the batch is in the journal; NVS is written once the conversation ends
            assert st["keyed"] == 1 and st["nvs"]["usable"] == 1386 and st["flash_bytes_written"] == 0
            assert st["store"]["journal"]["appends"] == 1 and st["pending_writes"] > 0
            err, clock = await sync(c, {"action": "set_clock", "unix": 1770300000, "utc_offset": 28800})
            assert clock["now"] == "2026-02-05T22:00:00"

    run(scenario())


def test_export_then_import_into_a_fresh_device(tmp_path, device):
    async def fill():
        async with host_client(device) as c, session(device.url) as s:
            for i in range(30):
                await call(s, "memory", {"action": "write", "type": "fact", "content": f"事实{i}"})
            await call(s, "memory", {"action": "write", "type": "name", "content": "王浩宇"})
            records, cursor = [], None
            while True:
                args = {"action": "export", "limit": 7}
                if cursor:
                    args["cursor"] = cursor
                err, page = await sync(c, args)
                records += page["records"]
                cursor = page["next_cursor"]
                if not cursor:
                    return records

    records = run(fill())
    assert sum(1 for r in records if r["type"] == "fact") == 20  # 10 older facts went to the archive
    with SimDevice(tmp_path / "other") as other:
        async def load():
            async with host_client(other) as c, session(other.url) as s:
                err, out = await sync(c, {"action": "import", "batch_id": "imp-1", "records": records})
                assert not err and all(r["result"] != "REFUSED" for r in out["results"]), out
                err, ov = await call(s, "memory", {"action": "read", "type": "fact"})
                return ov
        facts = run(load())
        assert len(facts["items"]) == 20
        # The restored facts keep the times they were learned on the first device.
        exported = sorted(r["learned_at"] for r in records if r["type"] == "fact")
        assert sorted(f["learned_at"] for f in facts["items"]) == exported


def test_data_survives_restart_and_sigterm_flushes(tmp_path):
    data = tmp_path / "dev"
    with SimDevice(data) as d:
        async def write():
            async with session(d.url) as s:
                await call(s, "memory", {"action": "write", "type": "name", "content": "小红"})
                await call(s, "memory", {"action": "write", "type": "fact", "content": "养了一只猫"})
        run(write())
    assert "xzmem device stopped" in d.stop()
    with SimDevice(data) as d2:
        async def read():
            async with session(d2.url) as s:
                return (await call(s, "memory", {"action": "read"}))[1]
        ov = run(read())
    assert ov["profile"]["name"] == "小红" and ov["facts"] == ["养了一只猫"]


def test_wrong_or_missing_token_is_refused_before_the_upgrade(device):
    import websockets

    async def status(url):
        try:
            async with websockets.connect(url, subprotocols=["mcp"]):
                return 101
        except websockets.InvalidStatus as e:
            return e.response.status_code

    assert run(status(device.url.replace("test-token", "nope-token"))) == 401
    assert run(status(device.url.split("?")[0])) == 401
    assert run(status(device.url)) == 101


def test_a_client_that_made_changes_and_leaves_ends_the_conversation_with_one_flush(device):
    async def scenario():
        async with host_client(device) as c:
            async with session(device.url) as s:
                for content in ("主人喜欢下雨天", "主人明天去爬山"):
                    err, out = await call(s, "memory", {"action": "write", "type": "fact", "content": content})
                    assert not err and out["result"] == "ADDED"
                err, st = await sync(c, {"action": "stats"})
                assert st["flash_bytes_written"] == 0 and st["store"]["journal"]["appends"] == 2
            # the writing client is gone: its conversation ended, NVS was written once, the journal cut
            for _ in range(50):
                err, st = await sync(c, {"action": "stats"})
                if st["flash_bytes_written"]:
                    break
                await asyncio.sleep(0.1)
            assert st["pending_writes"] == 0 and st["flash_bytes_written"] > 0
            assert st["store"]["journal"]["bytes"] == 0

    run(scenario())
