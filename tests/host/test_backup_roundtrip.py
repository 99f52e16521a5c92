"""`xzmem export --archive` / `xzmem import` between two simulated devices: a full backup.

Device A holds every kind of memory (profile, likes, family, facts with some already archived,
traits, habits, goals, moments, the chat ring, schedules upcoming, completed and repeating, coins,
mood, keyed memories with program fields). Export -> import into an empty device B -> export
gives the same document apart from the export time. An export file with records the device
refuses is imported as far as it goes, lists each refusal with its reason and exits non-zero.
"""

import asyncio
import json
import warnings

import pytest
from simdevice import TOKEN, SimDevice, call, session
from typer.testing import CliRunner
from xzmem.cli.app import app

warnings.filterwarnings("ignore", category=DeprecationWarning)

runner = CliRunner()


@pytest.fixture
def env(tmp_path):
    return {"XZMEM_CONFIG": str(tmp_path / "config.toml"), "XZMEM_DATA_DIR": str(tmp_path / "data"),
            "XZMEM_DEVICE": None, "XZMEM_TOKEN": None, "COLUMNS": "120"}


def xzmem(env, device, *args):
    return runner.invoke(app, [*args, "--device", device.url.split("?")[0], "--token", TOKEN], env=env)


async def fill(url: str) -> None:
    async with session(url) as s:
        writes = [
            {"type": "name", "content": "王浩宇"}, {"type": "age", "content": 25},
            {"type": "birthday", "content": "2001-03-15"}, {"type": "like", "content": "打篮球"},
            {"type": "dislike", "content": "香菜"},
            {"type": "family", "relation": "妈妈", "name": "李娟", "closeness": 5},
            {"type": "trait", "content": "乐观"}, {"type": "habit", "content": "每天跑步"},
            {"type": "goal", "content": "学会游泳"},
            {"type": "moment", "topic": "生日", "content": "一起庆祝了25岁生日", "emotion": "happy", "intensity": 5},
            {"type": "schedule", "content": "团队会议", "datetime": "2026-02-05 14:00", "priority": 4},
            {"type": "schedule", "content": "每天早餐提醒", "datetime": "2026-02-06 08:00", "repeat": "daily"},
            {"type": "schedule", "content": "交报告", "datetime": "2026-02-07 09:00"},
            {"type": "coins", "amount": 35}, {"type": "mood", "content": "开心"},
        ]
        writes += [{"type": "fact", "content": f"第{i}件事"} for i in range(23)]  # the oldest 5 are archived
        writes += [{"type": "chat", "role": "user" if i % 2 else "assistant", "content": f"消息{i}"} for i in range(32)]
        for args in writes:
            err, out = await call(s, "memory", {"action": "write", **args})
            assert not err, (args, out)
        for content in ("每天早餐提醒", "交报告"):
            err, out = await call(s, "memory", {"action": "complete_schedule", "content": content})
            assert not err, out
        err, out = await call(s, "memory_sync", {"action": "apply", "batch_id": "keyed-1", "ops": [
            {"op": "put_mem", "key": "mem_001", "category": "preference", "payload": "喜欢安静的咖啡馆",
             "importance": 7, "source": "user", "tags": ["咖啡"], "trigger_count": 4,
             "created_at": 1767225600, "updated_at": 1767312000, "last_triggered": 1767398400}]})
        assert not err and out["results"][0]["result"] == "ADDED", out


def test_export_import_export_is_the_same_document(env, tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    with SimDevice(tmp_path / "a", "--start-time", "2026-02-05T08:00") as a:
        asyncio.run(fill(a.url))
        exported = xzmem(env, a, "export", str(first), "--archive")
        assert exported.exit_code == 0, exported.output
    doc = json.loads(first.read_text(encoding="utf-8"))
    kinds = {}
    for r in doc["records"]:
        kinds[r["type"]] = kinds.get(r["type"], 0) + 1
    assert kinds["archive"] == 5 and kinds["fact"] == 18 and kinds["chat"] == 30 and kinds["schedule"] == 3
    assert kinds["keyed"] == 1 and kinds["affection"] == 1
    with SimDevice(tmp_path / "b", "--start-time", "2026-02-05T09:00") as b:
        imported = xzmem(env, b, "import", str(first))
        assert imported.exit_code == 0, imported.output
        assert "REFUSED" not in imported.stdout
        exported = xzmem(env, b, "export", str(second), "--archive")
        assert exported.exit_code == 0, exported.output
    again = json.loads(second.read_text(encoding="utf-8"))
    doc.pop("exported_at")
    again.pop("exported_at")
    assert doc.pop("device_id") != again.pop("device_id")  # two simulators, two ids
    assert again == doc


def test_refused_records_are_listed_and_the_exit_code_is_not_zero(env, tmp_path):
    path = tmp_path / "mixed.json"
    records = [
        {"type": "fact", "content": "主人喜欢下雨天", "learned_at": 1767225600},
        {"type": "fact", "content": "没有学到的时间"},
        {"type": "schedule", "content": "坏日程", "when": "明天"},
        {"type": "like", "content": "猫", "learned_at": 1767225600},
    ]
    path.write_text(json.dumps({"format": "xzmem-export", "version": 1, "device_id": "x", "exported_at": "",
                                "records": records}, ensure_ascii=False), encoding="utf-8")
    with SimDevice(tmp_path / "dev") as dev:
        result = xzmem(env, dev, "import", str(path))
        assert result.exit_code == 1, result.output
        assert "2 ADDED, 2 REFUSED" in result.stdout
        assert "refused records[1] (fact): " in result.stdout and "learned_at" in result.stdout
        assert "refused records[2] (schedule): " in result.stdout and "when" in result.stdout
        assert result.stderr.strip().splitlines()[-1].startswith("xzmem: 2 of 4 records were refused")
