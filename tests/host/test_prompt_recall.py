"""The loop the pipelines close: recall for a prompt, promotion of working memories, the profile fed by
the fast channel and refreshed on its schedule, and a conversation's end (reflection told what it read)."""

import asyncio
import json

from xzmem.db import open_db
from xzmem.llm import LLMClient
from xzmem.pipelines.briefing import briefing, context_text
from xzmem.pipelines.profile import last_daily_run
from xzmem.pipelines.runner import PROMOTE_TRIGGERS, Pipelines
from xzmem.pipelines.tokens import estimate_tokens

NOW = 1_800_000_000.0
PROFILE, CHANGES, REFLECT = "用户画像", "维护陪伴型", "反思模块"
PROFILE_REPLY = {"summary": "李雷是个爱踢足球的孩子。", "domains": ["足球"], "high_value_signals": ["比赛"],
                 "low_value_signals": [], "language_preferences": "中文", "active_projects": []}
QUIET_REFLECTION = {"soul_state_code": "0110", "feedback_data": {"useful_memory_ids": [], "merge_groups": [],
                    "new_memories": {"knowledge": [], "skill": [], "emotional": [], "event": []}}}


class Clock:
    def __init__(self, t=NOW):
        self.t = t

    def __call__(self):
        return self.t


def make(config, clock=None):
    return Pipelines(config, open_db(config.data_path), LLMClient(config.llm), clock=clock or Clock())


def keyed(key, payload, category="preference", tags=()):
    return {"op": "put_mem", "key": key, "category": category, "payload": payload, "importance": 7, "source": "user",
            "tags": list(tags), "trigger_count": 1, "created_at": 1, "updated_at": 1, "last_triggered": 1}


def requests_with(fake_llm, marker):
    return [r for r in fake_llm.requests if marker in r["body"]["messages"][0]["content"]]


def test_context_recalls_working_and_keyed_memories_and_counts_triggers(config):
    pipelines = make(config)
    pipelines.working.add("用户这周六要参加足球比赛", 0.8, timestamp=NOW)
    pipelines.working.add("用户晚饭吃了面条", 0.3, timestamp=NOW)
    pipelines.snapshot.save(pipelines.working)  # as an exchange leaves it
    pipelines.mirror.apply_ops([keyed("mem_ball", "用户最喜欢踢足球", tags=["足球"]), keyed("mem_tea", "用户爱喝乌龙茶")])
    context = pipelines.context("足球比赛几点开始？")
    assert [m.content for m in context.working] == ["用户这周六要参加足球比赛"]
    assert [m.key for m in context.keyed] == ["mem_ball"] and pipelines.recalled == ["mem_ball"]
    assert context.summary.splitlines() == ["- 用户这周六要参加足球比赛", "- 用户晚饭吃了面条"]
    assert context.working[0].metadata["triggers"] == 1
    text = context_text(context)
    assert "【相关记忆】用户最喜欢踢足球" in text and "【刚聊到】用户这周六要参加足球比赛" in text
    again = make(config)  # the trigger count is kept with the working memory
    assert {m.content: m.metadata.get("triggers") for m in again.working.memories} == {
        "用户这周六要参加足球比赛": 1, "用户晚饭吃了面条": None}


def test_briefing_keeps_the_budget_and_puts_who_first(config):
    pipelines = make(config)
    overview = {"profile": {"name": "李雷", "age": 9}, "relationship": "acquaintance", "style": "自然一些。",
                "preferences": {"likes": [f"爱好{i}" for i in range(200)], "dislikes": []},
                "family": [{"relation": "妈妈", "name": "韩梅梅"}],
                "reminders": [{"content": "吃药", "datetime": "2026-11-23 08:00", "missed": True,
                               "text": "你错过了一个日程：吃药（原定 2026-11-23 08:00）。"}],
                "schedules": [{"content": "吃药", "datetime": "2026-11-23 08:00"},
                              {"content": "上钢琴课", "datetime": "2026-11-24 15:00"}]}
    text = briefing(overview, pipelines.context("妈妈"), "妈妈", budget_tokens=110)
    lines = text.splitlines()
    assert lines[:3] == ["【用户】李雷，9岁", "【关系】熟悉期。自然一些。",
                         "【错过的提醒】你错过了一个日程：吃药（原定 2026-11-23 08:00）。（请先告诉用户）"]
    assert "【日程】2026-11-24 15:00 上钢琴课" in lines  # the missed one is not repeated
    assert "【家人】妈妈 韩梅梅" in lines and not any(line.startswith("【喜欢】") for line in lines)  # too long
    assert estimate_tokens(text) <= 110


def test_working_memories_past_the_thresholds_are_promoted_once_and_logged(fake_llm, config, caplog):
    pipelines = make(config)
    item = pipelines.working.add("用户每周六上午练足球", 0.8, timestamp=NOW)
    pipelines.working.add("用户今天有点累", 0.4, timestamp=NOW)
    for _ in range(PROMOTE_TRIGGERS):
        pipelines.context("周六练足球")
    assert item.metadata["triggers"] == PROMOTE_TRIGGERS
    fake_llm.reply([{"key": "mem_new1", "action": "add", "category": "fact", "payload": "用户每周六上午练足球",
                     "importance": 7, "source": "user"}], match=CHANGES)
    with caplog.at_level("INFO", logger="xzmem.promote"):
        outcome = asyncio.run(pipelines.promote())
    assert [m.content for m in outcome.promoted] == ["用户每周六上午练足球"]
    [put] = outcome.batches[0].ops
    assert put["payload"] == "用户每周六上午练足球" and outcome.batches[0].batch_id.startswith("promote-")
    assert any("promoted" in r.message and item.id in r.message for r in caplog.records)
    row = pipelines.log.conn.execute("SELECT input FROM extraction_log WHERE stage = 'promote'").fetchone()
    assert json.loads(row["input"])["working"][0]["id"] == item.id
    assert asyncio.run(pipelines.promote()) is None  # promoted once


def test_fast_channel_writes_feed_the_profile_refreshed_whenever_stale_and_daily(fake_llm, config):
    clock = Clock()
    pipelines = make(config, clock)
    fake_llm.reply("[]", match=CHANGES)
    fake_llm.reply({"memories": []}, match="记忆提取器")
    asyncio.run(pipelines.exchange("我叫李雷，我喜欢踢足球", "你好李雷！"))
    state = pipelines.profiles.get()
    assert state.stale and sorted(m.payload for m in pipelines.profiles.observed()) == ["用户叫李雷", "用户喜欢踢足球"]
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    asyncio.run(pipelines.refresh_profile())
    prompt = requests_with(fake_llm, PROFILE)[0]["body"]["messages"][1]["content"]
    assert "用户叫李雷" in prompt and "用户喜欢踢足球" in prompt
    clock.t += 60
    assert asyncio.run(pipelines.refresh_profile()) is None  # fresh: nothing to do
    pipelines.profiles.observe([{"op": "write", "type": "like", "content": "画画"}], clock())
    assert pipelines.profiles.get().stale
    clock.t += 60  # a long-lived process: stale a minute after the last synthesis, synthesized again
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    assert asyncio.run(pipelines.refresh_profile()) is not None
    assert not pipelines.profiles.get().stale
    assert "用户喜欢画画" in requests_with(fake_llm, PROFILE)[-1]["body"]["messages"][1]["content"]


def test_the_daily_run_synthesizes_a_fresh_profile_once_after_three_in_the_morning(fake_llm, config):
    clock = Clock()
    pipelines = make(config, clock)
    pipelines.mirror.apply_ops([keyed("mem_ball", "用户最喜欢踢足球")])
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    assert asyncio.run(pipelines.refresh_profile()) is not None  # none yet: cold start
    runs = len(requests_with(fake_llm, PROFILE))
    next_run = last_daily_run(clock.t) + 86400
    clock.t = next_run - 1
    assert asyncio.run(pipelines.refresh_profile()) is None
    clock.t = next_run + 1
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    assert asyncio.run(pipelines.refresh_profile()) is not None
    assert asyncio.run(pipelines.refresh_profile()) is None  # once per day
    assert len(requests_with(fake_llm, PROFILE)) == runs + 1


def test_decisions_projects_and_relationships_mark_the_profile_stale(fake_llm, config):
    clock = Clock()
    pipelines = make(config, clock)
    pipelines.mirror.apply_ops([keyed("mem_ball", "用户最喜欢踢足球")])
    fake_llm.reply(PROFILE_REPLY, match=PROFILE)
    asyncio.run(pipelines.refresh_profile())
    for n, category in enumerate(("decision", "project_state", "relationship")):
        assert not pipelines.profiles.get().stale
        pipelines._emit("sieve", [keyed(f"mem_c{n}", f"新的{category}", category=category)])
        assert pipelines.profiles.get().stale, category
        clock.t += 60
        fake_llm.reply(PROFILE_REPLY, match=PROFILE)
        asyncio.run(pipelines.refresh_profile())


def test_a_conversation_end_reflects_on_what_it_read_and_ends_on_the_device(fake_llm, config):
    pipelines = make(config)
    pipelines.mirror.apply_ops([keyed("mem_ball", "用户最喜欢踢足球"), keyed("mem_tea", "用户爱喝乌龙茶")])
    pipelines.context("今天踢足球了吗")
    fake_llm.reply(QUIET_REFLECTION, match=REFLECT)
    ending = asyncio.run(pipelines.finish_conversation([{"role": "user", "content": "今天踢足球了吗"},
                                                       {"role": "assistant", "content": "踢了！还喝了茶。"}]))
    shown = requests_with(fake_llm, REFLECT)[0]["body"]["messages"][1]["content"]
    assert "mem_ball" in shown and "mem_tea" not in shown  # told what was read, not what merely matches
    assert ending.batches[-1].ops == [{"op": "end_conversation"}]
    assert pipelines.recalled == []


def test_with_the_llm_off_a_conversation_end_still_reaches_the_device(tmp_path):
    from xzmem.config import Config

    cfg = Config()
    cfg.host.data_dir = str(tmp_path / "host")
    ending = asyncio.run(make(cfg).finish_conversation([{"role": "user", "content": "你好"}]))
    assert ending.reflection is None and [b.ops for b in ending.batches] == [[{"op": "end_conversation"}]]


def test_a_recall_keeps_what_another_thread_added_meanwhile(config):
    first = make(config)
    first.working.add("用户下周去北京出差", 0.8, timestamp=NOW)
    first.snapshot.save(first.working)
    querying = make(config)  # a provider's query_memory, loaded before the save below
    saving = make(config)  # its save_memory in another thread
    saving.working.add("用户喜欢吃饺子", 0.5, timestamp=NOW)
    saving.snapshot.save(saving.working)
    querying.context("北京出差")
    kept = {m.content: m.metadata.get("triggers") for m in make(config).working.memories}
    assert kept == {"用户下周去北京出差": 1, "用户喜欢吃饺子": None}


def test_the_devices_style_line_is_not_doubled_with_its_stage(config):
    overview = {"relationship": "stranger", "style": "陌生期：礼貌客气，称呼对方“您”，不开玩笑，不撒娇。", "mood": "开心"}
    text = briefing(overview, make(config).context(""), "")
    assert text == "【关系】陌生期：礼貌客气，称呼对方“您”，不开玩笑，不撒娇；心情：开心"
