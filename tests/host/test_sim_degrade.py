"""`xzmem sim` under an unlucky client: retried and concurrent calls, damaged state files, a full partition."""

import asyncio
import warnings

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
