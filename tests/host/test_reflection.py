"""Reflection (seed 001): the whole output contract is checked before any op is made."""

import asyncio
import copy
import json

import pytest
from xzmem.config import LLMConfig
from xzmem.llm import LLMClient
from xzmem.pipelines.reflect import reflect
from xzmem.pipelines.state import KeyedMemory

NOW = 1_800_000_000
DAY = 86400
MEMORIES = [
    KeyedMemory("mem_job", "identity", "用户是一名护士", 7, "user", ["工作"], 3, NOW - 30 * DAY, NOW - 30 * DAY, NOW - 5 * DAY),
    KeyedMemory("mem_city", "identity", "用户住在广州", 6, "user", ["城市"], 2, NOW - 40 * DAY, NOW - 40 * DAY, NOW - 9 * DAY),
    KeyedMemory("mem_city2", "fact", "用户住在广州天河区", 4, "user", ["城市"], 1, NOW - 20 * DAY, NOW - 20 * DAY, NOW - 20 * DAY),
]
CONVERSATION = [
    {"role": "user", "content": "我上个月搬到深圳了，现在在南山区的医院当护士。"},
    {"role": "assistant", "content": "恭喜搬家！深圳南山区离海很近，下班可以去深圳湾走走。"},
]
BASE = {
    "soul_state_code": "0110",
    "feedback_data": {
        "useful_memory_ids": ["mem_job"],
        "merge_groups": [["mem_city", "mem_city2"]],
        "new_memories": {
            "knowledge": [{"judgment": "用户住在深圳南山区", "reasoning": "用户说上个月搬到深圳", "tags": ["城市"]}],
            "skill": [],
            "emotional": [],
            "event": [{"judgment": "用户上个月从广州搬到了深圳", "reasoning": "", "tags": ["搬家"]}],
        },
    },
}


def run(fake_llm, llm_config, output, memories=MEMORIES):
    fake_llm.reply(output if isinstance(output, str) else json.dumps(output, ensure_ascii=False))
    return asyncio.run(reflect(LLMClient(llm_config), CONVERSATION, memories, NOW))


def variant(**changes):
    data = copy.deepcopy(BASE)
    for path, value in changes.items():
        target = data
        *parents, last = path.split("__")
        for p in parents:
            target = target[p]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value
    return data


def test_valid_reflection_becomes_ops(fake_llm, llm_config):
    result = run(fake_llm, llm_config, BASE)
    assert result.errors == [] and result.refusals == []
    by_key = {op.get("key"): op for op in result.ops}
    merged = by_key["mem_city"]
    assert merged["payload"] == "用户住在深圳南山区" and merged["category"] == "fact" and merged["source"] == "reflection"
    assert merged["trigger_count"] == 3 and merged["created_at"] == MEMORIES[1].created_at
    assert {"op": "del_mem", "key": "mem_city2"} in result.ops
    assert by_key["mem_job"]["trigger_count"] == 4 and by_key["mem_job"]["last_triggered"] == NOW
    assert by_key["mem_job"]["payload"] == "用户是一名护士"
    event = [op for op in result.ops if op.get("payload") == "用户上个月从广州搬到了深圳"][0]
    assert event["key"] not in {"mem_job", "mem_city", "mem_city2"} and "事件" in event["tags"]
    assert result.ops[-1] == {"op": "mood", "soul_state_code": 6}  # a state code, not a mood in words


def test_single_memory_correction_uses_the_same_id_twice(fake_llm, llm_config):
    data = variant(feedback_data__merge_groups=[["mem_job", "mem_job"]], feedback_data__useful_memory_ids=[])
    data["feedback_data"]["new_memories"]["knowledge"] = [{"judgment": "用户是一名在深圳医院工作的护士", "reasoning": "", "tags": ["工作"]}]
    result = run(fake_llm, llm_config, data)
    assert result.errors == []
    job = [op for op in result.ops if op.get("key") == "mem_job"]
    assert len(job) == 1 and job[0]["payload"] == "用户是一名在深圳医院工作的护士"
    assert not any(op["op"] == "del_mem" for op in result.ops)


def test_merge_without_new_memory_breaks_the_contract(fake_llm, llm_config):
    data = variant(feedback_data__new_memories={"knowledge": [], "skill": [], "emotional": [], "event": []})
    result = run(fake_llm, llm_config, data)
    assert result.ops == [] and "merge" in result.errors[0]


def test_merge_with_a_new_memory_on_another_topic_breaks_the_contract(fake_llm, llm_config):
    data = variant()
    data["feedback_data"]["new_memories"]["knowledge"] = [{"judgment": "用户喜欢吃辣", "reasoning": "", "tags": ["口味"]}]
    data["feedback_data"]["new_memories"]["event"] = []
    result = run(fake_llm, llm_config, data)
    assert result.ops == [] and "same topic" in result.errors[0]


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"soul_state_code": "0120"}, "soul_state_code"),
        ({"soul_state_code": 6}, "soul_state_code"),
        ({"feedback_data__new_memories__event": KeyError}, "event"),
        ({"feedback_data__new_memories__task": []}, "task"),
        ({"feedback_data__merge_groups": ["mem_city"]}, "merge_groups"),
        ({"feedback_data__useful_memory_ids": "mem_job"}, "useful_memory_ids"),
    ],
)
def test_schema_violations_are_errors_naming_the_field(fake_llm, llm_config, changes, field):
    result = run(fake_llm, llm_config, variant(**changes))
    assert result.ops == []
    assert field in result.errors[0]
    assert result.raw is not None


def test_questions_and_unknown_ids_are_refused_item_by_item(fake_llm, llm_config):
    data = variant(feedback_data__useful_memory_ids=["mem_job", "mem_ghost"])
    data["feedback_data"]["new_memories"]["skill"] = [{"judgment": "如何在深圳办居住证？", "reasoning": "", "tags": []}]
    data["feedback_data"]["merge_groups"].append(["mem_nope"])
    result = run(fake_llm, llm_config, data)
    assert result.errors == []
    reasons = [r.reason for r in result.refusals]
    assert any("question" in r for r in reasons)
    assert "no memory with id mem_ghost" in reasons and "no memory with id mem_nope" in reasons
    assert not any("居住证" in op.get("payload", "") for op in result.ops)


def test_chatter_around_the_json_is_tolerated(fake_llm, llm_config):
    result = run(fake_llm, llm_config, "好的，这是反思结果：\n" + json.dumps(BASE, ensure_ascii=False) + "\n以上。")
    assert result.errors == [] and result.soul_state_code == "0110"


def test_llm_off_is_skipped():
    result = asyncio.run(reflect(LLMClient(LLMConfig()), CONVERSATION, MEMORIES, NOW))
    assert result.skipped == "llm off" and result.ops == []


def test_recalled_memories_are_in_the_prompt(fake_llm, llm_config):
    run(fake_llm, llm_config, BASE)
    prompt = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert "mem_job" in prompt and "用户：我上个月搬到深圳了" in prompt


@pytest.mark.parametrize("groups", [[["mem_nope"]], [[]], [["mem_ghost", "mem_nope"], []]])
def test_a_merge_of_unknown_or_no_ids_without_a_new_memory_is_refused_whole(fake_llm, llm_config, groups):
    data = variant(feedback_data__merge_groups=groups,
                   feedback_data__new_memories={"knowledge": [], "skill": [], "emotional": [], "event": []})
    result = run(fake_llm, llm_config, data)
    assert result.ops == []
    assert "merge_groups is not empty" in result.errors[0]


def test_an_empty_merge_group_beside_new_memories_is_refused_alone(fake_llm, llm_config):
    data = variant()
    data["feedback_data"]["merge_groups"].append([])
    result = run(fake_llm, llm_config, data)
    assert result.errors == []
    assert [r.reason for r in result.refusals] == ["empty merge group"]
    assert {"op": "del_mem", "key": "mem_city2"} in result.ops


def test_the_prompt_gives_the_type_priority_order(fake_llm, llm_config):
    run(fake_llm, llm_config, BASE)
    system = fake_llm.requests[0]["body"]["messages"][0]["content"]
    assert "knowledge > skill > event > emotional" in system
