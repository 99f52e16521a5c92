# Hot records handed to the archive (memory.store): a full type's oldest, each night the aged facts
# and moments, and each Sunday night the past events. Loaded by the first handover.

from micropython import const

from memory import clock
from memory.records import EVENT_SIZE, Event
from memory.space import MemoryFull, explain

_DAY = const(86400)


def archive_oldest_steps(store, kind, table, n):
    """Store._archive_oldest() as a generator (memory.steps): a full type hands its oldest `n` over."""
    try:
        return (yield from _archive_steps(store, kind, table, table.oldest_first()[:n]))
    except MemoryFull as e:
        raise MemoryFull("%s was not stored: %s" % (kind, e), e.value)
    except (OSError, ValueError) as e:
        raise OSError("%s capacity %d reached and archiving the oldest %d failed (%s); nothing was changed"
                      % (kind, table.cap, n, explain(e)))


def _archive_steps(store, kind, table, slots):
    """Hand records to the archive, then drop them from NVS: a crash between can duplicate, never lose.
    A generator of steps (memory.steps)."""
    if store.archiver is None:
        raise OSError("no archive is configured")
    if kind == "event":
        items = [_event_item(Event.unpack(table.buf, s * EVENT_SIZE)) for s in slots]
    else:
        part = store._moments if kind == "moment" else store._notes[kind]
        items = [part.archive_item(s) for s in slots]
    # An id that reached the archive must never be handed out again, even if power fails
    # before the next flush (only records added since the last flush can need this write).
    store._nv.save_ids(max(i["id"] for i in items))
    yield from store.archiver.append_steps(kind, items)
    for s in slots:
        store._nv.clear(table, s)
    return len(slots)


def archive_aged_steps(store, now, max_age_days, event_grace, events):
    """Store.archive_aged() as a generator (memory.steps): a step per kind, then the flush's."""
    now = store._now() if now is None else now
    out = {"fact": 0, "moment": 0, "event": 0}
    if not clock.is_set(now):
        out["skipped"] = "clock is not set"
        return out
    cutoff = now - max_age_days * _DAY
    for kind, t in (("fact", store._notes["fact"].table), ("moment", store._moments.table),
                    ("event", store._events)):
        if kind == "event" and not events:
            continue
        slots = []
        for s in t.oldest_first():
            if kind == "event":
                ev = Event.unpack(t.buf, s * EVENT_SIZE)
                if ev.repeat == 0 and ev.when + event_grace < now:
                    slots.append(s)
            elif t.u32(s, 4) < cutoff:
                slots.append(s)
        if not slots:
            continue
        yield
        try:
            out[kind] = yield from _archive_steps(store, kind, t, slots)
        except (OSError, ValueError) as e:
            out.setdefault("errors", []).append("%s: %s" % (kind, explain(e)))
    yield from store.flush_steps()
    return out


def _event_item(ev):
    return {"id": ev.id, "type": "event", "learned_at": ev.learned_at, "content": ev.content, "when": ev.when,
            "event_type": ev.event_type, "priority": ev.priority, "repeat": ev.repeat, "completed": ev.completed,
            "emotion": ev.emotion, "intensity": ev.intensity, "significance": ev.significance}
