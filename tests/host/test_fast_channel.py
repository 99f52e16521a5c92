"""The sieve's fast channel: regex hits in Chinese and English become the memory tool's writes."""

from datetime import datetime

import pytest
from xzmem.pipelines.fast_channel import detect_high_signals, fast_channel, parse_when

NOW = datetime(2026, 11, 22, 10, 0)  # a Sunday


@pytest.mark.parametrize(
    "text, category",
    [
        ("不是周三，而是周四开会", "correction"),
        ("I meant Thursday, not Wednesday", "correction"),
        ("我特别喜欢打篮球", "preference"),
        ("I really love jazz", "preference"),
        ("我是一名软件工程师", "identity"),
        ("My name is Alice", "identity"),
        ("我决定买那台红色的车", "decision"),
        ("I decided to take the job", "decision"),
        ("别忘了给花浇水", "todo"),
        ("Remind me to call mom", "todo"),
        ("重要：护照放在抽屉里", "important"),
        ("The key is to stay calm", "important"),
    ],
)
def test_each_pattern_fires(text, category):
    assert category in [s.category for s in detect_high_signals(text)]


def test_small_talk_has_no_signal():
    assert fast_channel("今天天气真好", NOW) == ([], [])
    assert fast_channel("Hi, how are you?", NOW) == ([], [])


def test_identity_decision_and_important_lines_are_about_the_user_in_the_third_person():
    _, writes = fast_channel("我决定用树莓派做这个项目。I'm a data engineer. 重要：我的护照在抽屉里", NOW)
    assert [w["content"] for w in writes] == ["主人决定用树莓派做这个项目", "The user is a data engineer",
                                              "重要：主人的护照在抽屉里"]


def test_values_end_at_conjunctions_and_clause_boundaries():
    _, writes = fast_channel("My name is Tom and I like cats", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("name", "Tom"), ("like", "cats")]
    _, writes = fast_channel("I like cats and my name is Tom", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("like", "cats"), ("name", "Tom")]
    _, writes = fast_channel("我喜欢猫但是不喜欢狗；我住在北京和我妈妈一起", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("like", "猫"), ("dislike", "狗"), ("location", "北京")]


def test_identity_becomes_profile_writes():
    _, writes = fast_channel("我叫王浩宇，今年25岁，住在北京。", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("name", "王浩宇"), ("age", "25"), ("location", "北京")]
    _, writes = fast_channel("My name is Alice. I live in Boston.", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("name", "Alice"), ("location", "Boston")]


def test_likes_and_dislikes_in_one_sentence():
    _, writes = fast_channel("我特别喜欢打篮球，我讨厌香菜。", NOW)
    assert sorted((w["type"], w["content"]) for w in writes) == [("dislike", "香菜"), ("like", "打篮球")]
    _, writes = fast_channel("I hate olives, and I prefer tea.", NOW)
    assert sorted((w["type"], w["content"]) for w in writes) == [("dislike", "olives"), ("like", "tea")]


def test_a_second_liking_after_a_comma_needs_no_new_subject():
    _, writes = fast_channel("我喜欢打篮球，还喜欢画画。", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("like", "打篮球"), ("like", "画画")]
    _, writes = fast_channel("我不喜欢下雨，也讨厌打雷", NOW)
    assert [(w["type"], w["content"]) for w in writes] == [("dislike", "下雨"), ("dislike", "打雷")]


def test_family_member():
    _, writes = fast_channel("我妈妈叫李娟", NOW)
    assert writes == [{"op": "write", "type": "family", "content": "妈妈 李娟", "relation": "妈妈",
                       "name": "李娟", "closeness": 3}]


def test_todo_with_a_time_is_a_schedule():
    _, writes = fast_channel("明天下午3点提醒我去开会", NOW)
    assert writes == [{"op": "write", "type": "schedule", "content": "去开会", "datetime": "2026-11-23 15:00",
                       "repeat": "none", "priority": 3}]
    _, writes = fast_channel("Remind me to call mom tomorrow at 5pm.", NOW)
    assert (writes[0]["content"], writes[0]["datetime"]) == ("call mom", "2026-11-23 17:00")


def test_todo_without_a_time_is_a_fact_and_a_need_without_one_is_nothing():
    _, writes = fast_channel("别忘了买牛奶", NOW)
    assert writes == [{"op": "write", "type": "fact", "content": "待办：买牛奶"}]
    signals, writes = fast_channel("我需要买牛奶", NOW)  # seed 004's 需要 is a todo signal
    assert [s.category for s in signals] == ["todo"] and writes == []


def test_an_impossible_date_writes_nothing_and_names_the_problem():
    signals, writes = fast_channel("2月30日下午3点提醒我交房租", NOW)
    assert writes == []
    assert signals[0].problem == "没有2月30日这一天"
    with pytest.raises(ValueError, match="25:00"):
        parse_when("明天25点", NOW)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("每天早上八点半提醒我吃药", ("2026-11-23 08:30", "daily")),  # 08:30 already passed today
        ("周五晚上7点", ("2026-11-27 19:00", "none")),
        ("下周一上午十点", ("2026-11-23 10:00", "none")),
        ("12月25日", ("2026-12-25 09:00", "none")),
        ("every week at 18:30", ("2026-11-22 18:30", "weekly")),
        ("没有时间", None),
    ],
)
def test_parse_when(text, expected):
    assert parse_when(text, NOW) == expected


def test_correction_keeps_the_sentence():
    _, writes = fast_channel("不是周三，而是周四开会", NOW)
    assert writes == [{"op": "write", "type": "fact", "content": "更正：不是周三，而是周四开会"}]


def test_questions_write_nothing():
    signals, writes = fast_channel("你明天需要休息吗？我叫小明。Should I prefer green tea?", NOW)
    assert [s.category for s in signals] == ["todo", "identity", "preference"]
    assert writes == [{"op": "write", "type": "name", "content": "小明"}]
