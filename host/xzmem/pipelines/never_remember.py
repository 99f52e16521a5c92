"""Topics never to remember (seed 004's review page): a turn that mentions one writes nothing.

The rules live in the host's SQLite file. The runner checks every exchange against them before the
fast channel, the deep channel and change detection run, and drops any op that names a topic
(reflection's ops included), so a topic marked here stays off the device and out of working memory.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

TOPIC_MAX_CHARS = 40
_SCHEMA = """
CREATE TABLE IF NOT EXISTS never_remember (
    topic TEXT PRIMARY KEY,
    added_at REAL NOT NULL
)
"""
# The op fields that carry remembered text; a topic found in any of them drops the op.
_TEXT_FIELDS = ("content", "name", "relation", "topic", "payload")


@dataclass
class Rule:
    topic: str
    added_at: float


class NeverRemember:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        conn.execute(_SCHEMA)
        conn.commit()

    def add(self, topic: str) -> bool:
        """Add a topic; True if it is new. ValueError for a blank or overlong topic."""
        topic = " ".join(str(topic).split())
        if not topic:
            raise ValueError("a never-remember topic must not be blank")
        if len(topic) > TOPIC_MAX_CHARS:
            raise ValueError(f"a never-remember topic must be at most {TOPIC_MAX_CHARS} characters, got {len(topic)}")
        cur = self.conn.execute(
            "INSERT OR IGNORE INTO never_remember (topic, added_at) VALUES (?, ?)", (topic, time.time())
        )
        self.conn.commit()
        return cur.rowcount > 0

    def remove(self, topic: str) -> bool:
        cur = self.conn.execute("DELETE FROM never_remember WHERE topic = ?", (topic,))
        self.conn.commit()
        return cur.rowcount > 0

    def rules(self) -> list[Rule]:
        rows = self.conn.execute("SELECT topic, added_at FROM never_remember ORDER BY added_at, topic").fetchall()
        return [Rule(r[0], r[1]) for r in rows]

    def match(self, text: str) -> str | None:
        """The first topic `text` mentions (case-insensitive), or None."""
        folded = text.casefold()
        for rule in self.rules():
            if rule.topic.casefold() in folded:
                return rule.topic
        return None

    def keep(self, ops: list[dict]) -> tuple[list[dict], list[str]]:
        """(the ops that name no topic, a note for each one dropped)."""
        kept, notes = [], []
        for op in ops:
            text = " ".join(str(op[k]) for k in _TEXT_FIELDS if isinstance(op.get(k), str))
            topic = self.match(text) if text else None
            if topic is None:
                kept.append(op)
            else:
                notes.append(f"dropped {op['op']} on never-remember topic {topic!r}: {text[:60]}")
        return kept, notes
