"""The durable outbox: op batches wait in SQLite until their device acknowledges them.

A batch is written (and fsynced) before anything is sent, goes out in the order it was queued
for its device, and stays until the device answers it. Sending a batch twice is harmless: the
device answers a batch_id it has already applied with `"replayed": true` and changes nothing.
Each device's batches are kept apart by the device's own id.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.ops import BATCH_MAX_BYTES, json_bytes, split_runs

OP_NAMES = ("write", "delete", "put_mem", "del_mem", "coins", "mood", "end_conversation")
MAX_OPS = 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    device_id  TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    batch_id   TEXT    NOT NULL UNIQUE,
    ops        TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    acked_at   REAL,
    result     TEXT,
    PRIMARY KEY (device_id, seq)
)
"""
_COLUMNS = "device_id, seq, batch_id, ops, created_at, attempts, last_error, acked_at, result"


@dataclass(frozen=True)
class Batch:
    device_id: str
    seq: int
    batch_id: str
    ops: list[dict[str, Any]]
    created_at: float
    attempts: int
    last_error: str | None
    acked_at: float | None
    result: dict[str, Any] | None

    @classmethod
    def from_row(cls, row: tuple) -> Batch:
        device_id, seq, batch_id, ops, created_at, attempts, last_error, acked_at, result = row
        return cls(
            device_id, seq, batch_id, json.loads(ops), created_at, attempts, last_error, acked_at,
            json.loads(result) if result else None,
        )


@dataclass
class DrainReport:
    device_id: str
    acked: list[str] = field(default_factory=list)
    replayed: list[str] = field(default_factory=list)
    pending: int = 0
    error: str | None = None


def check_ops(ops: list[dict[str, Any]]) -> None:
    """Refuse a batch the device would refuse whole: wrong size or an op it does not know."""
    if not isinstance(ops, list) or not 1 <= len(ops) <= MAX_OPS:
        count = len(ops) if isinstance(ops, list) else type(ops).__name__
        raise ValueError(f"a batch holds 1-{MAX_OPS} ops, got {count}")
    size = json_bytes(ops)
    if size > BATCH_MAX_BYTES:
        raise ValueError(f"a batch's ops are {size} bytes of JSON, over the device's {BATCH_MAX_BYTES}: "
                         "split them (xzmem.device.ops.make_batches does)")
    for i, op in enumerate(ops):
        name = op.get("op") if isinstance(op, dict) else None
        if name not in OP_NAMES:
            raise ValueError(f"ops[{i}].op must be one of {', '.join(OP_NAMES)}, got {name!r}")


class Outbox:
    """`Outbox(path)` opens (or creates) the outbox file; use it as a context manager or close()."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Outbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def enqueue(self, device_id: str, ops: list[dict[str, Any]]) -> str:
        """Store a batch for `device_id` behind the ones already queued; answer its batch_id."""
        check_ops(ops)
        batch_id = "b" + uuid.uuid4().hex
        self._db.execute("BEGIN IMMEDIATE")
        try:
            (seq,) = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM batches WHERE device_id = ?", (device_id,)
            ).fetchone()
            self._db.execute(
                "INSERT INTO batches (device_id, seq, batch_id, ops, created_at) VALUES (?, ?, ?, ?, ?)",
                (device_id, seq, batch_id, json.dumps(ops, ensure_ascii=False), time.time()),
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return batch_id

    def pending(self, device_id: str | None = None) -> list[Batch]:
        """Unacknowledged batches in sending order (of one device, or of all by device)."""
        where, args = ("AND device_id = ?", (device_id,)) if device_id is not None else ("", ())
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM batches WHERE acked_at IS NULL {where} ORDER BY device_id, seq", args
        ).fetchall()
        return [Batch.from_row(r) for r in rows]

    def get(self, batch_id: str) -> Batch | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM batches WHERE batch_id = ?", (batch_id,)).fetchone()
        return Batch.from_row(row) if row else None

    def drop(self, batch_id: str) -> bool:
        """Give up on an unacknowledged batch (one the device keeps refusing); True if one was dropped."""
        cursor = self._db.execute("DELETE FROM batches WHERE batch_id = ? AND acked_at IS NULL", (batch_id,))
        return cursor.rowcount > 0

    def _record_attempt(self, batch_id: str) -> None:
        self._db.execute("UPDATE batches SET attempts = attempts + 1 WHERE batch_id = ?", (batch_id,))

    def _record_error(self, batch_id: str, message: str) -> None:
        self._db.execute("UPDATE batches SET last_error = ? WHERE batch_id = ?", (message, batch_id))

    def _record_ack(self, batch_id: str, result: Any) -> None:
        self._db.execute(
            "UPDATE batches SET acked_at = ?, last_error = NULL, result = ? WHERE batch_id = ?",
            (time.time(), json.dumps(result, ensure_ascii=False), batch_id),
        )

    async def drain(
        self,
        client: DeviceClient,
        device_id: str | None = None,
        on_batch: Callable[[Batch], None] | None = None,
    ) -> DrainReport:
        """Send the device's pending batches in order; stop at the first one that fails.

        `device_id` defaults to the id the device reports. `on_batch` is told of each batch once
        it is acknowledged. A failed batch keeps its place and its error; the next drain starts there.
        """
        device_id = device_id or await client.device_id()
        report = DrainReport(device_id)
        batches = self.pending(device_id)
        for index, batch in enumerate(batches):
            self._record_attempt(batch.batch_id)
            try:
                answer = await _send(client, batch)
            except DeviceError as exc:
                self._record_error(batch.batch_id, str(exc))
                report.error = str(exc)
                report.pending = len(batches) - index
                return report
            self._record_ack(batch.batch_id, answer)
            (report.replayed if answer.get("replayed") else report.acked).append(batch.batch_id)
            if on_batch is not None:
                on_batch(batch)
        return report


async def _send(client: DeviceClient, batch: Batch) -> dict[str, Any]:
    # A batch queued before the device's message limit (an older outbox) may be too long for one
    # message: it goes as parts with ids of their own, the same on every try, so a retry after a
    # failed part replays the parts already applied.
    runs = split_runs(batch.ops, MAX_OPS)
    parts = [(batch.batch_id, batch.ops)] if len(runs) == 1 else [
        (f"{batch.batch_id}.{k}", run) for k, run in enumerate(runs)
    ]
    answers = []
    for batch_id, ops in parts:
        answer = await client.sync(action="apply", batch_id=batch_id, ops=ops)
        if not isinstance(answer, dict) or answer.get("batch_id") != batch_id:
            raise DeviceError(f"device answered batch {batch_id} with {str(answer)[:80]}")
        answers.append(answer)
    if len(answers) == 1:
        return answers[0]
    return {"batch_id": batch.batch_id, "replayed": all(a.get("replayed") for a in answers), "parts": answers}
