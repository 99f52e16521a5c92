# The user as a person in the hot store: profile fields, likes and dislikes, family, affection stats.

import struct

from micropython import const

from memory.nvstore import Table
from memory.records import (
    ADDED,
    AFFECTION_FMT,
    AFFECTION_SIZE,
    DELETED,
    DISLIKE,
    FAMILY_FMT,
    FAMILY_SIZE,
    GENDERS,
    LIKE,
    NOOP,
    PREF_FMT,
    PREF_SIZE,
    PROFILE_FMT,
    PROFILE_SIZE,
    UPDATED,
    decode,
    int_field,
    int_value,
    same,
    text_field,
)
from memory.refusal import Refusal

PROFILE_FIELDS = ("name", "age", "gender", "location", "birthday")

_AGE_UNSET = const(255)
_PREF_CAP = const(8)  # likes, and dislikes, each
_PREF_TEXT = const(31)
_U32_MAX = const(0xFFFFFFFF)


class Profile:
    """One record; each of its five fields keeps the time it was learned."""

    def __init__(self, nv, now):
        self._nv = nv
        self._now = now
        self.table = Table("profile", "pf", PROFILE_SIZE, 1, counted=False)

    def write(self, kind, fields, truncated):
        value = fields.get("content", fields.get(kind))
        if value is None:
            raise Refusal("content is required for %s" % kind, "missing", "content")
        if kind == "age":
            value = int_value("age", value, 0, 150)
        elif kind == "gender":
            from memory import fieldcodes

            value = fieldcodes.gender_code(value)
        elif kind == "birthday":
            from memory import fieldcodes

            value = fieldcodes.check_birthday(value).encode()
        else:
            value = text_field({kind: value}, kind, 32, truncated)
        return self.set(kind, value)

    def set(self, kind, value):
        """Set one field (already validated), or clear it with None."""
        i = PROFILE_FIELDS.index(kind)
        if self.table.used[0]:
            vals = list(struct.unpack_from(PROFILE_FMT, self.table.buf, 0))
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
        self._nv.put(self.table, 0, data)
        return {"result": result}

    def as_dict(self, with_times):
        """The fields that are set; with_times adds "<field>_learned_at"."""
        if not self.table.used[0]:
            return {}
        vals = struct.unpack_from(PROFILE_FMT, self.table.buf, 0)
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


class Preferences:
    """8 likes and 8 dislikes in one key, so moving an item between them is one atomic write."""

    def __init__(self, nv, now):
        self._nv = nv
        self._now = now
        self.table = Table("preferences", "pr", PREF_SIZE, 2 * _PREF_CAP, 2 * _PREF_CAP)

    def _kind(self, slot):
        return self.table.buf[slot * PREF_SIZE + 8]

    def write(self, kind, fields, truncated):
        item = text_field(fields, "content", _PREF_TEXT, truncated)
        want = LIKE if kind == "like" else DISLIKE
        t = self.table
        for s in t.slots():
            if same(t.field(s, 9, _PREF_TEXT), item):
                if self._kind(s) == want:
                    return {"result": NOOP}
                self._check_room(kind, want)
                self._nv.put(t, s, struct.pack(PREF_FMT, t.u32(s), self._now(), want, item))
                return {"result": UPDATED, "moved_from": "dislike" if want == LIKE else "like"}
        self._check_room(kind, want)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(PREF_FMT, rid, self._now(), want, item))
        return {"result": ADDED, "id": rid}

    def _check_room(self, kind, want):
        if self.count(want) >= _PREF_CAP:
            raise Refusal("%ss are full (%d stored); delete one first" % (kind, _PREF_CAP), "full", kind, None, _PREF_CAP)

    def count(self, want):
        n = 0
        for s in self.table.slots():
            n += self._kind(s) == want
        return n

    def delete(self, kind, fields):
        item = text_field(fields, "content", _PREF_TEXT, [])
        want = LIKE if kind == "like" else DISLIKE
        for s in self.table.slots():
            if self._kind(s) == want and same(self.table.field(s, 9, _PREF_TEXT), item):
                self._nv.clear(self.table, s)
                return {"result": DELETED}
        return {"result": NOOP}

    def read(self, kind):
        want = LIKE if kind == "like" else DISLIKE
        out = []
        for s in self.table.oldest_first():
            rid, learned, k, item = struct.unpack_from(PREF_FMT, self.table.buf, s * PREF_SIZE)
            if k == want:
                out.append({"id": rid, "content": decode(item), "learned_at": learned})
        return out


class Family:
    """Up to 8 members, matched by relation + name."""

    def __init__(self, nv, now):
        self._nv = nv
        self._now = now
        self.table = Table("family", "fms", FAMILY_SIZE, 8, 4)

    def write(self, fields, truncated):
        if fields.get("name") is None and fields.get("content") is not None:
            fields = {"relation": fields.get("relation"), "name": fields["content"],
                      "closeness": fields.get("closeness")}
        relation = text_field(fields, "relation", 23, truncated)
        name = text_field(fields, "name", 32, truncated)
        closeness = int_field(fields, "closeness", 1, 5, 3)
        t = self.table
        for s in t.slots():
            rid, _, old, rel, nm = struct.unpack_from(FAMILY_FMT, t.buf, s * FAMILY_SIZE)
            if same(rel, relation) and same(nm, name):
                if old == closeness:
                    return {"result": NOOP}
                self._nv.put(t, s, struct.pack(FAMILY_FMT, rid, self._now(), closeness, relation, name))
                return {"result": UPDATED, "id": rid}
        slot = t.free_slot()
        if slot < 0:
            raise Refusal("family is full (%d members); delete one first" % t.cap, "full", "family", None, t.cap)
        rid = self._nv.new_id()
        self._nv.put(t, slot, struct.pack(FAMILY_FMT, rid, self._now(), closeness, relation, name))
        return {"result": ADDED, "id": rid}

    def delete(self, fields):
        """Members named `name` (or `content`) and/or of `relation`: at least one must be given."""
        name = text_field(fields, "name", 32, [], required=False) or text_field(fields, "content", 32, [], required=False)
        relation = text_field(fields, "relation", 23, [], required=False)
        if not name and not relation:
            raise ValueError("say which family member: name (or content) and/or relation")
        n = 0
        for s in self.table.slots():
            _, _, _, rel, nm = struct.unpack_from(FAMILY_FMT, self.table.buf, s * FAMILY_SIZE)
            if (not name or same(nm, name)) and (not relation or same(rel, relation)):
                n += self._nv.clear(self.table, s)
        return {"result": DELETED if n else NOOP}

    def read(self):
        out = []
        for s in self.table.oldest_first():
            rid, learned, closeness, relation, name = struct.unpack_from(FAMILY_FMT, self.table.buf,
                                                                         s * FAMILY_SIZE)
            out.append({"id": rid, "relation": decode(relation), "name": decode(name),
                        "closeness": closeness, "learned_at": learned})
        return out


class Affection:
    """total_coins_spent, mood, soul_state_code (seed 001), interactions, last_interaction."""

    def __init__(self, nv):
        self._nv = nv
        self.table = Table("affection", "af", AFFECTION_SIZE, 1, counted=False)

    def get(self):
        if not self.table.used[0]:
            return {"total_coins_spent": 0, "mood": "", "soul_state_code": 0, "interactions": 0,
                    "last_interaction": 0}
        coins, count, last, soul, mood = struct.unpack_from(AFFECTION_FMT, self.table.buf, 0)
        return {"total_coins_spent": coins, "mood": decode(mood), "soul_state_code": soul,
                "interactions": count, "last_interaction": last}

    def set(self, fields):
        a = self.get()
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
        existed = self.table.used[0]
        changed = self._nv.put(self.table, 0, data)
        out = {"result": (UPDATED if existed else ADDED) if changed else NOOP}
        if truncated:
            out["truncated"] = truncated
        return out


def _soul_code(value):
    """0-15, or seed 001's 4-bit string such as "0110"."""
    if isinstance(value, str) and len(value) == 4 and value.count("0") + value.count("1") == 4:
        return int(value, 2)
    return int_value("soul_state_code", value, 0, 15)
