# memory_sync: op batches from the host applied once each, and export/import of all memory (memory.backup).
#
# The replay log (last 32 batch ids with their results) is a JSON file written new-then-renamed
# after the batch's changes are committed (one journal record, see store.commit). A power cut
# between the two makes the host resend a batch that was applied; every op but `coins` gives the
# same state when applied twice, so a batch with coins first logs the total it starts from, and a
# resent one adds its coins to that total again.

import json

from micropython import const

from memory import fs
from memory.backup import Exporter, restore
from memory.service import coin_amount
from memory.store import TYPES as STORE_TYPES

_KEEP_BATCHES = const(32)
_MAX_OPS = const(64)
_MAX_BATCH_ID = const(64)
OPS = ("write", "delete", "put_mem", "del_mem", "coins", "mood")


class Sync:
    def __init__(self, memory, log_path):
        self.memory = memory
        self.log_path = log_path
        self.log = []  # [[batch_id, result or {"coins_before": n} while applying], ...], oldest first
        self._coins = 0  # total_coins_spent as the batch being applied has left it
        self.log_error = None
        self._exporter = Exporter(memory)
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
        self.memory.store.commit()  # the batch is one journal record: on flash before it is logged
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
        if isinstance(op, dict) and op.get("op") == "restore":  # one export record, from import_records
            out = restore(self.memory, op.get("record"))
            out["op"] = "restore"
            return out
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

    def export(self, cursor=None, limit=100, archive=False):
        """A page of export records (memory.backup); `next_cursor` continues, None at the end."""
        return self._exporter.page(cursor, limit, archive)

    def import_records(self, batch_id, records):
        """Restore an export's records as one batch; each keeps the times it was learned.

        Results are per record, in order: {"op": "restore", "type", "result", "detail"}.
        """
        if not isinstance(records, list) or not 0 < len(records) <= _MAX_OPS:
            raise ValueError("records must be a list of 1-%d records" % _MAX_OPS)
        return self.apply(batch_id, [{"op": "restore", "record": r} for r in records])


def _kind(op):
    kind = op.get("type")
    if not isinstance(kind, str) or not kind:
        raise ValueError("type is required")
    return kind


def _keyed(memory):
    if memory.keyed is None:
        raise OSError("keyed memories need the memory partition, which is not mounted")
    return memory.keyed


def _has_coins(ops):
    for op in ops:
        if isinstance(op, dict) and op.get("op") == "coins":
            return True
    return False
