# Changing schedules (memory.schedule): add with conflicts and free times, find, complete, delete.
#
# Loaded by the first change to a schedule; reminders and reads need only memory.schedule.

from micropython import const

from memory import clock, schedule
from memory.records import EVENT_TYPE_BYTES, int_value, trim
from memory.refusal import Refusal
from memory.schedule import CLOCK_UNSET, YEARLY, next_occurrence, parse_repeat, to_dict

_DAY = const(86400)
_SLOT_STEP = const(1800)
_MAX_SUGGESTIONS = const(3)
_MAX_CONTENT = const(64)


def conflicts(sched, when, ignore=None):
    return [ev for ev in sched.active() if ev is not ignore and overlaps(ev.when, when)]


def suggest(sched, when):
    """Up to three free start times on the same local day, nearest to `when` first."""
    y, m, d = clock.local_parts(when)[:3]
    day_start = clock.from_local(y, m, d)
    busy = [ev.when for ev in sched.active()]
    found = []
    step = 1
    while len(found) < _MAX_SUGGESTIONS and step * _SLOT_STEP < _DAY:
        for t in (when + step * _SLOT_STEP, when - step * _SLOT_STEP):
            if day_start <= t <= day_start + _DAY - schedule.DURATION and t not in found:
                if not any(overlaps(b, t) for b in busy):
                    found.append(t)
        step += 1
    return [clock.format_local(t)[11:] for t in sorted(found[:_MAX_SUGGESTIONS])]


def add(sched, content, datetime_text, repeat=None, priority=None, force=False, now=None, fields=None):
    """A new schedule. `fields` may give event_type, emotion, intensity and significance (seed 003's
    event). A date given as MM-DD is an anniversary: it repeats yearly, and as it names a day rather
    than an appointment, it is not checked for conflicts."""
    sent = content
    content = _check_content(content)
    rep = parse_repeat(repeat)
    day_only = False
    from memory import clocktext  # a date is always read here; the other changes may need none

    if clocktext.is_month_day(datetime_text):
        if rep and rep != YEARLY:
            raise Refusal("a MM-DD date comes back every year: repeat must be yearly or left out, got %r" % (repeat,),
                          "choice", "repeat", repeat, ("none", "yearly"))
        when, anchor = clocktext.parse_month_day(datetime_text, clock.now() if now is None else now)
        rep = YEARLY
        day_only = len(datetime_text) == 5
    else:
        when = clock.parse_local_datetime(datetime_text)
        anchor = clock.local_parts(when)[2]
    prio = parse_priority(priority)
    details = _details(fields or {})
    for ev in sched.active():
        if ev.content == content and ev.when == when:
            # The same schedule again: only the details it names change (none: NOOP).
            changed = [name for name in details if getattr(ev, name) != details[name]]
            for name in changed:
                setattr(ev, name, details[name])
            return {"result": sched.store.update_event(ev) if changed else "NOOP", "schedule": to_dict(ev)}
    clash = [] if day_only else conflicts(sched, when)
    if clash and not force:
        return {
            "result": "CONFLICT",
            "conflicts": [to_dict(ev) for ev in clash],
            "suggested_times": suggest(sched, when),
            "hint": "pass force=true to keep both",
        }
    ev = sched._event()
    ev.content = content
    ev.when = when
    ev.repeat = rep
    ev.anchor_day = anchor
    ev.priority = prio
    ev.event_type = details.get("event_type", "schedule")
    ev.emotion = details.get("emotion", 0)
    ev.intensity = details.get("intensity", 3)
    ev.significance = details.get("significance", 3)
    ev.reminded = 0
    ev.told = 0
    ev.completed = 0
    ev.completed_at = 0
    ev.learned_at = clock.now() if now is None else now
    result = {"result": sched.store.add_event(ev), "schedule": to_dict(ev)}
    if content != sent:
        result["truncated"] = ["content"]
    if not clock.is_set(now):
        result["warning"] = CLOCK_UNSET
    return result


def find(sched, content, datetime_text=None, completed_too=False):
    """The schedule whose content is `content` exactly, else the only one containing it; with
    `datetime_text`, the one starting then (two schedules may share a text). Completed one-offs
    are looked at only when `completed_too` and no active schedule matches."""
    content = _check_content(content)
    when = None if datetime_text is None else clock.parse_local_datetime(datetime_text)
    found = _matching(sched.active(), content, when)
    if not found and completed_too:
        found = _matching([ev for ev in sched.store.events() if ev.completed], content, when)
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


def complete(sched, content, now=None, datetime_text=None):
    """Mark the occurrence nearest to now done, once: the answer names it ("completed") and,
    for a repeating schedule, the next one, which replaces it in the same single write.

    A second call for an occurrence already done (a client retrying, two clients at once)
    answers NOOP with the same two, so no occurrence is ever skipped.
    """
    now = clock.now() if now is None else now
    try:
        ev = find(sched, content, datetime_text)
    except ValueError:
        done = _completed_once(sched, content)
        if done is None or datetime_text is not None and clock.format_local(done.when) != datetime_text:
            raise
        return {"result": "NOOP", "completed": to_dict(done), "detail": "already completed"}
    if not ev.repeat:
        ev.completed = 1
        ev.completed_at = now
        sched.store.update_event(ev)
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
    sched.store.update_event(ev)
    return {"result": "UPDATED", "completed": done, "next": to_dict(ev)}


def _completed_once(sched, content):
    """The completed one-off schedule `content` names exactly, or None."""
    for ev in sched.store.events():
        if ev.completed and not ev.repeat and ev.content == trim(content if isinstance(content, str) else ""):
            return ev
    return None


def delete(sched, content, datetime_text=None):
    ev = find(sched, content, datetime_text, completed_too=True)
    return {"result": sched.store.delete_event(ev), "schedule": to_dict(ev)}


def overlaps(a_start, b_start, duration=schedule.DURATION):
    return a_start < b_start + duration and b_start < a_start + duration


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
        raise Refusal("content must be at most %d bytes of UTF-8, got %d" % (_MAX_CONTENT, len(content.encode())),
                      "bytes", "content", content, _MAX_CONTENT)
    return content


def _details(fields):
    """The seed 003 event fields a write names (event_type, emotion as its code, intensity,
    significance), checked: {name: value}."""
    out = {}
    etype = fields.get("event_type")
    if etype is not None:
        if not isinstance(etype, str):
            raise Refusal("event_type must be a string, got %r" % (etype,), "type", "event_type", etype, "string")
        etype = trim(etype)
        if len(etype.encode()) > EVENT_TYPE_BYTES:
            raise Refusal("event_type must be at most %d bytes of UTF-8, got %d" % (EVENT_TYPE_BYTES, len(etype.encode())),
                          "bytes", "event_type", etype, EVENT_TYPE_BYTES)
        if etype:
            out["event_type"] = etype
    if fields.get("emotion") is not None:
        from memory import fieldcodes

        out["emotion"] = fieldcodes.emotion_code(fields["emotion"])
    for name in ("intensity", "significance"):
        if fields.get(name) is not None:
            out[name] = int_value(name, fields[name], 1, 5)
    return out


def parse_priority(priority):
    if priority is None:
        return 3
    if not isinstance(priority, int) or isinstance(priority, bool) or not 1 <= priority <= 5:
        raise Refusal("priority must be an integer 1-5, got %r" % (priority,), "range", "priority", priority, (1, 5))
    return priority
