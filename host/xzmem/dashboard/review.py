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

from xzmem.pipelines.extraction_log import ExtractionLog, LogEntry

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
    def editable_text(self) -> str:
        if self.op is not None:
            return str(self.op.get("content", self.op.get("payload", self.text)))
        return self.text


def retract_op(op: dict[str, Any], replace: str | None = None) -> dict[str, Any]:
    """The memory_sync `retract` op that takes back what write or put_mem `op` stored (docs/sync.md)."""
    if op.get("op") == "put_mem":
        out = {"op": "retract", "type": "keyed", "key": op["key"], "payload": op.get("payload", "")}
    else:
        out = {"op": "retract", "type": op["type"]}
        for name in ("content", "relation", "name", "topic", "datetime"):
            if op.get(name) not in (None, ""):
                out[name] = op[name]
        if op["type"] == "family" and "name" not in out and "content" in out:  # a family write may name by content
            out["name"] = out.pop("content")
    if replace is not None:
        out["replace"] = replace
    return out


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
    if op.get("op") == "write":  # the page shows the type in words beside it
        if op.get("type") == "family":
            return f"{op.get('relation', '')} {op.get('name', op.get('content', ''))}".strip()
        return str(op.get("content", ""))
    if op.get("op") == "put_mem":  # the page shows the category in words beside it
        return str(op.get("payload", ""))
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
        for n, op in enumerate(parsed.get("deep_ops") or []):  # the dated events the LLM named
            items.append(Item(f"{entry.id}:event:{n}", "deep", op_text(op), op=op))
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

    def turns(self, device_id: str, limit: int = 20) -> list[Turn]:
        """The device's newest turns first, built from its newest `limit` * 2 log entries."""
        verdicts = self.verdicts()
        turns: list[Turn] = []
        by_exchange: dict[tuple, Turn] = {}
        for entry in self.log.recent(limit * 2, device_id=device_id):
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

    def find(self, ref: str, device_id: str) -> Item | None:
        """The item `ref` names (log id, origin, index), read from its log entry, if that entry is the device's."""
        log_id = ref.split(":", 1)[0]
        entry = self.log.get(int(log_id)) if log_id.isdigit() else None
        if entry is None or entry.device_id != device_id:
            return None
        return next((i for i in items_of(entry) if i.ref == ref), None)
