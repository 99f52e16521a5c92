"""Memory Sieve (seed 004): both channels on one exchange, concurrency, fallback, profile injection."""

import asyncio
import json
import time

from xzmem.config import LLMConfig
from xzmem.llm import LLMClient
from xzmem.pipelines.sieve import run_sieve
from xzmem.pipelines.working import WorkingMemory

NOW = 1_800_000_000.0
GOOD = {"memories": [
    {"content": "用户在评估品川区1LDK：表面利回5%，实际利回约4.28%", "category": "fact", "importance": 0.7,
     "source": "both", "reasoning": "计算结果"},
    {"content": "用户关注实际利回而非表面利回", "category": "project_state", "importance": 0.6, "source": "user",
     "reasoning": "进行中"},
]}
USER = "帮我算一下品川区这个1LDK的实际利回，表面利回5%，管理费月1.2万"
ASSISTANT = "年管理费14.4万，假设房价2000万，实际利回约4.28%。考虑修缮积立金和固定资产税，综合利回约3.8-4.0%。"


def sieve(llm_config, user=USER, assistant=ASSISTANT, **kw):
    wm = WorkingMemory(clock=lambda: NOW)
    result = asyncio.run(run_sieve(LLMClient(llm_config), wm, user, assistant, NOW, **kw))
    return result, wm


def test_deep_channel_fills_working_memory(fake_llm, llm_config):
    fake_llm.reply("以下是提取结果：\n```json\n" + json.dumps(GOOD, ensure_ascii=False) + "\n```\n希望有帮助！")
    result, wm = sieve(llm_config)
    assert result.errors == [] and not result.fallback
    assert [(m.category, m.importance, m.source) for m in wm.memories] == [("fact", 0.7, "both"), ("project_state", 0.6, "user")]
    prompt = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert USER in prompt and ASSISTANT in prompt


def test_small_talk_skips_the_llm(fake_llm, llm_config):
    result, wm = sieve(llm_config, user="今天天气真好", assistant="是啊，适合出去走走！")
    assert result.skipped == "small talk" and fake_llm.requests == [] and len(wm) == 0


def test_long_answer_to_small_talk_still_goes_to_the_llm(fake_llm, llm_config):
    fake_llm.reply('{"memories": []}')
    result, _ = sieve(llm_config, user="你好", assistant="你好！" + "今天给你讲讲东京的天气和出行建议。" * 10)
    assert result.skipped is None and len(fake_llm.requests) == 1


def test_llm_failure_keeps_the_raw_turn(fake_llm, llm_config):
    fake_llm.reply(status=500)
    fake_llm.reply(status=500)
    result, wm = sieve(llm_config)
    assert result.fallback and "HTTP 500" in result.errors[0]
    [item] = wm.memories
    assert item.importance == 0.3 and item.category == "context" and item.source == "both"
    assert item.content.startswith("[未提取] 用户: 帮我算一下") and "| 助手: 年管理费" in item.content


def test_timeout_falls_back(fake_llm):
    cfg = LLMConfig(base_url=fake_llm.base_url, model="m", timeout=0.3, max_retries=0)
    fake_llm.reply(json.dumps(GOOD), delay=1.5)
    result, wm = sieve(cfg)
    assert result.fallback and "timed out" in result.errors[0] and len(wm) == 1


def test_truncated_output_falls_back_and_keeps_raw(fake_llm, llm_config):
    fake_llm.reply('{"memories": [{"content": "用户在评估品川区', status=200)
    result, wm = sieve(llm_config)
    assert result.fallback and result.raw == '{"memories": [{"content": "用户在评估品川区'
    assert "not JSON" in result.errors[0]


def test_bad_items_are_reported_good_ones_kept(fake_llm, llm_config):
    bad = {"memories": [GOOD["memories"][0], {"content": "x", "category": "weather", "importance": 7, "source": "me"}]}
    fake_llm.reply(json.dumps(bad, ensure_ascii=False))
    result, wm = sieve(llm_config)
    assert len(wm) == 1 and not result.fallback
    assert result.errors[0].startswith("memories.1 does not match the schema")
    assert "category" in result.errors[0] and "importance" in result.errors[0]


def test_all_items_bad_falls_back(fake_llm, llm_config):
    fake_llm.reply('{"memories": [{"content": "", "category": "fact", "importance": 0.5, "source": "user"}]}')
    result, wm = sieve(llm_config)
    assert result.fallback and len(wm) == 1


def test_profile_and_extra_instructions_are_appended(fake_llm, llm_config):
    fake_llm.reply('{"memories": []}')
    sieve(llm_config, profile_text="关于这位用户：住在东京的投资者", additional="金额一律换算成人民币")
    prompt = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert prompt.index("</exchange>") < prompt.index("住在东京的投资者") < prompt.index("金额一律换算成人民币")


def test_fast_channel_writes_arrive_before_the_llm_answers(fake_llm, llm_config):
    fake_llm.reply('{"memories": []}', delay=0.6)
    arrived = []

    async def on_fast(ops):
        arrived.append((time.monotonic(), ops))

    result, _ = sieve(llm_config, user="我叫小明，我喜欢吃火锅，帮我想想周末去哪玩", on_fast_ops=on_fast)
    [(at, ops)] = arrived
    # the LLM held its answer back (within the client's timeout): the fast writes came before it
    assert not result.errors and len(fake_llm.requests) == 1
    assert at < fake_llm.requests[0]["answered_at"]
    assert {(o["type"], o["content"]) for o in ops} == {("name", "小明"), ("like", "吃火锅")}
    assert result.fast_ops == ops


def test_llm_off_still_runs_the_fast_channel():
    result, wm = sieve(LLMConfig(), user="我住在杭州")
    assert result.skipped == "llm off" and len(wm) == 0
    assert result.fast_ops == [{"op": "write", "type": "location", "content": "杭州"}]
