# memory_sync: op batches from the host applied once each, export/import of all memory (memory.backup,
# loaded by the first export or import), and recall up to a second for the host's timeline.
#
# A batch is all or nothing as the host sees it: the answer lists what each op did, and an op
# answered REFUSED changed nothing. The replay log (memory.replaylog) gets the answer after the
# batch's changes are committed (store.commit). A power cut between the two makes the host resend
# a batch that was applied; every op but `coins` gives the same state when applied twice, so a
# batch with coins first logs the total it starts from, and a resent one adds its coins to that
# total again. When that first entry cannot be written (the memory is full) the batch is refused
# before any op runs.
#
# `end_conversation` counts one interaction: resent after such a cut, it may count that one twice,
# which only nudges a statistic.

from micropython import const

from memory import steps
from memory.replaylog import ReplayLog
from memory.service import coin_amount
from memory.space import explain
from memory.store import TYPES as STORE_TYPES

_MAX_OPS = const(64)
_MAX_BATCH_ID = const(64)
_NO_LOG = "the memory partition is not mounted, so no replay log is kept"
OPS = ("write", "delete", "retract", "put_mem", "del_mem", "coins", "mood", "end_conversation")


class Sync:
    """memory_sync over a MemoryService; the replay log lives at "<log_base>.N.jsonl" (memory.replaylog),
    or nowhere when `log_base` is None (no memory partition): then every batch is applied as new."""

    def __init__(self, memory, log_base, room=None):
        self.memory = memory
        self.log = ReplayLog(log_base, room) if log_base else None
        self._coins = 0  # total_coins_spent as the batch being applied has left it
        self._exporter = None  # memory.backup's, made by the first export

    def apply(self, batch_id, ops):
        return steps.finish(self.apply_steps(batch_id, ops))

    def apply_steps(self, batch_id, ops):
        """apply() as a generator (memory.steps): a step per op. The caller keeps other calls out
        until it ends (mcp.Dispatcher's lock), so no one sees a batch half applied."""
        if not isinstance(batch_id, str) or not 0 < len(batch_id) <= _MAX_BATCH_ID:
            raise ValueError("batch_id must be a string of 1-%d characters, got %r" % (_MAX_BATCH_ID, batch_id))
        if not isinstance(ops, list) or not 0 < len(ops) <= _MAX_OPS:
            raise ValueError("ops must be a list of 1-%d ops" % _MAX_OPS)
        first = self.log.get(batch_id) if self.log else None
        if first is not None and "results" in first:
            out = dict(first)
            out["replayed"] = True
            return out
        if first is not None:
            self._coins = first["coins_before"]  # the power went while this batch was being applied
        elif _has_coins(ops):
            self._coins = self.memory.store.affection()["total_coins_spent"]
            try:
                if self.log is not None:
                    self.log.append(batch_id, {"batch_id": batch_id, "coins_before": self._coins})
            except (OSError, ValueError) as e:
                raise ValueError("batch %s was not applied, nothing changed: %s" % (batch_id, explain(e)))
        results = []
        for op in ops:
            yield
            results.append((yield from self._apply_one(op)))
        yield
        out = {"batch_id": batch_id, "replayed": False, "results": results}
        try:
            self.memory.store.commit()  # the batch is one journal record: on flash before it is logged
        except OSError as e:
            # The changes are held in RAM and written by the next flush: applied, as the results say.
            out["warning"] = "not yet saved to flash, kept in RAM: %s" % explain(e)
        try:
            if self.log is None:
                raise OSError(_NO_LOG)
            self.log.append(batch_id, out)
        except (OSError, ValueError) as e:
            # Applied all the same: the answer says so; a resend applies it again, which is harmless.
            out["warning"] = "applied but not logged for replay: %s" % explain(e)
        return out

    def _add_coins(self, op):
        """Coins counted from the batch's starting total, so a resent batch lands on the same total."""
        total = self._coins + coin_amount(op)
        total = total if total > 0 else 0
        out = self.memory.store.set_affection({"total_coins_spent": total})
        self._coins = total
        return out

    def _apply_one(self, op):
        # One op's result, as a generator of steps (memory.steps).
        if isinstance(op, dict) and op.get("op") == "restore":  # one export record, from import_records
            from memory.backup import restore  # export and import load memory.backup, apply does not

            out = restore(self.memory, op.get("record"))
            out["op"] = "restore"
            return out
        if not isinstance(op, dict) or op.get("op") not in OPS:
            name = op.get("op") if isinstance(op, dict) else op
            return {"op": name, "result": "REFUSED", "detail": "op must be one of %s" % ", ".join(OPS)}
        name = op["op"]
        m = self.memory
        try:
            if name == "write" and isinstance(op.get("content"), str) and op["content"].strip():
                yield from m.store.room_steps(_kind(op))  # a full table's oldest go to the archive in steps
            if name == "write" and op.get("learned_at") and _kind(op) in STORE_TYPES:
                out = m.store.restore(op["type"], op, op["learned_at"])
            elif name == "write":
                out = m.write(_kind(op), op)
            elif name == "delete":
                out = m.delete(_kind(op), op)
            elif name == "retract":
                from memory.retract import retract  # loaded by the first retract

                out = retract(m, op)
            elif name == "put_mem":
                out = _keyed(m).put(op)
            elif name == "del_mem":
                out = _keyed(m).delete(op.get("key"))
            elif name == "coins":
                out = self._add_coins(op)
            elif name == "end_conversation":
                m.store.end_conversation()
                out = "UPDATED"
            else:
                # A reflection sends only its soul state code: the mood in words is kept then.
                fields = {"mood": op["mood"]} if "mood" in op else {}
                if op.get("soul_state_code") is not None:
                    fields["soul_state_code"] = op["soul_state_code"]
                out = m.store.set_affection(fields)
        except Exception as e:  # any failure of one op is its refusal: the batch's answer must come back
            return {"op": name, "result": "REFUSED", "detail": explain(e)}
        if isinstance(out, str):
            out = {"result": out}
        result = {"op": name, "result": out.get("result", "NOOP")}
        if out.get("truncated"):
            result["detail"] = "trimmed or cut to fit: %s" % ", ".join(out["truncated"])
        elif out.get("result") == "CONFLICT":
            result["detail"] = "conflicts with %s" % ", ".join(c["content"] for c in out["conflicts"])
        elif out.get("result") == "CHANGED":  # a retract that found something else there
            result["detail"] = out["detail"]
            if "now" in out:
                result["now"] = out["now"]
        return result

    def recall_steps(self, args):
        """The memory tool's recall, keeping those learned at or before `until` (Unix seconds): the
        host pages a day that holds more than one answer this way."""
        until = args.get("until")
        if until is not None and (not isinstance(until, int) or isinstance(until, bool) or until < 0):
            raise ValueError("until must be Unix seconds, got %r" % (until,))
        kind = _kind(args)
        return (yield from self.memory.recall_steps(kind, args.get("keyword"), args.get("start_date"),
                                                    args.get("end_date"), args.get("limit"), until))

    def export_steps(self, cursor=None, limit=100, archive=False):
        """A page of export records (memory.backup) as a generator of steps (memory.steps);
        `next_cursor` continues, None at the end."""
        if self._exporter is None:
            from memory.backup import Exporter

            self._exporter = Exporter(self.memory)
        return self._exporter.page_steps(cursor, limit, archive)

    def import_records(self, batch_id, records):
        """Restore an export's records as one batch; each keeps the times it was learned.

        Results are per record, in order: {"op": "restore", "type", "result", "detail"}.
        """
        return steps.finish(self.import_steps(batch_id, records))

    def import_steps(self, batch_id, records):
        """import_records() as a generator (memory.steps)."""
        if not isinstance(records, list) or not 0 < len(records) <= _MAX_OPS:
            raise ValueError("records must be a list of 1-%d records" % _MAX_OPS)
        return (yield from self.apply_steps(batch_id, [{"op": "restore", "record": r} for r in records]))


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
