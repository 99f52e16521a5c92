"""The sieve's fast channel (seed 004 §5.2.3): regexes over the user's words, no LLM, device writes at once.

High-signal patterns (correction, preference, identity, relationship, health, decision, todo,
important) in Chinese and English pick the sentences; each sentence is then cut into clauses (at
commas, semicolons and clause-joining conjunctions: 但是/还/也, but, "and I…") and every clause
gives its own writes with the `memory` tool's types: name / age / gender / location / birthday,
like / dislike (a list "A和B" / "A and B" gives one each), family, schedule when a todo carries a
time, fact otherwise. Facts are written about the user in the third person (主人… / The user…),
because the model reading them later cannot tell whose "我" they were.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from xzmem.device import ops as opslib

PATTERNS = {
    "correction": re.compile(
        r"不是[^，。,.！？!?]+[，,]\s*(?:而)?是|其实(?:是|叫|我)|搞错了|说错了|记错了|更正|纠正一下"
        r"|\bI meant\b|\bactually,? (?:it'?s|I'?m|my|I)\b|\bcorrection\b|\bthat'?s wrong\b",
        re.I,
    ),
    "preference": re.compile(
        r"我(?:也|还|又|更)?(?:很|非常|特别|最|比较|超|真的|挺)?(?:喜欢|爱吃|爱喝|爱看|爱玩|爱听|爱|热爱|偏好|讨厌|不喜欢|受不了|怕)"
        r"|\bI (?:really |also |do |totally )?(?:like|love|prefer|hate|dislike|enjoy|adore|can'?t stand|don'?t like)\b"
        r"|\bmy favou?rite\b",
        re.I,
    ),
    "identity": re.compile(
        r"我叫|我的名字|叫我|我是|我(?:今年)?(?:已经|才|刚|快)?[\d一二两三四五六七八九十]+岁|今年[\d一二两三四五六七八九十]+岁"
        r"|我(?:现在|目前|一直|去年|今年|前年|最近)?(?:住在|来自|家在|生活在|搬到)|我(?:的)?生日|我在[^，。]{1,12}(?:工作|上班|上学|读书)|我退休了"
        r"|\bmy name(?:'s| is)\b|\bcall me\b|\bI'?m called\b|\bI(?:'m| am) \d+\b|\bI just turned \d+\b"
        r"|\bI(?: live in| am from|'m from| grew up in| moved to)\b|\bI work (?:as|at|for)\b|\bI(?:'m| am) (?:an?|retired)\b"
        r"|\bmy birthday\b",
        re.I,
    ),
    "relationship": re.compile(
        r"我(?:的)?(?:有(?:一个|一位|个)?)?(?:妈妈|妈|爸爸|爸|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|哥哥|姐姐|弟弟|妹妹|"
        r"爷爷|奶奶|外公|外婆|姥姥|姥爷|女朋友|男朋友)(?:叫|的名字是|名叫)"
        r"|\bmy (?:mom|mother|dad|father|wife|husband|son|daughter|brother|sister|grandma|grandpa|girlfriend|boyfriend)"
        r"(?:'s name)? is\b|\bI have an? (?:brother|sister|son|daughter) (?:named|called)\b",
        re.I,
    ),
    "health": re.compile(
        r"过敏|我(?:有|患有|得了)(?:糖尿病|高血压|哮喘|心脏病|胃病|贫血|失眠)"
        r"|\ballergic\b|\ballergy\b|\bI have (?:diabetes|asthma|high blood pressure|a heart condition|insomnia)\b",
        re.I,
    ),
    "decision": re.compile(r"决定|选择了|最终用|确定用|\bI(?:'ve| have)? decided\b|\bI(?:'ll| will) go with\b|\bI chose\b", re.I),
    "todo": re.compile(r"记得|别忘了|提醒我|待办|帮我记|\btodo\b|\bto-do\b|\bremind me\b|\bdon'?t forget\b|\bremember to\b", re.I),
    "important": re.compile(r"重要[：:]|很重要的是|关键是|记住[：:]|\bimportant:|\bthe key is\b", re.I),
}
# A todo needs a time to become a schedule; with one, "I need to" and 需要 say it too.
_TODO_WITH_TIME = re.compile(r"需要|得去|要去|\bI (?:need|have|'ve got) to\b", re.I)
IMPORTANCE = {"relationship": 0.8, "correction": 0.9, "identity": 0.9, "preference": 0.8, "health": 0.9,
              "decision": 0.8, "todo": 0.7, "important": 0.7}


@dataclass
class Signal:
    category: str
    sentence: str
    importance: float
    problem: str = ""  # set when the sentence cannot be stored as said (an impossible date)


class ImpossibleDate(ValueError):
    """A date the calendar does not have (2月30日); the text names it for the user."""


# --- sentences, clauses, values ----------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n")
_QUESTION_END = re.compile(r"(?:[?？]|[吗呢么][。！!]?)\s*$")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Clause boundaries: punctuation, contrastive and additive conjunctions, and 还/也/又 (或 and / but)
# when a new predicate follows them.
_CLAUSE_ZH = re.compile(
    r"[，,；;]|[：:](?!\d)|但是|不过|可是|而且|并且|然后|但(?=[我不])|(?=(?:我)?(?:也|还|又|更)(?:很|非常|特别|最|比较|超|挺)?"
    r"(?:喜欢|爱|讨厌|不喜欢|受不了|怕|是|住|在|叫|有))"
)
_CLAUSE_EN = re.compile(
    r"\s*(?:[,;]|:(?!\d)|\bbut\b|\bhowever\b|\bwhile\b|\band then\b|\band also\b"
    r"|\band (?=(?:I|I'm|I've|I'd|I'll|my|me)\b))\s*",
    re.I,
)
_LIST_ZH = re.compile(r"和|跟|与|以及|还有|、")
_LIST_EN = re.compile(r"\s+(?:and|or|&)\s+|\s*/\s*", re.I)
_TAIL_ZH = re.compile(r"[了啦呀哦的啊呢吧嘛哈]+$")
_TAIL_EN = re.compile(r"\s+(?:a lot|very much|so much|too|as well|a little|a bit)$", re.I)
_NOT_A_LIKING = {"你", "您", "你们", "他", "她", "它", "他们", "you", "it", "this", "that", "them", "him", "her", "that one"}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _clauses(sentence: str) -> list[str]:
    splitter = _CLAUSE_ZH if _HAN.search(sentence) else _CLAUSE_EN
    parts = [p.strip(" \t\"'“”‘’") for p in splitter.split(sentence)]
    return [p.rstrip("。！？!?.;；") for p in parts if p and p.strip("。！？!?.;；")]


def _items(value: str, zh: bool) -> list[str]:
    """One liking per list member ("猫和狗", "cats and dogs"); a list that opens with its separator
    ("和朋友聊天") is one thing."""
    value = value.strip()
    if (_LIST_ZH if zh else _LIST_EN).match(value):
        return [_clean(value, zh)]
    parts = (_LIST_ZH if zh else _LIST_EN).split(value)
    return [p for p in (_clean(part, zh) for part in parts) if p]


def _clean(value: str, zh: bool) -> str:
    value = value.strip(" ，,。.!！?？")
    if zh:
        return _TAIL_ZH.sub("", value)
    value = _TAIL_EN.sub("", value)
    return value[3:] if value.lower().startswith("to ") else value


# --- third person ------------------------------------------------------------------------------

_EN_SUBJECT = [
    (re.compile(r"^I(?:'m| am)\b", re.I), "The user is"),
    (re.compile(r"^I(?:'ve| have)\b", re.I), "The user has"),
    (re.compile(r"^I(?:'ll| will)\b", re.I), "The user will"),
    (re.compile(r"^I(?:'d| would)\b", re.I), "The user would"),
    (re.compile(r"^I work\b", re.I), "The user works"),
    (re.compile(r"^I live\b", re.I), "The user lives"),
    (re.compile(r"^I\b", re.I), "The user"),
    (re.compile(r"^my\b", re.I), "The user's"),
]
_EN_OBJECT = [(re.compile(r"\bmy\b", re.I), "their"), (re.compile(r"\bme\b", re.I), "them"),
              (re.compile(r"\bmyself\b", re.I), "themselves"), (re.compile(r"\bI(?:'m| am)\b"), "they are"),
              (re.compile(r"\bI\b"), "they")]


def third_person(text: str, subject: bool = True) -> str:
    """The user's own words about themselves as a sentence about the user: 我决定… → 主人决定…,
    I'm a… → The user is a…; with `subject`, a clause without one gets 主人 / The user."""
    text = text.strip()
    if _HAN.search(text):
        if text.startswith("我们"):
            head, rest = "主人他们", text[2:]
        elif text.startswith("我"):
            head, rest = "主人", text[1:]
        else:
            head, rest = ("主人" if subject else ""), text
        return head + rest.replace("我们", "主人他们").replace("我的", "自己的").replace("我", "自己")
    for pattern, replacement in _EN_SUBJECT:
        if pattern.match(text):
            head, rest = replacement, text[pattern.match(text).end():]
            break
    else:
        head, rest = ("The user" if subject else ""), (" " + text if subject else text)
    for pattern, replacement in _EN_OBJECT:
        rest = pattern.sub(replacement, rest)
    return (head + rest).strip()


# --- extractors, one clause at a time ----------------------------------------------------------

_ZH_NUM = r"[\d一二两三四五六七八九十]{1,4}"
_NAME_STOP = re.compile(r"今年|我|住|来自|是|在|的|和|就|呀|啊|哦|呢|啦|吧|哈")
_NAME_ZH = re.compile(r"(?:我(?:其实|本来|就)?叫|我的名字(?:其实)?(?:是|叫)|(?:^|可以|都|就)叫我)\s*([^\s，。,.！？!?；;、]{1,12})")
_SURNAMES = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁"
             "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤小阿")
_NAME_IS_ZH = re.compile(rf"^我(?:就)?是([{_SURNAMES}][\u4e00-\u9fff]{{1,2}})$")
_NAME_EN = re.compile(r"(?i:\bmy name(?:'s| is)|\bcall me|\bI'?m called)\s+([A-Z][a-z'-]+(?: [A-Z][a-z'-]+)?)")
_AGE_ZH = re.compile(rf"(?:^|我)(?:今年)?(?:已经|才|刚|快)?({_ZH_NUM})岁")
_AGE_EN = re.compile(r"\bI(?:'m| am| just turned) (\d{1,3})(?= years? old\b|\s*$)", re.I)
_PLACE_ZH = re.compile(r"(?:^|我)(?:现在|目前|一直|去年|今年|前年|最近)?(?:住在|来自|家在|生活在|搬到了?|搬去了?)\s*([^\s，。,.！？!?；;、]{1,16})")
_PLACE_EN = re.compile(r"(?i:\bI(?: live in| am from|'m from| grew up in| moved to))\s+([A-Z][\w'-]*(?: [A-Z][\w'-]*)*)")
_PLACE_STOP = re.compile(r"和|跟|已经|了|的|呢|啊|呀|哦|工作|上班")
_BIRTHDAY_ZH = re.compile(rf"我(?:的)?生日(?:是|在)?\s*(?:(\d{{4}})年)?({_ZH_NUM})月({_ZH_NUM})[日号]?")
_BIRTHDAY_EN = re.compile(r"\bmy birthday is (?:on )?(?:the )?(?:(\w+) (\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)? of (\w+))", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_GENDER_ZH = re.compile(r"^我是(?:一个|个)?(男生|女生|男的|女的|男孩|女孩|男孩子|女孩子)$")
_GENDER = {"男生": "男", "男的": "男", "男孩": "男", "男孩子": "男", "女生": "女", "女的": "女", "女孩": "女", "女孩子": "女"}
_ROLE_NOUN = (r"人|工程师|学生|老师|教师|医生|护士|律师|程序员|设计师|会计|司机|厨师|警察|作家|记者|销售|经理|老板|"
              r"研究生|大学生|中学生|小学生|博士|投资者|开发者|画家|歌手|演员|公务员|农民|工人|主播|创业者|宝妈|全职妈妈")
_ROLE_ZH = re.compile(rf"^我(?:是|当)(?:一名|一个|一位|个|名)?([^，。,.！？!?]{{0,10}}?(?:{_ROLE_NOUN}))$")
_WORKPLACE_ZH = re.compile(r"^我(?:现在|目前)?在([^，。,.！？!?]{1,12}?)(工作|上班|上学|读书|实习)$")
_RETIRED_ZH = re.compile(r"^我(?:已经)?退休了?$")
_ROLE_EN = re.compile(r"^I(?:'m| am) (?!an? (?:bit|little|lot|few)\b)(?:an? [a-z][\w -]{1,40}|retired)$", re.I)
_WORK_EN = re.compile(r"^I work (?:as|at|for) [\w][\w .&'-]{1,40}$", re.I)
_HEALTH_ZH = re.compile(r"^(?:我)?(?:对)?[^，。,.！？!?]{1,12}过敏$|^我(?:有|患有|得了)(?:糖尿病|高血压|哮喘|心脏病|胃病|贫血|失眠)$")
_HEALTH_EN = re.compile(r"^I(?:'m| am) allergic to .{2,40}$|^I have (?:an? )?[\w -]{0,20}(?:allergy|diabetes|asthma|high blood pressure|heart condition|insomnia)$", re.I)
_LIKE_ZH = re.compile(
    r"(?:^|我)(?:也|还|又|更|就)?(?:很|非常|特别|最|比较|超|真的|挺)?"
    r"(不喜欢|讨厌|受不了|怕|喜欢|爱吃|爱喝|爱看|爱玩|爱听|爱|热爱|偏好)\s*(.{1,24})$"
)
_FAVOURITE_ZH = re.compile(r"我最喜欢的[^，。是]{1,6}是\s*(.{1,16})$")
_LIKE_EN = re.compile(
    r"(?:^|\bI )(?:really |also |do |totally |absolutely )?"
    r"(don'?t like|do not like|hate|dislike|can'?t stand|don'?t enjoy|like|love|enjoy|prefer|adore)\s+(.{1,40})$",
    re.I,
)
_FAVOURITE_EN = re.compile(r"\bmy favou?rite [\w ]{1,20}? is (.{1,30})$", re.I)
_DISLIKE_VERBS = ("不喜欢", "讨厌", "受不了", "怕", "don't like", "dont like", "do not like", "hate", "dislike",
                  "can't stand", "cant stand", "don't enjoy", "dont enjoy")
_RELATIONS_ZH = (r"妈妈|妈|爸爸|爸|母亲|父亲|老婆|妻子|老公|丈夫|儿子|女儿|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|姥姥|姥爷|"
                 r"女朋友|男朋友")
_RELATIONS_EN = r"mom|mother|dad|father|wife|husband|son|daughter|brother|sister|grandma|grandpa|girlfriend|boyfriend"
_FAMILY = [
    re.compile(rf"我(?:的)?(?:有(?:一个|一位|个)?)?({_RELATIONS_ZH})(?:叫|的名字是|名叫)\s*([^\s，。,.！？!?；;、和]{{1,8}})"),
    re.compile(rf"(?i:\bmy ({_RELATIONS_EN})(?:'s name is| is called| is named| is))\s+([A-Z][a-z'-]+)"),
    re.compile(rf"(?i:\bI have an? ({_RELATIONS_EN}) (?:named|called))\s+([A-Z][a-z'-]+)"),
]
_FAMILY_ZH = {"妈": "妈妈", "爸": "爸爸"}
_DECISION_ZH = re.compile(r"决定|选择了|最终用|确定用")
_DECISION_EN = re.compile(r"\bI(?:'ve| have)? decided\b|\bI(?:'ll| will) go with\b|\bI chose\b", re.I)
_IMPORTANT = re.compile(r"^(?:重要|记住)[：:]\s*|^(?:important|remember):\s*", re.I)


def _name_zh(value: str) -> str:
    stop = _NAME_STOP.search(value, 1)
    return value[: stop.start()] if stop else value


def _place_zh(value: str) -> str:
    stop = _PLACE_STOP.search(value, 1)
    return value[: stop.start()] if stop else value


def _birthday(clause: str) -> str | None:
    """MM-DD (or YYYY-MM-DD), the only forms the device takes; None when the words are not a date."""
    m = _BIRTHDAY_ZH.search(clause)
    if m:
        year, month, day = m.group(1), _zh_number(m.group(2)), _zh_number(m.group(3))
    else:
        m = _BIRTHDAY_EN.search(clause)
        if not m:
            return None
        month_word, day_text = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        month = next((i + 1 for i, name in enumerate(_MONTHS) if name.startswith(month_word.lower()[:3])), None)
        year, day = None, int(day_text)
    if not month or not day:
        return None
    try:
        date(int(year) if year else 2000, month, day)  # 2000: Feb 29 is a birthday too
    except ValueError:
        return None
    return f"{year}-{month:02d}-{day:02d}" if year else f"{month:02d}-{day:02d}"


def _identity(clause: str, writes: list[dict]) -> None:
    zh = bool(_HAN.search(clause))
    if zh:
        m = _NAME_ZH.search(clause) or (None if _ROLE_ZH.search(clause) else _NAME_IS_ZH.search(clause))
        if m and _name_zh(m.group(1)):
            writes.append(opslib.write("name", _TAIL_ZH.sub("", _name_zh(m.group(1))) or _name_zh(m.group(1))))
        m = _AGE_ZH.search(clause)
        if m and _zh_number(m.group(1)) is not None and 0 < _zh_number(m.group(1)) < 130:
            writes.append(opslib.write("age", str(_zh_number(m.group(1)))))
        m = _PLACE_ZH.search(clause)
        if m and _place_zh(m.group(1)):
            writes.append(opslib.write("location", _place_zh(m.group(1))))
        m = _GENDER_ZH.search(clause)
        if m:
            writes.append(opslib.write("gender", _GENDER[m.group(1)]))
        elif _ROLE_ZH.search(clause) or _WORKPLACE_ZH.search(clause) or _RETIRED_ZH.search(clause):
            writes.append(opslib.write("fact", third_person(re.sub(r"^我(?:是|当)(?:一名|一个|一位|个|名)", "我是", clause))))
    else:
        m = _NAME_EN.search(clause)
        if m:
            writes.append(opslib.write("name", m.group(1)))
        m = _AGE_EN.search(clause)
        if m and 0 < int(m.group(1)) < 130:
            writes.append(opslib.write("age", m.group(1)))
        m = _PLACE_EN.search(clause)
        if m:
            writes.append(opslib.write("location", m.group(1)))
        if (_ROLE_EN.search(clause) or _WORK_EN.search(clause)) and not _HEALTH_EN.search(clause):
            writes.append(opslib.write("fact", third_person(clause)))
    if re.search(r"生日|\bbirthday\b", clause, re.I):
        when = _birthday(clause)
        if when:
            writes.append(opslib.write("birthday", when))
        else:
            writes.append(opslib.write("fact", third_person(clause)))


def _preferences(clause: str, writes: list[dict]) -> None:
    zh = bool(_HAN.search(clause))
    favourite = (_FAVOURITE_ZH if zh else _FAVOURITE_EN).search(clause)
    if favourite:
        writes.extend(opslib.write("like", item) for item in _items(favourite.group(1), zh))
        return
    m = (_LIKE_ZH if zh else _LIKE_EN).search(clause)
    if not m:
        return
    kind = "dislike" if m.group(1).lower() in _DISLIKE_VERBS else "like"
    for item in _items(m.group(2), zh):
        # "I like it here", "I love you so much", "我爱你们": about the moment, not a liking
        if item.lower() not in _NOT_A_LIKING and item.lower().split(" ")[0] not in _NOT_A_LIKING:
            writes.append(opslib.write(kind, item))


def _family(clause: str, writes: list[dict]) -> None:
    for pattern in _FAMILY:
        for m in pattern.finditer(clause):
            relation = _FAMILY_ZH.get(m.group(1), m.group(1).lower())
            name = _TAIL_ZH.sub("", m.group(2)) or m.group(2)
            writes.append(opslib.write("family", f"{relation} {name}", relation=relation, name=name, closeness=3))


def _clause_writes(clause: str, categories: set[str]) -> list[dict]:
    writes: list[dict] = []
    _family(clause, writes)
    if writes:
        return writes
    if "health" in categories and (_HEALTH_ZH.search(clause) or _HEALTH_EN.search(clause)):
        return [opslib.write("fact", third_person(clause))]
    _identity(clause, writes)
    _preferences(clause, writes)
    if not writes and "decision" in categories and (_DECISION_ZH.search(clause) or _DECISION_EN.search(clause)):
        writes.append(opslib.write("fact", third_person(clause)))
    return writes


# --- times ---------------------------------------------------------------------------------------

_REPEAT_WORDS = re.compile(r"每天|每日|每周|每星期|每个?月|\bevery (?:day|week|month)\b|\b(?:daily|weekly|monthly)\b", re.I)
_TODO_ANYWHERE = re.compile(r"提醒我|别忘了|记得")
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TODO_LEAD = re.compile(
    r"^(?:请|麻烦)?(?:你)?(?:要)?(?:提醒我|记得|别忘了|帮我记一下|帮我记住|待办[：:]?)\s*"
    r"|^(?:please )?(?:remind me (?:to )?|don'?t forget (?:to )?|remember to |todo:? |to-do:? )"
    r"|^(?:我)?(?:需要|得|要)|^I (?:need|have|'ve got) to ",
    re.I,
)


def _zh_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        if (tens and tens not in _ZH_DIGITS) or (ones and ones not in _ZH_DIGITS):
            return None
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
    if len(text) > 1:
        return None
    return _ZH_DIGITS[text]


_DAY_WORD = re.compile(
    r"(今天|明天|后天|大后天|下周([一二三四五六日天])|周([一二三四五六日天])|星期([一二三四五六日天])"
    r"|({})月({})[日号]|\btomorrow\b|\btoday\b|(?:\bon |\bnext )?\b({})\b)".format(_ZH_NUM, _ZH_NUM, "|".join(_WEEKDAYS_EN)),
    re.I,
)
_CLOCK_ZH = re.compile(r"(早上|上午|中午|下午|傍晚|晚上|凌晨)?\s*([\d一二两三四五六七八九十]{1,3})\s*[点:：]\s*(半|[\d]{1,2}分?|一刻)?")
_CLOCK_EN = re.compile(r"\bat (\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b|\b(\d{1,2}):(\d{2})\b", re.I)


def parse_when(sentence: str, now: datetime) -> tuple[str, str] | None:
    """('YYYY-MM-DD HH:MM', repeat) for a time said in Chinese or English, or None when there is none.
    ImpossibleDate when the sentence names a day the calendar lacks (2月30日) or an hour past 23."""
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
        elif m.group(3) or m.group(4) or m.group(7):
            wanted = _WEEKDAY[m.group(3) or m.group(4)] if not m.group(7) else _WEEKDAYS_EN.index(m.group(7).lower())
            day = day + timedelta(days=(wanted - day.weekday()) % 7)
        elif m.group(5):
            month, dom = _zh_number(m.group(5)), _zh_number(m.group(6))
            try:
                candidate = day.replace(month=month or 0, day=dom or 0)
            except ValueError:
                raise ImpossibleDate(f"没有{m.group(5)}月{m.group(6)}日这一天") from None
            if candidate < day:
                try:
                    candidate = candidate.replace(year=day.year + 1)
                except ValueError:  # Feb 29 said in a leap year, after it passed
                    raise ImpossibleDate(f"明年没有{m.group(5)}月{m.group(6)}日这一天") from None
            day = candidate
    hour = minute = None
    zh = _CLOCK_ZH.search(sentence)
    en = _CLOCK_EN.search(sentence)
    if zh and zh.group(2) == "一" and not zh.group(1) and not zh.group(3):
        zh = None  # 一点 alone is "a little" (我需要一点时间), not one o'clock
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
        raise ImpossibleDate(f"{hour}:{minute:02d} 不是一天里的时间")
    if not m and (hour, minute) < (now.hour, now.minute):
        day = day + timedelta(days=1)
    return f"{day.isoformat()} {hour:02d}:{minute:02d}", repeat


def _todo_content(sentence: str) -> str:
    """What to do, without the time words and the "remind me" lead-in."""
    text = _DAY_WORD.sub("", sentence)
    text = _CLOCK_EN.sub("", text)
    text = _CLOCK_ZH.sub("", text)
    text = _REPEAT_WORDS.sub("", text)
    text = re.sub(r"\s{2,}", " ", text)
    text = _TODO_LEAD.sub("", text.strip(" ，,").rstrip("。！？!?.;；"))
    text = _TODO_ANYWHERE.sub("", text)
    text = _TODO_LEAD.sub("", text.strip(" ，,"))
    return text.strip(" ，,") or sentence


# --- sentences to writes -----------------------------------------------------------------------


def detect_high_signals(user_text: str) -> list[Signal]:
    """Each (sentence, category) hit in the user's words, in order."""
    found = []
    for sentence in _sentences(user_text):
        for category, pattern in PATTERNS.items():
            if pattern.search(sentence):
                found.append(Signal(category, sentence, IMPORTANCE[category]))
        if not any(s.sentence == sentence for s in found) and _TODO_WITH_TIME.search(sentence):
            try:
                timed = parse_when(sentence, datetime.now()) is not None
            except ImpossibleDate:
                timed = True
            if timed:
                found.append(Signal("todo", sentence, IMPORTANCE["todo"]))
    return found


def _todo_span(clauses: list[str], now: datetime) -> tuple[int, int, dict] | None:
    """(first, end, schedule write) for the clauses that say a todo and its time ("明天下午3点，
    提醒我去开会"), or None when the sentence names no time; the other clauses ("我叫小红") keep
    their own writes."""
    marked = [i for i, c in enumerate(clauses)
              if PATTERNS["todo"].search(c) or _TODO_WITH_TIME.search(c) or parse_when(c, now)]
    if not marked:
        return None
    first, end = marked[0], marked[-1] + 1
    joiner = "，" if _HAN.search(clauses[first]) else ", "
    text = joiner.join(clauses[first:end])
    when = parse_when(text, now)
    if when is None:
        return None
    content = _todo_content(text)
    if content == text and end < len(clauses):  # "明天下午3点提醒我，去开会": the deed is in the next clause
        end += 1
        content = _todo_content(joiner.join(clauses[first:end]))
    return first, end, opslib.write("schedule", content, datetime=when[0], repeat=when[1], priority=3)


def sentence_writes(sentence: str, categories: set[str], now: datetime) -> list[dict]:
    """The `write` ops one sentence turns into, given the signal categories it hit.
    ImpossibleDate when it asks for a reminder on a day that does not exist."""
    clauses = _clauses(sentence)
    todo = _todo_span(clauses, now) if "todo" in categories else None
    writes: list[dict] = []
    for i, clause in enumerate(clauses):
        if todo is not None and todo[0] <= i < todo[1]:
            if i == todo[0]:
                writes.append(todo[2])
            continue
        for op in _clause_writes(clause, categories):
            if op not in writes:
                writes.append(op)
    if writes:
        return writes
    zh = bool(_HAN.search(sentence))
    if "important" in categories:
        key = _IMPORTANT.sub("", sentence.rstrip("。！!.")).strip()
        return [opslib.write("fact", ("重要：" if zh else "Important: ") + third_person(key, subject=False))]
    if "todo" in categories and PATTERNS["todo"].search(sentence):
        return [opslib.write("fact", ("待办：" if zh else "To do: ") + _todo_content(sentence))]
    if "correction" in categories:
        return [opslib.write("fact", ("更正：" if zh else "Correction: ") + third_person(sentence.rstrip("。.!！"), subject=False))]
    return []


def fast_channel(user_text: str, now: datetime) -> tuple[list[Signal], list[dict]]:
    """Signals and their de-duplicated `write` ops; questions are detected but write nothing, and a
    sentence naming an impossible date writes nothing and carries the `problem` to tell the user."""
    signals = detect_high_signals(user_text)
    writes: list[dict] = []
    by_sentence: dict[str, list[Signal]] = {}
    for signal in signals:
        by_sentence.setdefault(signal.sentence, []).append(signal)
    for sentence, hits in by_sentence.items():
        if _QUESTION_END.search(sentence):
            continue  # "你需要休息吗？" asks; it states nothing to store
        try:
            ops = sentence_writes(sentence, {s.category for s in hits}, now)
        except ImpossibleDate as exc:
            for signal in hits:
                signal.problem = str(exc)
            continue
        for op in ops:
            if op not in writes:
                writes.append(op)
    return signals, writes
