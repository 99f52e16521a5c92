# The hot store: seed 003's typed memories in NVS, each change answering ADDED / UPDATED / DELETED / NOOP.
#
# Writes land in a RAM image and are flushed together: at the end of a conversation, by
# tick()/autoflush() at most 60 s after the first unsaved change, or by flush(). Facts and moments
# over capacity go to the archive hook first and leave NVS only once it has taken them.

import struct

from micropython import const

from memory import clock
from memory.nvstore import NvStore, Table
from memory.records import (
    AFFECTION_FMT,
    AFFECTION_SIZE,
    CHAT_FMT,
    CHAT_SIZE,
    DISLIKE,
    EMOTIONS,
    EVENT_SIZE,
    FACT_FMT,
    FACT_SIZE,
    FAMILY_FMT,
    FAMILY_SIZE,
    GENDERS,
    GOAL_FMT,
    GOAL_SIZE,
    LIKE,
    MOMENT_FMT,
    MOMENT_SIZE,
    PREF_FMT,
    PREF_SIZE,
    PROFILE_FMT,
    PROFILE_SIZE,
    ROLES,
    SHORT_FMT,
    SHORT_SIZE,
    Event,
    check_birthday,
    decode,
    emotion_code,
    gender_code,
    int_field,
    int_value,
    text_field,
)

ADDED = "ADDED"
UPDATED = "UPDATED"
DELETED = "DELETED"
NOOP = "NOOP"

PROFILE_FIELDS = ("name", "age", "gender", "location", "birthday")
TYPES = PROFILE_FIELDS + ("like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "chat")
READ_TYPES = TYPES + ("profile", "schedule", "affection")
REPEATS = ("none", "daily", "weekly", "monthly")

_AGE_UNSET = const(255)
_PREF_CAP = const(8)
_FACT_ARCHIVE = const(5)  # facts at capacity hand over their oldest 5
_MOMENT_ARCHIVE = const(3)  # moments at capacity hand over their oldest 3
_DAY = const(86400)
_U32_MAX = const(0xFFFFFFFF)

__all__ = ("Store", "Event", "ADDED", "UPDATED", "DELETED", "NOOP", "TYPES", "READ_TYPES")


class Store:
    """Typed hot memory over one NVS namespace.

    archiver: optional object with append(kind, items) (lib/memory/archive.py); now: optional
    callable giving Unix seconds (tests); keyed: optional keyed-memory store (memory.keyed).
    """

    def __init__(self, namespace="xzmem", archiver=None, now=None, keyed=None, flush_within=60):
        self._now = now or clock.now
        self.archiver = archiver
        self.keyed = keyed
        self.flush_within = flush_within
        self._profile = Table("profile", "pf", PROFILE_SIZE, 1, counted=False)
        self._family = Table("family", "fm", FAMILY_SIZE, 8)
        self._prefs = Table("preferences", "pr", PREF_SIZE, 16, 16)
        self._events = Table("schedule", "ev", EVENT_SIZE, 16)
        self._facts = Table("fact", "fa", FACT_SIZE, 20)
        self._traits = Table("trait", "tr", SHORT_SIZE, 10)
        self._habits = Table("habit", "hb", SHORT_SIZE, 10)
        self._moments = Table("moment", "mo", MOMENT_SIZE, 10)
        self._goals = Table("goal", "go", GOAL_SIZE, 5)
        self._chat = Table("chat", "ch", CHAT_SIZE, 30, 5, counted=False)
        self._affection = Table("affection", "af", AFFECTION_SIZE, 1, counted=False)
        tables = [self._profile, self._family, self._prefs, self._events, self._facts, self._traits,
                  self._habits, self._moments, self._goals, self._chat, self._affection]
        # Notes: one text field after id and learned_at; (table, format, text width).
        self._notes = {
            "fact": (self._facts, FACT_FMT, FACT_SIZE - 8),
            "trait": (self._traits, SHORT_FMT, SHORT_SIZE - 8),
            "habit": (self._habits, SHORT_FMT, SHORT_SIZE - 8),
            "goal": (self._goals, GOAL_FMT, GOAL_SIZE - 8),
        }
        self._nv = NvStore(namespace, tables, self._now)
        self._nv.load()
        self._chat_seq = 1
        for s in self._chat.slots():
            seq = struct.unpack_from("<I", self._chat.buf, s * CHAT_SIZE)[0]
            if seq >= self._chat_seq:
                self._chat_seq = seq + 1

    # ---- dict in, dict out (the `memory` tool and `memory_sync` ops) ----

    def write(self, kind, fields=None):
        """Write one memory of type `kind`; {"result": ADDED|UPDATED|NOOP, "truncated": [fields cut]}."""
        fields = _fields(fields)
        truncated = []
        if kind in PROFILE_FIELDS:
            out = self._write_profile(kind, fields, truncated)
        elif kind == "like" or kind == "dislike":
            out = self._write_pref(kind, fields, truncated)
        elif kind == "family":
            out = self._write_family(fields, truncated)
        elif kind in self._notes:
            out = self._write_note(kind, fields, truncated)
        elif kind == "moment":
            out = self._write_moment(fields, truncated)
        elif kind == "chat":
            out = self._write_chat(fields, truncated)
        else:
            raise ValueError(_unknown(kind, TYPES))
        if truncated:
            out["truncated"] = truncated
        return out

    def delete(self, kind, fields=None):
        """Delete memories of type `kind` named by `fields`; {"result": DELETED|NOOP}."""
        fields = _fields(fields)
        if kind in PROFILE_FIELDS:
            return self._set_profile(kind, None)
        if kind == "like" or kind == "dislike":
            item = text_field(fields, "content", PREF_SIZE - 9, [])
            want = LIKE if kind == "like" else DISLIKE
            for s in self._prefs.slots():
                if self._prefs.buf[s * PREF_SIZE + 8] == want and _same(self._text(self._prefs, s, 9, 31), item):
                    self._nv.clear(self._prefs, s)
                    return {"result": DELETED}
            return {"result": NOOP}
        if kind == "family":
            return self._delete_family(fields)
        if kind in self._notes or kind == "moment":
            return self._delete_note(kind, fields)
        if kind == "chat":
            n = 0
            for s in self._chat.slots():
                n += self._nv.clear(self._chat, s)
            return {"result": DELETED if n else NOOP, "count": n}
        raise ValueError(_unknown(kind, TYPES))

    def read(self, kind):
        """Every stored record of type `kind` as a list of dicts."""
        if kind in PROFILE_FIELDS:
            p = self._profile_dict(True)
            if kind not in p:
                return []
            return [{"content": p[kind], "learned_at": p[kind + "_learned_at"]}]
        if kind == "profile":
            return [self._profile_dict(True)] if self._profile.used[0] else []
        if kind == "like" or kind == "dislike":
            want = LIKE if kind == "like" else DISLIKE
            out = []
            for s in self._oldest_first(self._prefs):
                rid, learned, k, item = struct.unpack_from(PREF_FMT, self._prefs.buf, s * PREF_SIZE)
                if k == want:
                    out.append({"id": rid, "content": decode(item), "learned_at": learned})
            return out
        if kind == "family":
            out = []
            for s in self._oldest_first(self._family):
                rid, learned, closeness, relation, name = struct.unpack_from(FAMILY_FMT, self._family.buf,
                                                                             s * FAMILY_SIZE)
                out.append({"id": rid, "relation": decode(relation), "name": decode(name),
                            "closeness": closeness, "learned_at": learned})
            return out
        if kind in self._notes:
            t, fmt, _ = self._notes[kind]
            out = []
            for s in self._oldest_first(t):
                rid, learned, content = struct.unpack_from(fmt, t.buf, s * t.size)
                out.append({"id": rid, "content": decode(content), "learned_at": learned})
            return out
        if kind == "moment":
            return [self._moment_item(s, False) for s in self._oldest_first(self._moments)]
        if kind == "chat":
            msgs = []
            for s in self._chat.slots():
                seq, at, role, content = struct.unpack_from(CHAT_FMT, self._chat.buf, s * CHAT_SIZE)
                msgs.append((seq, {"seq": seq, "role": ROLES[role - 1], "content": decode(content), "at": at}))
            msgs.sort(key=lambda m: m[0])
            return [m[1] for m in msgs]
        if kind == "schedule":
            return [ev.to_dict() for ev in self.events()]
        if kind == "affection":
            return [self.affection()]
        raise ValueError(_unknown(kind, READ_TYPES))

    def overview(self):
        """Everything a conversation opens with, compact: what `memory(action="read")` answers."""
        return {
            "profile": self._profile_dict(False),
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
            "chat_messages": self._chat.count(),
            "affection": self.affection(),
        }

    # ---- profile ----

    def _write_profile(self, kind, fields, truncated):
        value = fields.get("content", fields.get(kind))
        if value is None:
            raise ValueError("content is required for %s" % kind)
        if kind == "age":
            value = int_value("age", value, 0, 150)
        elif kind == "gender":
            value = gender_code(value)
        elif kind == "birthday":
            value = check_birthday(value).encode()
        else:
            value = text_field({kind: value}, kind, 32, truncated)
        return self._set_profile(kind, value)

    def _set_profile(self, kind, value):
        """Set (or with None clear) one profile field; the record keeps each field's learned-at time."""
        i = PROFILE_FIELDS.index(kind)
        if self._profile.used[0]:
            vals = list(struct.unpack_from(PROFILE_FMT, self._profile.buf, 0))
        else:
            vals = [0, 0, 0, 0, 0, b"", _AGE_UNSET, 0, b"", b""]
        old = vals[5 + i]
        unset = _AGE_UNSET if kind == "age" else (0 if kind == "gender" else b"")
        if isinstance(old, bytes):
            old = old[: old.find(b"\0")] if b"\0" in old else old
        if value is None:
            if old == unset:
                return {"result": NOOP}
            vals[5 + i], vals[i] = unset, 0
            result = DELETED
        else:
            if old == value:
                return {"result": NOOP}
            result = ADDED if old == unset else UPDATED
            vals[5 + i], vals[i] = value, self._now()
        data = bytearray(PROFILE_SIZE)
        struct.pack_into(PROFILE_FMT, data, 0, *vals)
        self._nv.put(self._profile, 0, data)
        return {"result": result}

    def _profile_dict(self, with_times):
        if not self._profile.used[0]:
            return {}
        vals = struct.unpack_from(PROFILE_FMT, self._profile.buf, 0)
        age, gender = vals[6], vals[7]
        values = (decode(vals[5]), age if age != _AGE_UNSET else None,
                  GENDERS[gender - 1] if gender else None, decode(vals[8]), decode(vals[9]))
        out = {}
        for i in range(5):
            if values[i] is None or values[i] == "":
                continue
            out[PROFILE_FIELDS[i]] = values[i]
            if with_times:
                out[PROFILE_FIELDS[i] + "_learned_at"] = vals[i]
        return out

    # ---- likes and dislikes: one key holds all 16, so moving an item is one atomic write ----

    def _write_pref(self, kind, fields, truncated):
        item = text_field(fields, "content", PREF_SIZE - 9, truncated)
        want = LIKE if kind == "like" else DISLIKE
        t = self._prefs
        for s in t.slots():
            if _same(self._text(t, s, 9, PREF_SIZE - 9), item):
                rid, _, k, _ = struct.unpack_from(PREF_FMT, t.buf, s * PREF_SIZE)
                if k == want:
                    return {"result": NOOP}
                self._check_pref_room(kind, want)
                self._nv.put(t, s, struct.pack(PREF_FMT, rid, self._now(), want, item))
                return {"result": UPDATED, "moved_from": "dislike" if want == LIKE else "like"}
        self._check_pref_room(kind, want)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(PREF_FMT, rid, self._now(), want, item))
        return {"result": ADDED, "id": rid}

    def _check_pref_room(self, kind, want):
        n = 0
        for s in self._prefs.slots():
            n += self._prefs.buf[s * PREF_SIZE + 8] == want
        if n >= _PREF_CAP:
            raise ValueError("%ss are full (%d stored); delete one first" % (kind, _PREF_CAP))

    # ---- family: matched by relation + name ----

    def _write_family(self, fields, truncated):
        if fields.get("name") is None and fields.get("content") is not None:
            fields = {"relation": fields.get("relation"), "name": fields["content"],
                      "closeness": fields.get("closeness")}
        relation = text_field(fields, "relation", 23, truncated)
        name = text_field(fields, "name", 32, truncated)
        closeness = int_field(fields, "closeness", 1, 5, 3)
        t = self._family
        for s in t.slots():
            rid, _, old, rel, nm = struct.unpack_from(FAMILY_FMT, t.buf, s * FAMILY_SIZE)
            if _same(rel, relation) and _same(nm, name):
                if old == closeness:
                    return {"result": NOOP}
                self._nv.put(t, s, struct.pack(FAMILY_FMT, rid, self._now(), closeness, relation, name))
                return {"result": UPDATED, "id": rid}
        slot = t.free_slot()
        if slot < 0:
            raise ValueError("family is full (%d members); delete one first" % t.cap)
        rid = self._nv.new_id()
        self._nv.put(t, slot, struct.pack(FAMILY_FMT, rid, self._now(), closeness, relation, name))
        return {"result": ADDED, "id": rid}

    def _delete_family(self, fields):
        name = text_field(fields, "name", 32, [], required=False) or text_field(fields, "content", 32, [])
        relation = text_field(fields, "relation", 23, [], required=False)
        n = 0
        for s in self._family.slots():
            _, _, _, rel, nm = struct.unpack_from(FAMILY_FMT, self._family.buf, s * FAMILY_SIZE)
            if _same(nm, name) and (not relation or _same(rel, relation)):
                n += self._nv.clear(self._family, s)
        return {"result": DELETED if n else NOOP}

    # ---- facts, traits, habits, goals: one text each ----

    def _write_note(self, kind, fields, truncated):
        t, fmt, width = self._notes[kind]
        content = text_field(fields, "content", width, truncated)
        for s in t.slots():
            if _same(self._text(t, s, 8, width), content):
                return {"result": NOOP}
        out = {}
        if t.free_slot() < 0:
            if kind != "fact":
                raise ValueError("%ss are full (%d stored); delete one first" % (kind, t.cap))
            out["archived"] = self._archive_oldest("fact", t, _FACT_ARCHIVE)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(fmt, rid, self._now(), content))
        out["result"] = ADDED
        out["id"] = rid
        return out

    def _delete_note(self, kind, fields):
        """By id, by exact content, or by a fragment found in exactly one record."""
        if kind == "moment":
            t, start, width = self._moments, 36, MOMENT_SIZE - 36
        else:
            t, _, width = self._notes[kind]
            start = 8
        if fields.get("id") is not None:
            rid = int_value("id", fields["id"], 1, _U32_MAX)
            for s in t.slots():
                if struct.unpack_from("<I", t.buf, s * t.size)[0] == rid:
                    self._nv.clear(t, s)
                    return {"result": DELETED}
            return {"result": NOOP}
        content = text_field(fields, "content", width, [])
        partial = []
        for s in t.slots():
            stored = self._text(t, s, start, width)
            if _same(stored, content):
                self._nv.clear(t, s)
                return {"result": DELETED}
            if bytes(stored).find(content) >= 0:
                partial.append(s)
        if len(partial) == 1:
            self._nv.clear(t, partial[0])
            return {"result": DELETED}
        return {"result": NOOP, "matches": len(partial)} if partial else {"result": NOOP}

    # ---- special moments ----

    def _write_moment(self, fields, truncated):
        topic = text_field(fields, "topic", 24, truncated, required=False)
        content = text_field(fields, "content", MOMENT_SIZE - 36, truncated)
        emotion = emotion_code(_first(fields, "emotion", "emotion_type", 0))
        intensity = int_value("intensity", _first(fields, "intensity", "emotion_intensity", 3), 1, 5)
        importance = int_field(fields, "importance", 1, 5, 3)
        t = self._moments
        for s in t.slots():
            rid, learned, emo, inten, imp, _, tp, ct = struct.unpack_from(MOMENT_FMT, t.buf, s * MOMENT_SIZE)
            if _same(tp, topic) and _same(ct, content):
                if (emo, inten, imp) == (emotion, intensity, importance):
                    return {"result": NOOP}
                self._nv.put(t, s, struct.pack(MOMENT_FMT, rid, learned, emotion, intensity, importance, 0,
                                               topic, content))
                return {"result": UPDATED, "id": rid}
        out = {}
        if t.free_slot() < 0:
            out["archived"] = self._archive_oldest("moment", t, _MOMENT_ARCHIVE)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(MOMENT_FMT, rid, self._now(), emotion, intensity, importance,
                                                   0, topic, content))
        out["result"] = ADDED
        out["id"] = rid
        return out

    def _moment_item(self, slot, for_archive):
        rid, learned, emo, inten, imp, _, topic, content = struct.unpack_from(MOMENT_FMT, self._moments.buf,
                                                                              slot * MOMENT_SIZE)
        item = {"id": rid, "learned_at": learned, "topic": decode(topic), "content": decode(content),
                "importance": imp}
        if for_archive:
            item["type"] = "moment"
            item["emotion_type"] = emo
            item["emotion_intensity"] = inten
        else:
            item["emotion"] = EMOTIONS[emo] if emo < len(EMOTIONS) else "neutral"
            item["intensity"] = inten
        return item

    # ---- chat ring: 30 messages, 5 to a key, the oldest overwritten ----

    def _write_chat(self, fields, truncated):
        role = fields.get("role", "user")
        if role not in ROLES:
            raise ValueError("role must be user or assistant, got %r" % (role,))
        content = text_field(fields, "content", CHAT_SIZE - 9, truncated)
        seq = self._chat_seq
        self._chat_seq += 1
        slot = (seq - 1) % self._chat.cap
        self._nv.put(self._chat, slot, struct.pack(CHAT_FMT, seq, self._now(), ROLES.index(role) + 1, content))
        return {"result": ADDED, "seq": seq}

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
            raise ValueError("schedule capacity is %d events and all are in use; delete or complete one first"
                             % t.cap)
        truncated = []
        data = ev.pack(truncated)
        ev.id = self._nv.new_id()
        ev.learned_at = ev.learned_at or self._now()
        struct.pack_into("<II", data, 0, ev.id, ev.learned_at)
        ev.content = Event.unpack(data).content
        self._nv.put(t, slot, data)
        return ADDED

    def update_event(self, ev):
        """Replace the stored event with ev.id: one record, one key, so one atomic NVS write."""
        slot = self._event_slot(ev)
        if slot < 0:
            raise ValueError("no event with id %r" % (ev.id,))
        if not ev.learned_at:
            ev.learned_at = struct.unpack_from("<I", self._events.buf, slot * EVENT_SIZE + 4)[0]
        data = ev.pack([])
        return UPDATED if self._nv.put(self._events, slot, data) else NOOP

    def delete_event(self, ev):
        slot = self._event_slot(ev)
        if slot < 0:
            return NOOP
        self._nv.clear(self._events, slot)
        return DELETED

    def _event_slot(self, ev):
        rid = ev if isinstance(ev, int) else ev.id
        for s in self._events.slots():
            if struct.unpack_from("<I", self._events.buf, s * EVENT_SIZE)[0] == rid:
                return s
        return -1

    # ---- affection stats ----

    def affection(self):
        if not self._affection.used[0]:
            return {"total_coins_spent": 0, "mood": "", "soul_state_code": 0, "interactions": 0,
                    "last_interaction": 0}
        coins, count, last, soul, mood = struct.unpack_from(AFFECTION_FMT, self._affection.buf, 0)
        return {"total_coins_spent": coins, "mood": decode(mood), "soul_state_code": soul,
                "interactions": count, "last_interaction": last}

    def set_affection(self, fields):
        """Set any of total_coins_spent, mood, soul_state_code (0-15 or "0110"), interactions, last_interaction."""
        fields = _fields(fields)
        a = self.affection()
        truncated = []
        for name in fields:
            if name == "total_coins_spent":
                a[name] = int_value(name, fields[name], 0, 0x7FFFFFFF)
            elif name == "mood":
                a[name] = text_field(fields, "mood", 16, truncated, required=False).decode()
            elif name == "soul_state_code":
                a[name] = _soul_code(fields[name])
            elif name == "interactions" or name == "last_interaction":
                a[name] = int_value(name, fields[name], 0, _U32_MAX)
            else:
                raise ValueError("unknown affection field %r" % name)
        data = struct.pack(AFFECTION_FMT, a["total_coins_spent"], a["interactions"], a["last_interaction"],
                           a["soul_state_code"], a["mood"].encode())
        existed = self._affection.used[0]
        changed = self._nv.put(self._affection, 0, data)
        out = {"result": (UPDATED if existed else ADDED) if changed else NOOP}
        if truncated:
            out["truncated"] = truncated
        return out

    def add_coins(self, amount):
        amount = int_value("amount", amount, -0x7FFFFFFF, 0x7FFFFFFF)
        total = self.affection()["total_coins_spent"] + amount
        return self.set_affection({"total_coins_spent": total if total > 0 else 0})

    # ---- archive rules ----

    def _archive_oldest(self, kind, table, n):
        slots = self._oldest_first(table)[:n]
        try:
            return self._archive(kind, table, slots)
        except (OSError, ValueError) as e:
            raise OSError("%s capacity %d reached and archiving the oldest %d failed (%s); nothing was changed"
                          % (kind, table.cap, n, e))

    def _archive(self, kind, table, slots):
        """Hand records to the archive, then drop them from NVS: a crash between can duplicate, never lose."""
        if self.archiver is None:
            raise OSError("no archive is configured")
        if kind == "fact":
            items = []
            for s in slots:
                rid, learned, content = struct.unpack_from(FACT_FMT, table.buf, s * FACT_SIZE)
                items.append({"id": rid, "type": "fact", "learned_at": learned, "content": decode(content)})
        elif kind == "moment":
            items = [self._moment_item(s, True) for s in slots]
        else:
            items = []
            for s in slots:
                ev = Event.unpack(table.buf, s * EVENT_SIZE)
                items.append({"id": ev.id, "type": "event", "learned_at": ev.learned_at, "content": ev.content,
                              "when": ev.when, "event_type": ev.event_type, "priority": ev.priority,
                              "repeat": ev.repeat, "completed": ev.completed})
        # An id that reached the archive must never be handed out again, even if power fails
        # before the next flush (only records added since the last flush can need this write).
        self._nv.save_ids(max(i["id"] for i in items))
        self.archiver.append(kind, items)
        for s in slots:
            self._nv.clear(table, s)
        return len(slots)

    def archive_aged(self, now=None, max_age_days=30, event_grace=_DAY):
        """Archive facts and moments learned over `max_age_days` ago and one-off events that ended more
        than `event_grace` seconds ago, then flush. Returns counts per kind (and "errors" if any)."""
        now = self._now() if now is None else now
        out = {"fact": 0, "moment": 0, "event": 0}
        if not clock.is_set(now):
            out["skipped"] = "clock is not set"
            return out
        cutoff = now - max_age_days * _DAY
        for kind, t in (("fact", self._facts), ("moment", self._moments), ("event", self._events)):
            slots = []
            for s in self._oldest_first(t):
                if kind == "event":
                    ev = Event.unpack(t.buf, s * EVENT_SIZE)
                    if ev.repeat == 0 and ev.when + event_grace < now:
                        slots.append(s)
                elif struct.unpack_from("<I", t.buf, s * t.size + 4)[0] < cutoff:
                    slots.append(s)
            if not slots:
                continue
            try:
                out[kind] = self._archive(kind, t, slots)
            except (OSError, ValueError) as e:
                out.setdefault("errors", []).append("%s: %s" % (kind, e))
        self.flush()
        return out

    # ---- batching ----

    def flush(self):
        """Write every pending change to NVS; returns the number of NVS writes."""
        return self._nv.flush()

    def pending(self):
        """NVS writes waiting for the next flush."""
        return self._nv.pending()

    def tick(self, now=None, slack=0):
        """Flush if the oldest unsaved change is `flush_within` seconds old (less `slack`). Returns writes."""
        since = self._nv.dirty_since
        if since is None:
            return 0
        if (self._now() if now is None else now) - since + slack >= self.flush_within:
            return self.flush()
        return 0

    async def autoflush(self, every=5):
        """Run forever: check every `every` seconds so no change waits longer than `flush_within`."""
        import asyncio

        while True:
            await asyncio.sleep(every)
            try:
                self.tick(slack=every)
            except OSError as e:
                print("memory: flush failed, changes kept in RAM:", e)

    def end_conversation(self):
        """Count the interaction and flush the conversation's writes together. Returns NVS writes."""
        a = self.affection()
        self.set_affection({"interactions": a["interactions"] + 1, "last_interaction": self._now()})
        return self.flush()

    def stats(self):
        records = {}
        for t in self._nv.tables:
            if t is not self._prefs:
                records[t.name] = t.count()
        records["like"] = len(self.read("like"))
        records["dislike"] = len(self.read("dislike"))
        out = {
            "records": records,
            "pending": self.pending(),
            "entries": {"used": self._nv.entries_now(), "all_full": self._nv.entries()},
            "corrupt_keys": self._nv.corrupt,
        }
        flash = _nvs_flash()
        if flash is not None:
            out["nvs"] = {"used": flash.entries_used(), "free": flash.entries_free(), "usable": flash.usable_entries}
        if self.keyed is not None:
            out["keyed"] = self.keyed.count()
        return out

    # ---- helpers ----

    def _text(self, t, slot, start, width):
        off = slot * t.size + start
        return memoryview(t.buf)[off : off + width]

    def _oldest_first(self, t):
        """Used slots by learned_at, then id."""
        keyed = []
        for s in t.slots():
            rid, learned = struct.unpack_from("<II", t.buf, s * t.size)
            keyed.append((learned, rid, s))
        keyed.sort()
        return [k[2] for k in keyed]


def _same(raw, data):
    """Whether a NUL-padded field holds exactly `data`."""
    n = len(data)
    if n > len(raw) or raw[:n] != data:
        return False
    return n == len(raw) or raw[n] == 0


def _first(fields, a, b, default):
    value = fields.get(a)
    if value is None:
        value = fields.get(b)
    return default if value is None else value


def _fields(fields):
    if fields is None:
        return {}
    if not isinstance(fields, dict):
        raise ValueError("fields must be an object, got %s" % type(fields).__name__)
    return fields


def _unknown(kind, known):
    return "unknown memory type %r; known types: %s" % (kind, ", ".join(known))


def _soul_code(value):
    if isinstance(value, str) and len(value) == 4 and value.count("0") + value.count("1") == 4:
        return int(value, 2)
    return int_value("soul_state_code", value, 0, 15)


def _schedule(ev):
    return {"id": ev.id, "content": ev.content, "datetime": clock.format_local(ev.when),
            "repeat": REPEATS[ev.repeat], "priority": ev.priority, "reminded": ev.reminded,
            "completed": ev.completed}


def _nvs_flash():
    """The simulator's partition accounting; the real esp32 module cannot report it."""
    import esp32

    return esp32.nvs_flash() if hasattr(esp32, "nvs_flash") else None
