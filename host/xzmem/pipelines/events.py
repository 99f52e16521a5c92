"""Dated events the deep channel names (seed 003's Event): the LLM's `event` object of one memory,
checked field by field, into a `write schedule` op for the device.

A field the LLM got wrong (an unknown emotion, a significance of 9, a 30-byte event type) is dropped
with a reason and the rest of the op kept; without a usable date there is no op at all. A date
without its year (`MM-DD`, time optional) is an anniversary that the device repeats every year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime

from xzmem.device import ops as opslib

CONTENT_MAX_BYTES = 64  # the device's schedule text
DEFAULT_CLOCK = "09:00"  # a day with no hour, as the fast channel gives it
# Words a model may use for the emotions; the device keeps seed 003's six.
EMOTION_NAMES = {
    "neutral": "neutral", "calm": "neutral", "平静": "neutral", "中性": "neutral", "一般": "neutral",
    "happy": "happy", "joy": "happy", "开心": "happy", "高兴": "happy", "快乐": "happy",
    "sad": "sad", "难过": "sad", "伤心": "sad", "悲伤": "sad",
    "excited": "excited", "兴奋": "excited", "激动": "excited", "期待": "excited",
    "worried": "worried", "anxious": "worried", "担心": "worried", "紧张": "worried", "焦虑": "worried",
    "touched": "touched", "moved": "touched", "感动": "touched", "温暖": "touched",
}
REPEAT_NAMES = {
    "none": "none", "once": "none", "不重复": "none", "daily": "daily", "每天": "daily",
    "weekly": "weekly", "每周": "weekly", "monthly": "monthly", "每月": "monthly",
    "yearly": "yearly", "annually": "yearly", "每年": "yearly",
}
_FULL = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2}))?$")
_MONTH_DAY = re.compile(r"^(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{2}))?$")
_MONTH_DAY_WORDS = re.compile(r"^(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*[日号]?$")
_LEAP_YEAR = 2024  # 02-29 is a real anniversary: the device moves it to 02-28 in other years


@dataclass
class EventOp:
    op: dict | None = None
    problems: list[str] = field(default_factory=list)


def month_day(text: str) -> str | None:
    """`MM-DD` for a month and day said as 3-15, 03/15, 3月15日 or 3月15号; None unless the day exists
    in some year (02-29 does)."""
    found = _MONTH_DAY_WORDS.match(text.strip())
    if not found:
        return None
    month, day = int(found.group(1)), int(found.group(2))
    try:
        date(_LEAP_YEAR, month, day)
    except ValueError:
        return None
    return f"{month:02d}-{day:02d}"


def clock_time(hour: int, minute: int) -> str | None:
    return f"{hour:02d}:{minute:02d}" if 0 <= hour <= 23 and 0 <= minute <= 59 else None


def _when(value: object, now: datetime) -> tuple[str | None, str | None]:
    """(the device's datetime text, None) or (None, why not)."""
    if not isinstance(value, str) or not value.strip():
        return None, f"must be YYYY-MM-DD HH:MM or MM-DD, got {value!r}"
    text = value.strip()
    full = _FULL.match(text)
    if full:
        year, month, day = int(full.group(1)), int(full.group(2)), int(full.group(3))
        try:
            day_of = date(year, month, day)
        except ValueError:
            return None, f"names a day the calendar lacks: {text!r}"
        clock = DEFAULT_CLOCK if full.group(4) is None else clock_time(int(full.group(4)), int(full.group(5)))
        if clock is None:
            return None, f"has no such time of day: {text!r}"
        when = f"{day_of.isoformat()} {clock}"
        if when < now.strftime("%Y-%m-%d %H:%M"):
            return None, f"{when} has already passed"
        return when, None
    short = _MONTH_DAY.match(text)
    if short:
        day = month_day(f"{short.group(1)}-{short.group(2)}")
        if day is None:
            return None, f"names a day the calendar lacks: {text!r}"
        if short.group(3) is None:
            return day, None
        clock = clock_time(int(short.group(3)), int(short.group(4)))
        if clock is None:
            return None, f"has no such time of day: {text!r}"
        return f"{day} {clock}", None
    return None, f"must be YYYY-MM-DD HH:MM or MM-DD, got {value!r}"


def _without_year(text: str) -> str:
    full = _FULL.match(text.strip())
    if not full:
        return text
    day = f"{int(full.group(2)):02d}-{int(full.group(3)):02d}"
    return day if full.group(4) is None else f"{day} {int(full.group(4)):02d}:{full.group(5)}"


def _level(value: object) -> int | None:
    """A whole number 1-5 (the model may write 4, 4.0 or "4"), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and 1 <= value <= 5 else None


def event_op(event: object, content: str, now: datetime, where: str = "event") -> EventOp:
    """The schedule write for the LLM's `event` object of a memory whose text is `content`, and every
    field dropped or cut, each as `where.field: reason`. `now` is the device's local time."""
    out = EventOp()
    if not isinstance(event, dict):
        out.problems.append(f"{where}: must be an object, got {event!r}; no schedule written")
        return out
    raw = event.get("datetime")
    if isinstance(raw, str) and REPEAT_NAMES.get(str(event.get("repeat")).strip().lower()) == "yearly":
        raw = _without_year(raw)  # a birthday given with the year of birth is still every year's
    when, why = _when(raw, now)
    if when is None:
        out.problems.append(f"{where}.datetime: {why}; no schedule written")
        return out
    fields: dict = {"datetime": when}

    title = event.get("title")
    if not isinstance(title, str) or not title.strip():
        if title is not None:
            out.problems.append(f"{where}.title: must be text, got {title!r}; the memory's text is used")
        title = content
    title, cut = opslib.cut_utf8(" ".join(title.split()), CONTENT_MAX_BYTES)
    if cut:
        out.problems.append(f"{where}.title: cut to {CONTENT_MAX_BYTES} bytes on a character boundary")

    yearly = len(when) <= 11  # MM-DD or MM-DD HH:MM
    repeat = event.get("repeat")
    if repeat is not None:
        name = REPEAT_NAMES.get(str(repeat).strip().lower())
        if name is None:
            out.problems.append(f"{where}.repeat: must be one of {'|'.join(opslib.REPEATS)}, got {repeat!r}; dropped")
        elif yearly and name not in ("none", "yearly"):
            out.problems.append(f"{where}.repeat: a date without its year comes back every year, got {repeat!r}; dropped")
        elif name != "none" and not yearly:
            fields["repeat"] = name

    event_type = event.get("event_type")
    if event_type is not None:
        if isinstance(event_type, str) and event_type.strip():
            kind, cut = opslib.cut_utf8(event_type.strip(), opslib.EVENT_TYPE_MAX_BYTES)
            fields["event_type"] = kind
            if cut:
                out.problems.append(f"{where}.event_type: cut to {opslib.EVENT_TYPE_MAX_BYTES} bytes")
        else:
            out.problems.append(f"{where}.event_type: must be text, got {event_type!r}; dropped")

    emotion = event.get("emotion")
    if emotion is not None:
        name = EMOTION_NAMES.get(str(emotion).strip().lower()) if isinstance(emotion, str) else None
        if name is None:
            out.problems.append(f"{where}.emotion: must be one of {'|'.join(opslib.EMOTIONS)}, got {emotion!r}; dropped")
        else:
            fields["emotion"] = name
    for name in ("intensity", "significance"):
        value = event.get(name)
        if value is None:
            continue
        level = _level(value)
        if level is None:
            out.problems.append(f"{where}.{name}: must be a whole number 1-5, got {value!r}; dropped")
        else:
            fields[name] = level
    if "intensity" in fields and "emotion" not in fields:
        out.problems.append(f"{where}.intensity: says how strong an emotion is, and none was given; dropped")
        del fields["intensity"]
    out.op = opslib.write("schedule", title, **fields)
    return out


def join_fast_schedule(op: dict, fast_ops: list[dict]) -> dict:
    """The fast channel may have written the same plan from the same words: reuse its text, so the
    device sees one schedule again (it then changes only the fields named) instead of a second one
    at the same time."""
    for fast in fast_ops:
        if fast.get("type") == "schedule" and fast.get("datetime") == op["datetime"]:
            return dict(op, content=fast["content"])
    return op
