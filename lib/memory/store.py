# The hot store: seed 003's typed memories in NVS, each change answering ADDED / UPDATED / DELETED / NOOP.
#
# Writes land in a RAM image. commit() makes them survive a power cut before they are acknowledged
# (the changed keys go to the journal, memory.ackjournal); NVS is written in one flush at the end
# of a conversation, by tick()/autoflush() after `flush_within` idle seconds, or by flush(), and
# each flush cuts the journal. Facts and moments over capacity go to the archive hook first and
# leave NVS only once it has taken them.

import struct
import sys

from micropython import const

from memory import clock, forget, steps
from memory.notes import Chat, Moments, Notes
from memory.nvstore import NvStore, Table
from memory.person import PROFILE_FIELDS, Affection, Family, Preferences, Profile
from memory.records import (
    ADDED,
    DELETED,
    DISLIKE,
    EVENT_SIZE,
    FACT_SIZE,
    GOAL_SIZE,
    LIKE,
    NOOP,
    SHORT_SIZE,
    UPDATED,
    Event,
    int_value,
)
from memory.refusal import Refusal

TYPES = PROFILE_FIELDS + ("like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "chat")
READ_TYPES = TYPES + ("profile", "schedule", "affection")
REPEATS = ("none", "daily", "weekly", "monthly")

_FACT_ARCHIVE = const(5)  # facts at capacity hand over their oldest 5
_MOMENT_ARCHIVE = const(3)  # moments at capacity hand over their oldest 3
_DAY = const(86400)
_U32_MAX = const(0xFFFFFFFF)
_JOURNAL_LIMIT = const(32768)  # a journal this long is flushed to NVS without waiting for the end

__all__ = ("Store", "Event", "ADDED", "UPDATED", "DELETED", "NOOP", "TYPES", "READ_TYPES")


class Store:
    """Typed hot memory over one NVS namespace.

    archiver: optional object with append_steps(kind, items) (lib/memory/archive.py); now: optional
    callable giving Unix seconds (tests); keyed: optional keyed-memory store (memory.keyed);
    journal: optional memory.ackjournal.AckJournal, replayed here and written by commit().
    """

    def __init__(self, namespace="xzmem", archiver=None, now=None, keyed=None, flush_within=60, journal=None):
        self._clock = now or clock.now
        self._restoring_at = 0  # while restore() runs: the time the record being restored was learned
        self._now = self._stamp
        self.archiver = archiver
        self.keyed = keyed
        self.flush_within = flush_within
        self.journal = journal
        self.journal_error = None  # why the last commit went to NVS instead of the journal
        tables = []
        self._nv = NvStore(namespace, tables, self._now)
        self.corrupt_keys = self._nv.corrupt  # NVS keys whose blob had the wrong size at load (ignored)
        nv, now = self._nv, self._now
        self._profile = Profile(nv, now)
        self._prefs = Preferences(nv, now)
        self._family = Family(nv, now)
        self._notes = {
            "fact": Notes(nv, now, "fact", "fas", FACT_SIZE, 20, 5, self._archive_oldest, _FACT_ARCHIVE),
            "trait": Notes(nv, now, "trait", "trs", SHORT_SIZE, 10, 5),
            "habit": Notes(nv, now, "habit", "hbs", SHORT_SIZE, 10, 5),
            "goal": Notes(nv, now, "goal", "go", GOAL_SIZE, 5),
        }
        self._moments = Moments(nv, now, self._archive_oldest, _MOMENT_ARCHIVE)
        self._chat = Chat(nv, now)
        self._affection = Affection(nv)
        self._events = Table("schedule", "evs", EVENT_SIZE, 16, 4)
        for part in (self._profile, self._family, self._prefs, self._notes["fact"], self._notes["trait"],
                     self._notes["habit"], self._moments, self._notes["goal"], self._chat, self._affection):
            tables.append(part.table)
        tables.append(self._events)
        from memory import storeload  # used once: unloaded again below

        storeload.load_tables(nv)
        # Keys the journal holds that the last flush may not have written (the power went first).
        self.replayed = storeload.replay_journal(self.journal, nv) if self.journal is not None else 0
        forget("storeload")
        forget("relayout")
        self._chat.loaded()
        if self.replayed:
            try:
                self.flush()
            except OSError as e:  # the records stay in RAM and in the journal
                print("memory: flushing the replayed journal failed:", e)

    def _stamp(self):
        return self._restoring_at or self._clock()

    # ---- dict in, dict out (the `memory` tool and `memory_sync` ops) ----

    def restore(self, kind, fields, learned_at):
        """write(), keeping the time an exported record was learned instead of the time of the import."""
        self._restoring_at = int_value("learned_at", learned_at, 1, _U32_MAX)
        try:
            return self.write(kind, fields)
        finally:
            self._restoring_at = 0

    def write(self, kind, fields=None):
        """Write one memory of type `kind`; {"result": ADDED|UPDATED|NOOP, "truncated": [fields cut]}."""
        fields = _fields(fields)
        truncated = []
        if kind in PROFILE_FIELDS:
            out = self._profile.write(kind, fields, truncated)
        elif kind == "like" or kind == "dislike":
            out = self._prefs.write(kind, fields, truncated)
        elif kind == "family":
            out = self._family.write(fields, truncated)
        elif kind in self._notes:
            out = self._notes[kind].write(fields, truncated)
        elif kind == "moment":
            out = self._moments.write(fields, truncated)
        elif kind == "chat":
            out = self._chat.write(fields, truncated)
        else:
            raise _unknown(kind, TYPES)
        if truncated:
            out["truncated"] = truncated
        return out

    def delete(self, kind, fields=None):
        """Delete memories of type `kind` named by `fields`; {"result": DELETED|NOOP}.

        Profile fields need nothing; likes by content; family by name (and relation); facts,
        traits, habits, goals and moments by id, exact content or a fragment of exactly one;
        chat clears the whole ring.
        """
        fields = _fields(fields)
        if kind in PROFILE_FIELDS:
            return self._profile.set(kind, None)
        if kind == "like" or kind == "dislike":
            return self._prefs.delete(kind, fields)
        if kind == "family":
            return self._family.delete(fields)
        if kind in self._notes:
            return self._notes[kind].delete(fields)
        if kind == "moment":
            return self._moments.delete(fields)
        if kind == "chat":
            return self._chat.clear()
        raise _unknown(kind, TYPES)

    def read(self, kind):
        """Every stored record of type `kind` as a list of dicts, oldest first."""
        if kind in PROFILE_FIELDS:
            p = self._profile.as_dict(True)
            if kind not in p:
                return []
            return [{"content": p[kind], "learned_at": p[kind + "_learned_at"]}]
        if kind == "profile":
            p = self._profile.as_dict(True)
            return [p] if p else []
        if kind == "like" or kind == "dislike":
            return self._prefs.read(kind)
        if kind == "family":
            return self._family.read()
        if kind in self._notes:
            return self._notes[kind].read()
        if kind == "moment":
            return self._moments.read()
        if kind == "chat":
            return self._chat.read()
        if kind == "schedule":
            return [ev.to_dict() for ev in self.events()]
        if kind == "affection":
            return [self.affection()]
        raise _unknown(kind, READ_TYPES)

    def overview(self):
        """Everything a conversation opens with, compact: what `memory(action="read")` answers."""
        return {
            "profile": self._profile.as_dict(False),
            "preferences": {"likes": [x["content"] for x in self.read("like")],
                            "dislikes": [x["content"] for x in self.read("dislike")]},
            "family": [{"relation": x["relation"], "name": x["name"], "closeness": x["closeness"]}
                       for x in self.read("family")],
            "facts": [x["content"] for x in self.read("fact")],
            "traits": [x["content"] for x in self.read("trait")],
            "habits": [x["content"] for x in self.read("habit")],
            "goals": [x["content"] for x in self.read("goal")],
            "moments": [{"topic": x["topic"], "content": x["content"], "emotion": x["emotion"],
                         "importance": x["importance"]} for x in self.read("moment")],
            "schedules": [_schedule(ev) for ev in self.events()],
            "chat_messages": self._chat.table.count(),
            "affection": self.affection(),
        }

    # ---- affection stats (stages are affinity.py's) ----

    def affection(self):
        return self._affection.get()

    def set_affection(self, fields):
        """Set any of total_coins_spent, mood, soul_state_code (0-15 or "0110"), interactions, last_interaction."""
        return self._affection.set(_fields(fields))

    def add_coins(self, amount):
        amount = int_value("amount", amount, -0x7FFFFFFF, 0x7FFFFFFF)
        total = self.affection()["total_coins_spent"] + amount
        return self.set_affection({"total_coins_spent": total if total > 0 else 0})

    # ---- events (schedule.py builds schedules on these) ----

    def events(self):
        """Every stored Event, soonest first."""
        evs = [Event.unpack(self._events.buf, s * EVENT_SIZE) for s in self._events.slots()]
        evs.sort(key=lambda e: (e.when, e.id))
        return evs

    def add_event(self, ev):
        """Store a new event: assigns ev.id and ev.learned_at, cuts ev.content to what was stored."""
        t = self._events
        slot = t.free_slot()
        if slot < 0:
            raise Refusal("schedule capacity is %d events and all are in use; delete or complete one first"
                          % t.cap, "full", "schedule", None, t.cap)
        data = ev.pack([])
        ev.id = self._nv.new_id()
        ev.learned_at = ev.learned_at or self._now()
        struct.pack_into("<II", data, 0, ev.id, ev.learned_at)
        ev.content = Event.unpack(data).content
        self._nv.put(t, slot, data)
        return ADDED

    def update_event(self, ev):
        """Replace the stored event with ev.id: one write of its key, atomic in NVS."""
        slot = self._events.find_id(ev.id)
        if slot < 0:
            raise ValueError("no event with id %r" % (ev.id,))
        if not ev.learned_at:
            ev.learned_at = self._events.u32(slot, 4)
        return UPDATED if self._nv.put(self._events, slot, ev.pack([])) else NOOP

    def delete_event(self, ev):
        """Delete an event given as an Event or its id."""
        slot = self._events.find_id(ev if isinstance(ev, int) else ev.id)
        if slot < 0:
            return NOOP
        self._nv.clear(self._events, slot)
        return DELETED

    def keep_ids_above(self, rid):
        """Hand out no id up to `rid` again (records imported with their ids); saved with the next commit."""
        self._nv.keep_ids_above(rid)

    # ---- archive rules ----


    # ---- the archive (memory.hotarchive) ----

    def _archive_oldest(self, kind, table, n):
        return steps.finish(_handover().archive_oldest_steps(self, kind, table, n))

    def room_steps(self, kind):
        """Before a write of `kind` (a generator of steps, memory.steps): when its table is full and
        has an archive, hand the oldest records over now, in steps, so the write itself need not.
        Returns how many were archived."""
        if kind == "fact":
            table, n = self._notes["fact"].table, _FACT_ARCHIVE
        elif kind == "moment":
            table, n = self._moments.table, _MOMENT_ARCHIVE
        else:
            return 0
        if table.free_slot() >= 0 or self.archiver is None:
            return 0
        return (yield from _handover().archive_oldest_steps(self, kind, table, n))

    def archive_aged(self, now=None, max_age_days=30, event_grace=_DAY, events=True):
        """Archive facts and moments learned over `max_age_days` ago and, with `events`, one-off events
        that ended more than `event_grace` seconds ago, then flush. Returns counts per kind (and
        "errors" if any)."""
        return steps.finish(self.archive_aged_steps(now, max_age_days, event_grace, events))

    def archive_aged_steps(self, now=None, max_age_days=30, event_grace=_DAY, events=True):
        """archive_aged() as a generator (memory.steps): a step per kind, then the flush's."""
        return (yield from _handover().archive_aged_steps(self, now, max_age_days, event_grace, events))

    # ---- batching ----

    def commit(self):
        """Make every change so far survive a power cut; call it before the change is acknowledged.

        The keys changed since the last commit go to the journal as one record; with no journal,
        or one that cannot be written, NVS is flushed instead. Returns "journal", "nvs" or None
        when nothing changed. A long journal is flushed to NVS as well.
        """
        record = self._nv.unlogged()
        if record is None:
            return None
        if self.journal is not None:
            try:
                self.journal.append(record)
                self._nv.logged()
                self.journal_error = None
                if self.journal.size >= _JOURNAL_LIMIT:
                    self.flush()
                return "journal"
            except (OSError, ValueError) as e:
                from memory.space import explain  # error paths only, as in memory.mcp

                self.journal_error = explain(e)
        self.flush()
        return "nvs"

    def flush(self):
        """Write every pending change to NVS, then cut the journal; returns the number of NVS writes."""
        return steps.finish(self.flush_steps())

    def flush_steps(self):
        """flush() as a generator (memory.steps): a step per NVS key. Nothing may change the store
        between its steps, or the journal cut at the end could drop a change not yet in NVS."""
        j = self.journal
        if j is not None and j.size:
            # Journal what this flush writes too, so a cut journal or a replayed one both give it.
            record = self._nv.unlogged()
            if record is not None:
                try:
                    j.append(record)
                except (OSError, ValueError):
                    pass
        writes = yield from self._nv.flush_steps()
        self._nv.logged()
        if j is not None:
            j.cut()
        return writes

    def pending(self):
        """NVS writes waiting for the next flush."""
        return self._nv.pending()

    def tick(self, now=None, slack=0):
        """Flush once no change has come for `flush_within` seconds (less `slack`). Returns writes."""
        return steps.finish(self.tick_steps(now, slack))

    def tick_steps(self, now=None, slack=0):
        """tick() as a generator (memory.steps)."""
        if self._nv.dirty_since is None:
            return 0
        if (self._now() if now is None else now) - self._nv.changed_at + slack >= self.flush_within:
            return (yield from self.flush_steps())
        return 0

    async def autoflush(self, lock, every=5):
        """Run forever: check every `every` seconds, flushing after `flush_within` idle seconds.
        `lock` (an asyncio.Lock) keeps tool calls out while a flush is under way."""
        import asyncio

        while True:
            await asyncio.sleep(every)
            try:
                async with lock:
                    await steps.run(self.tick_steps(slack=every))
            except Exception as e:  # full flash or a heap too fragmented: the changes stay, the next check tries again
                print("memory: flush failed, changes kept in RAM:", repr(e))

    def end_conversation(self):
        """Count the interaction and flush the conversation's writes together. Returns NVS writes."""
        a = self.affection()
        self.set_affection({"interactions": a["interactions"] + 1, "last_interaction": self._now()})
        return self.flush()

    def stats(self):
        records = {}
        for t in self._nv.tables:
            if t is not self._prefs.table:
                records[t.name] = t.count()
        records["like"] = self._prefs.count(LIKE)
        records["dislike"] = self._prefs.count(DISLIKE)
        out = {
            "records": records,
            "pending": self.pending(),
            "entries": {"used": self._nv.entries_now(), "all_full": self._nv.entries()},
            "corrupt_keys": self._nv.corrupt,
        }
        space = sys.modules.get("memory.space")
        if space is not None and space.damaged:
            out["damaged_text"] = space.damaged
        flash = _nvs_flash()
        if flash is not None:
            out["nvs"] = {"used": flash.entries_used(), "free": flash.entries_free(), "usable": flash.usable_entries}
            if flash.damage:
                out["nvs"]["damage"] = flash.damage
        if self.keyed is not None:
            out["keyed"] = self.keyed.count()
        if self.journal is not None:
            out["journal"] = self.journal.stats()
            out["journal"]["replayed_keys"] = self.replayed
            if self.journal_error:
                out["journal"]["error"] = self.journal_error
        return out


def _fields(fields):
    if fields is None:
        return {}
    if not isinstance(fields, dict):
        raise ValueError("fields must be an object, got %s" % type(fields).__name__)
    return fields


def _unknown(kind, known):
    return Refusal("unknown memory type %r; known types: %s" % (kind, ", ".join(known)), "choice", "type", kind, known)


def _schedule(ev):
    return {"id": ev.id, "content": ev.content, "datetime": clock.format_local(ev.when),
            "repeat": REPEATS[ev.repeat], "priority": ev.priority, "reminded": ev.reminded,
            "completed": ev.completed}


def _nvs_flash():
    """The simulator's partition accounting; the real esp32 module cannot report it."""
    import esp32

    return esp32.nvs_flash() if hasattr(esp32, "nvs_flash") else None


def _handover():
    # Loaded by the first record handed to the archive, then kept.
    from memory import hotarchive

    return hotarchive
