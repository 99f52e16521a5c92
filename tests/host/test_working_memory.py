"""Working memory (seed 002): limits, TTL, heap, hybrid retrieval with decay, forgetting, summary."""

import pytest
from xzmem.pipelines.working import MemoryItem, WorkingMemory, relevance

HOUR = 3600.0


class Clock:
    def __init__(self, t=1_700_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_capacity_drops_the_lowest_priority():
    clock = Clock()
    wm = WorkingMemory(max_capacity=2, max_tokens=10_000, clock=clock)
    wm.add("用户喜欢爬山", 0.9)
    low = wm.add("用户今天吃了面条", 0.1)
    wm.add("用户下周去杭州出差", 0.6)
    assert len(wm) == 2
    assert low not in wm.memories


def test_token_limit_drops_until_it_fits():
    wm = WorkingMemory(max_capacity=100, max_tokens=12, clock=Clock())
    wm.add("一二三四五六七八九十", 0.2)
    wm.add("甲乙丙丁戊己庚辛壬癸", 0.8)
    assert [m.content for m in wm.memories] == ["甲乙丙丁戊己庚辛壬癸"]
    assert wm.current_tokens == 10


def test_ttl_expires_old_memories_on_add_and_retrieve():
    clock = Clock()
    wm = WorkingMemory(max_age_minutes=120, clock=clock)
    wm.add("用户的猫叫咪咪", 0.8)
    clock.t += 119 * 60
    assert wm.retrieve("猫")
    clock.t += 2 * 60
    assert wm.retrieve("猫") == []
    assert len(wm) == 0


def test_decay_follows_the_formula_with_a_floor():
    wm = WorkingMemory(decay_factor=0.9, max_age_minutes=None)
    now = 1_700_000_000.0
    assert wm._calculate_time_decay(now - 12 * HOUR, now) == pytest.approx(0.9**2)
    assert wm._calculate_time_decay(now - 1000 * HOUR, now) == 0.1


def test_final_score_is_base_times_decay_times_importance_weight():
    clock = Clock()
    wm = WorkingMemory(decay_factor=0.9, max_age_minutes=None, clock=clock)
    item = wm.add("用户喜欢爬山", 0.5, timestamp=clock.t - 6 * HOUR)
    other = wm.add("今天午饭吃了饺子", 0.5)
    [(found, score)] = wm.retrieve("用户喜欢爬山", limit=1)
    assert found is item
    base = relevance("用户喜欢爬山", [item.content, other.content])[0]
    assert score == pytest.approx(base * 0.9 * (0.8 + 0.5 * 0.4))


def test_retrieval_ranks_relevant_chinese_and_english():
    wm = WorkingMemory(max_age_minutes=None, clock=Clock())
    wm.add("用户喜欢吃北京烤鸭", 0.5)
    wm.add("用户住在上海浦东", 0.5)
    wm.add("The user is learning to paint sunsets in watercolour", 0.5)
    assert wm.retrieve("烤鸭好吃吗", limit=1)[0][0].content == "用户喜欢吃北京烤鸭"
    assert wm.retrieve("painting lessons", limit=1)[0][0].content.startswith("The user is learning")
    assert wm.retrieve("量子力学") == []


def test_importance_breaks_ties_and_user_filter_applies():
    wm = WorkingMemory(max_age_minutes=None, clock=Clock())
    a = wm.add("周末去看电影", 0.2, user_id="a")
    b = wm.add("周末去看电影", 0.9, user_id="b")
    assert [m for m, _ in wm.retrieve("看电影")] == [b, a]
    assert [m for m, _ in wm.retrieve("看电影", user_id="a")] == [a]


def test_forgotten_items_are_not_retrieved():
    wm = WorkingMemory(max_age_minutes=None, clock=Clock())
    item = wm.add("用户的生日是三月", 0.9)
    item.forgotten = True
    assert wm.retrieve("生日") == []


def test_forgetting_strategies():
    clock = Clock()
    wm = WorkingMemory(max_capacity=10, max_age_minutes=None, clock=clock)
    wm.add("旧的事情", 0.5, timestamp=clock.t - 10 * 86400)
    wm.add("不重要的事", 0.05)
    wm.add("重要的事", 0.9)
    assert [m.content for m in wm.forget("importance_based", threshold=0.1)] == ["不重要的事"]
    assert [m.content for m in wm.forget("time_based", max_age_days=7)] == ["旧的事情"]
    wm.max_capacity = 0
    assert [m.content for m in wm.forget("capacity_based")] == ["重要的事"]
    with pytest.raises(ValueError, match="strategy"):
        wm.forget("random")


def test_heap_tuples_are_priority_timestamp_item():
    wm = WorkingMemory(clock=Clock())
    item = wm.add("同样的内容", 0.5)
    wm.add("同样的内容", 0.5)
    priority, timestamp, stored = wm.memory_heap[0]
    assert isinstance(stored, MemoryItem) and timestamp == item.timestamp and priority == pytest.approx(0.5)


def test_context_summary_orders_fills_and_cuts():
    clock = Clock()
    wm = WorkingMemory(max_age_minutes=None, clock=clock)
    wm.add("较早的重要记忆" * 3, 0.9, timestamp=clock.t - 100)
    wm.add("较新的重要记忆", 0.9)
    wm.add("不太重要的记忆" * 20, 0.3)
    summary = wm.get_context_summary(max_length=100)
    lines = summary.split("\n")
    assert lines[0] == "- 较新的重要记忆"
    assert lines[1].startswith("- 较早的重要记忆")
    assert lines[2].endswith("…") and len(lines[2]) >= 50
    assert len(summary) <= 100
    # 6 characters of room left after two lines: too few to cut the third one in.
    assert wm.get_context_summary(max_length=40) == "- 较新的重要记忆\n- 较早的重要记忆较早的重要记忆较早的重要记忆"


def test_importance_outside_0_1_is_rejected():
    with pytest.raises(ValueError, match="importance"):
        MemoryItem("x", 7, 0.0)


def test_records_round_trip():
    clock = Clock()
    wm = WorkingMemory(clock=clock)
    wm.add("用户在学吉他", 0.7, category="skill", source="user")
    other = WorkingMemory(clock=clock)
    other.load_records(wm.to_records())
    assert [(m.id, m.content, m.category) for m in other.memories] == [(m.id, m.content, m.category) for m in wm.memories]


@pytest.mark.parametrize("room, kept", [(53, 50), (60, 57), (52, None), (50, None)])
def test_a_cut_last_line_keeps_at_least_50_content_characters(room, kept):
    clock = Clock()
    wm = WorkingMemory(max_age_minutes=None, clock=clock)
    wm.add("甲" * 10, 0.9)
    wm.add("乙" * 200, 0.3)
    first = "- " + "甲" * 10
    summary = wm.get_context_summary(max_length=len(first) + 1 + room)
    lines = summary.split("\n")
    if kept is None:
        assert lines == [first]
    else:
        assert lines[1] == "- " + "乙" * kept + "…"
        assert len(summary) == len(first) + 1 + room
