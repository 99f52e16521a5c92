"""User profile (seed 004 §5.2.7): synthesized from core memories, fed back into the extraction prompt.

A change to a memory the synthesis reads (identity, preference, skill, relationship, decision,
project_state), and every fast-channel write saying who the user is or what they like (kept here as
observations the synthesis reads), marks the profile stale. It is synthesized when there is none yet,
before the next extraction whenever it is stale, and by the daily run (the first refresh after 03:00
local time each day). Fields the user edited by hand (source `manual`) replace the synthesized ones and survive every
re-synthesis until cleared.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field

from pydantic import BaseModel

from xzmem.device import ops as opslib
from xzmem.llm import LLMClient, LLMError
from xzmem.pipelines.categories import PROFILE, PROFILE_INPUTS
from xzmem.pipelines.prompt_files import load_prompt
from xzmem.pipelines.state import KeyedMemory
from xzmem.pipelines.tokens import estimate_tokens

PROFILE_KEY = "mem_profile"
CORE_FOR_PROFILE = ("identity", "preference", "skill", "relationship", "decision", "project_state")
MAX_CORE_MEMORIES = 40
DAILY_RUN_HOUR = 3  # local time; seed 004 re-synthesizes the profile once a day in the early morning
# Fast-channel write types that feed the profile, with the category they count as and how they read.
OBSERVED_TYPES = {
    "name": ("identity", "用户叫{}"), "age": ("identity", "用户{}岁"), "gender": ("identity", "用户的性别：{}"),
    "location": ("identity", "用户住在{}"), "birthday": ("identity", "用户的生日：{}"),
    "like": ("preference", "用户喜欢{}"), "dislike": ("preference", "用户不喜欢{}"),
    "family": ("relationship", "用户的{}"),
}
SINGLE_VALUED = frozenset({"name", "age", "gender", "location", "birthday"})
_OBSERVED_SCHEMA = """
CREATE TABLE IF NOT EXISTS profile_observed (
    kind TEXT NOT NULL,
    content TEXT NOT NULL,
    observed_at REAL NOT NULL,
    PRIMARY KEY (kind, content)
)
"""
_SCHEMA = """
CREATE TABLE IF NOT EXISTS profile (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    synthesized TEXT,
    manual TEXT NOT NULL DEFAULT '{}',
    stale INTEGER NOT NULL DEFAULT 1,
    synthesized_at REAL
)
"""


class ProfileData(BaseModel):
    summary: str
    domains: list[str]
    high_value_signals: list[str]
    low_value_signals: list[str]
    language_preferences: str
    active_projects: list[str]


FIELDS = tuple(ProfileData.model_fields)


@dataclass
class ProfileState:
    synthesized: dict | None
    manual: dict
    stale: bool
    synthesized_at: float | None

    @property
    def effective(self) -> dict | None:
        """Synthesized fields with the manual ones laid over them; None before any profile exists."""
        if self.synthesized is None and not self.manual:
            return None
        merged = {name: ([] if name in LIST_FIELDS else "") for name in FIELDS}
        merged.update(self.synthesized or {})
        merged.update(self.manual)
        return merged


LIST_FIELDS = frozenset(n for n, f in ProfileData.model_fields.items() if f.annotation == list[str])


class ProfileStore:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        conn.execute(_SCHEMA)
        conn.execute(_OBSERVED_SCHEMA)
        conn.execute("INSERT OR IGNORE INTO profile (id) VALUES (1)")
        conn.commit()

    def get(self) -> ProfileState:
        row = self.conn.execute("SELECT * FROM profile WHERE id = 1").fetchone()
        return ProfileState(
            None if row["synthesized"] is None else json.loads(row["synthesized"]),
            json.loads(row["manual"]), bool(row["stale"]), row["synthesized_at"],
        )

    def save_synthesized(self, data: dict, at: float | None = None) -> None:
        self.conn.execute(
            "UPDATE profile SET synthesized = ?, stale = 0, synthesized_at = ? WHERE id = 1",
            (json.dumps(data, ensure_ascii=False), time.time() if at is None else at),
        )
        self.conn.commit()

    def mark_stale(self) -> None:
        self.conn.execute("UPDATE profile SET stale = 1 WHERE id = 1")
        self.conn.commit()

    def set_manual(self, name: str, value) -> None:
        """A hand edit of one field; list fields take a list of strings, the others a string."""
        if name not in FIELDS:
            raise ValueError("profile field must be one of {}, got {!r}".format("|".join(FIELDS), name))
        if name in LIST_FIELDS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"profile field {name} must be a list of strings, got {value!r}")
        elif not isinstance(value, str):
            raise ValueError(f"profile field {name} must be a string, got {value!r}")
        manual = self.get().manual
        manual[name] = value
        self.conn.execute("UPDATE profile SET manual = ? WHERE id = 1", (json.dumps(manual, ensure_ascii=False),))
        self.conn.commit()

    def observe(self, ops: list[dict], now: float) -> bool:
        """Keep the fast channel's identity and preference writes for the next synthesis and mark the
        profile stale when one is new. A single-valued field (name, age, ...) keeps its latest value."""
        changed = False
        for op in ops:
            kind = op.get("type")
            if op.get("op") != "write" or kind not in OBSERVED_TYPES:
                continue
            content = op["content"]
            if self.conn.execute("SELECT 1 FROM profile_observed WHERE kind = ? AND content = ?",
                                 (kind, content)).fetchone():
                continue
            if kind in SINGLE_VALUED:
                self.conn.execute("DELETE FROM profile_observed WHERE kind = ?", (kind,))
            self.conn.execute("INSERT INTO profile_observed (kind, content, observed_at) VALUES (?, ?, ?)",
                              (kind, content, now))
            changed = True
        if changed:
            self.conn.execute("UPDATE profile SET stale = 1 WHERE id = 1")
        self.conn.commit()
        return changed

    def observed(self) -> list[KeyedMemory]:
        """The observations as memories the synthesis reads beside the keyed ones."""
        rows = self.conn.execute("SELECT kind, content, observed_at FROM profile_observed ORDER BY observed_at").fetchall()
        out = []
        for n, (kind, content, at) in enumerate(rows):
            category, text = OBSERVED_TYPES[kind]
            out.append(KeyedMemory(f"fast_{n}", category, text.format(content), 8, "user",
                                   created_at=int(at), updated_at=int(at), last_triggered=int(at)))
        return out

    def clear_manual(self, name: str) -> None:
        manual = self.get().manual
        manual.pop(name, None)
        self.conn.execute("UPDATE profile SET manual = ? WHERE id = 1", (json.dumps(manual, ensure_ascii=False),))
        self.conn.commit()


def last_daily_run(now: float) -> float:
    """The most recent moment at or before `now` when the daily run was due (03:00 local time)."""
    local = time.localtime(now)
    today = time.mktime((local.tm_year, local.tm_mon, local.tm_mday, DAILY_RUN_HOUR, 0, 0, 0, 0, -1))
    if today <= now:
        return today
    return time.mktime((local.tm_year, local.tm_mon, local.tm_mday - 1, DAILY_RUN_HOUR, 0, 0, 0, 0, -1))


def touches_profile_inputs(ops: list[dict], categories_by_key: dict[str, str]) -> bool:
    """Whether `ops` add, change or delete a memory the profile is synthesized from."""
    for op in ops:
        if op["op"] == "put_mem" and op["category"] in PROFILE_INPUTS:
            return True
        if op["op"] == "del_mem" and categories_by_key.get(op["key"]) in PROFILE_INPUTS:
            return True
    return False


def core_memories(memories: list[KeyedMemory]) -> list[KeyedMemory]:
    core = [m for m in memories if m.category in CORE_FOR_PROFILE]
    core.sort(key=lambda m: (-m.importance, -m.updated_at))
    return core[:MAX_CORE_MEMORIES]


def format_profile(profile: dict | None) -> str:
    """The profile as the paragraph appended to the extraction prompt ('' when there is none)."""
    if not profile or not any(profile.get(n) for n in FIELDS):
        return ""
    lines = ["关于这位用户（由以往记忆自动生成，用于校准）：", profile.get("summary", "")]
    if profile.get("domains"):
        lines.append("关注领域：" + "；".join(profile["domains"]))
    if profile.get("high_value_signals"):
        lines.append("对他价值高（提高 importance）：")
        lines.extend("- " + s for s in profile["high_value_signals"])
    if profile.get("low_value_signals"):
        lines.append("对他价值低（跳过或降低 importance）：")
        lines.extend("- " + s for s in profile["low_value_signals"])
    if profile.get("active_projects"):
        lines.append("进行中的事：" + "；".join(profile["active_projects"]))
    if profile.get("language_preferences"):
        lines.append("交流习惯：" + profile["language_preferences"])
    return "\n".join(line for line in lines if line)


@dataclass
class ProfileResult:
    data: dict | None = None
    ops: list[dict] = field(default_factory=list)
    batches: list = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    raw: str | None = None
    prompt_tokens: int = 0
    skipped: str | None = None


def profile_op(profile: dict, now: float, created_at: int | None = None) -> dict:
    """The profile as the device's special keyed memory (category `profile`)."""
    built = opslib.put_mem(
        PROFILE_KEY, PROFILE, profile.get("summary") or "（无）", 10, "sieve", list(profile.get("domains", []))[:4],
        1, int(now) if created_at is None else created_at, int(now), int(now),
    )
    return built.op


async def synthesize(llm: LLMClient, memories: list[KeyedMemory], now: float) -> ProfileResult:
    """Ask the LLM for a profile from the core memories."""
    core = core_memories(memories)
    if not core:
        return ProfileResult(skipped="no core memories")
    if not llm.enabled:
        return ProfileResult(skipped="llm off")
    listing = "\n".join(f"- {m.category}: {m.payload}" for m in core)
    system, prompt = load_prompt("profile").render(memories=listing)
    result = ProfileResult(prompt_tokens=estimate_tokens(system) + estimate_tokens(prompt))
    try:
        reply = await llm.complete_json(system, prompt, ProfileData)
    except LLMError as e:
        result.errors.append(str(e))
        result.raw = e.raw
        return result
    result.raw = reply.raw
    result.data = reply.data.model_dump()
    return result
