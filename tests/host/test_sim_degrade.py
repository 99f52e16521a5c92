"""`xzmem sim` under an unlucky client: retried and concurrent calls, damaged state files, a full partition."""

import asyncio
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


def _fill_image(path, size):
    """A LittleFS image of `size` bytes whose archive holds 2025's facts and whose last free block is
    taken by a file the device knows nothing of: full, as a long-used board's partition gets."""
    import esp32
    import lfsvolume
    from memory import fs
    from memory.archive import Archive

    esp32.configure_partition("memory", str(path), size)
    part = esp32.Partition("memory")
    lfsvolume.mkfs(part)
    volume = lfsvolume.LfsVolume(part)
    fs.mount("/prefill", volume)
    try:
        archive = Archive("/prefill/archive", part_bytes=8192)
        t = 1735689600  # 2025-01-01
        for n in range(40):
            items = [{"id": 100000 + n * 10 + i, "type": "fact", "learned_at": t + (n * 10 + i) * 36000,
                      "content": f"旧事 {n * 10 + i} {'x' * 150}"} for i in range(10)]
            archive.append("fact", items)
        fs.mkdir("/prefill/filler")
        n = 0
        while True:
            try:
                with fs.open(f"/prefill/filler/{n}", "wb") as f:
                    f.write(b"\0" * 4096)
            except OSError:
                break
            n += 1
        free = fs.free_bytes("/prefill")
    finally:
        fs.umount("/prefill")
        volume.unmount()
    return free


def test_a_full_partition_answers_truthfully_and_keeps_other_clients_served(tmp_path):
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

    async def storm(url):
        acked_facts, acked_keys, coins = set(), set(), 0
        async with session(url) as a, session(url) as b, session(url) as honest:
            stop = asyncio.Event()

            async def ping_loop():
                while not stop.is_set():
                    t0 = time.monotonic()
                    await honest.send_ping()
                    pings.append(time.monotonic() - t0)
                    await asyncio.sleep(0.02)

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
                    ops = [{"op": "put_mem", "key": f"mem_s{n}", "category": "storm", "payload": f"批次 {n}",
                            "importance": 3, "source": "user"}, {"op": "coins", "amount": 1}]
                    err, out = await call(s, "memory_sync", {"action": "apply", "batch_id": f"storm-{n}", "ops": ops})
                    answers.append(out)
                    assert not err or "memory is full" in out, out
                    if err:
                        continue
                    again = (await call(s, "memory_sync", {"action": "apply", "batch_id": f"storm-{n}", "ops": ops}))[1]
                    assert again["replayed"] and again["results"] == out["results"], (out, again)
                    if out["results"][0]["result"] == "ADDED":
                        acked_keys.add(f"mem_s{n}")
                    assert out["results"][1]["result"] in ("ADDED", "UPDATED"), out
                    coins += 1

            pinger = asyncio.create_task(ping_loop())
            await asyncio.gather(facts(a, 0), facts(b, 50), batches(a))
            stop.set()
            await pinger
        return acked_facts, acked_keys, coins

    async def stored(url):
        async with session(url) as s:
            found = set()
            for kw in ("stormA", "stormB"):
                out = (await call(s, "memory", {"action": "recall", "type": "fact", "keyword": kw, "limit": 50}))[1]
                found |= {x["content"] for x in out["items"]}
            keyed = (await call(s, "memory", {"action": "search", "keyword": "批次", "limit": 50}))[1]["items"]
            coins = (await call(s, "memory", {"action": "read", "type": "coins"}))[1]["items"][0]["total_coins_spent"]
            stats = (await call(s, "memory_sync", {"action": "stats"}))[1]
            return found, {x["key"] for x in keyed if x["type"] == "keyed"}, coins, stats

    with SimDevice(data, "--start-time", "2026-02-05T08:00") as device:
        acked_facts, acked_keys, coins = asyncio.run(storm(device.url))
    with SimDevice(data, "--start-time", "2026-02-05T09:00") as device:
        found, keys, total, stats = asyncio.run(stored(device.url))

    for out in answers:
        assert "Errno" not in str(out) and "LFS_" not in str(out), out
    assert found == acked_facts and len(acked_facts) > 0
    assert keys == acked_keys and total == coins
    assert stats["archive"]["dropped_segments"] > 0
    pings.sort()
    p99 = pings[int(len(pings) * 0.99)]
    print(f"full partition storm: {len(answers)} answers, {len(pings)} pings, p99 {p99:.3f} s, max {pings[-1]:.3f} s, "
          f"{len(acked_facts)} facts and {len(acked_keys)} batches acknowledged")
    assert p99 < 1.0, p99


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
