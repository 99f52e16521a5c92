"""Seed 003's event fields from the deep channel: the LLM names a dated event (a plan, a birthday, an
anniversary) with its type, emotion and significance; the host checks each field and writes the
schedule to the device. The LLM is the fake OpenAI-compatible server; the device is `xzmem sim`."""

import asyncio
import json
from datetime import datetime

import anyio
import pytest
from simdevice import SimDevice, call, session
from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.runner import Pipelines
from xzmem.pipelines.sieve import run_sieve
from xzmem.pipelines.working import WorkingMemory

NOW = 1_800_000_000.0
LOCAL = datetime(2026, 3, 4, 10, 0)  # a Wednesday, the simulator's start time below
EXTRACT = "记忆提取器"
BIRTHDAY = {
    "content": "用户的妈妈3月15日过生日", "category": "relationship", "importance": 0.8, "source": "user",
    "event": {"title": "妈妈生日", "datetime": "03-15", "repeat": "yearly", "event_type": "生日",
              "emotion": "happy", "intensity": 4, "significance": 5},
}
USER = "下个礼拜天是我妈妈的生日，三月十五号，我想给她做个蛋糕"
ASSISTANT = "好主意！妈妈一定会很开心的。"


def sieve(llm_config, memories, user=USER):
    wm = WorkingMemory(clock=lambda: NOW)
    reply = json.dumps({"memories": memories}, ensure_ascii=False)
    return wm, reply, lambda: asyncio.run(
        run_sieve(LLMClient(llm_config), wm, user, ASSISTANT, NOW, local_time=lambda _: LOCAL))


def run(fake_llm, llm_config, memories, user=USER):
    wm, reply, go = sieve(llm_config, memories, user)
    fake_llm.reply(reply)
    return go(), wm


def test_a_birthday_the_user_tells_reaches_the_device_as_a_yearly_event_with_its_fields(fake_llm, config, tmp_path):
    pipelines = Pipelines(config, open_db(config.data_path), LLMClient(config.llm), clock=lambda: NOW)
    pipelines.local_time = lambda _: LOCAL
    fake_llm.reply({"memories": [BIRTHDAY]}, match=EXTRACT)
    fake_llm.reply([], match="维护陪伴型")
    outcome = asyncio.run(pipelines.exchange(USER, ASSISTANT))
    [deep] = [b for b in outcome.batches if b.batch_id.startswith("sieve-deep-")]
    assert deep.ops == [{"op": "write", "type": "schedule", "content": "妈妈生日", "datetime": "03-15",
                         "event_type": "生日", "emotion": "happy", "intensity": 4, "significance": 5}]
    [prompt] = [r["body"]["messages"][1]["content"] for r in fake_llm.requests
                if EXTRACT in r["body"]["messages"][0]["content"]]
    assert "现在:2026-03-04 10:00 星期三" in prompt
    logged = pipelines.log.get(outcome.log_ids[0])
    assert logged.parsed["deep_ops"] == deep.ops and deep.batch_id in logged.batch_ids

    async def send_and_read(url):
        async with session(url) as s:
            error, answer = await call(s, "memory_sync", {"action": "apply", "batch_id": deep.batch_id, "ops": deep.ops})
            assert not error, answer
            return await call(s, "memory", {"action": "read", "type": "schedule"})

    with SimDevice(tmp_path / "device", "--start-time", "2026-03-04T10:00") as device:
        error, read = anyio.run(send_and_read, device.url)
    assert not error, read
    [stored] = [s for s in read["items"] if s["content"] == "妈妈生日"]
    assert stored["datetime"] == "2026-03-15 09:00" and stored["repeat"] == "yearly"
    assert (stored["event_type"], stored["emotion"], stored["intensity"], stored["significance"]) == ("生日", "happy", 4, 5)


def test_a_plan_the_fast_channel_also_wrote_gets_the_same_text_so_the_device_keeps_one_schedule(fake_llm, llm_config):
    plan = {"content": "用户明天下午三点去打疫苗，有点害怕", "category": "todo", "importance": 0.6, "source": "user",
            "event": {"title": "打疫苗", "datetime": "2026-03-05 15:00", "event_type": "看病", "emotion": "worried",
                      "intensity": 3, "significance": 4}}
    result, _ = run(fake_llm, llm_config, [plan], user="明天下午三点去打疫苗，我有点害怕")
    [fast] = [op for op in result.fast_ops if op["type"] == "schedule"]
    assert fast["datetime"] == "2026-03-05 15:00"
    assert result.deep_ops == [{"op": "write", "type": "schedule", "content": fast["content"],
                                "datetime": "2026-03-05 15:00", "event_type": "看病", "emotion": "worried",
                                "intensity": 3, "significance": 4}]
    assert result.errors == []


@pytest.mark.parametrize(("event", "kept", "reason"), [
    ({"emotion": "furious"}, {}, "memories.0.event.emotion: must be one of"),
    ({"emotion": 3}, {}, "memories.0.event.emotion"),
    ({"significance": 9}, {}, "memories.0.event.significance: must be a whole number 1-5, got 9"),
    ({"significance": "很高"}, {}, "memories.0.event.significance"),
    ({"significance": True}, {}, "memories.0.event.significance"),
    ({"significance": 4.5}, {}, "memories.0.event.significance"),
    ({"significance": "4"}, {"significance": 4}, None),
    ({"emotion": "开心", "intensity": 0}, {"emotion": "happy"}, "memories.0.event.intensity"),
    ({"intensity": 4}, {}, "memories.0.event.intensity: says how strong an emotion is"),
    ({"event_type": "一个非常非常长的事件类型"}, {"event_type": "一个非常非"}, "memories.0.event.event_type: cut to 16 bytes"),
    ({"event_type": ["生日"]}, {}, "memories.0.event.event_type: must be text"),
    ({"repeat": "fortnightly"}, {}, "memories.0.event.repeat: must be one of"),
    ({"repeat": "weekly"}, {}, "memories.0.event.repeat: a date without its year"),
    ({"title": 42}, {"content": "用户的妈妈3月15日过生日"}, "memories.0.event.title: must be text"),
])
def test_a_bad_field_is_dropped_with_its_reason_and_the_rest_of_the_event_kept(fake_llm, llm_config, event, kept, reason):
    base = {"title": "妈妈生日", "datetime": "03-15", "significance": 5}
    memory = dict(BIRTHDAY, event={**{k: v for k, v in base.items() if k not in event}, **event})
    result, wm = run(fake_llm, llm_config, [memory])
    [op] = result.deep_ops
    expected = {"op": "write", "type": "schedule", "content": "妈妈生日", "datetime": "03-15", "significance": 5}
    expected.update({k: v for k, v in kept.items()})
    if "significance" in event and "significance" not in kept:
        del expected["significance"]
    assert op == expected
    assert [e for e in result.errors if reason and e.startswith(reason)] or (reason is None and result.errors == [])
    assert [m.content for m in wm.memories] == [BIRTHDAY["content"]] and not result.fallback


@pytest.mark.parametrize(("event", "reason"), [
    ("3月15日", "memories.0.event: must be an object"),
    ({"title": "妈妈生日"}, "memories.0.event.datetime: must be YYYY-MM-DD HH:MM or MM-DD, got None"),
    ({"datetime": "next sunday"}, "memories.0.event.datetime: must be"),
    ({"datetime": "02-30"}, "memories.0.event.datetime: names a day the calendar lacks"),
    ({"datetime": "13-01"}, "memories.0.event.datetime: names a day the calendar lacks"),
    ({"datetime": "2026-03-05 25:00"}, "memories.0.event.datetime: has no such time of day"),
    ({"datetime": "2026-02-01 10:00"}, "memories.0.event.datetime: 2026-02-01 10:00 has already passed"),
])
def test_an_event_without_a_usable_date_writes_no_schedule_but_keeps_the_memory(fake_llm, llm_config, event, reason):
    result, wm = run(fake_llm, llm_config, [dict(BIRTHDAY, event=event), {
        "content": "用户想给妈妈做蛋糕", "category": "todo", "importance": 0.5, "source": "user"}])
    assert result.deep_ops == []
    assert any(e.startswith(reason) for e in result.errors), result.errors
    assert len(wm.memories) == 2 and not result.fallback


def test_dates_are_read_as_people_and_models_write_them(fake_llm, llm_config):
    events = [("2026-03-20", "2026-03-20 09:00"), ("2026-3-5 8:30", "2026-03-05 08:30"), ("02-29", "02-29"),
              ("5-1 20:00", "05-01 20:00"), ("2016-07-08 yearly", "07-08"), ("2026-12-24 19:00 yearly", "12-24 19:00")]
    memories = []
    for n, (when, _) in enumerate(events):
        event = {"title": f"事{n}", "datetime": when.removesuffix(" yearly")}
        if when.endswith(" yearly"):  # a birthday with the year of birth, or a first date: every year's day
            event["repeat"] = "yearly"
        memories.append(dict(BIRTHDAY, content=f"事{n}", event=event))
    result, _ = run(fake_llm, llm_config, memories)
    assert [op["datetime"] for op in result.deep_ops] == [want for _, want in events]
    assert result.errors == []
