# Full backup: every memory on the device as export records, page by page, and each record restored as it was.
#
# Records carry what a user would miss, not where the device kept it: no slot ids or chat sequence
# numbers (the receiving device numbers its records itself), but every time a memory was learned,
# schedules in every state with their flags, the chat ring, mood and affection, the host's keyed
# memories with their program fields, and optionally the archive (its lines as stored, ids and
# archive times included). Restoring a record that is already there changes nothing, so importing
# the same export twice, or into the device it came from, adds nothing.

import json

from micropython import const

from memory import clock
from memory.lines import LineReader
from memory.records import Event
from memory.schedule import parse_repeat

PAGE_BYTES = const(8000)  # an export page stays well inside one 16 KB WebSocket message
HOT = ("name", "age", "gender", "location", "birthday", "like", "dislike", "family", "fact", "trait", "habit",
       "moment", "goal", "chat", "schedule", "affection", "keyed")
_ARCHIVE_KINDS = ("fact", "moment", "event")
_AFFECTION = ("total_coins_spent", "mood", "soul_state_code", "interactions", "last_interaction")


class Exporter:
    """Pages of records. A cursor is "section:index" for the hot sections, and
    "archive:kind:month:part:offset" inside the archive, which comes first when asked for (so an
    import numbers its new records after the archived ids it brings along)."""

    def __init__(self, memory):
        self.memory = memory
        self._reader = None

    def page_steps(self, cursor=None, limit=100, archive=False):
        """A page as a generator (memory.steps): a step per section and per keyed memory read."""
        if not isinstance(limit, int) or isinstance(limit, bool) or not 0 < limit <= 200:
            raise ValueError("limit must be 1-200, got %r" % (limit,))
        if cursor is not None and not isinstance(cursor, str):
            _bad_cursor(cursor)
        records = []
        size = [0]
        if not cursor:
            cursor = "archive:" if archive and self.memory.archive is not None else "name:0"
        if cursor.startswith("archive:"):
            nxt = self._archive_page(cursor, limit, records, size)
            if nxt is not None:
                return {"records": records, "next_cursor": nxt}
            cursor = "name:0"
        section, index = _parse_cursor(cursor)
        for si in range(section, len(HOT)):
            yield
            items = yield from self._section_steps(HOT[si])
            for i in range(index if si == section else 0, len(items)):
                item = items[i]
                item["type"] = HOT[si]
                if not _fits(records, item, limit, size):
                    return {"records": records, "next_cursor": "%s:%d" % (HOT[si], i)}
        return {"records": records, "next_cursor": None}

    def _section_steps(self, name):
        m = self.memory
        if name == "affection":
            a = m.store.affection()
            return [{k: a[k] for k in _AFFECTION}]
        if name == "keyed":
            return (yield from m.keyed.list_steps()) if m.keyed else []
        items = m.store.read(name)
        for item in items:
            item.pop("id", None)  # the device's own numbering
            item.pop("seq", None)
        return items

    def _archive_page(self, cursor, limit, records, size):
        """Fill `records` from the archive from `cursor` on; the cursor to continue, None at its end."""
        a = self.memory.archive
        where = None
        if cursor != "archive:":
            where = cursor.split(":")[1:]
            if len(where) != 4 or where[0] not in _ARCHIVE_KINDS or not (where[1] + where[2] + where[3]).isdigit():
                _bad_cursor(cursor)
        if a is None:
            return None
        if self._reader is None:
            self._reader = LineReader()
        started = where is None
        for kind in _ARCHIVE_KINDS:
            if not started and kind != where[0]:
                continue
            for month in a._months(kind):
                if not started and month < where[1]:
                    continue
                mdir = a._mdir(kind, month)
                for n in a._parts(mdir):
                    offset = 0
                    if not started:
                        if month == where[1] and n < int(where[2]):
                            continue
                        if month == where[1] and n == int(where[2]):
                            offset = int(where[3])
                        started = True
                    lines = self._reader.lines("%s/%d.jsonl" % (mdir, n), offset)
                    try:
                        for line in lines:
                            try:
                                rec = json.loads(bytes(line))
                            except ValueError:
                                rec = None  # a damaged line: recall skips it too
                            if rec is not None and not _fits(records, {"type": "archive", "record": rec}, limit, size):
                                return "archive:%s:%s:%d:%d" % (kind, month, n, offset)
                            offset += len(line) + 1
                    finally:
                        lines.close()  # the part's file is closed now, not when the generator is collected
            started = True
        return None


def _fits(records, item, limit, size):
    size[0] += len(json.dumps(item))
    if records and (len(records) >= limit or size[0] > PAGE_BYTES):
        return False
    records.append(item)
    return True


def _bad_cursor(cursor):
    raise ValueError("cursor must be a next_cursor from a previous export, got %r" % (cursor,))


def _parse_cursor(cursor):
    parts = cursor.split(":") if isinstance(cursor, str) else []
    if len(parts) != 2 or parts[0] not in HOT or not parts[1].isdigit():
        _bad_cursor(cursor)
    return HOT.index(parts[0]), int(parts[1])


def restore(memory, record):
    """Put one export record back; {"type", "result", "detail" when refused or cut}."""
    kind = record.get("type") if isinstance(record, dict) else None
    out = {"type": kind}
    try:
        if kind not in HOT and kind != "archive":
            raise ValueError("type must be one of %s, archive" % ", ".join(HOT))
        got = _restore(memory, kind, record)
    except Exception as e:  # one record's refusal; the rest of the import goes on
        from memory.space import explain

        out["result"] = "REFUSED"
        out["detail"] = "missing field %s" % e if isinstance(e, KeyError) else explain(e)
        return out
    if isinstance(got, str):
        got = {"result": got}
    out["result"] = got.get("result", "NOOP")
    if got.get("truncated"):
        out["detail"] = "trimmed or cut to fit: %s" % ", ".join(got["truncated"])
    return out


def _restore(memory, kind, record):
    store = memory.store
    if kind == "affection":
        return store.set_affection({k: record[k] for k in _AFFECTION if k in record})
    if kind == "keyed":
        if memory.keyed is None:
            raise OSError("keyed memories need the memory partition, which is not mounted")
        return memory.keyed.put(record)
    if kind == "schedule":
        return _restore_event(store, record)
    if kind == "chat":
        for msg in store.read("chat"):
            if msg["at"] == record["at"] and msg["role"] == record["role"] and msg["content"] == record["content"]:
                return "NOOP"
        return store.restore("chat", record, record["at"])
    if kind == "archive":
        return _restore_archived(memory, record["record"])
    return store.restore(kind, record, record["learned_at"])


def _restore_event(store, record):
    fields = {}
    for name in ("when", "content", "event_type", "repeat", "anchor_day", "priority", "reminded", "completed",
                 "completed_at", "learned_at", "told", "emotion", "intensity", "significance"):
        if name in record:
            fields[name] = record[name]
    if "emotion" in fields:
        from memory.fieldcodes import emotion_code

        fields["emotion"] = emotion_code(fields["emotion"])
    if "when" not in fields and "datetime" in record:  # an export written before schedules kept `when`
        fields["when"] = clock.parse_local_datetime(record["datetime"])
    if isinstance(fields.get("repeat"), str):
        fields["repeat"] = parse_repeat(fields["repeat"])
    ev = Event(**fields)
    for old in store.events():
        if old.content == ev.content and old.when == ev.when:
            ev.id = old.id
            return store.update_event(ev)
    ev.pack([])  # checks every field before anything is stored
    return store.add_event(ev)


def _restore_archived(memory, line):
    if memory.archive is None:
        raise OSError("the archive needs the memory partition, which is not mounted")
    if not isinstance(line, dict) or line.get("type") not in _ARCHIVE_KINDS:
        raise ValueError("record must be an archive line with type fact, moment or event")
    item = dict(line)
    kind = item.pop("type")
    if isinstance(item.get("id"), int):
        memory.store.keep_ids_above(item["id"])  # this device must not hand the id out again
    return "ADDED" if memory.archive.append(kind, [item]) else "NOOP"

