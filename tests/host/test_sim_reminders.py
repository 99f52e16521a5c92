"""Reminders from the simulated device reach an MCP client as notifications/message, in fast time."""

import asyncio
import json
import warnings

from simdevice import SimDevice, call, session

warnings.filterwarnings("ignore", category=DeprecationWarning)


def test_a_day_of_reminders_in_seconds(tmp_path):
    # The device clock starts at 12:55 and runs 1500x: its 10-minute reminder loop runs every 0.4 s.
    with SimDevice(tmp_path / "dev", "--start-time", "2026-02-05T12:55", "--speed", "1500") as device:
        got = []

        async def on_log(params):
            got.append(params)

        async def scenario():
            async with session(device.url, logging_callback=on_log) as s:
                for content, when, prio in (("团队会议", "2026-02-05 14:00", 5), ("健身", "2026-02-05 16:30", 1)):
                    err, out = await call(s, "memory", {"action": "write", "type": "schedule", "content": content,
                                                        "datetime": when, "priority": prio})
                    assert out["result"] == "ADDED", out
                for _ in range(200):
                    if len(got) >= 2:
                        break
                    await asyncio.sleep(0.1)
                err, ov = await call(s, "memory", {"action": "read", "type": "schedule"})
                return ov

        schedules = asyncio.run(scenario())
    assert [p.logger for p in got] == ["memory.reminder", "memory.reminder"]
    data = [p.data if isinstance(p.data, dict) else json.loads(p.data) for p in got]
    assert [(d["content"], d["urgency"], d["missed"]) for d in data] == [("团队会议", "urgent", False), ("健身", "light", False)]
    assert "团队会议" in data[0]["text"]
    assert all(s["reminded"] == 1 for s in schedules["items"])
