"""Stages together: op batches, the extraction log, the keyed mirror and the profile loop."""

import asyncio
import json

from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.profile import PROFILE_KEY, format_profile
from xzmem.pipelines.runner import Pipelines

NOW = 1_800_000_000.0
EXTRACT = "记忆提取器"
CHANGES = "维护陪伴型"
PROFILE = "用户画像"
REFLECT = "反思模块"
PROFILE_REPLY = {
    "summary": "小明是一名护士，喜欢喝乌龙茶。", "domains": ["医疗护理"], "high_value_signals": ["排班和作息"],
    "low_value_signals": ["天气闲聊"], "language_preferences": "中文", "active_projects": ["准备护士职称考试"],
}


def make(config):
    conn = open_db(config.data_path)
    return Pipelines(config, conn, LLMClient(config.llm), clock=lambda: NOW), conn


def add_item(payload, category="identity", key="mem_new1"):
    return {"key": key, "action": "add", "category": category, "payload": payload, "importance": 8, "source": "user"}


def test_exchange_emits_batches_logs_and_mirrors(fake_llm, config):
    pipelines, conn = make(config)
    fake_llm.reply({"memories": [{"content": "用户是一名护士", "category": "identity", "importance": 0.9, "source": "user"}]}, match=EXTRACT)
    fake_llm.reply([add_item("用户是一名护士，叫小明")], match=CHANGES)
    outcome = asyncio.run(pipelines.exchange("我叫小明，我是一名护士", "你好小明！护士工作辛苦了。"))
    stages = [b.batch_id.split("-")[0] for b in outcome.batches]
    assert stages == ["sieve", "changes"]
    fast, changes = outcome.batches
    assert {op["type"] for op in fast.ops} == {"name", "fact"}
    [put] = changes.ops
    assert put["op"] == "put_mem" and put["payload"] == "用户是一名护士，叫小明"
    assert [m.key for m in pipelines.mirror.list_keyed()] == [put["key"]]
    assert pipelines.profiles.get().stale
    rows = conn.execute("SELECT stage, raw_output, errors, batch_ids FROM extraction_log ORDER BY id").fetchall()
    assert [r["stage"] for r in rows] == ["sieve", "changes"]
    assert "用户是一名护士" in rows[0]["raw_output"] and json.loads(rows[1]["batch_ids"]) == [changes.batch_id]
    assert [m.content for m in pipelines.working.memories] == ["用户是一名护士"]


def test_working_memory_survives_between_runs(fake_llm, config):
    pipelines, _ = make(config)
    fake_llm.reply(status=500)
    fake_llm.reply(status=500)
    fake_llm.reply("[]", match=CHANGES)
    asyncio.run(pipelines.exchange("帮我查一下明天去杭州的高铁有哪些班次", "明天上午有三班：G7501、G7503、G7505。"))
    again, _ = make(config)
    assert [m.content[:8] for m in again.working.memories] == ["[未提取] 用户"]


def test_stale_profile_is_synthesized_and_fed_to_extraction(fake_llm, config):
    pipelines, conn = make(config)
    fake_llm.reply({"memories": []}, match=EXTRACT)
    fake_llm.reply([add_item("用户是一名护士"), add_item("用户喜欢喝乌龙茶", "preference", "mem_new2")], match=CHANGES)
    asyncio.run(pipelines.exchange("我是一名护士，我喜欢喝乌龙茶", "记住啦。"))
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    fake_llm.reply({"memories": []}, match=EXTRACT)
    fake_llm.reply("[]", match=CHANGES)
    outcome = asyncio.run(pipelines.exchange("下周要考职称了，有点紧张", "别担心，你准备得很充分。"))
    assert outcome.profile is not None and outcome.profile.data["summary"] == PROFILE_REPLY["summary"]
    profile_batch = outcome.batches[0]
    assert profile_batch.batch_id.startswith("profile-")
    assert profile_batch.ops[0]["key"] == PROFILE_KEY and profile_batch.ops[0]["payload"] == PROFILE_REPLY["summary"]
    extraction = [r for r in fake_llm.requests if EXTRACT in r["body"]["messages"][0]["content"]][-1]
    assert "小明是一名护士" in extraction["body"]["messages"][1]["content"]
    assert not pipelines.profiles.get().stale
    assert any(m.key == PROFILE_KEY and m.category == "profile" for m in pipelines.mirror.list_keyed())
    changes_prompt = [r for r in fake_llm.requests if CHANGES in r["body"]["messages"][0]["content"]][-1]
    assert PROFILE_KEY not in changes_prompt["body"]["messages"][1]["content"]
    assert conn.execute("SELECT COUNT(*) FROM extraction_log WHERE stage = 'profile'").fetchone()[0] == 1


def test_manual_profile_edits_survive_resynthesis(fake_llm, config):
    pipelines, _ = make(config)
    pipelines.mirror.apply_ops([{
        "op": "put_mem", "key": "mem_job", "category": "identity", "payload": "用户是一名护士", "importance": 8,
        "source": "user", "tags": [], "trigger_count": 1, "created_at": 1, "updated_at": 1, "last_triggered": 1}])
    pipelines.profiles.set_manual("low_value_signals", ["不要记任何关于前任的事"])
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    asyncio.run(pipelines.refresh_profile(force=True))
    fake_llm.reply(dict(PROFILE_REPLY, summary="新的画像"), match=PROFILE)
    asyncio.run(pipelines.refresh_profile(force=True))
    effective = pipelines.profiles.get().effective
    assert effective["summary"] == "新的画像"
    assert effective["low_value_signals"] == ["不要记任何关于前任的事"]
    assert "不要记任何关于前任的事" in format_profile(effective)


def test_profile_failure_is_logged_not_fatal(fake_llm, config):
    pipelines, conn = make(config)
    pipelines.mirror.apply_ops([{
        "op": "put_mem", "key": "mem_job", "category": "skill", "payload": "用户会弹吉他", "importance": 6,
        "source": "user", "tags": [], "trigger_count": 1, "created_at": 1, "updated_at": 1, "last_triggered": 1}])
    fake_llm.reply('{"summary": "半截', match=PROFILE)
    result = asyncio.run(pipelines.refresh_profile())
    assert result.data is None and "not JSON" in result.errors[0]
    row = conn.execute("SELECT raw_output, errors FROM extraction_log WHERE stage = 'profile'").fetchone()
    assert row["raw_output"] == '{"summary": "半截' and "not JSON" in row["errors"]
    assert pipelines.profiles.get().stale


def test_reflection_updates_mirror_and_log(fake_llm, config):
    pipelines, conn = make(config)
    pipelines.mirror.apply_ops([{
        "op": "put_mem", "key": "mem_tea", "category": "preference", "payload": "用户喜欢喝乌龙茶", "importance": 6,
        "source": "user", "tags": ["茶"], "trigger_count": 2, "created_at": 1, "updated_at": 1, "last_triggered": 1}])
    fake_llm.reply({"soul_state_code": "0011", "feedback_data": {
        "useful_memory_ids": ["mem_tea"], "merge_groups": [],
        "new_memories": {"knowledge": [{"judgment": "用户晚上不喝茶，怕失眠", "reasoning": "用户自己说的", "tags": ["茶"]}],
                         "skill": [], "emotional": [], "event": []}}}, match=REFLECT)
    outcome = asyncio.run(pipelines.reflect([{"role": "user", "content": "晚上我不喝乌龙茶，会失眠"},
                                             {"role": "assistant", "content": "那晚上换成热牛奶吧。"}]))
    assert outcome.reflection.errors == []
    mirror = {m.key: m for m in pipelines.mirror.list_keyed()}
    assert mirror["mem_tea"].trigger_count == 3 and len(mirror) == 2
    assert outcome.batches[0].ops[-1] == {"op": "mood", "soul_state_code": 3}
    assert conn.execute("SELECT stage FROM extraction_log").fetchone()[0] == "reflect"


def test_reflection_never_sees_the_profile_memory(fake_llm, config):
    pipelines, _ = make(config)
    pipelines.mirror.apply_ops([{
        "op": "put_mem", "key": PROFILE_KEY, "category": "profile", "payload": "用户是护士，喜欢喝乌龙茶", "importance": 10,
        "source": "sieve", "tags": [], "trigger_count": 1, "created_at": 1, "updated_at": 1, "last_triggered": 1}])
    fake_llm.reply({"soul_state_code": "0110", "feedback_data": {"useful_memory_ids": [PROFILE_KEY], "merge_groups": [],
                    "new_memories": {"knowledge": [], "skill": [], "emotional": [], "event": []}}}, match=REFLECT)
    outcome = asyncio.run(pipelines.reflect([{"role": "user", "content": "我今天又喝了乌龙茶"}]))
    assert PROFILE_KEY not in fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert [r.reason for r in outcome.reflection.refusals] == [f"no memory with id {PROFILE_KEY}"]
