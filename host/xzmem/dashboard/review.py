"""The extraction log as conversation turns, each extracted memory with the person's verdict on it.

A turn is the `sieve` and `changes` entries of one exchange (same words, same time); reflection and
profile entries stand on their own. Each memory a stage produced becomes an Item the person can
accept, edit or reject; verdicts are kept in the host's SQLite file beside the log.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from xzmem.pipelines.extraction_log import ExtractionLog, LogEntry, deep_tag

_SCHEMA = """
CREATE TABLE IF NOT EXISTS extraction_review (
    ref TEXT PRIMARY KEY,
    verdict TEXT NOT NULL,
    content TEXT,
    answer TEXT,
    at REAL NOT NULL
)
"""
VERDICTS = ("accepted", "edited", "rejected")


@dataclass
class Item:
    """One extracted memory: where it came from, its text, and the op or working memory behind it."""

    ref: str
    origin: str  # fast, deep, changes, reflect
    text: str
    op: dict[str, Any] | None = None
    memory: dict[str, Any] | None = None
    verdict: str | None = None
    verdict_content: str | None = None

    @property
    def can_reject(self) -> bool:
        return self.op is None or self.op.get("op") in ("write", "put_mem")

    @property
    def can_edit(self) -> bool:
        """One text to change: a deep memory, a keyed memory, a write of one text (not a family member)."""
        if self.op is None:
            return True
        return self.op.get("op") == "put_mem" or (self.op.get("op") == "write" and self.op.get("type") != "family")

    @property
    def tag(self) -> str:
        """A deep memory's `[category, importance]`, as seed 004's log review shows it."""
        if self.memory is None:
            return ""
        return deep_tag(self.memory)

    @property
    def editable_text(self) -> str:
        if self.op is not None:
            return str(self.op.get("content", self.op.get("payload", self.text)))
        return self.text


@dataclass
class Turn:
    at: float
    kind: str  # exchange, reflect, profile
    entries: dict[str, LogEntry] = field(default_factory=dict)
    items: list[Item] = field(default_factory=list)

    @property
    def first(self) -> LogEntry:
        return next(iter(self.entries.values()))


def op_text(op: dict[str, Any]) -> str:
    if op.get("op") == "write":
        if op.get("type") == "family":
            return f"family {op.get('relation', '')} {op.get('name', '')}"
        return f"{op.get('type')} {op.get('content', '')}"
    if op.get("op") == "put_mem":
        return f"[{op.get('category')}] {op.get('payload')}"
    if op.get("op") == "del_mem":
        return f"delete {op.get('key')}"
    return " ".join(f"{k}={v}" for k, v in op.items())


def items_of(entry: LogEntry) -> list[Item]:
    parsed = entry.parsed if isinstance(entry.parsed, dict) else {}
    items = []
    if entry.stage == "sieve":
        for n, op in enumerate(parsed.get("fast_ops") or []):
            items.append(Item(f"{entry.id}:fast:{n}", "fast", op_text(op), op=op))
        for n, memory in enumerate(parsed.get("extracted") or []):
            items.append(Item(f"{entry.id}:deep:{n}", "deep", str(memory.get("content", "")), memory=memory))
    elif entry.stage in ("changes", "reflect"):
        for n, op in enumerate(parsed.get("ops") or []):
            items.append(Item(f"{entry.id}:{entry.stage}:{n}", entry.stage, op_text(op), op=op))
    return items


class Review:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.log = ExtractionLog(conn)
        conn.execute(_SCHEMA)
        conn.commit()

    def mark(self, ref: str, verdict: str, content: str | None = None, answer: str | None = None) -> None:
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
        self.conn.execute(
            "INSERT OR REPLACE INTO extraction_review (ref, verdict, content, answer, at) VALUES (?, ?, ?, ?, ?)",
            (ref, verdict, content, answer, time.time()),
        )
        self.conn.commit()

    def verdicts(self) -> dict[str, tuple[str, str | None]]:
        rows = self.conn.execute("SELECT ref, verdict, content FROM extraction_review").fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def turns(self, limit: int = 20) -> list[Turn]:
        """The newest turns first, built from the newest `limit` * 2 log entries."""
        verdicts = self.verdicts()
        turns: list[Turn] = []
        by_exchange: dict[tuple, Turn] = {}
        for entry in self.log.recent(limit * 2):
            if entry.stage in ("sieve", "changes"):
                key = (entry.input.get("user"), entry.input.get("assistant"), entry.input.get("now"))
                turn = by_exchange.get(key)
                if turn is None:
                    turn = by_exchange[key] = Turn(entry.at, "exchange")
                    turns.append(turn)
            else:
                turn = Turn(entry.at, entry.stage)
                turns.append(turn)
            turn.entries[entry.stage] = entry
        for turn in turns:
            for stage in ("sieve", "changes", "reflect"):
                if stage in turn.entries:
                    turn.items.extend(items_of(turn.entries[stage]))
            for item in turn.items:
                item.verdict, item.verdict_content = verdicts.get(item.ref, (None, None))
        return turns[:limit]

    def find(self, ref: str) -> Item | None:
        """The item `ref` names (log id, origin, index), read from its log entry."""
        log_id = ref.split(":", 1)[0]
        entry = self.log.get(int(log_id)) if log_id.isdigit() else None
        return next((i for i in items_of(entry) if i.ref == ref), None) if entry else None
