# memory_sync: op batches from the host applied once each, and export/import of all memory.
#
# The replay log (last 32 batch ids with their results) is a JSON file written new-then-renamed
# after the batch's changes are flushed. A power cut between the two makes the host resend a batch
# that was applied; every op but `coins` gives the same state when applied twice, so a batch with
# coins first logs the total it starts from, and a resent one adds its coins to that total again.

import json

from micropython import const

from memory import fs
from memory.service import coin_amount
from memory.store import TYPES as STORE_TYPES

_KEEP_BATCHES = const(32)
_MAX_OPS = const(64)
_MAX_BATCH_ID = const(64)
_PAGE_BYTES = const(8000)  # an export page stays well inside one 16 KB WebSocket message
_PROFILE = ("name", "age", "gender", "location", "birthday")
_SECTIONS = _PROFILE + ("like", "dislike", "family", "fact", "trait", "habit", "moment", "goal", "schedule",
                        "affection", "keyed")
OPS = ("write", "delete", "put_mem", "del_mem", "coins", "mood")


class Sync:
    def __init__(self, memory, log_path):
        self.memory = memory
        self.log_path = log_path
        self.log = []  # [[batch_id, result or {"coins_before": n} while applying], ...], oldest first
        self._coins = 0  # total_coins_spent as the batch being applied has left it
        self.log_error = None
        self._load()

    def _load(self):
        try:
            with fs.open(self.log_path) as f:
                log = json.loads(f.read())
            if isinstance(log, list):
                self.log = log
        except OSError:
            pass
        except ValueError as e:
            # A damaged log only forgets which batches were seen; resent batches are still safe
            # because ops are idempotent apart from coins.
            self.log_error = "replay log unreadable, started empty: %s" % e

    def _save(self):
        tmp = self.log_path + ".tmp"
        with fs.open(tmp, "w") as f:
            f.write(json.dumps(self.log))
        fs.rename(tmp, self.log_path)

    def _seen(self, batch_id):
        for entry in self.log:
            if entry[0] == batch_id:
                return entry[1]
        return None

    def apply(self, batch_id, ops):
        if not isinstance(batch_id, str) or not 0 < len(batch_id) <= _MAX_BATCH_ID:
            raise ValueError("batch_id must be a string of 1-%d characters, got %r" % (_MAX_BATCH_ID, batch_id))
        if not isinstance(ops, list) or not 0 < len(ops) <= _MAX_OPS:
            raise ValueError("ops must be a list of 1-%d ops" % _MAX_OPS)
        first = self._seen(batch_id)
        if first is not None and "results" in first:
            out = dict(first)
            out["replayed"] = True
            return out
        if first is not None:
            self._coins = first["coins_before"]  # the power went while this batch was being applied
        elif _has_coins(ops):
            self._coins = self.memory.store.affection()["total_coins_spent"]
            self._remember(batch_id, {"batch_id": batch_id, "coins_before": self._coins})
        results = [self._apply_one(op) for op in ops]
        self.memory.store.flush()
        out = {"batch_id": batch_id, "replayed": False, "results": results}
        self._remember(batch_id, out)
        return out

    def _remember(self, batch_id, out):
        """Log `out` for `batch_id` (replacing its start entry) and save the log."""
        for entry in self.log:
            if entry[0] == batch_id:
                entry[1] = out
                break
        else:
            self.log.append([batch_id, out])
            if len(self.log) > _KEEP_BATCHES:
                self.log.pop(0)
        self._save()

    def _add_coins(self, op):
        """Coins counted from the batch's starting total, so a resent batch lands on the same total."""
        total = self._coins + coin_amount(op)
        total = total if total > 0 else 0
        out = self.memory.store.set_affection({"total_coins_spent": total})
        self._coins = total
        return out

    def _apply_one(self, op):
        if not isinstance(op, dict) or op.get("op") not in OPS:
            name = op.get("op") if isinstance(op, dict) else op
            return {"op": name, "result": "REFUSED", "detail": "op must be one of %s" % ", ".join(OPS)}
        name = op["op"]
        m = self.memory
        try:
            if name == "write" and op.get("learned_at") and _kind(op) in STORE_TYPES:
                out = m.store.restore(op["type"], op, op["learned_at"])
            elif name == "write":
                out = m.write(_kind(op), op)
            elif name == "delete":
                out = m.delete(_kind(op), op)
            elif name == "put_mem":
                out = _keyed(m).put(op)
            elif name == "del_mem":
                out = _keyed(m).delete(op.get("key"))
            elif name == "coins":
                out = self._add_coins(op)
            else:
                fields = {"mood": op.get("mood", "")}
                if op.get("soul_state_code") is not None:
                    fields["soul_state_code"] = op["soul_state_code"]
                out = m.store.set_affection(fields)
        except (ValueError, OSError) as e:
            return {"op": name, "result": "REFUSED", "detail": str(e)}
        if isinstance(out, str):
            out = {"result": out}
        result = {"op": name, "result": out.get("result", "NOOP")}
        if out.get("truncated"):
            result["detail"] = "trimmed or cut to fit: %s" % ", ".join(out["truncated"])
        elif out.get("result") == "CONFLICT":
            result["detail"] = "conflicts with %s" % ", ".join(c["content"] for c in out["conflicts"])
        return result

    def export(self, cursor=None, limit=100):
        """A page of records, each {"type", ...fields}; `next_cursor` is "section:index" or None."""
        section, index = _parse_cursor(cursor)
        if not isinstance(limit, int) or not 0 < limit <= 200:
            raise ValueError("limit must be 1-200, got %r" % (limit,))
        records = []
        size = 0
        for si in range(section, len(_SECTIONS)):
            items = self._section(_SECTIONS[si])
            start = index if si == section else 0
            for i in range(start, len(items)):
                item = items[i]
                item["type"] = _SECTIONS[si]
                size += len(json.dumps(item))
                if records and (len(records) >= limit or size > _PAGE_BYTES):
                    return {"records": records, "next_cursor": "%s:%d" % (_SECTIONS[si], i)}
                records.append(item)
        return {"records": records, "next_cursor": None}

    def _section(self, name):
        m = self.memory
        if name == "schedule":
            return m.schedules.upcoming(limit=64)
        if name == "affection":
            return [m.store.affection()]
        if name == "keyed":
            return m.keyed.list() if m.keyed else []
        return m.store.read(name)

    def import_records(self, batch_id, records):
        """Apply an export's records as one batch.

        The receiving device numbers the records itself; they keep the times they were learned.
        """
        if not isinstance(records, list) or not 0 < len(records) <= _MAX_OPS:
            raise ValueError("records must be a list of 1-%d records" % _MAX_OPS)
        return self.apply(batch_id, [_record_op(r) for r in records])


def _kind(op):
    kind = op.get("type")
    if not isinstance(kind, str) or not kind:
        raise ValueError("type is required")
    return kind


def _keyed(memory):
    if memory.keyed is None:
        raise OSError("keyed memories need the memory partition, which is not mounted")
    return memory.keyed


def _parse_cursor(cursor):
    if cursor is None or cursor == "":
        return 0, 0
    parts = cursor.split(":") if isinstance(cursor, str) else []
    if len(parts) != 2 or parts[0] not in _SECTIONS or not parts[1].isdigit():
        raise ValueError("cursor must be a next_cursor from a previous export, got %r" % (cursor,))
    return _SECTIONS.index(parts[0]), int(parts[1])


def _record_op(record):
    if not isinstance(record, dict) or record.get("type") not in _SECTIONS:
        return {"op": "write", "type": record.get("type") if isinstance(record, dict) else None}
    kind = record["type"]
    if kind == "keyed":
        op = dict(record)
        op["op"] = "put_mem"
        return op
    if kind == "affection":
        return {"op": "coins", "amount": record.get("total_coins_spent", 0)}
    op = dict(record)
    op.pop("id", None)  # the receiving device numbers its records itself
    op["op"] = "write"
    if kind == "schedule":
        op["force"] = True
    return op


def _has_coins(ops):
    for op in ops:
        if isinstance(op, dict) and op.get("op") == "coins":
            return True
    return False
