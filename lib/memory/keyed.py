# Keyed memories pushed by the host (seeds 000, 001): one JSON file per `mem_xxx` key on LittleFS
# (128 records of ~250 bytes do not fit the NVS budget). A put writes "<key>.tmp" and renames it
# over "<key>.json", atomic on LittleFS: a power cut leaves the old record or the new. When the
# store opens, stray .tmp files are removed and files named like no key are set aside.

import json

from micropython import const

from memory import clock, fs, statefile, steps
from memory.records import ADDED, DELETED, NOOP, UPDATED, cut, int_value, trim

SOURCES = ("user", "assistant", "both", "reflection", "sieve")
_SOURCE_ALIASES = {"用户输入": "user", "AI输出": "assistant"}
_KEY_MAX = const(12)  # characters after "mem_"
_CATEGORY_BYTES = const(24)
_PAYLOAD_BYTES = const(200)
_TAGS_MAX = const(4)
_TAG_BYTES = const(16)
_U32_MAX = const(0xFFFFFFFF)
_RECORD_ROOM = const(8192)  # a record's file (one block, it is too big to live inline) and its metadata
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def check_key(key):
    """`mem_` followed by 1-12 of [a-z0-9_]."""
    if not _is_key(key):
        raise ValueError("key must be mem_ plus 1-%d of a-z, 0-9 and _, got %r" % (_KEY_MAX, key))
    return key


def _is_key(key):
    return (isinstance(key, str) and key[:4] == "mem_" and 1 <= len(key) - 4 <= _KEY_MAX
            and not [c for c in key[4:] if c not in _KEY_CHARS])


class KeyedStore:
    """Keyed memories in `directory` (e.g. /data/keyed), at most `capacity` of them."""

    def __init__(self, directory, capacity=128, now=None, room=None, check=True):
        """check: False when a store over the same folder was opened (and checked) this boot already."""
        self.dir = directory.rstrip("/")
        self.capacity = capacity
        self._now = now or clock.now
        self._room = room  # room(bytes): make that much space or raise MemoryFull (archive.make_room)
        if not check:
            return
        statefile.folder(self.dir)
        for name in fs.listdir(self.dir):
            if name.endswith(".tmp"):
                fs.remove(self._path(name[:-4], ".tmp"))
            elif name.endswith(".json") and not _is_key(name[:-5]):
                statefile.set_aside(self.dir + "/" + name, "not a key's file name")
        for key in self.keys():
            self.get(key)  # a damaged record is set aside now, so the boot log names it

    def _path(self, key, ext=".json"):
        return "%s/%s%s" % (self.dir, key, ext)

    def keys(self):
        return sorted(n[:-5] for n in fs.listdir(self.dir) if n.endswith(".json") and _is_key(n[:-5]))

    def count(self):
        return len(self.keys())

    def get(self, key):
        """The record as a dict, or None."""
        check_key(key)
        return statefile.load(self._path(key), lambda rec: _check_record(key, rec))

    def list(self, category=None, limit=None):
        """Records in key order, optionally of one category, at most `limit`."""
        return steps.finish(self.list_steps(category, limit))

    def list_steps(self, category=None, limit=None):
        """list() as a generator (memory.steps): a step per record read."""
        out = []
        for key in self.keys():
            if limit is not None and len(out) >= limit:
                break
            yield
            rec = self.get(key)
            if rec is not None and (category is None or rec.get("category") == category):
                out.append(rec)
        return out

    def put(self, fields):
        """Add or replace the record fields["key"]; {"result": ADDED|UPDATED|NOOP, "truncated": [...]}.

        The host owns every field; ones it leaves out get seed 000's defaults: a new record starts
        with trigger_count 1 and all three times now, a replaced one keeps created_at and counts
        one more trigger.
        """
        if not isinstance(fields, dict):
            raise ValueError("fields must be an object, got %s" % type(fields).__name__)
        key = check_key(fields.get("key"))
        old = self.get(key)
        if old is None and self.count() >= self.capacity:
            raise ValueError("keyed memories are full (%d stored); delete one first" % self.capacity)
        truncated = []
        now = self._now()
        rec = {"key": key}
        rec["category"] = _text(fields, "category", _CATEGORY_BYTES, truncated)
        rec["payload"] = _text(fields, "payload", _PAYLOAD_BYTES, truncated)
        rec["importance"] = int_value("importance", fields.get("importance"), 1, 10)
        rec["source"] = _source(fields.get("source"))
        rec["tags"] = _tags(fields.get("tags"), truncated)
        if old is None:
            defaults = {"trigger_count": 1, "created_at": now, "updated_at": now, "last_triggered": now}
        else:
            defaults = {"trigger_count": old.get("trigger_count", 0) + 1, "created_at": old.get("created_at", now),
                        "updated_at": now, "last_triggered": now}
        for name in ("trigger_count", "created_at", "updated_at", "last_triggered"):
            value = fields.get(name)
            rec[name] = defaults[name] if value is None else int_value(name, value, 0, _U32_MAX)
        if old == rec:
            return {"result": NOOP}
        if self._room is not None:
            self._room(_RECORD_ROOM)
        tmp = self._path(key, ".tmp")
        try:
            with fs.open(tmp, "w") as f:
                json.dump(rec, f)
            fs.rename(tmp, self._path(key))
        except OSError:
            try:
                fs.remove(tmp)  # the old record (or none) stays, as the refusal says
            except OSError:
                pass
            raise
        out = {"result": ADDED if old is None else UPDATED}
        if truncated:
            out["truncated"] = truncated
        return out

    def delete(self, key):
        check_key(key)
        path = self._path(key)
        if not fs.exists(path):
            return {"result": NOOP}
        try:
            fs.remove(path)
        except OSError:
            if fs.exists(path):
                raise  # still there: the refusal is the truth
        return {"result": DELETED}


def _check_record(key, rec):
    """What is wrong with a stored record (None if nothing): it must be what put() writes."""
    if not isinstance(rec, dict) or rec.get("key") != key:
        return "not the record of %s" % key
    for name in ("category", "payload", "source"):
        if not isinstance(rec.get(name), str):
            return "%s is not text" % name
    for name in ("importance", "trigger_count", "created_at", "updated_at", "last_triggered"):
        if not statefile.is_int(rec.get(name)):
            return "%s is not a number" % name
    tags = rec.get("tags")
    if not isinstance(tags, list) or [t for t in tags if not isinstance(t, str)]:
        return "tags is not a list of text"
    return None


def _text(fields, name, limit, truncated):
    value = fields.get(name)
    trimmed = trim(value) if isinstance(value, str) else ""
    if not trimmed:
        raise ValueError("%s must be a non-empty string, got %r" % (name, value))
    data, was_cut = cut(trimmed, limit)
    if was_cut or trimmed != value:
        truncated.append(name)
    return data.decode()


def _source(value):
    value = _SOURCE_ALIASES.get(value, value)
    if value not in SOURCES:
        raise ValueError("source must be one of %s, got %r" % (", ".join(SOURCES), value))
    return value


def _tags(value, truncated):
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("tags must be a list of strings, got %s" % type(value).__name__)
    if len(value) > _TAGS_MAX:
        raise ValueError("tags may hold at most %d, got %d" % (_TAGS_MAX, len(value)))
    out = []
    for tag in value:
        if not isinstance(tag, str):
            raise ValueError("tags must be strings, got %r" % (tag,))
        trimmed = trim(tag)
        data, was_cut = cut(trimmed, _TAG_BYTES)
        if (was_cut or trimmed != tag) and "tags" not in truncated:
            truncated.append("tags")
        out.append(data.decode())
    return out
