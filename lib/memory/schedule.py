# Schedules on top of the hot store: repeats, conflicts, completion, due and missed reminders.

from micropython import const

from memory import clock
from memory.records import EMOTIONS
from memory.refusal import Refusal

REPEATS = ("none", "daily", "weekly", "monthly", "yearly")
YEARLY = const(4)  # an anniversary: a date given as MM-DD comes back every year
_DAY = const(86400)
_DURATION = const(3600)  # a schedule is taken to last an hour when checking conflicts
_REMIND_AHEAD = const(3600)
_CLEAN_AFTER = const(7 * 86400)
DURATION = _DURATION  # for memory.schededit (a const() with an underscore is no module attribute)
CLOCK_UNSET = "the device clock is not set yet, so no reminders fire until it is (NTP or set_clock)"


def urgency(priority):
    if priority >= 4:
        return "urgent"
    return "normal" if priority == 3 else "light"


def parse_repeat(repeat):
    if repeat is None or repeat == "":
        return 0
    if repeat not in REPEATS:
        raise Refusal("repeat must be one of none, daily, weekly, monthly, yearly, got %r" % (repeat,), "choice", "repeat",
                      repeat, REPEATS)
    return REPEATS.index(repeat)


def next_occurrence(when, repeat, anchor_day):
    """The start after `when` of a repeating schedule; monthly and yearly keep `anchor_day`, clamped
    to the month's end (an anniversary on 02-29 falls on 02-28 in other years)."""
    if repeat == 1:
        return when + _DAY
    if repeat == 2:
        return when + 7 * _DAY
    if repeat == 3 or repeat == YEARLY:
        y, m, d, h, mi = clock.local_parts(when)[:5]
        if repeat == YEARLY:
            y += 1
        else:
            m += 1
        if m > 12:
            m, y = 1, y + 1
        day = anchor_day or d
        last = clock.days_in_month(y, m)
        return clock.from_local(y, m, day if day < last else last, h, mi)
    raise ValueError("schedule does not repeat")


def to_dict(ev):
    return {
        "content": ev.content,
        "datetime": clock.format_local(ev.when),
        "repeat": REPEATS[ev.repeat],
        "priority": ev.priority,
        "reminded": ev.reminded,
        "completed": ev.completed,
        "event_type": ev.event_type,
        "emotion": EMOTIONS[ev.emotion] if ev.emotion < len(EMOTIONS) else "neutral",
        "intensity": ev.intensity,
        "significance": ev.significance,
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

    # Changes (memory.schededit): add one, complete or delete the one `content` names.

    def add(self, content, datetime_text, repeat=None, priority=None, force=False, now=None, fields=None):
        return _edit().add(self, content, datetime_text, repeat, priority, force, now, fields)

    def find(self, content, datetime_text=None, completed_too=False):
        return _edit().find(self, content, datetime_text, completed_too)

    def complete(self, content, now=None, datetime_text=None):
        return _edit().complete(self, content, now, datetime_text)

    def delete(self, content, datetime_text=None):
        return _edit().delete(self, content, datetime_text)


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
    if item["repeat"] == "yearly" and not item["missed"]:
        return ("Today is %s." if en else "今天是「%s」。") % item["content"]
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


def _edit():
    # Loaded by the first change to a schedule, then kept.
    from memory import schededit

    return schededit
