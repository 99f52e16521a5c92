"""The schedule form, checked before anything goes to the device: its time (a date and time, or a
day that comes back every year) and seed 003's event fields (type, emotion, intensity, significance).

A problem is a FormProblem naming a text key (texts.py) and what was typed, so the page can say it
in its own language.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from xzmem.device import ops as opslib
from xzmem.pipelines.events import clock_time, month_day

LEVELS = ("priority", "intensity", "significance")
ONCE_REPEATS = ("none", "daily", "weekly", "monthly", "yearly")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")


class FormProblem(ValueError):
    """A form field the device would refuse or misread: `key` is the text that explains it."""

    def __init__(self, key: str, **values: Any):
        super().__init__(key)
        self.key = key
        self.values = values


def _level(form: dict[str, str], name: str) -> int:
    raw = (form.get(name) or "").strip()
    if not raw:
        return 3
    if not raw.isdigit() or not 1 <= int(raw) <= 5:
        raise FormProblem("form.level", field=name, value=raw)
    return int(raw)


def _when(form: dict[str, str]) -> tuple[str, str | None]:
    """The device's datetime text and, for a dated schedule, its repeat."""
    if form.get("when") == "yearly":
        typed = (form.get("month_day") or "").strip()
        day = month_day(typed)
        if day is None:
            raise FormProblem("form.month_day", value=typed)
        clock = (form.get("yearly_time") or "").strip()
        if not clock:
            return day, None
        found = _CLOCK.match(clock)
        hhmm = clock_time(int(found.group(1)), int(found.group(2))) if found else None
        if hhmm is None:
            raise FormProblem("form.clock", value=clock)
        return f"{day} {hhmm}", None
    typed = (form.get("datetime") or "").strip()
    if not typed:
        raise FormProblem("form.datetime_missing")
    when = typed.replace("T", " ")[:16]
    try:
        datetime.strptime(when, "%Y-%m-%d %H:%M")
    except ValueError:
        raise FormProblem("form.datetime", value=typed) from None
    repeat = form.get("repeat") or "none"
    if repeat not in ONCE_REPEATS:
        raise FormProblem("form.repeat", value=repeat)
    return when, repeat


def schedule_call(form: dict[str, str]) -> dict[str, Any]:
    """The `memory` write for the schedule form, or FormProblem for the first field that is wrong."""
    content = (form.get("content") or "").strip()
    if not content:
        raise FormProblem("form.content")
    when, repeat = _when(form)
    call: dict[str, Any] = {"action": "write", "type": "schedule", "content": content, "datetime": when}
    if repeat is not None:
        call["repeat"] = repeat
    event_type = (form.get("event_type") or "").strip()
    if len(event_type.encode("utf-8")) > opslib.EVENT_TYPE_MAX_BYTES:
        raise FormProblem("form.event_type", value=event_type)
    if event_type:
        call["event_type"] = event_type
    emotion = form.get("emotion") or "neutral"
    if emotion not in opslib.EMOTIONS:
        raise FormProblem("form.emotion", value=emotion)
    call["emotion"] = emotion
    for name in LEVELS:
        call[name] = _level(form, name)
    if form.get("force"):
        call["force"] = True
    return call
