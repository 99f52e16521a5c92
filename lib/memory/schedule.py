# Schedules on top of the hot store: repeats, conflicts, completion, due and missed reminders.

from micropython import const

from memory import clock
from memory.records import trim
from memory.refusal import Refusal

REPEATS = ("none", "daily", "weekly", "monthly")
_DAY = const(86400)
_DURATION = const(3600)  # a schedule is taken to last an hour when checking conflicts
_REMIND_AHEAD = const(3600)
_CLEAN_AFTER = const(7 * 86400)
_SLOT_STEP = const(1800)
_MAX_SUGGESTIONS = const(3)
_MAX_CONTENT = const(64)
CLOCK_UNSET = "the device clock is not set yet, so no reminders fire until it is (NTP or set_clock)"


def urgency(priority):
    if priority >= 4:
        return "urgent"
    return "normal" if priority == 3 else "light"


def parse_repeat(repeat):
    if repeat is None or repeat == "":
        return 0
    if repeat not in REPEATS:
        raise Refusal("repeat must be one of none, daily, weekly, monthly, got %r" % (repeat,), "choice", "repeat", repeat, REPEATS)
    return REPEATS.index(repeat)


def parse_priority(priority):
    if priority is None:
        return 3
    if not isinstance(priority, int) or isinstance(priority, bool) or not 1 <= priority <= 5:
        raise Refusal("priority must be an integer 1-5, got %r" % (priority,), "range", "priority", priority, (1, 5))
    return priority


def next_occurrence(when, repeat, anchor_day):
    """The start after `when` of a repeating schedule; monthly keeps `anchor_day`, clamped to month end."""
    if repeat == 1:
        return when + _DAY
    if repeat == 2:
        return when + 7 * _DAY
    if repeat == 3:
        y, m, d, h, mi = clock.local_parts(when)[:5]
        m += 1
        if m > 12:
            m, y = 1, y + 1
        day = anchor_day or d
        last = clock.days_in_month(y, m)
        return clock.from_local(y, m, day if day < last else last, h, mi)
    raise ValueError("schedule does not repeat")


def overlaps(a_start, b_start, duration=_DURATION):
    return a_start < b_start + duration and b_start < a_start + duration


def to_dict(ev):
    return {
        "content": ev.content,
        "datetime": clock.format_local(ev.when),
        "repeat": REPEATS[ev.repeat],
        "priority": ev.priority,
        "reminded": ev.reminded,
        "completed": ev.completed,
    }


class Schedules:
    """Schedule operations over a store that keeps Event records (events/add/update/delete_event).

    store.events() lists the events soonest first.
    """

    def __init__(self, store, event_class, language="zh"):
        self.store = store
        self._event = event_class
        self.language = language  # of the reminder sentences (zh or en)

    def active(self):
        return [ev for ev in self.store.events() if not ev.completed]

    def conflicts(self, when, ignore=None):
        return [ev for ev in self.active() if ev is not ignore and overlaps(ev.when, when)]

    def suggest(self, when):
        """Up to three free start times on the same local day, nearest to `when` first."""
        y, m, d = clock.local_parts(when)[:3]
        day_start = clock.from_local(y, m, d)
        busy = [ev.when for ev in self.active()]
        found = []
        step = 1
        while len(found) < _MAX_SUGGESTIONS and step * _SLOT_STEP < _DAY:
            for t in (when + step * _SLOT_STEP, when - step * _SLOT_STEP):
                if day_start <= t <= day_start + _DAY - _DURATION and t not in found:
                    if not any(overlaps(b, t) for b in busy):
                        found.append(t)
            step += 1
        return [clock.format_local(t)[11:] for t in sorted(found[:_MAX_SUGGESTIONS])]

    def add(self, content, datetime_text, repeat=None, priority=None, force=False, now=None):
        sent = content
        content = _check_content(content)
        when = clock.parse_local_datetime(datetime_text)
        rep = parse_repeat(repeat)
        prio = parse_priority(priority)
        for ev in self.active():
            if ev.content == content and ev.when == when:
                return {"result": "NOOP", "schedule": to_dict(ev)}
        clash = self.conflicts(when)
        if clash and not force:
            return {
                "result": "CONFLICT",
                "conflicts": [to_dict(ev) for ev in clash],
                "suggested_times": self.suggest(when),
                "hint": "pass force=true to keep both",
            }
        ev = self._event()
        ev.content = content
        ev.when = when
        ev.repeat = rep
        ev.anchor_day = clock.local_parts(when)[2]
        ev.priority = prio
        ev.event_type = "schedule"
        ev.reminded = 0
        ev.told = 0
        ev.completed = 0
        ev.completed_at = 0
        ev.learned_at = clock.now() if now is None else now
        result = {"result": self.store.add_event(ev), "schedule": to_dict(ev)}
        if content != sent:
            result["truncated"] = ["content"]
        if not clock.is_set(now):
            result["warning"] = CLOCK_UNSET
        return result

    def find(self, content, datetime_text=None, completed_too=False):
        """The schedule whose content is `content` exactly, else the only one containing it; with
        `datetime_text`, the one starting then (two schedules may share a text). Completed one-offs
        are looked at only when `completed_too` and no active schedule matches."""
        content = _check_content(content)
        when = None if datetime_text is None else clock.parse_local_datetime(datetime_text)
        found = _matching(self.active(), content, when)
        if not found and completed_too:
            found = _matching([ev for ev in self.store.events() if ev.completed], content, when)
        if not found:
            raise Refusal("no schedule matches %r%s" % (content, "" if when is None else " at " + datetime_text),
                          "nomatch", "schedule", content)
        if len(found) > 1:
            named = ["%s %s" % (ev.content, clock.format_local(ev.when)) for ev in found]
            raise Refusal(
                "%r matches %d schedules; pass datetime to say which: %s" % (content, len(found), "; ".join(named)),
                "many", "schedule", content, named,
            )
        return found[0]

    def complete(self, content, now=None, datetime_text=None):
        """Mark the occurrence nearest to now done, once: the answer names it ("completed") and,
        for a repeating schedule, the next one, which replaces it in the same single write.

        A second call for an occurrence already done (a client retrying, two clients at once)
        answers NOOP with the same two, so no occurrence is ever skipped.
        """
        now = clock.now() if now is None else now
        try:
            ev = self.find(content, datetime_text)
        except ValueError:
            done = self._completed_once(content)
            if done is None or datetime_text is not None and clock.format_local(done.when) != datetime_text:
                raise
            return {"result": "NOOP", "completed": to_dict(done), "detail": "already completed"}
        if not ev.repeat:
            ev.completed = 1
            ev.completed_at = now
            self.store.update_event(ev)
            return {"result": "UPDATED", "completed": to_dict(ev)}
        last = ev.completed_at  # a repeating schedule keeps the start of the occurrence last completed
        when = ev.when
        nxt = next_occurrence(when, ev.repeat, ev.anchor_day)
        # Walk forward while the following occurrence is nearer to now (catching up missed ones).
        while abs(nxt - now) <= abs(now - when):
            when, nxt = nxt, next_occurrence(nxt, ev.repeat, ev.anchor_day)
        if last and abs(now - last) < abs(when - now):
            done = to_dict(ev)
            done["datetime"] = clock.format_local(last)
            return {"result": "NOOP", "completed": done, "next": to_dict(ev), "detail": "already completed"}
        ev.when = when
        done = to_dict(ev)
        ev.when = nxt
        ev.completed_at = when
        ev.reminded = 0
        ev.told = 0
        ev.completed = 0
        self.store.update_event(ev)
        return {"result": "UPDATED", "completed": done, "next": to_dict(ev)}

    def _completed_once(self, content):
        """The completed one-off schedule `content` names exactly, or None."""
        for ev in self.store.events():
            if ev.completed and not ev.repeat and ev.content == trim(content if isinstance(content, str) else ""):
                return ev
        return None

    def delete(self, content, datetime_text=None):
        ev = self.find(content, datetime_text, completed_too=True)
        return {"result": self.store.delete_event(ev), "schedule": to_dict(ev)}

    def upcoming(self, limit=16):
        """Schedules not yet completed, soonest first."""
        return [to_dict(ev) for ev in self.active()[:limit]]

    def take_due(self, now=None):
        """Unreminded schedules starting within the hour, or missed while the device was off.

        Each is marked reminded so it is announced once; the caller flushes after announcing.
        Returns [] while the clock is unset.
        """
        now = clock.now() if now is None else now
        if not clock.is_set(now):
            return []
        due = []
        for ev in self.active():
            if ev.repeat and ev.reminded and ev.when + _DURATION < now:
                # A repeating schedule nobody marked done still comes back next time.
                while ev.when + _DURATION < now:
                    ev.when = next_occurrence(ev.when, ev.repeat, ev.anchor_day)
                ev.reminded = 0
                ev.told = 0
                self.store.update_event(ev)
            if ev.reminded or ev.when > now + _REMIND_AHEAD:
                continue
            ev.reminded = 1
            ev.told = 0
            self.store.update_event(ev)
            due.append(_reminder(ev, now, self.language))
        return due

    def take_untold(self, now=None, tell=True):
        """The reminders a `memory read` answers: announced ones no path has told the user yet, and
        ones due now that the loop has not reached. With `tell`, all are marked told (the reader
        says them)."""
        now = clock.now() if now is None else now
        if not clock.is_set(now):
            return []
        out = []
        for ev in self.active():
            if ev.told or not ev.reminded and ev.when > now + _REMIND_AHEAD:
                continue
            out.append(_reminder(ev, now, self.language))
            if tell:
                ev.reminded = 1
                ev.told = 1
                self.store.update_event(ev)
        return out

    def mark_told(self, item):
        """A path that reaches the user took the reminder `item`: the next read need not repeat it."""
        for ev in self.active():
            if ev.content == item["content"] and clock.format_local(ev.when) == item["datetime"]:
                if not ev.told:
                    ev.told = 1
                    self.store.update_event(ev)
                return

    def clean(self, now=None):
        """Remove one-off schedules completed more than a week ago. Returns how many went."""
        now = clock.now() if now is None else now
        gone = 0
        for ev in self.store.events():
            if ev.completed and not ev.repeat and ev.completed_at and now - ev.completed_at > _CLEAN_AFTER:
                self.store.delete_event(ev)
                gone += 1
        return gone


def _reminder(ev, now, language="zh"):
    item = to_dict(ev)
    item["missed"] = ev.when < now
    item["urgency"] = urgency(ev.priority)
    item["minutes"] = (ev.when - now) // 60
    item["text"] = reminder_text(item, language)
    return item


def reminder_text(item, language="zh"):
    """The sentence a companion says for a reminder, by urgency, in `language` (zh or en)."""
    hhmm = item["datetime"][11:]
    en = language == "en"
    if item["missed"]:
        return ("You missed a plan: %s (it was at %s)." if en else "你错过了一个日程：%s（原定 %s）。") % (
            item["content"], item["datetime"])
    if item["urgency"] == "urgent":
        text = "Important! At %s: %s. Don't forget." if en else "重要！%s 有「%s」，别忘了。"
    elif item["urgency"] == "normal":
        text = "Just a reminder: at %s, %s." if en else "提醒一下，%s 有「%s」哦。"
    else:
        text = "By the way, at %s there is %s." if en else "顺便说一句，%s 还有「%s」。"
    return text % (hhmm, item["content"])


def _matching(events, content, when):
    """Events with exactly this content, else those containing it; only those at `when` if given."""
    if when is not None:
        events = [ev for ev in events if ev.when == when]
    exact = [ev for ev in events if ev.content == content]
    return exact or [ev for ev in events if content in ev.content]


def _check_content(content):
    trimmed = trim(content) if isinstance(content, str) else ""
    if not trimmed:
        raise Refusal("content must be a non-empty string, got %r" % (content,), "empty", "content", content)
    content = trimmed
    if len(content.encode()) > _MAX_CONTENT:
        raise ValueError("content must be at most %d bytes of UTF-8, got %d" % (_MAX_CONTENT, len(content.encode())))
    return content
