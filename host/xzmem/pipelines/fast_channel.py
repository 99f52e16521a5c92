"""The sieve's fast channel (seed 004 §5.2.3): regexes over the user's words, no LLM, device writes at once.

Six high-signal patterns (correction, preference, identity, decision, todo, important) in Chinese
and English. Each hit becomes a `write` op with the `memory` tool's types: name / age / gender /
location / birthday for identity, like / dislike for preferences, family for relatives, schedule
when a todo carries a time, fact otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from xzmem.device import ops as opslib

PATTERNS = {
    "correction": re.compile(
        r"不是[^，。,.！？!?]+[，,]\s*(?:而)?是|其实是|搞错了|说错了|更正|纠正一下"
        r"|\bI meant\b|\bactually,? (?:it'?s|I'?m|my|I)\b|\bcorrection\b|\bthat'?s wrong\b",
        re.I,
    ),
    "preference": re.compile(
        r"我(?:很|特别|最|比较|超|真的)?(?:喜欢|爱吃|爱喝|爱看|爱玩|热爱|偏好|不要|不想|讨厌|不喜欢|受不了|怕)"
        r"|\bI (?:really |do |don'?t |do not )?(?:like|love|prefer|hate|dislike|enjoy|can'?t stand)\b",
        re.I,
    ),
    "identity": re.compile(
        r"我叫|我的名字|我是[^，。,.！？!?]*(?:人|工程师|学生|老师|医生|程序员|投资者|开发者|设计师|护士|律师)"
        r"|我今年\d+岁|我\d+岁|我住在|我来自|我的生日|我是(?:男生|女生|男的|女的|男孩|女孩)"
        r"|\bmy name is\b|\bcall me\b|\bI'?m \d+ years old\b|\bI live in\b|\bI'?m from\b|\bI work as\b|\bmy birthday is\b",
        re.I,
    ),
    "relationship": re.compile(
        r"我(?:的)?(?:妈妈|妈|爸爸|爸|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆)(?:叫|的名字是|名叫)"
        r"|\bmy (?:mom|mother|dad|father|wife|husband|son|daughter|brother|sister|grandma|grandpa)(?:'s name)? is\b",
        re.I,
    ),
    "decision": re.compile(r"决定|选择了|最终用|确定用|就这样吧|\bI(?:'ve| have)? decided\b|\bI(?:'ll| will) go with\b|\bI chose\b", re.I),
    "todo": re.compile(r"记得|需要|待办|别忘了|提醒我|\btodo\b|\bremind me\b|\bdon'?t forget\b|\bremember to\b|\bI need to\b", re.I),
    "important": re.compile(r"重要[：:]|关键是|核心是|本质上|\bimportant:|\bthe key is\b|\bessentially\b", re.I),
}
IMPORTANCE = {"relationship": 0.8, "correction": 0.9, "identity": 0.9, "preference": 0.8, "decision": 0.8, "todo": 0.7, "important": 0.7}
FACT_PREFIX = {"correction": "更正：", "todo": "待办："}

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n")
_STOP = r"(?=[，。,.！？!?；;、\s]|$)"
_IDENTITY = [
    ("name", re.compile(r"(?:我叫|我的名字(?:是|叫))\s*([^\s，。,.！？!?；;]{1,12})" + _STOP)),
    ("name", re.compile(r"\b(?:my name is|call me)\s+([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)", re.I)),
    ("age", re.compile(r"(?:我|今年)\s*(\d{1,3})\s*岁")),
    ("age", re.compile(r"\bI'?m (\d{1,3}) years old\b", re.I)),
    ("location", re.compile(r"(?:我|^|[，,]\s*)(?:住在|来自)\s*([^\s，。,.！？!?；;]{1,16})" + _STOP)),
    ("location", re.compile(r"\bI (?:live in|am from|'m from)\s+([A-Z][\w' -]{1,30}?)(?=[,.!?;]|$)", re.I)),
    ("birthday", re.compile(r"我的生日(?:是|在)?\s*([^\s，。,.！？!?；;]{2,16})" + _STOP)),
    ("birthday", re.compile(r"\bmy birthday is (?:on )?([\w ,]{3,20}?)(?=[.!?;]|$)", re.I)),
    ("gender", re.compile(r"我是(男生|女生|男的|女的|男孩|女孩)")),
]
_ROLE = re.compile(
    r"我是[^，。,.！？!?]*(?:人|工程师|学生|老师|医生|程序员|投资者|开发者|设计师|护士|律师)"
    r"|\bI(?:'m| am) an? [a-z ]{2,30}?(?:engineer|student|teacher|doctor|developer|designer|nurse|lawyer|investor)\b"
    r"|\bI work as an? [a-z ]{2,30}",
    re.I,
)
_GENDER = {"男生": "男", "男的": "男", "男孩": "男", "女生": "女", "女的": "女", "女孩": "女"}
_LIKE = [
    (re.compile(r"我(?:很|特别|最|比较|超|真的)?(?:不喜欢|讨厌|受不了|怕|不想|不要)\s*([^，。,.！？!?；;]{1,20})"), "dislike"),
    (re.compile(r"我(?:很|特别|最|比较|超|真的)?(?:喜欢|爱吃|爱喝|爱看|爱玩|热爱|偏好)\s*([^，。,.！？!?；;]{1,20})"), "like"),
    # "……，还喜欢画画" / "……，也不喜欢下雨": a second liking in the same sentence, without a new 我.
    (re.compile(r"[，,、]\s*我?(?:也|还|更)(?:很|特别|最|比较|超)?(?:不喜欢|讨厌|受不了|怕)\s*([^，。,.！？!?；;]{1,20})"), "dislike"),
    (re.compile(r"[，,、]\s*我?(?:也|还|更)(?:很|特别|最|比较|超)?(?:喜欢|爱吃|爱喝|爱看|爱玩)\s*([^，。,.！？!?；;]{1,20})"), "like"),
    (re.compile(r"\bI (?:really )?(?:don'?t like|do not like|hate|dislike|can'?t stand)\s+([^,.!?;]{1,40})", re.I), "dislike"),
    (re.compile(r"\bI (?:really |do )?(?:like|love|prefer|enjoy)\s+([^,.!?;]{1,40})", re.I), "like"),
]
_FAMILY = re.compile(
    r"我(?:的)?(妈妈|妈|爸爸|爸|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆)"
    r"(?:叫|的名字是|名叫)\s*([^\s，。,.！？!?；;]{1,8})" + _STOP
    + r"|\bmy (mom|mother|dad|father|wife|husband|son|daughter|brother|sister|grandma|grandpa)(?:'s name)? is (?:called |named )?([A-Z][\w'-]*)",
    re.I,
)
_FAMILY_ZH = {"妈": "妈妈", "爸": "爸爸"}
_REPEAT_WORDS = re.compile(r"每天|每日|每周|每星期|每个?月|\bevery (?:day|week|month)\b|\b(?:daily|weekly|monthly)\b", re.I)
_TODO_ANYWHERE = re.compile(r"提醒我|别忘了|记得")
_QUESTION_END = re.compile(r"(?:[?？]|[吗呢么][。！!]?)\s*$")
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_TODO_LEAD = re.compile(r"^(?:请|麻烦)?(?:要)?(?:提醒我|记得|别忘了|帮我记一下|帮我记住|\bremind me to\b|\bremind me\b|\bdon'?t forget to\b|\bremember to\b)\s*", re.I)


@dataclass
class Signal:
    category: str
    sentence: str
    importance: float


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def detect_high_signals(user_text: str) -> list[Signal]:
    """Each (sentence, category) hit in the user's words, in order."""
    found = []
    for sentence in _sentences(user_text):
        for category, pattern in PATTERNS.items():
            if pattern.search(sentence):
                found.append(Signal(category, sentence, IMPORTANCE[category]))
    return found


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
    return _ZH_DIGITS[text]


_DAY_WORD = re.compile(r"(今天|明天|后天|大后天|下周([一二三四五六日天])|周([一二三四五六日天])|星期([一二三四五六日天])|(\d{1,2})月(\d{1,2})[日号]|\btomorrow\b|\btoday\b)", re.I)
_CLOCK_ZH = re.compile(r"(早上|上午|中午|下午|傍晚|晚上|凌晨)?\s*([\d一二两三四五六七八九十]{1,3})\s*[点:：]\s*(半|[\d]{1,2}分?|一刻)?")
_CLOCK_EN = re.compile(r"\bat (\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b|\b(\d{1,2}):(\d{2})\b", re.I)


def parse_when(sentence: str, now: datetime) -> tuple[str, str] | None:
    """('YYYY-MM-DD HH:MM', repeat) for a time said in Chinese or English, or None when there is none."""
    repeat = "none"
    if re.search(r"每天|每日|\bevery day\b|\bdaily\b", sentence, re.I):
        repeat = "daily"
    elif re.search(r"每周|每星期|\bevery week\b|\bweekly\b", sentence, re.I):
        repeat = "weekly"
    elif re.search(r"每月|每个月|\bevery month\b|\bmonthly\b", sentence, re.I):
        repeat = "monthly"
    day = now.date()
    m = _DAY_WORD.search(sentence)
    if m:
        word = m.group(1).lower()
        offsets = {"今天": 0, "today": 0, "明天": 1, "tomorrow": 1, "后天": 2, "大后天": 3}
        if word in offsets:
            day = day + timedelta(days=offsets[word])
        elif m.group(2):
            day = day + timedelta(days=7 - day.weekday() + _WEEKDAY[m.group(2)])
        elif m.group(3) or m.group(4):
            wanted = _WEEKDAY[m.group(3) or m.group(4)]
            day = day + timedelta(days=(wanted - day.weekday()) % 7)
        elif m.group(5):
            month, dom = int(m.group(5)), int(m.group(6))
            try:
                candidate = day.replace(month=month, day=dom)
            except ValueError:
                return None
            day = candidate if candidate >= day else candidate.replace(year=day.year + 1)
    hour = minute = None
    zh = _CLOCK_ZH.search(sentence)
    en = _CLOCK_EN.search(sentence)
    if zh and _zh_number(zh.group(2)) is not None:
        hour = _zh_number(zh.group(2))
        tail = zh.group(3) or ""
        minute = 30 if tail == "半" else 15 if tail == "一刻" else int(tail.rstrip("分")) if tail else 0
        if zh.group(1) in ("下午", "傍晚", "晚上") and hour < 12:
            hour += 12
        elif zh.group(1) == "中午" and hour < 11:
            hour += 12
    elif en:
        if en.group(1):
            hour, minute = int(en.group(1)), int(en.group(2) or 0)
            if (en.group(3) or "").lower() == "pm" and hour < 12:
                hour += 12
            elif (en.group(3) or "").lower() == "am" and hour == 12:
                hour = 0
        else:
            hour, minute = int(en.group(4)), int(en.group(5))
    if hour is None and not m:
        return None
    if hour is None:
        hour, minute = 9, 0
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    if not m and (hour, minute) < (now.hour, now.minute):
        day = day + timedelta(days=1)
    return f"{day.isoformat()} {hour:02d}:{minute:02d}", repeat


def _todo_content(sentence: str) -> str:
    """What to do, without the time words and the "remind me" lead-in."""
    text = _DAY_WORD.sub("", sentence)
    text = _CLOCK_ZH.sub("", text)
    text = _CLOCK_EN.sub("", text)
    text = _REPEAT_WORDS.sub("", text)
    text = _TODO_LEAD.sub("", text.strip(" ，,").rstrip("。！？!?.;；"))
    text = _TODO_ANYWHERE.sub("", text)
    return text.strip(" ，,") or sentence


def signal_writes(signal: Signal, now: datetime) -> list[dict]:
    """The `write` ops one signal turns into."""
    s = signal.sentence
    if signal.category == "identity":
        writes = []
        for type_, pattern in _IDENTITY:
            m = pattern.search(s)
            if m and not any(w["type"] == type_ for w in writes):
                value = m.group(1).strip()
                writes.append(opslib.write(type_, _GENDER.get(value, value)))
        role = _ROLE.search(s)
        if role:
            writes.append(opslib.write("fact", role.group(0)))
        fam = _FAMILY.search(s)
        if fam:
            writes.append(_family_write(fam))
        return writes or [opslib.write("fact", s)]
    if signal.category == "preference":
        writes = [
            opslib.write(type_, m.group(1).strip())
            for pattern, type_ in _LIKE
            for m in pattern.finditer(s)
        ]
        return writes or [opslib.write("fact", s)]
    if signal.category == "todo":
        when = parse_when(s, now)
        if when:
            return [opslib.write("schedule", _todo_content(s), datetime=when[0], repeat=when[1], priority=3)]
    fam = _FAMILY.search(s)
    if fam:
        return [_family_write(fam)]
    return [opslib.write("fact", FACT_PREFIX.get(signal.category, "") + s)]


def _family_write(m: re.Match) -> dict:
    if m.group(1):
        relation, name = _FAMILY_ZH.get(m.group(1), m.group(1)), m.group(2)
    else:
        relation, name = m.group(3).lower(), m.group(4)
    return opslib.write("family", f"{relation} {name}", relation=relation, name=name, closeness=3)


def fast_channel(user_text: str, now: datetime) -> tuple[list[Signal], list[dict]]:
    """Signals and their de-duplicated `write` ops (one sentence can hit several patterns);
    questions are detected but write nothing."""
    signals = detect_high_signals(user_text)
    writes: list[dict] = []
    seen_sentences: dict[str, set[str]] = {}
    for signal in signals:
        if _QUESTION_END.search(signal.sentence):
            continue  # "你需要休息吗？" asks; it states nothing to store
        for op in signal_writes(signal, now):
            kinds = seen_sentences.setdefault(signal.sentence, set())
            whole_sentence_fact = op["type"] == "fact" and op["content"].endswith(signal.sentence)
            if whole_sentence_fact and kinds:
                continue  # the sentence already gave a more specific write
            if op not in writes:
                writes.append(op)
                kinds.add(op["type"])
    return signals, writes
