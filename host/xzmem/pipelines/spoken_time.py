"""Times as people say them, in Chinese and English: days (明天, 周五, 12月5号, next friday, on the
first of every month), clock times (下午三点半, 两点一刻, at 5, a quarter past two, 7 am), spans from
now (半个小时以后, in twenty minutes) and repeats (每天, 每个星期三, every monday, on saturdays).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta


class ImpossibleDate(ValueError):
    """A date the calendar does not have (2月30日); the text names it for the user."""


ZH_NUM = r"[\d零一二两三四五六七八九十]{1,4}"
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WEEKDAY_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "末": 5}
WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS_EN = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
             "november", "december")
_EN_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_EN_NUMBERS.update({"thirty": 30, "forty": 40, "fifty": 50, "half": 30})
_EN_ORDINALS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split())}
_EN_ORDINALS["thirtieth"] = 30


def zh_number(text: str) -> int | None:
    """二十五 → 25, 8 → 8; None for what is not a number."""
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        if (tens and tens not in _ZH_DIGITS) or (ones and (len(ones) > 1 or ones not in _ZH_DIGITS)):
            return None
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
    if len(text) > 1:
        return None
    return _ZH_DIGITS[text]


def en_number(text: str) -> int | None:
    """7, seven, twenty one, twenty-first, 21st → the number; None otherwise."""
    text = text.lower().strip()
    m = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", text)
    if m:
        return int(m.group(1))
    total = 0
    for word in re.split(r"[\s-]+", text):
        if word in _EN_NUMBERS:
            total += _EN_NUMBERS[word]
        elif word in _EN_ORDINALS:
            total += _EN_ORDINALS[word]
        else:
            return None
    return total


_EN_NUM_WORD = (r"(?:twenty|thirty)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine|first|second|third|"
                r"fourth|fifth|sixth|seventh|eighth|ninth))?|" + "|".join(sorted(_EN_ORDINALS, key=len, reverse=True))
                + "|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True)))
_EN_DAY_NUM = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?|{_EN_NUM_WORD})"
_MONTH_EN = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"

REPEAT_DAILY = re.compile(r"每天|(?<!叫)(?<!叫我)(?<!名)天天(?!的)|每日|每晚|每个?早上|每个?晚上|\bevery (?:day|night|morning|evening|afternoon)\b|\bdaily\b|\beach day\b", re.I)
REPEAT_WEEKLY = re.compile(
    rf"每个?(?:周|星期|礼拜)|\bevery (?:week|weekend|{'|'.join(WEEKDAYS_EN)})\b|\bweekly\b|\beach (?:{'|'.join(WEEKDAYS_EN)})\b"
    rf"|\b(?:on )?(?:{'|'.join(WEEKDAYS_EN)})s\b"
    # on saturday mornings: a part of the day said in the plural comes back every week
    rf"|\b(?:{'|'.join(WEEKDAYS_EN)}) (?:mornings|afternoons|evenings|nights)\b", re.I)
REPEAT_YEARLY = re.compile(r"每年|\bevery year\b|\beach year\b|\byearly\b", re.I)
REPEAT_MONTHLY = re.compile(r"每个?月|\bevery month\b|\bof (?:every|each) month\b|\bmonthly\b", re.I)

DAY_ZH = re.compile(
    rf"(大后天|后天|明天|明晚|明早|今天|今晚|今早|月底|元旦|平安夜|圣诞节|儿童节|国庆节|劳动节|情人节|妇女节)|(?:下个?(?:周|星期|礼拜))([一二三四五六日天])|(?<!上)(?<!上个)(?<!叫)(?:这个?)?(?:周|星期|礼拜)([一二三四五六日天末])"
    rf"|(?:({ZH_NUM})月)?({ZH_NUM})[日号]"
)
DAY_EN = re.compile(
    rf"\b(the day after tomorrow|today|tonight|tomorrow|this (?:morning|afternoon|evening)|(?:at )?the end of (?:the|this) month"
    rf"|new year'?s day|new year'?s eve|christmas eve|christmas day|christmas|halloween|valentine'?s day|thanksgiving)\b"
    rf"|\b(?:on |this coming |this |next |every |each )?({'|'.join(WEEKDAYS_EN)})s?(?: (?=(?:morning|afternoon|evening|night)s?\b)\w+)?\b"
    rf"|\b(?:the |this |next |every )?(weekend)\b"
    rf"|\b(?:on )?({_MONTH_EN}) (?:the )?({_EN_DAY_NUM})\b|\b(?:on )?the ({_EN_DAY_NUM}) of ({_MONTH_EN}|every month|each month|the month)\b"
    rf"|\b(?:on )?the ({_EN_DAY_NUM})\b(?:(?= of| to|$| remind\b)|(?<=\d(?:st|nd|rd|th)))",
    re.I,
)
_PERIOD_ZH = r"早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨|今晚|明晚|今早|明早"
# (?<![周期拜]): 周五七点 is Friday at seven, not a clock of 五七
CLOCK_ZH = re.compile(rf"({_PERIOD_ZH})?\s*(?<![周期拜])([\d一二两三四五六七八九十]{{1,3}})\s*(?:点钟?|[:：](?=\d))\s*(半|一刻|三刻|[\d一二三四五六七八九十]{{1,3}}分|[\d一二三四五六七八九十]{{1,3}}(?![起下块些点个样直定共会天])|)")
_PERIOD_ONLY_ZH = re.compile(_PERIOD_ZH)
CLOCK_EN = re.compile(
    rf"\b(?:at )?(\d{{1,2}})(?::(\d{{2}}))?\s*(a\.?m\.?|p\.?m\.?|o'?clock)?(?=\W|$)(?<=\S)"
    rf"|\b(?:at )?(a quarter|quarter|half|{_EN_NUM_WORD}) (past|after|to) (\d{{1,2}}|{_EN_NUM_WORD})\b"
    rf"|\bat ({_EN_NUM_WORD})(?: (thirty|fifteen|forty[\s-]five|o'?clock))?\b"
    rf"|\b(noon|midday|midnight)\b",
    re.I,
)
_DAYS_AHEAD = re.compile(rf"({ZH_NUM})个?(天|周|星期|礼拜)(?:以后|之后|后)|\bin ({_EN_NUM_WORD}|\d{{1,2}}) (days?|weeks?)\b", re.I)
RELATIVE = re.compile(
    rf"(半|{ZH_NUM})个?半?(小时|钟头|分钟)(?:以后|之后|后)|\bin (?:(an?|half an?|{_EN_NUM_WORD}|\d{{1,3}}) )?(hour|hours|minutes?|mins?)\b",
    re.I,
)
_MORNING_DEED = re.compile(r"起床|醒|早饭|早餐|上学|校车|晨跑|\b(?:wake|waking|get up|getting up|breakfast|school bus|bus|run|jog|bring"
                           r"|lunch ?box|packed lunch|uniform|backpack|school bag|pe kit)\b", re.I)
_PM_EN = re.compile(r"\b(?:afternoon|evening|tonight|night|pm|p\.m\.)\b", re.I)
_AM_EN = re.compile(r"\b(?:morning|am|a\.m\.)\b", re.I)


def _clock_zh(m: re.Match) -> tuple[int, int, bool] | None:
    hour = zh_number(m.group(2))
    if hour is None:
        return None
    tail = m.group(3) or ""
    minute = {"半": 30, "一刻": 15, "三刻": 45}.get(tail)
    if minute is None:
        minute = zh_number(tail.rstrip("分")) if tail else 0
        if minute is None:
            return None
    period = m.group(1) or ""
    if period in ("下午", "傍晚", "晚上", "夜里", "今晚", "明晚") and hour < 12:
        hour += 12
    elif period == "中午" and hour < 11:
        hour += 12
    return hour, minute, bool(period)


def _clock_en(m: re.Match, sentence: str) -> tuple[int, int, bool] | None:
    if m.group(1):
        if not (m.group(2) or m.group(3) or m.group(0).lower().startswith("at ")):
            return None  # a bare number is not a time
        hour, minute, suffix = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").lower().replace(".", "")
        period = suffix in ("am", "pm")
        if suffix == "pm" and hour < 12:
            hour += 12
        elif suffix == "am" and hour == 12:
            hour = 0
    elif m.group(4):
        amount = 15 if "quarter" in m.group(4).lower() else en_number(m.group(4))
        base = en_number(m.group(6))
        if amount is None or base is None:
            return None
        hour, minute = (base, amount) if m.group(5).lower() in ("past", "after") else (base - 1, 60 - amount)
        period = False
    elif m.group(7):
        hour = en_number(m.group(7))
        if hour is None or hour > 12:
            return None
        tail = (m.group(8) or "").lower()
        minute = 30 if tail == "thirty" else 15 if tail == "fifteen" else 45 if tail.startswith("forty") else 0
        period = False
    else:
        return (0, 0, True) if m.group(9).lower() == "midnight" else (12, 0, True)
    if not period:
        if _PM_EN.search(sentence) and hour < 12:
            hour += 12
            period = True
        elif _AM_EN.search(sentence):
            period = True
    return hour, minute, period


def _day_zh(m: re.Match, today: date) -> tuple[date, int | None]:
    """(day, weekday or None) for a Chinese day word."""
    if m.group(1):
        word = m.group(1)
        if word == "月底" or word in _HOLIDAYS:
            return _named_day(today, word), None
        offset = {"今天": 0, "今晚": 0, "今早": 0, "明天": 1, "明晚": 1, "明早": 1, "后天": 2, "大后天": 3}[word]
        return today + timedelta(days=offset), None
    if m.group(2):
        return today + timedelta(days=7 - today.weekday() + _WEEKDAY_ZH[m.group(2)]), None
    if m.group(3):
        wanted = _WEEKDAY_ZH[m.group(3)]
        return today + timedelta(days=(wanted - today.weekday()) % 7), wanted
    month = zh_number(m.group(4)) if m.group(4) else None
    return _month_day(today, month, zh_number(m.group(5)), m.group(0)), None


def _month_day(today: date, month: int | None, dom: int | None, said: str) -> date:
    """The next `month`/`dom` on or after today (this month or the next when no month is said)."""
    if month is None:
        for ahead in range(0, 13):
            y, mo = today.year + (today.month - 1 + ahead) // 12, (today.month - 1 + ahead) % 12 + 1
            try:
                candidate = date(y, mo, dom or 0)
            except ValueError:
                continue
            if candidate >= today:
                return candidate
        raise ImpossibleDate(f"没有{said}这一天")
    try:
        candidate = today.replace(month=month or 0, day=dom or 0)
    except ValueError:
        raise ImpossibleDate(f"没有{said}这一天") from None
    if candidate < today:
        try:
            candidate = candidate.replace(year=today.year + 1)
        except ValueError:  # Feb 29 said in a leap year, after it passed
            raise ImpossibleDate(f"明年没有{said}这一天") from None
    return candidate


# Holidays on a fixed day of the year, said instead of a date (圣诞节那天, on christmas eve)
_HOLIDAYS = {"元旦": (1, 1), "情人节": (2, 14), "妇女节": (3, 8), "劳动节": (5, 1), "儿童节": (6, 1), "国庆节": (10, 1),
             "平安夜": (12, 24), "圣诞节": (12, 25), "new year's day": (1, 1), "new years day": (1, 1),
             "valentine's day": (2, 14), "valentines day": (2, 14), "halloween": (10, 31), "christmas eve": (12, 24),
             "christmas day": (12, 25), "christmas": (12, 25), "new year's eve": (12, 31), "new years eve": (12, 31)}


def _named_day(today: date, word: str) -> date:
    """The end of this month (月底, the end of the month) or a holiday (元旦, christmas), the next one from today."""
    if word == "thanksgiving":  # the fourth Thursday of November
        for year in (today.year, today.year + 1):
            first = date(year, 11, 1)
            day = first + timedelta(days=(3 - first.weekday()) % 7 + 21)
            if day >= today:
                return day
    if word in _HOLIDAYS:
        day = date(today.year, *_HOLIDAYS[word])
        return day if day >= today else date(today.year + 1, *_HOLIDAYS[word])
    first_of_next = date(today.year + today.month // 12, today.month % 12 + 1, 1)
    return first_of_next - timedelta(days=1)


def _day_en(m: re.Match, today: date) -> tuple[date, int | None]:
    if m.group(1):
        word = m.group(1).lower()
        if "end of" in word or word in _HOLIDAYS or word == "thanksgiving":
            return _named_day(today, word), None
        offset = 2 if word == "the day after tomorrow" else 1 if word == "tomorrow" else 0
        return today + timedelta(days=offset), None
    if m.group(2) or m.group(3):
        wanted = WEEKDAYS_EN.index(m.group(2).lower()) if m.group(2) else 5
        return today + timedelta(days=(wanted - today.weekday()) % 7), wanted
    if m.group(4):
        month = next(i + 1 for i, name in enumerate(MONTHS_EN) if name.startswith(m.group(4).lower()[:3]))
        return _month_day(today, month, en_number(m.group(5)), m.group(0)), None
    dom = en_number(m.group(6) or m.group(8))
    named = m.group(7) and not re.match(r"every|each|the month", m.group(7), re.I)
    month = next(i + 1 for i, name in enumerate(MONTHS_EN) if name.startswith(m.group(7).lower()[:3])) if named else None
    return _month_day(today, month, dom, m.group(0)), None


def repeat_of(sentence: str) -> str:
    if REPEAT_DAILY.search(sentence):
        return "daily"
    if REPEAT_WEEKLY.search(sentence):
        return "weekly"
    if REPEAT_MONTHLY.search(sentence):
        return "monthly"
    if REPEAT_YEARLY.search(sentence):
        return "yearly"
    return "none"


def parse_when(sentence: str, now: datetime) -> tuple[str, str] | None:
    """('YYYY-MM-DD HH:MM', repeat) for a time said in Chinese or English, or None when there is none.
    A repeat's time is its first occurrence after `now`. ImpossibleDate when the sentence names a day
    the calendar lacks (2月30日) or an hour past 23."""
    repeat = repeat_of(sentence)
    rel = RELATIVE.search(sentence)
    if rel:
        if rel.group(2):
            amount = 0.5 if rel.group(1) == "半" else zh_number(rel.group(1))
            unit = rel.group(2)
            if "半" in rel.group(0)[len(rel.group(1)):] and amount is not None:
                amount += 0.5
            minutes = None if amount is None else amount * 60 if unit in ("小时", "钟头") else amount
        else:
            word = (rel.group(3) or "a").lower()
            amount = 1 if word in ("a", "an") else 0.5 if word.startswith("half") else en_number(word)
            minutes = None if amount is None else amount * 60 if rel.group(4).lower().startswith("hour") else amount
        if minutes:
            at = now + timedelta(minutes=minutes)
            return at.strftime("%Y-%m-%d %H:%M"), repeat
    today = now.date()
    day, weekday, named = today, None, False
    m = DAY_ZH.search(sentence)
    if m:
        day, weekday = _day_zh(m, today)
        named = True
        if m.group(2) and re.search(r"下下个?(?:周|星期|礼拜)", sentence):
            day += timedelta(days=7)  # 下下周二: the week after next
    else:
        m = DAY_EN.search(sentence)
        if m and m.group(1) and m.group(1).lower() in _HOLIDAYS:
            # the christmas concert is on the 17th: a holiday naming the event, the date said after it is the day
            m = next((d for d in DAY_EN.finditer(sentence, m.end()) if not d.group(1)), m)
        if m:
            day, weekday = _day_en(m, today)
            named = True
            after_next = re.search(r"\bweekend after next\b", sentence, re.I)
            if after_next or day == today and re.match(r"next\b", m.group(0), re.I):
                day += timedelta(days=7)  # next sunday said on a Sunday, the weekend after next
    ahead = _DAYS_AHEAD.search(sentence)
    if ahead and not m:  # 两周后, in two weeks: that many days from today
        count = zh_number(ahead.group(1)) if ahead.group(1) else en_number(ahead.group(3).lower())
        unit = ahead.group(2) or ahead.group(4)
        if count:
            day, named = today + timedelta(days=count * (1 if unit.startswith(("天", "day")) else 7)), True
    clock = None
    zh = CLOCK_ZH.search(sentence) if re.search(r"[\u4e00-\u9fff]", sentence) else None
    if zh and not (zh.group(2) == "一" and not zh.group(1) and not zh.group(3)):  # 一点 alone is "a little"
        clock = _clock_zh(zh)
    if clock is None:
        for en in CLOCK_EN.finditer(sentence):
            clock = _clock_en(en, sentence)
            if clock is not None:
                break
    if clock is None and not named and repeat != "daily":
        return None
    if clock is None:
        hour, minute = (12, 0) if "中午" in sentence else (9, 0)  # 周六中午: at noon
    else:
        hour, minute, period = clock
        if not period and (1 <= hour <= 5 or 6 <= hour <= 7 and not _MORNING_DEED.search(sentence)):
            # nobody is reminded at three in the night: 三点, at 3 mean the afternoon; a lesson or a game
            # "at 6" is in the evening, a wake-up or breakfast at 6 in the morning
            hour += 12
        elif not period and _PERIOD_ONLY_ZH.search(sentence):
            p = _PERIOD_ONLY_ZH.search(sentence).group(0)
            if p in ("下午", "傍晚", "晚上", "夜里", "今晚", "明晚") and hour < 12:
                hour += 12
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise ImpossibleDate(f"{hour}:{minute:02d} 不是一天里的时间")
    at = datetime.combine(day, datetime.min.time()).replace(hour=hour, minute=minute)
    if (at <= now and not named and repeat == "none" and clock is not None and not clock[2] and hour < 12
            and hour + 12 > now.hour):
        at = at.replace(hour=hour + 12)  # "at 8" said at ten in the morning: the next 8 o'clock is tonight
    if at <= now and (not named or weekday is not None or repeat == "daily"):
        step = 7 if weekday is not None else 1
        at += timedelta(days=step)
    if repeat == "monthly" and at <= now:
        at = datetime.combine(_month_day(today + timedelta(days=1), None, at.day, str(at.day)), at.time())
    return at.strftime("%Y-%m-%d %H:%M"), repeat


_FOR_HOLIDAY = re.compile(r"\bfor (?:christmas|thanksgiving|halloween|new year'?s(?: eve| day)?|easter)$", re.I)


def _unless_for_a_holiday(m: re.Match) -> str:
    """"for thanksgiving": the holiday is what the plan is for, so it stays."""
    return m.group(0) if _FOR_HOLIDAY.search(m.string[: m.start()] + m.group(0)) else " "


def time_words(text: str) -> str:
    """The text without its time words (days, clock times, spans, repeats)."""
    for pattern in (_DAYS_AHEAD, re.compile(r"下(?=下个?(?:周|星期|礼拜))|\b(?:after next|this coming|twice a week|next month|next week)\b", re.I),
                    RELATIVE, DAY_ZH, DAY_EN, CLOCK_ZH, CLOCK_EN, REPEAT_DAILY, REPEAT_WEEKLY, REPEAT_MONTHLY, REPEAT_YEARLY,
                    re.compile(rf"每个?|都|(?:{_PERIOD_ZH})|\b(?:every|each|on|at|in the (?:morning|afternoon|evening))\b|以后|之后", re.I)):
        text = pattern.sub(_unless_for_a_holiday, text)
    return re.sub(r"\s{2,}", " ", text).strip()
