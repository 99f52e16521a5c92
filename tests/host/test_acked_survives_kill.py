"""An acknowledged change survives a power cut: `xzmem sim` is SIGKILLed 0-2 s after answers, then restarted.

200 acknowledged `memory` writes of mixed types (and deletes, complete_schedule, coins, mood) are
made over the real MCP link, a few per simulator life: every write of a life is answered, then the
process is killed at a random moment no later than 2 s after the first answer of that life, so
each write is followed by SIGKILL within 0-2 s of its answer. The 60 s idle flush never comes and
the client never disconnects cleanly, so only the journal can keep them. After the last restart
everything acknowledged is read back, and coins are exact. The same for `memory_sync apply`
batches, some of them sent again after the restart (replayed, never counted twice).
"""

import asyncio
import random
import time
import warnings

from simdevice import SimDevice, call, session

warnings.filterwarnings("ignore", category=DeprecationWarning)

WRITES = 200
PER_LIFE = 9  # coprime with the 10-step cycle, so lives end on every kind of change
KILL_WITHIN = 2.0


def mixed_writes(n: int) -> list[dict]:
    """n memory tool calls cycling through every kind of change."""
    out = []
    while len(out) < n:
        k = len(out) // 10
        step = [
            {"action": "write", "type": "fact", "content": f"事实{k}号"},
            {"action": "write", "type": "coins", "content": 1 + k % 4},
            {"action": "write", "type": "like", "content": f"喜欢{k % 6}"},
            {"action": "write", "type": "mood", "content": f"心情{k}"},
            {"action": "write", "type": "chat", "role": "user", "content": f"聊天{k}"},
            {"action": "write", "type": "schedule", "content": f"日程{k}", "datetime": f"2026-03-01 {k:02d}:00",
             "repeat": "daily"},
            {"action": "complete_schedule", "content": f"日程{k}"},
            {"action": "write", "type": "moment", "content": f"时刻{k}号", "emotion": "happy"},
            {"action": "write", "type": "name", "content": f"名字{k}"},
            {"action": "delete", "type": "schedule", "content": f"日程{k - 1}"} if k else
            {"action": "write", "type": "family", "relation": "妈妈", "name": "李华", "closeness": 5},
        ]
        out.extend(step[: n - len(out)])
    return out


async def make_writes(url: str, calls: list[dict]) -> float:
    """Send the calls; every answer must be a success. Returns the monotonic time of the first answer."""
    first = None
    async with session(url) as s:
        for args in calls:
            is_error, answer = await call(s, "memory", args)
            assert not is_error, (args, answer)
            first = first or time.monotonic()
    return first


def kill_within(device: SimDevice, first_answer: float, rng: random.Random) -> None:
    left = max(0.0, KILL_WITHIN - (time.monotonic() - first_answer))
    time.sleep(rng.uniform(0, left))
    device.kill()


async def read_back(url: str) -> dict:
    async with session(url) as s:
        out = {}
        for kind in ("coins", "like", "chat", "schedule", "family", "name"):
            _, out[kind] = await call(s, "memory", {"action": "read", "type": kind})
        for kind, word in (("fact", "事实"), ("moment", "时刻")):
            found = []
            for k in range(WRITES // 10):
                _, got = await call(s, "memory", {"action": "recall", "type": kind, "keyword": f"{word}{k}号"})
                found.extend(item["content"] for item in got["items"])
            out[kind] = found
    return out


def test_two_hundred_acknowledged_writes_survive_sigkill_within_two_seconds(tmp_path):
    rng = random.Random(16)
    calls = mixed_writes(WRITES)
    data = tmp_path / "dev"
    port = None
    for start in range(0, WRITES, PER_LIFE):
        device = SimDevice(data, "--start-time", "2026-02-01T08:00", port=port).start()
        port = device.port
        try:
            first = asyncio.run(make_writes(device.url, calls[start : start + PER_LIFE]))
            kill_within(device, first, rng)
        finally:
            device.kill()
    device = SimDevice(data, "--start-time", "2026-02-01T08:00", port=port).start()
    try:
        got = asyncio.run(read_back(device.url))
    finally:
        device.stop()
    cycles = WRITES // 10
    assert got["coins"]["items"][0]["total_coins_spent"] == sum(1 + k % 4 for k in range(cycles))
    assert got["coins"]["items"][0]["mood"] == f"心情{cycles - 1}"
    assert got["name"]["items"][0]["content"] == f"名字{cycles - 1}"
    assert sorted(x["content"] for x in got["like"]["items"]) == [f"喜欢{k}" for k in range(6)]
    assert [x["content"] for x in got["chat"]["items"]] == [f"聊天{k}" for k in range(cycles)]
    assert sorted(got["fact"]) == sorted(f"事实{k}号" for k in range(cycles))
    assert sorted(got["moment"]) == sorted(f"时刻{k}号" for k in range(cycles))
    assert [x["name"] for x in got["family"]["items"]] == ["李华"]
    # only the last schedule is left (every other one was deleted), completed once: its next day
    schedules = got["schedule"]["items"]
    assert [(x["content"], x["datetime"]) for x in schedules] == [(f"日程{cycles - 1}", f"2026-03-02 {cycles - 1}:00")]


APPLY_LIVES = 4


def batch(life: int, n: int) -> tuple[str, list[dict]]:
    return f"b{life}-{n}", [
        {"op": "coins", "amount": 3},
        {"op": "write", "type": "fact", "content": f"批次{life}-{n}"},
        {"op": "put_mem", "key": f"mem_{life}_{n}", "category": "test", "payload": f"键{life}-{n}",
         "importance": 5, "source": "user"},
        {"op": "mood", "mood": f"批次心情{life}-{n}"},
    ]


async def apply_batches(url: str, batches: list[tuple[str, list[dict]]]) -> float:
    first = None
    async with session(url) as s:
        for batch_id, ops in batches:
            is_error, answer = await call(s, "memory_sync", {"action": "apply", "batch_id": batch_id, "ops": ops})
            assert not is_error and not answer["replayed"], answer
            assert [r["result"] for r in answer["results"]][1:] == ["ADDED", "ADDED", "UPDATED"], answer
            first = first or time.monotonic()
    return first


async def resend_and_read(url: str, batches: list[tuple[str, list[dict]]]) -> tuple[list[bool], dict, list, int]:
    async with session(url) as s:
        replayed = []
        for batch_id, ops in batches:
            _, answer = await call(s, "memory_sync", {"action": "apply", "batch_id": batch_id, "ops": ops})
            replayed.append(answer["replayed"])
        _, coins = await call(s, "memory", {"action": "read", "type": "coins"})
        _, facts = await call(s, "memory", {"action": "recall", "type": "fact", "keyword": "批次", "limit": 50})
        _, stats = await call(s, "memory_sync", {"action": "stats"})
    return replayed, coins["items"][0], [x["content"] for x in facts["items"]], stats["keyed"]


def test_acknowledged_sync_batches_survive_sigkill_and_count_coins_once(tmp_path):
    rng = random.Random(17)
    data = tmp_path / "dev"
    port = None
    sent = []
    for life in range(APPLY_LIVES):
        batches = [batch(life, n) for n in range(2)]
        device = SimDevice(data, port=port).start()
        port = device.port
        try:
            first = asyncio.run(apply_batches(device.url, batches))
            kill_within(device, first, rng)
        finally:
            device.kill()
        sent.extend(batches)
    device = SimDevice(data, port=port).start()
    try:
        # the host sends the last life's batches again, as an outbox would that missed their answers
        replayed, affection, facts, keyed = asyncio.run(resend_and_read(device.url, sent[-2:]))
    finally:
        device.stop()
    assert replayed == [True, True]
    assert affection["total_coins_spent"] == 3 * len(sent)
    assert affection["mood"] == f"批次心情{APPLY_LIVES - 1}-1"
    assert sorted(facts) == sorted(f"批次{life}-{n}" for life in range(APPLY_LIVES) for n in range(2))
    assert keyed == len(sent)
