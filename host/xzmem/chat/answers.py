"""What the rule-based responder (no LLM) says: the writes it remembered, and short answers to what
the user asks about themselves, read from the device's overview, in the language they asked in.
"""

from __future__ import annotations

import re
from typing import Any

_HAN = re.compile(r"[\u4e00-\u9fff]")
_LABELS_ZH = {
    "name": "名字", "age": "年龄", "gender": "性别", "location": "住在", "birthday": "生日",
    "like": "喜欢", "dislike": "不喜欢", "family": "家人", "schedule": "日程",
    "fact": "记下", "trait": "性格", "habit": "习惯", "goal": "目标", "moment": "时刻",
}
_LABELS_EN = {
    "name": "name", "age": "age", "gender": "gender", "location": "lives in", "birthday": "birthday",
    "like": "likes", "dislike": "dislikes", "family": "family", "schedule": "schedule",
    "fact": "noted", "trait": "trait", "habit": "habit", "goal": "goal", "moment": "moment",
}
_REPEATS_ZH = {"daily": "每天", "weekly": "每周", "monthly": "每月", "yearly": "每年"}
_REPEATS_EN = {"daily": "every day", "weekly": "every week", "monthly": "every month", "yearly": "every year"}

_ASKS = re.compile(
    r"[?？]|什么|几|哪|谁|吗|呢|多少|多大|来着|记得|日程|安排|\b(?:what|who|when|where|how|which)\b|\bdo you (?:know|remember)\b"
    r"|\bmy schedule\b", re.I)
_ASK_ALL = re.compile(r"记得我|记住了?我|关于我|知道我(?:什么|些什么|哪些)|了解我|我的(?:记忆|信息)"
                      r"|\b(?:remember|know) about me\b|\bwhat do you (?:remember|know)\b", re.I)
_ASK_DISLIKES = re.compile(r"不喜欢什么|不喜欢的|讨厌什么|不爱吃什么|不爱什么|怕什么"
                           r"|\bwhat (?:do I|don'?t I) (?:not like|hate|dislike|like not)\b|\bwhat don'?t I like\b", re.I)
_ASK_NAME = re.compile(r"我叫什么|我的名字|我是谁|\bmy name\b|\bwho am I\b", re.I)
_ASK_AGE = re.compile(r"我几岁|我多大|年龄|\bhow old am I\b|\bmy age\b", re.I)
_ASK_PLACE = re.compile(r"我住(?:在)?哪|我(?:来自|家在)哪|\bwhere do I live\b|\bwhere am I from\b", re.I)
_ASK_BIRTHDAY = re.compile(r"生日|\bbirthday\b", re.I)
_ASK_LIKES = re.compile(r"我喜欢什么|我爱什么|我的爱好|喜欢.*什么|\bwhat do I (?:like|love)\b|\bmy favou?rite\b", re.I)
_ASK_SCHEDULE = re.compile(r"日程|安排|提醒|计划|要做什么|要干(?:什么|嘛)|干什么|\bschedule\b|\bremind|\bplans?\b"
                           r"|\bwhat am I doing\b|\bwhat do I have\b", re.I)
_RELATIONS_ZH = re.compile(r"(妈妈|爸爸|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|家人)")
_RELATIONS_EN = re.compile(r"\bmy (mom|mother|dad|father|wife|husband|son|daughter|brother|sister|grandma|grandpa|family)\b", re.I)


_PROFILE_QUESTIONS = ((_ASK_NAME, "name"), (_ASK_AGE, "age"), (_ASK_PLACE, "location"), (_ASK_BIRTHDAY, "birthday"))
# Per profile field, (zh, en) of (the answer with the value, the answer without one).
_PROFILE_ANSWERS = {
    "name": (("你叫{}。", "你还没告诉我你的名字。"), ("Your name is {}.", "You haven't told me your name yet.")),
    "age": (("你{}岁。", "你还没告诉我你的年龄。"), ("You are {}.", "You haven't told me how old you are.")),
    "location": (("你住在{}。", "你还没告诉我你住在哪里。"),
                 ("You live in {}.", "You haven't told me where you live.")),
    "birthday": (("你的生日是{}。", "你还没告诉我你的生日。"),
                 ("Your birthday is {}.", "You haven't told me your birthday.")),
}
# Per preference list, (zh, en) of (the answer's start, the answer without any).
_LIST_ANSWERS = {
    "likes": (("你喜欢", "你还没告诉我你喜欢什么。"), ("You like ", "You haven't told me what you like.")),
    "dislikes": (("你不喜欢", "你还没告诉我你不喜欢什么。"), ("You don't like ", "You haven't told me what you don't like.")),
}


def _listed(items: list[str] | None, zh: bool, kind: str) -> str:
    start, none = _LIST_ANSWERS[kind][0 if zh else 1]
    if not items:
        return none
    return start + ("、" if zh else ", ").join(items) + ("。" if zh else ".")


def describe_write(op: dict[str, Any], zh: bool = True) -> str:
    """`喜欢 打篮球`, `日程 2026-11-23 15:00 开会（每周）`: one remembered item, for the user."""
    labels = _LABELS_ZH if zh else _LABELS_EN
    label = labels.get(op.get("type", ""), op.get("type", ""))
    if op.get("type") == "schedule":
        return f"{label} {_when_what(op, zh)}"
    return f"{label} {op['content']}"


def _when_what(schedule: dict[str, Any], zh: bool) -> str:
    """`2026-11-25 16:00 去学画画（每周）`"""
    repeat = (_REPEATS_ZH if zh else _REPEATS_EN).get(schedule.get("repeat", "none"))
    tail = (f"（{repeat}）" if zh else f" ({repeat})") if repeat else ""
    return f"{schedule.get('datetime', '')} {schedule['content']}".strip() + tail


def acknowledge(writes: list[dict[str, Any]], said: str = "") -> str:
    """"记住了：名字 王浩宇；喜欢 打篮球" (or "Got it: …" when the user spoke English)."""
    zh = not said or bool(_HAN.search(said))
    return ("记住了：" if zh else "Got it: ") + ("；" if zh else "; ").join(describe_write(op, zh) for op in writes)


def is_question(text: str) -> bool:
    """Whether the words ask something the overview may answer."""
    return bool(_ASKS.search(text))


def _schedules(overview: dict[str, Any], zh: bool) -> str:
    schedules = [s for s in overview.get("schedules") or [] if not s.get("completed")]
    if not schedules:
        return "现在没有日程。" if zh else "Nothing is on your schedule."
    items = ("；" if zh else "; ").join(_when_what(s, zh) for s in schedules)
    return ("接下来的日程：" if zh else "Coming up: ") + items


def _everything(overview: dict[str, Any], zh: bool) -> str:
    profile = overview.get("profile") or {}
    prefs = overview.get("preferences") or {}
    sep, join = ("；", "、") if zh else ("; ", ", ")
    labels = _LABELS_ZH if zh else _LABELS_EN
    parts = [f"{labels[k]} {profile[k]}" for k in ("name", "age", "gender", "location", "birthday") if profile.get(k)]
    if prefs.get("likes"):
        parts.append(f"{labels['like']} " + join.join(prefs["likes"]))
    if prefs.get("dislikes"):
        parts.append(f"{labels['dislike']} " + join.join(prefs["dislikes"]))
    if overview.get("family"):
        parts.append(f"{labels['family']} " + join.join(f"{m['relation']} {m['name']}" for m in overview["family"]))
    parts.extend(overview.get("facts") or [])
    schedules = [s for s in overview.get("schedules") or [] if not s.get("completed")]
    parts.extend(describe_write({"type": "schedule", **s}, zh) for s in schedules)
    if not parts:
        return "我还不太了解你，跟我说说你自己吧。" if zh else "I don't know much about you yet. Tell me about yourself!"
    return ("我记得：" if zh else "I remember: ") + sep.join(parts)


def answer_from_overview(question: str, overview: dict[str, Any]) -> str | None:
    """A short answer to a simple question about the user from the device's overview, or None."""
    if not is_question(question):
        return None
    zh = bool(_HAN.search(question))
    profile = overview.get("profile") or {}
    prefs = overview.get("preferences") or {}
    family = overview.get("family") or []
    relation = _RELATIONS_ZH.search(question) if zh else _RELATIONS_EN.search(question)
    if relation and ("我" in question if zh else True):
        wanted = relation.group(1).lower()
        members = [m for m in family if wanted in ("家人", "family") or m.get("relation") == wanted]
        if members:
            return ("你的家人：" if zh else "Your family: ") + ("、" if zh else ", ").join(
                f"{m['relation']} {m['name']}" for m in members)
        return f"我还不知道你{wanted}的名字。" if zh else f"I don't know your {wanted}'s name yet."
    if _ASK_ALL.search(question):
        return _everything(overview, zh)
    if _ASK_DISLIKES.search(question):
        return _listed(prefs.get("dislikes"), zh, "dislikes")
    for ask, field in _PROFILE_QUESTIONS:
        # A birthday question that names a schedule ("my birthday plans") is about the schedule.
        if ask.search(question) and not (field == "birthday" and _ASK_SCHEDULE.search(question)):
            known, unknown = _PROFILE_ANSWERS[field][0 if zh else 1]
            return known.format(profile[field]) if profile.get(field) else unknown
    if _ASK_LIKES.search(question):
        return _listed(prefs.get("likes"), zh, "likes")
    if _ASK_SCHEDULE.search(question):
        return _schedules(overview, zh)
    return None
