"""`xzmem sim` under an unlucky client: retried and concurrent calls, damaged state files, a full partition."""

import asyncio
import json
import time
import warnings
from pathlib import Path

from simdevice import SimDevice, call, session

warnings.filterwarnings("ignore", category=DeprecationWarning)


def test_three_concurrent_completions_move_a_daily_schedule_one_day(tmp_path):
    async def scenario(url):
        async with session(url) as a, session(url) as b, session(url) as c:
            err, out = await call(a, "memory", {"action": "write", "type": "schedule", "content": "吃药",
                                                "datetime": "2026-02-05 20:00", "repeat": "daily"})
            assert not err, out
            done = await asyncio.gather(*(call(s, "memory", {"action": "complete_schedule", "content": "吃药"})
                                          for s in (a, b, c)))
            assert [d[1]["result"] for d in done].count("UPDATED") == 1, done
            assert {d[1]["completed"]["datetime"] for d in done} == {"2026-02-05 20:00"}
            assert {d[1]["next"]["datetime"] for d in done} == {"2026-02-06 20:00"}
            err, out = await call(a, "memory", {"action": "read", "type": "schedule"})
            assert [x["datetime"] for x in out["items"]] == ["2026-02-06 20:00"]

    with SimDevice(tmp_path / "dev", "--start-time", "2026-02-05T18:00") as device:
        asyncio.run(scenario(device.url))


# ---- a full partition


def _take_every_free_block(fs, root):
    """Write 4 KB files under `root`/filler until the partition refuses one."""
    fs.mkdir(root + "/filler")
    n = 0
    while True:
        try:
            with fs.open(f"{root}/filler/{n}", "wb") as f:
                f.write(b"\0" * 4096)
        except OSError:
            return
        n += 1


def _fill_image(path, size):
    """A LittleFS image of `size` bytes whose archive holds 2025's facts and whose last free block is
    taken by a file the device knows nothing of: full, as a long-used board's partition gets."""
    import lfsvolume
    from memory import fs
    from memory.archive import Archive

    def fill(root):
        archive = Archive(root + "/archive", part_bytes=8192)
        t = 1735689600  # 2025-01-01
        for n in range(40):
            items = [{"id": 100000 + n * 10 + i, "type": "fact", "learned_at": t + (n * 10 + i) * 36000,
                      "content": f"旧事 {n * 10 + i} {'x' * 150}"} for i in range(10)]
            archive.append("fact", items)
        _take_every_free_block(fs, root)

    return lfsvolume.build_image(path, size, fill)


def test_a_full_partition_answers_truthfully_and_keeps_other_clients_served(tmp_path):
    """The storm of issue 17 on a partition filled to its last block: 100 fact writes and 20 batches of
    32 ops (keyed memories, facts, moods, coins) from two clients, a third reading (stats, recall, search, export pages) all along, and an
    honest client pinging. Every answer is true after a restart; the pings keep their round trips and
    no step of work holds the simulator's event loop long (measured inside it by --loop-probe)."""
    import sys

    root = Path(__file__).resolve().parents[2]
    for p in (root / "lib", root / "firmware" / "sim"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    data = tmp_path / "dev"
    data.mkdir()
    assert _fill_image(data / "memory.lfs", 384 * 1024) < 4096  # not one block left

    answers = []
    pings = []
    keys = [f"mem_s{i}" for i in range(8)]

    async def storm(url):
        acked_facts, acked_keyed, coins = set(), {}, 0
        async with session(url) as a, session(url) as b, session(url) as reader, session(url) as honest:
            stop = asyncio.Event()

            async def ping_loop():
                while not stop.is_set():
                    t0 = time.monotonic()
                    await honest.send_ping()
                    pings.append(time.monotonic() - t0)
                    await asyncio.sleep(0.02)

            async def read_loop():
                calls = [("memory_sync", {"action": "stats"}),
                         ("memory", {"action": "recall", "type": "fact", "keyword": "潜水艇", "limit": 50}),
                         ("memory", {"action": "search", "keyword": "批次", "limit": 50}),
                         ("memory_sync", {"action": "export", "archive": True, "limit": 200})]
                n = 0
                while not stop.is_set():
                    err, out = await call(reader, *calls[n % len(calls)])
                    answers.append(out)
                    assert not err, out
                    n += 1

            async def facts(s, first):
                for i in range(first, first + 50):
                    content = f"storm{'A' if i < 50 else 'B'} {i}"
                    err, out = await call(s, "memory", {"action": "write", "type": "fact", "content": content})
                    answers.append(out)
                    if not err and out["result"] == "ADDED":
                        acked_facts.add(content)

            async def batches(s):
                nonlocal coins
                for n in range(20):
                    ops = [{"op": "put_mem", "key": keys[(n + i) % len(keys)], "category": "storm",
                            "payload": f"批次 {n} 第 {i} {'y' * 120}", "importance": 3, "source": "user"}
                           for i in range(len(keys))]
                    ops += [{"op": "write", "type": "fact", "content": f"批{n}批 fact {i}"} for i in range(6)]
                    ops += [{"op": "mood", "mood": f"mood {n} {i}"} for i in range(17)]
                    ops.append({"op": "coins", "amount": 1})
                    err, out = await call(s, "memory_sync", {"action": "apply", "batch_id": f"storm-{n}", "ops": ops})
                    answers.append(out)
                    assert not err or "memory is full" in out, out
                    if err:
                        continue
                    again = (await call(s, "memory_sync", {"action": "apply", "batch_id": f"storm-{n}", "ops": ops}))[1]
                    assert again["replayed"] and again["results"] == out["results"], (out, again)
                    for op, result in zip(ops, out["results"], strict=True):
                        if result["result"] in ("ADDED", "UPDATED", "NOOP") and op["op"] == "put_mem":
                            acked_keyed[op["key"]] = op["payload"]
                        elif result["result"] == "ADDED" and op["op"] == "write":
                            acked_facts.add(op["content"])
                    assert out["results"][-1]["result"] in ("ADDED", "UPDATED"), out
                    coins += 1

            pinger = asyncio.create_task(ping_loop())
            readers = asyncio.create_task(read_loop())
            await asyncio.gather(facts(a, 0), facts(b, 50), batches(a))
            stop.set()
            await pinger
            await readers
        return acked_facts, acked_keyed, coins

    async def stored(url):
        async with session(url) as s:
            found = set()
            for kw in ["stormA", "stormB"] + [f"批{n}批" for n in range(20)]:
                out = (await call(s, "memory", {"action": "recall", "type": "fact", "keyword": kw, "limit": 50}))[1]
                found |= {x["content"] for x in out["items"]}
            keyed = (await call(s, "memory", {"action": "search", "keyword": "批次", "limit": 50}))[1]["items"]
            coins = (await call(s, "memory", {"action": "read", "type": "coins"}))[1]["items"][0]["total_coins_spent"]
            stats = (await call(s, "memory_sync", {"action": "stats"}))[1]
            return found, {x["key"]: x["payload"] for x in keyed if x["type"] == "keyed"}, coins, stats

    probe_file = tmp_path / "loop-probe.json"
    with SimDevice(data, "--start-time", "2026-02-05T08:00", "--loop-probe", str(probe_file)) as device:
        acked_facts, acked_keyed, coins = asyncio.run(storm(device.url))
    probe = json.loads(probe_file.read_text())
    with SimDevice(data, "--start-time", "2026-02-05T09:00") as device:
        found, keyed, total, stats = asyncio.run(stored(device.url))

    for out in answers:
        assert "Errno" not in str(out) and "LFS_" not in str(out), out
    assert found == acked_facts and len(acked_facts) > 100
    assert keyed == acked_keyed and total == coins > 0
    assert stats["archive"]["dropped_segments"] > 0
    pings.sort()
    p50, p99 = pings[len(pings) // 2], pings[int(len(pings) * 0.99)]
    print(f"full partition storm: {len(answers)} answers, {len(pings)} pings, p50 {p50 * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms, max {pings[-1] * 1000:.1f} ms; loop held at most {probe['longest_hold_ms']} ms "
          f"(p99 {probe['p99_hold_ms']} ms, {probe['holds_over_threshold']} holds over 100 ms in {probe['ticks']} "
          f"ticks), CPU work in one hold at most {probe['longest_work_ms']} ms (p99 {probe['p99_work_ms']} ms); "
          f"{len(acked_facts)} facts, {coins} batches acknowledged")
    print("longest holds:", json.dumps(probe["worst"][:4], indent=1))
    assert p99 < 1.0, p99
    # The bound is on work (CPU time of the loop's thread in one hold): on a loaded 2-core machine a
    # hold's wall time also counts waits for a CPU, which no yielding can remove.
    assert probe["longest_work_ms"] <= 100, probe


def test_a_damaged_nvs_file_boots_with_what_still_parses(tmp_path):
    data = tmp_path / "dev"

    async def write(url):
        async with session(url) as s:
            for content in ("喜欢猫", "住在杭州", "会弹吉他"):
                assert not (await call(s, "memory", {"action": "write", "type": "fact", "content": content}))[0]

    async def read(url):
        async with session(url) as s:
            return await call(s, "memory", {"action": "read", "type": "fact"})

    with SimDevice(data, "--start-time", "2026-02-05T08:00") as device:
        asyncio.run(write(device.url))
    nvs = data / "nvs.json"
    for damage in (nvs.read_text()[: len(nvs.read_text()) - 150], '{"items": 7}'):
        nvs.write_text(damage)
        device = SimDevice(data, "--start-time", "2026-02-05T09:00").start()
        try:
            err, out = asyncio.run(read(device.url))
        finally:
            log = device.stop()
        assert not err, out
        assert "nvs: " in log and "nvs.json.bad" in log, log
    assert (data / "nvs.json.bad").exists()


def _fill_rest(image):
    """Take every free block of an existing image with a file the device knows nothing of."""
    import esp32
    import lfsvolume
    from memory import fs

    esp32.configure_partition("memory", str(image), image.stat().st_size)
    volume = lfsvolume.LfsVolume(esp32.Partition("memory"))
    fs.mount("/prefill", volume)
    try:
        _take_every_free_block(fs, "/prefill")
        return fs.free_bytes("/prefill")
    finally:
        fs.umount("/prefill")
        volume.unmount()


def test_a_partition_full_with_nothing_to_drop_boots_and_serves_every_memory(tmp_path):
    """Issue 29: with no archive left to drop, a reboot used to give up /data, and with it 56 keyed
    memories and the acknowledged facts only the journal held."""
    import sys

    root = Path(__file__).resolve().parents[2]
    for p in (root / "lib", root / "firmware" / "sim"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    data = tmp_path / "dev"

    async def fill(url):
        async with session(url) as s:
            for first in range(0, 56, 14):  # 14 a batch: a message to the device holds 4 KB
                ops = [{"op": "put_mem", "key": f"mem_k{i}", "category": "fact", "payload": f"记住的第{i}件事",
                        "importance": 3, "source": "user"} for i in range(first, first + 14)]
                err, out = await call(s, "memory_sync", {"action": "apply", "batch_id": f"k{first}", "ops": ops})
                assert not err and {r["result"] for r in out["results"]} == {"ADDED"}, out
            for i in range(15):
                err, out = await call(s, "memory", {"action": "write", "type": "fact", "content": f"事实{i}"})
                assert not err, out

    async def check(url):
        async with session(url) as s:
            err, facts = await call(s, "memory", {"action": "read", "type": "fact"})
            stats = (await call(s, "memory_sync", {"action": "stats"}))[1]
            err2, found = await call(s, "memory", {"action": "search", "keyword": "件事", "limit": 50})
            err3, refused = await call(s, "memory_sync", {"action": "apply", "batch_id": "full", "ops": [
                {"op": "put_mem", "key": "mem_new", "category": "fact", "payload": "满了", "importance": 3,
                 "source": "user"}]})
            return facts, stats, found, refused

    device = SimDevice(data, "--start-time", "2026-02-05T08:00")
    device.start()
    try:
        asyncio.run(fill(device.url))
    finally:
        device.kill()  # a power cut: the facts are only in the journal
    assert _fill_rest(data / "memory.lfs") < 4096
    with SimDevice(data, "--start-time", "2026-02-05T09:00") as device:
        facts, stats, found, refused = asyncio.run(check(device.url))
        log = "".join(device.output)
    assert "cannot be used this boot" not in log, log
    assert {x["content"] for x in facts["items"]} == {f"事实{i}" for i in range(15)}, facts
    assert stats["store"]["keyed"] == 56, stats
    assert len([x for x in found["items"] if x["type"] == "keyed"]) == 50  # search's limit: the rest are there too
    assert refused["results"][0]["result"] == "REFUSED" and "full" in refused["results"][0]["detail"], refused
