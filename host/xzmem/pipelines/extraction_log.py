"""SQLite extraction log: every stage's input, raw LLM output, parsed result and errors."""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extraction_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    stage TEXT NOT NULL,
    input TEXT NOT NULL,
    raw_output TEXT,
    parsed TEXT,
    errors TEXT NOT NULL,
    batch_ids TEXT NOT NULL,
    prompt_tokens INTEGER,
    device_id TEXT
)
"""


@dataclass
class LogEntry:
    id: int
    at: float
    stage: str
    input: dict
    raw_output: str | None
    parsed: object
    errors: list[str]
    batch_ids: list[str]
    prompt_tokens: int | None
    device_id: str | None = None


class ExtractionLog:
    """The log of one host data folder; `device_id` is the device the entries recorded now are for
    (several devices may share the folder, and each one's review shows only its own entries)."""

    def __init__(self, conn: sqlite3.Connection, device_id: str | None = None):
        self.conn = conn
        self.device_id = device_id
        conn.execute(_SCHEMA)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(extraction_log)")}
        if "device_id" not in columns:  # a log written before entries named their device
            conn.execute("ALTER TABLE extraction_log ADD COLUMN device_id TEXT")
        conn.commit()

    def record(
        self,
        stage: str,
        input: dict,
        raw_output: str | None,
        parsed: object,
        errors: list[str],
        batch_ids: list[str],
        prompt_tokens: int | None = None,
    ) -> int:
        cur = self.conn.execute(
            "INSERT INTO extraction_log (at, stage, input, raw_output, parsed, errors, batch_ids, prompt_tokens,"
            " device_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                time.time(),
                stage,
                json.dumps(input, ensure_ascii=False),
                raw_output,
                None if parsed is None else json.dumps(parsed, ensure_ascii=False),
                json.dumps(errors, ensure_ascii=False),
                json.dumps(batch_ids),
                prompt_tokens,
                self.device_id,
            ),
        )
        self.conn.commit()
        return cur.lastrowid

    def recent(self, limit: int = 20, stage: str | None = None, device_id: str | None = None) -> list[LogEntry]:
        """The newest entries, of one stage and of one device when given."""
        where, args = [], []
        if stage:
            where.append("stage = ?")
            args.append(stage)
        if device_id is not None:
            where.append("device_id = ?")
            args.append(device_id)
        sql = "SELECT * FROM extraction_log" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self.conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        return [_entry(r) for r in rows]

    def get(self, entry_id: int) -> LogEntry | None:
        row = self.conn.execute("SELECT * FROM extraction_log WHERE id = ?", (entry_id,)).fetchone()
        return None if row is None else _entry(row)


def _entry(r: sqlite3.Row) -> LogEntry:
    return LogEntry(
        r["id"], r["at"], r["stage"], json.loads(r["input"]), r["raw_output"],
        None if r["parsed"] is None else json.loads(r["parsed"]),
        json.loads(r["errors"]), json.loads(r["batch_ids"]), r["prompt_tokens"], r["device_id"],
    )


def deep_tag(memory: dict) -> str:
    """A deep-channel memory's `[category, importance]`, the way seed 004's log review shows it."""
    return "[{}, {:.1f}]".format(memory.get("category", "?"), float(memory.get("importance", 0)))
