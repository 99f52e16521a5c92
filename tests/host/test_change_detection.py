"""Change detection (seed 000): the program owns the bookkeeping, the cleanup and the keep rules."""

import asyncio
import json

import pytest
from xzmem.config import ChangesConfig
from xzmem.llm import LLMClient
from xzmem.pipelines.changes import (
    cleanup_candidates,
    detect_changes,
    keep_reason,
    plan_changes,
    select_relevant,
)
from xzmem.pipelines.state import KeyedMemory

DAY = 86400
NOW = 1_800_000_000


def mem(key, payload, category="fact", importance=5, trigger_count=1, age_days=40, idle_days=40, tags=()):
    return KeyedMemory(key, category, payload, importance, "user", list(tags), trigger_count,
                       NOW - age_days * DAY, NOW - age_days * DAY, NOW - idle_days * DAY)


CFG = ChangesConfig()


def test_new_memory_gets_a_program_key_and_fresh_bookkeeping():
    result = plan_changes(
        [{"key": "mem_new1", "action": "add", "category": "preference", "payload": "用户喜欢喝乌龙茶",
          "importance": 7, "source": "用户输入", "tags": ["饮品"]}], [], set(), NOW, CFG)
    [op] = result.ops
    assert op["op"] == "put_mem" and op["key"] != "mem_new1" and op["key"].startswith("mem_")
    assert (op["trigger_count"], op["created_at"], op["updated_at"], op["last_triggered"]) == (1, NOW, NOW, NOW)
    assert (op["category"], op["source"], op["importance"], op["tags"]) == ("preference", "user", 7, ["饮品"])


def test_update_of_a_shown_memory_keeps_created_at_and_counts_a_trigger():
    old = mem("mem_tea", "用户喜欢喝绿茶", "preference", trigger_count=3)
    result = plan_changes(
        [{"key": "mem_tea", "action": "add", "category": "preference", "payload": "用户喜欢喝乌龙茶，不再喝绿茶",
          "importance": 7, "source": "user"}], [old], {"mem_tea"}, NOW, CFG)
    [op] = result.ops
    assert op["key"] == "mem_tea"
    assert (op["trigger_count"], op["created_at"], op["updated_at"]) == (4, old.created_at, NOW)


def test_a_guessed_key_that_was_not_shown_does_not_overwrite():
    hidden = mem("mem_001", "用户的车是蓝色的")
    result = plan_changes(
        [{"key": "mem_001", "action": "add", "category": "fact", "payload": "用户养了一只狗", "importance": 5,
          "source": "user"}], [hidden], set(), NOW, CFG)
    assert result.ops[0]["key"] != "mem_001"


def test_word_for_word_repeat_is_an_update_not_a_duplicate():
    old = mem("mem_dog", "用户养了一只狗", trigger_count=2)
    result = plan_changes(
        [{"key": "mem_new1", "action": "add", "category": "fact", "payload": "用户养了一只狗。", "importance": 5,
          "source": "user"}], [old], set(), NOW, CFG)
    assert result.ops[0]["key"] == "mem_dog" and result.ops[0]["trigger_count"] == 3


@pytest.mark.parametrize(
    "memory, reason",
    [
        (mem("mem_a", "x", importance=8), "importance 8 >= 8"),
        (mem("mem_b", "x", trigger_count=10), "trigger_count 10 >= 10"),
        (mem("mem_c", "x", age_days=3, idle_days=3), "younger than 7 days"),
        (mem("mem_d", "x", category="identity"), "core"),
    ],
)
def test_keep_rules_refuse_deletion_with_a_reason(memory, reason):
    result = plan_changes([{"key": memory.key, "action": "del", "category": memory.category}], [memory],
                          {memory.key}, NOW, CFG)
    assert result.ops == []
    assert reason in result.refusals[0].reason


def test_deletion_allowed_when_no_keep_rule_applies():
    memory = mem("mem_old", "用户以前住在广州")
    result = plan_changes([{"key": "mem_old", "action": "del", "category": "fact"}], [memory], {"mem_old"}, NOW, CFG)
    assert result.ops == [{"op": "del_mem", "key": "mem_old"}]
    assert keep_reason(memory, NOW) is None


def test_invented_ids_and_bad_items_are_refused_not_crashed_on():
    items = [
        {"key": "mem_999", "action": "del", "category": "fact"},
        {"key": "mem_x", "action": "update", "payload": "x"},
        {"key": "mem_y", "action": "add", "category": "fact", "payload": "x", "importance": "high", "source": "user"},
        {"key": "mem_z", "action": "add", "category": "weather", "payload": "x", "importance": 5, "source": "user"},
        {"key": "mem_w", "action": "add", "payload": "缺少类别"},
        "not an object",
    ]
    result = plan_changes(items, [], set(), NOW, CFG)
    assert result.ops == []
    reasons = [r.reason for r in result.refusals]
    assert len(reasons) == 6
    assert "no memory with key mem_999" in reasons[0]
    assert "action" in reasons[1]
    assert "importance" in reasons[2]
    assert "unknown category 'weather'" in reasons[3]
    assert "category" in reasons[4]


def test_cleanup_runs_only_above_50_and_respects_keep_rules():
    fresh = [mem(f"mem_f{i}", f"记忆{i}", age_days=1, idle_days=1) for i in range(48)]
    stale = mem("mem_stale", "很久没用的小事", trigger_count=1, idle_days=40)
    unimportant = mem("mem_low", "不重要的旧事", importance=3, trigger_count=5, idle_days=100)
    protected = mem("mem_keep", "重要但没人用", importance=9, idle_days=400)
    memories = fresh + [stale, unimportant, protected]
    assert len(memories) == 51
    result = plan_changes([], memories, set(), NOW, CFG)
    assert sorted(op["key"] for op in result.ops) == ["mem_low", "mem_stale"]
    assert all(op["op"] == "del_mem" for op in result.ops)
    assert plan_changes([], memories[1:], set(), NOW, CFG).ops == []  # 50 memories: no cleanup


def test_duplicates_lose_the_lower_importance_one():
    a = mem("mem_a", "用户喜欢跑步", importance=4, trigger_count=3, idle_days=1)
    b = mem("mem_b", "用户喜欢跑步！", importance=6, trigger_count=3, idle_days=1)
    assert [(m.key, "duplicate of mem_b" in why) for m, why in cleanup_candidates([a, b], NOW)] == [("mem_a", True)]


def test_relevant_selection():
    memories = [mem("mem_a", "用户喜欢喝乌龙茶"), mem("mem_b", "用户的车是蓝色的"), mem("mem_c", "用户在学吉他")]
    assert [m.key for m in select_relevant(memories, "今天想喝点茶，乌龙茶还有吗", 8)] == ["mem_a"]


def run_detect(fake_llm, llm_config, memories, reply, **kw):
    fake_llm.reply(reply, **kw)
    return asyncio.run(detect_changes(LLMClient(llm_config), memories, "我现在更喜欢喝乌龙茶了", "好的，记住了。", NOW, CFG))


def test_llm_round_trip_with_fenced_array(fake_llm, llm_config):
    old = mem("mem_tea", "用户喜欢喝绿茶", "preference")
    reply = "```json\n" + json.dumps([{"key": "mem_tea", "action": "add", "category": "preference",
                                       "payload": "用户现在更喜欢喝乌龙茶", "importance": 7, "source": "user"}],
                                     ensure_ascii=False) + "\n```"
    result = run_detect(fake_llm, llm_config, [old], reply)
    assert result.errors == []
    assert result.ops[0]["key"] == "mem_tea" and result.ops[0]["payload"] == "用户现在更喜欢喝乌龙茶"
    prompt = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert "mem_tea" in prompt and "用户喜欢喝绿茶" in prompt


def test_llm_invented_deletion_is_refused(fake_llm, llm_config):
    result = run_detect(fake_llm, llm_config, [], '[{"key": "mem_042", "action": "del", "category": "fact"}]')
    assert result.ops == [] and result.refusals[0].reason == "no memory with key mem_042"


def test_object_wrapped_array_is_accepted(fake_llm, llm_config):
    reply = '{"changes": [{"key": "mem_new1", "action": "add", "category": "preference", "payload": "用户喜欢乌龙茶", "importance": 6, "source": "user"}]}'
    assert len(run_detect(fake_llm, llm_config, [], reply).ops) == 1


@pytest.mark.parametrize(
    "reply, status, error",
    [
        ('[{"key": "mem_new1", "action": "add", "payl', 200, "not JSON"),
        ('{"ok": true}', 200, "not a change list"),
        (None, 500, "HTTP 500"),
    ],
)
def test_llm_failures_are_errors_with_raw_text(fake_llm, llm_config, reply, status, error):
    fake_llm.reply(reply, status=status)
    fake_llm.reply(reply, status=status)
    result = asyncio.run(detect_changes(LLMClient(llm_config), [], "我现在更喜欢喝乌龙茶了", "好的", NOW, CFG))
    assert result.ops == []
    assert error in result.errors[0]
    if status == 200:
        assert result.raw == reply


@pytest.mark.parametrize(
    "item, reason",
    [
        ({"key": "mem_old", "action": "del"}, "needs the memory's category"),
        ({"key": "mem_old", "action": "del", "category": "preference"}, "is not mem_old's (fact)"),
        ({"key": "mem_old", "action": "del", "category": "weather"}, "is not mem_old's (fact)"),
    ],
)
def test_a_deletion_must_name_the_memorys_own_category(item, reason):
    memory = mem("mem_old", "用户以前住在广州")
    result = plan_changes([item], [memory], {"mem_old"}, NOW, CFG)
    assert result.ops == []
    assert reason in result.refusals[0].reason


def test_a_deletion_of_a_memory_the_llm_was_never_shown_is_refused():
    memory = mem("mem_old", "用户以前住在广州")
    result = plan_changes([{"key": "mem_old", "action": "del", "category": "fact"}], [memory], set(), NOW, CFG)
    assert result.ops == []
    assert "not among the memories shown" in result.refusals[0].reason


def test_a_deletion_by_an_alias_of_the_category_is_accepted():
    memory = mem("mem_tea", "用户喜欢喝绿茶", category="skill")
    result = plan_changes([{"key": "mem_tea", "action": "del", "category": "desktop_sop"}], [memory],
                          {"mem_tea"}, NOW, CFG)
    assert result.ops == [{"op": "del_mem", "key": "mem_tea"}]
