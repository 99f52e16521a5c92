# Things learned in conversation: facts, traits, habits, goals (one text each), special moments, the chat ring.

import struct

from micropython import const

from memory.nvstore import Table
from memory.records import (
    ADDED,
    CHAT_FMT,
    CHAT_SIZE,
    DELETED,
    EMOTIONS,
    MOMENT_FMT,
    MOMENT_SIZE,
    NOOP,
    ROLES,
    UPDATED,
    decode,
    int_field,
    int_value,
    same,
    text_field,
)
from memory.refusal import Refusal

_HEAD = const(8)  # id and learned_at before a note's text
_MOMENT_TEXT = const(36)  # offset of a moment's content
_U32_MAX = const(0xFFFFFFFF)


class Notes:
    """Records of id, learned_at and one text: fact, trait, habit or goal.

    When full, a kind with an `on_full(kind, table, n)` hook hands its oldest `batch` records to
    it (facts to the archive); the others refuse the write.
    """

    def __init__(self, nv, now, kind, prefix, size, cap, per_key=1, on_full=None, batch=0):
        self._nv = nv
        self._now = now
        self.kind = kind
        self.fmt = "<II%ds" % (size - _HEAD)
        self.width = size - _HEAD
        self.table = Table(kind, prefix, size, cap, per_key)
        self._on_full = on_full
        self._batch = batch

    def write(self, fields, truncated):
        t = self.table
        content = text_field(fields, "content", self.width, truncated)
        for s in t.slots():
            if same(t.field(s, _HEAD, self.width), content):
                return {"result": NOOP}
        out = {}
        if t.free_slot() < 0:
            if self._on_full is None:
                raise Refusal("%ss are full (%d stored); delete one first" % (self.kind, t.cap), "full", self.kind, None, t.cap)
            out["archived"] = self._on_full(self.kind, t, self._batch)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(self.fmt, rid, self._now(), content))
        out["result"] = ADDED
        out["id"] = rid
        return out

    def delete(self, fields):
        return delete_text(self._nv, self.table, _HEAD, self.width, fields)

    def read(self):
        out = []
        for s in self.table.oldest_first():
            rid, learned, content = struct.unpack_from(self.fmt, self.table.buf, s * self.table.size)
            out.append({"id": rid, "content": decode(content), "learned_at": learned})
        return out

    def archive_item(self, slot):
        rid, learned, content = struct.unpack_from(self.fmt, self.table.buf, slot * self.table.size)
        return {"id": rid, "type": self.kind, "learned_at": learned, "content": decode(content)}


class Moments:
    """Special moments: topic, content, emotion type and intensity, importance; matched by topic + content."""

    def __init__(self, nv, now, on_full, batch):
        self._nv = nv
        self._now = now
        self.table = Table("moment", "mos", MOMENT_SIZE, 10, 5)
        self._on_full = on_full
        self._batch = batch

    def write(self, fields, truncated):
        topic = text_field(fields, "topic", 24, truncated, required=False)
        content = text_field(fields, "content", MOMENT_SIZE - _MOMENT_TEXT, truncated)
        from memory import fieldcodes

        emotion = fieldcodes.emotion_code(_first(fields, "emotion", "emotion_type", 0))
        intensity = int_value("intensity", _first(fields, "intensity", "emotion_intensity", 3), 1, 5)
        importance = int_field(fields, "importance", 1, 5, 3)
        t = self.table
        for s in t.slots():
            rid, learned, emo, inten, imp, _, tp, ct = struct.unpack_from(MOMENT_FMT, t.buf, s * MOMENT_SIZE)
            if same(tp, topic) and same(ct, content):
                if (emo, inten, imp) == (emotion, intensity, importance):
                    return {"result": NOOP}
                self._nv.put(t, s, struct.pack(MOMENT_FMT, rid, learned, emotion, intensity, importance, 0,
                                               topic, content))
                return {"result": UPDATED, "id": rid}
        out = {}
        if t.free_slot() < 0:
            out["archived"] = self._on_full("moment", t, self._batch)
        rid = self._nv.new_id()
        self._nv.put(t, t.free_slot(), struct.pack(MOMENT_FMT, rid, self._now(), emotion, intensity, importance,
                                                   0, topic, content))
        out["result"] = ADDED
        out["id"] = rid
        return out

    def delete(self, fields):
        return delete_text(self._nv, self.table, _MOMENT_TEXT, MOMENT_SIZE - _MOMENT_TEXT, fields)

    def read(self):
        out = []
        for s in self.table.oldest_first():
            rid, learned, emo, inten, imp, _, topic, content = self._unpack(s)
            out.append({"id": rid, "learned_at": learned, "topic": decode(topic), "content": decode(content),
                        "emotion": EMOTIONS[emo] if emo < len(EMOTIONS) else "neutral", "intensity": inten,
                        "importance": imp})
        return out

    def archive_item(self, slot):
        rid, learned, emo, inten, imp, _, topic, content = self._unpack(slot)
        return {"id": rid, "type": "moment", "learned_at": learned, "topic": decode(topic),
                "content": decode(content), "emotion_type": emo, "emotion_intensity": inten, "importance": imp}

    def _unpack(self, slot):
        return struct.unpack_from(MOMENT_FMT, self.table.buf, slot * MOMENT_SIZE)


class Chat:
    """The last 30 messages, 5 to a key; message `seq` lives in slot (seq - 1) mod 30."""

    def __init__(self, nv, now):
        self._nv = nv
        self._now = now
        self.table = Table("chat", "ch", CHAT_SIZE, 30, 5, counted=False)
        self._seq = 0

    def loaded(self):
        """Continue the sequence after the highest stored message (call after the NVS load)."""
        self._seq = 0
        for s in self.table.slots():
            if self.table.u32(s) > self._seq:
                self._seq = self.table.u32(s)

    def write(self, fields, truncated):
        role = fields.get("role", "user")
        if role not in ROLES:
            raise ValueError("role must be user or assistant, got %r" % (role,))
        content = text_field(fields, "content", CHAT_SIZE - 9, truncated)
        self._seq += 1
        slot = (self._seq - 1) % self.table.cap
        self._nv.put(self.table, slot, struct.pack(CHAT_FMT, self._seq, self._now(), ROLES.index(role) + 1,
                                                   content))
        return {"result": ADDED, "seq": self._seq}

    def clear(self):
        n = 0
        for s in self.table.slots():
            n += self._nv.clear(self.table, s)
        return {"result": DELETED if n else NOOP, "count": n}

    def read(self):
        """Messages oldest first."""
        msgs = []
        for s in self.table.slots():
            seq, at, role, content = struct.unpack_from(CHAT_FMT, self.table.buf, s * CHAT_SIZE)
            msgs.append((seq, {"seq": seq, "role": ROLES[role - 1], "content": decode(content), "at": at}))
        msgs.sort(key=lambda m: m[0])
        return [m[1] for m in msgs]


def delete_text(nv, table, start, width, fields):
    """Delete by id, by exact text, or by a fragment found in exactly one record."""
    if fields.get("id") is not None:
        slot = table.find_id(int_value("id", fields["id"], 1, _U32_MAX))
        if slot < 0:
            return {"result": NOOP}
        nv.clear(table, slot)
        return {"result": DELETED}
    content = text_field(fields, "content", width, [])
    partial = []
    for s in table.slots():
        stored = table.field(s, start, width)
        if same(stored, content):
            nv.clear(table, s)
            return {"result": DELETED}
        if bytes(stored).find(content) >= 0:
            partial.append(s)
    if len(partial) == 1:
        nv.clear(table, partial[0])
        return {"result": DELETED}
    return {"result": NOOP, "matches": len(partial)} if partial else {"result": NOOP}


def _first(fields, a, b, default):
    value = fields.get(a)
    if value is None:
        value = fields.get(b)
    return default if value is None else value
