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
    prompt_tokens INTEGER
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


class ExtractionLog:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        conn.execute(_SCHEMA)
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
            "INSERT INTO extraction_log (at, stage, input, raw_output, parsed, errors, batch_ids, prompt_tokens)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                time.time(),
                stage,
                json.dumps(input, ensure_ascii=False),
                raw_output,
                None if parsed is None else json.dumps(parsed, ensure_ascii=False),
                json.dumps(errors, ensure_ascii=False),
                json.dumps(batch_ids),
                prompt_tokens,
            ),
        )
        self.conn.commit()
        return cur.lastrowid

    def recent(self, limit: int = 20, stage: str | None = None) -> list[LogEntry]:
        sql = "SELECT * FROM extraction_log"
        args: tuple = ()
        if stage:
            sql += " WHERE stage = ?"
            args = (stage,)
        rows = self.conn.execute(sql + " ORDER BY id DESC LIMIT ?", args + (limit,)).fetchall()
        return [_entry(r) for r in rows]

    def get(self, entry_id: int) -> LogEntry | None:
        row = self.conn.execute("SELECT * FROM extraction_log WHERE id = ?", (entry_id,)).fetchone()
        return None if row is None else _entry(row)


def _entry(r: sqlite3.Row) -> LogEntry:
    return LogEntry(
        r["id"], r["at"], r["stage"], json.loads(r["input"]), r["raw_output"],
        None if r["parsed"] is None else json.loads(r["parsed"]),
        json.loads(r["errors"]), json.loads(r["batch_ids"]), r["prompt_tokens"],
    )


def deep_tag(memory: dict) -> str:
    """A deep-channel memory's `[category, importance]`, the way seed 004's log review shows it."""
    return "[{}, {:.1f}]".format(memory.get("category", "?"), float(memory.get("importance", 0)))
