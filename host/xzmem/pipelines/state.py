"""The host's local state in SQLite: a mirror of the device's keyed memories and the working memory.

Pipelines read keyed memories through the MemorySource protocol; the mirror implements it from
the ops the host has emitted, so the pipelines and the CLI work with no device attached. A device
client can implement the same protocol from `memory_sync export`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, field
from typing import Protocol

from xzmem.pipelines.working import WorkingMemory

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keyed_memories (
    key TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS working_memory (
    id TEXT PRIMARY KEY,
    record TEXT NOT NULL
);
"""


@dataclass
class KeyedMemory:
    """A keyed memory as the device stores it (`put_mem` fields); importance 1-10, times Unix seconds."""

    key: str
    category: str
    payload: str
    importance: int
    source: str
    tags: list[str] = field(default_factory=list)
    trigger_count: int = 1
    created_at: int = 0
    updated_at: int = 0
    last_triggered: int = 0

    @classmethod
    def from_op(cls, op: dict) -> KeyedMemory:
        return cls(**{k: v for k, v in op.items() if k != "op"})

    def to_prompt(self) -> dict:
        """What the LLM sees: no bookkeeping fields."""
        return {"key": self.key, "category": self.category, "payload": self.payload, "importance": self.importance}


class MemorySource(Protocol):
    def list_keyed(self) -> list[KeyedMemory]: ...


class KeyedMirror:
    """Keyed memories as the host last sent them (implements MemorySource)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        conn.executescript(_SCHEMA)

    def list_keyed(self) -> list[KeyedMemory]:
        rows = self.conn.execute("SELECT record FROM keyed_memories ORDER BY key").fetchall()
        return [KeyedMemory(**json.loads(r[0])) for r in rows]

    def apply_ops(self, ops: list[dict]) -> None:
        """Follow `put_mem` / `del_mem` ops; other ops do not touch keyed memories."""
        for op in ops:
            if op["op"] == "put_mem":
                record = asdict(KeyedMemory.from_op(op))
                self.conn.execute(
                    "INSERT OR REPLACE INTO keyed_memories (key, record) VALUES (?, ?)",
                    (op["key"], json.dumps(record, ensure_ascii=False)),
                )
            elif op["op"] == "del_mem":
                self.conn.execute("DELETE FROM keyed_memories WHERE key = ?", (op["key"],))
        self.conn.commit()


class WorkingSnapshot:
    """Keeps a WorkingMemory across CLI runs (TTL still applies when it is loaded)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        conn.executescript(_SCHEMA)

    def load_into(self, memory: WorkingMemory) -> None:
        rows = self.conn.execute("SELECT record FROM working_memory").fetchall()
        memory.load_records(sorted((json.loads(r[0]) for r in rows), key=lambda r: r["timestamp"]))

    def update(self, items: list) -> None:
        """Store these items' records again, leaving the others alone (another process, such as a
        provider's save in its own thread, may have added items since this one loaded)."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO working_memory (id, record) VALUES (?, ?)",
            [(item.id, json.dumps(item.to_record(), ensure_ascii=False)) for item in items],
        )
        self.conn.commit()

    def save(self, memory: WorkingMemory) -> None:
        self.conn.execute("DELETE FROM working_memory")
        self.conn.executemany(
            "INSERT INTO working_memory (id, record) VALUES (?, ?)",
            [(r["id"], json.dumps(r, ensure_ascii=False)) for r in memory.to_records()],
        )
        self.conn.commit()
