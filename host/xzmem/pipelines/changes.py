"""Memory change detection (seed 000): relevant keyed memories in, `put_mem` / `del_mem` ops out.

The LLM proposes `add` / `del` items keyed `mem_xxx`; the program owns trigger_count, created_at,
updated_at and last_triggered, assigns keys to new memories, applies the cleanup rules when there
are more than 50 memories, and refuses deletions that the keep rules forbid, each with a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from pydantic import BaseModel, ValidationError

from xzmem.config import ChangesConfig
from xzmem.device import ops as opslib
from xzmem.llm import LLMClient, LLMError, describe_validation_error, extract_json
from xzmem.pipelines.categories import CORE_CATEGORIES, normalise_category
from xzmem.pipelines.prompt_files import load_prompt
from xzmem.pipelines.state import KeyedMemory
from xzmem.pipelines.tokens import estimate_tokens
from xzmem.pipelines.working import relevance

DAY = 86400
KEEP_IMPORTANCE = 8
KEEP_TRIGGERS = 10
KEEP_NEW_DAYS = 7
SOURCE_NAMES = {
    "user": "user", "assistant": "assistant", "both": "both", "用户输入": "user", "用户": "user",
    "ai输出": "assistant", "ai": "assistant", "助手": "assistant", "两者": "both",
}


class ChangeItem(BaseModel):
    """One element of the LLM's array."""

    key: str
    action: Literal["add", "del"]
    category: str | None = None
    payload: str | None = None
    importance: int | None = None
    source: str | None = None
    tags: list[str] = []


@dataclass
class Refusal:
    key: str
    action: str
    reason: str


@dataclass
class ChangeResult:
    ops: list[dict] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    raw: str | None = None
    parsed: list | None = None
    shown_keys: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    skipped: str | None = None


def keep_reason(memory: KeyedMemory, now: float) -> str | None:
    """Why `memory` must not be deleted (seed 000's keep rules), or None."""
    if memory.importance >= KEEP_IMPORTANCE:
        return f"importance {memory.importance} >= {KEEP_IMPORTANCE} is always kept"
    if memory.trigger_count >= KEEP_TRIGGERS:
        return f"trigger_count {memory.trigger_count} >= {KEEP_TRIGGERS} is always kept"
    if now - memory.created_at < KEEP_NEW_DAYS * DAY:
        age_days = (now - memory.created_at) / DAY
        return f"created {age_days:.1f} days ago, memories younger than {KEEP_NEW_DAYS} days are kept"
    if memory.category in CORE_CATEGORIES:
        return f"category {memory.category} is core and is kept (update it instead)"
    return None


def _normalised(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", text.lower())


def cleanup_candidates(memories: list[KeyedMemory], now: float) -> list[tuple[KeyedMemory, str]]:
    """Memories the cleanup rules would delete, with the rule, before the keep rules are applied."""
    found: dict[str, tuple[KeyedMemory, str]] = {}
    for m in memories:
        idle_days = (now - m.last_triggered) / DAY
        if m.trigger_count < 2 and idle_days > 30:
            found[m.key] = (m, f"triggered {m.trigger_count} time(s), idle {idle_days:.0f} days (> 30)")
        elif m.importance < 5 and idle_days > 90:
            found[m.key] = (m, f"importance {m.importance} < 5, idle {idle_days:.0f} days (> 90)")
    groups: dict[str, list[KeyedMemory]] = {}
    for m in memories:
        groups.setdefault(_normalised(m.payload), []).append(m)
    for group in groups.values():
        if len(group) < 2:
            continue
        ranked = sorted(group, key=lambda m: (m.importance, m.trigger_count, m.updated_at))
        survivor = ranked[-1]
        for m in ranked[:-1]:
            found.setdefault(m.key, (m, f"duplicate of {survivor.key} with lower importance"))
    return list(found.values())


def select_relevant(memories: list[KeyedMemory], text: str, limit: int) -> list[KeyedMemory]:
    """Up to `limit` memories most related to `text` (hybrid relevance > 0), best first."""
    if not memories or limit <= 0:
        return []
    scores = relevance(text, [m.payload + " " + " ".join(m.tags) for m in memories])
    ranked = sorted(zip(scores, range(len(memories)), strict=True), key=lambda s: -s[0])
    return [memories[i] for score, i in ranked[:limit] if score > 0]


def render_prompt(user: str, assistant: str, shown: list[KeyedMemory], now: float) -> tuple[str, str]:
    listing = "\n".join(f"{m.key} [{m.category} {m.importance}] {m.payload}" for m in shown) or "（无）"
    when = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="seconds")
    return load_prompt("changes").render(now=when, memories=listing, user=user, assistant=assistant)


def _items_of(value) -> list:
    """The LLM's array; an object holding exactly one array (some servers force objects) is unwrapped."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
    raise ValueError(f"expected a JSON array of changes, got {type(value).__name__}")


def plan_changes(
    items: list, memories: list[KeyedMemory], shown_keys: set[str], now: float, cfg: ChangesConfig
) -> ChangeResult:
    """Turn the LLM's items into ops under the program's rules; pure, so it is tested without an LLM."""
    result = ChangeResult()
    now = int(now)
    current = {m.key: m for m in memories}
    touched: set[str] = set()
    by_payload = {_normalised(m.payload): m.key for m in memories}
    for n, raw_item in enumerate(items):
        try:
            item = ChangeItem.model_validate(raw_item)
        except ValidationError as e:
            key = raw_item.get("key", "?") if isinstance(raw_item, dict) else "?"
            result.refusals.append(Refusal(str(key), "?", f"item {n} does not match the schema: {describe_validation_error(e)}"))
            continue
        if item.action == "del":
            target = current.get(item.key)
            if target is None:
                result.refusals.append(Refusal(item.key, "del", f"no memory with key {item.key}"))
                continue
            if item.key not in shown_keys:
                result.refusals.append(Refusal(item.key, "del", f"{item.key} was not among the memories shown"))
                continue
            if not item.category:
                result.refusals.append(Refusal(item.key, "del", "del needs the memory's category"))
                continue
            if normalise_category(item.category) != target.category:
                result.refusals.append(Refusal(
                    item.key, "del", f"category {item.category!r} is not {item.key}'s ({target.category})"))
                continue
            reason = keep_reason(target, now)
            if reason:
                result.refusals.append(Refusal(item.key, "del", reason))
                continue
            result.ops.append(opslib.del_mem(item.key))
            del current[item.key]
            continue
        missing = [f for f in ("category", "payload", "importance", "source") if getattr(item, f) in (None, "")]
        if missing:
            result.refusals.append(Refusal(item.key, "add", "add needs {}".format(", ".join(missing))))
            continue
        category = normalise_category(item.category)
        if category is None:
            result.refusals.append(Refusal(item.key, "add", f"unknown category {item.category!r}"))
            continue
        if not 1 <= item.importance <= 10:
            result.refusals.append(Refusal(item.key, "add", f"importance must be 1-10, got {item.importance}"))
            continue
        source = SOURCE_NAMES.get(item.source.strip().lower())
        if source is None:
            result.refusals.append(Refusal(item.key, "add", f"unknown source {item.source!r}"))
            continue
        existing = current.get(item.key) if item.key in shown_keys else None
        if existing is None and _normalised(item.payload) in by_payload:
            existing = current.get(by_payload[_normalised(item.payload)])
            if existing is not None:
                result.notes.append(f"{item.key} repeats {existing.key} word for word: counted as an update")
        if existing is not None:
            key, trigger_count, created_at = existing.key, existing.trigger_count + 1, existing.created_at
        else:
            key = opslib.new_key()
            while key in current:
                key = opslib.new_key()
            if item.key != key:
                result.notes.append(f"new memory {item.key} stored as {key}")
            trigger_count, created_at = 1, now
        built = opslib.put_mem(key, category, item.payload.strip(), item.importance, source, item.tags,
                               trigger_count, created_at, now, now)
        result.notes.extend(f"{key}: {note}" for note in built.notes)
        result.ops.append(built.op)
        current[key] = KeyedMemory.from_op(built.op)
        by_payload[_normalised(built.op["payload"])] = key
        touched.add(key)
    if len(current) > cfg.cleanup_threshold:
        for memory, rule in cleanup_candidates([m for k, m in current.items() if k not in touched], now):
            if keep_reason(memory, now) is None:
                result.ops.append(opslib.del_mem(memory.key))
                result.notes.append(f"cleanup deleted {memory.key}: {rule}")
                del current[memory.key]
    return result


async def detect_changes(
    llm: LLMClient,
    memories: list[KeyedMemory],
    user: str,
    assistant: str,
    now: float,
    cfg: ChangesConfig,
    skip_llm: str | None = None,
) -> ChangeResult:
    """Ask the LLM for changes against the relevant memories, then plan them under the rules.

    With the LLM off, failing or skipped (`skip_llm` gives the reason, e.g. small talk), only the
    cleanup rules run; an error is in `errors`, the raw text (when there is one) in `raw`.
    """
    shown = select_relevant(memories, user + "\n" + assistant, cfg.relevant_limit)
    system, prompt = render_prompt(user, assistant, shown, now)
    items: list = []
    raw = None
    errors: list[str] = []
    skipped = None
    if not llm.enabled:
        skipped = "llm off"
    elif skip_llm:
        skipped = skip_llm
    else:
        try:
            raw, _ = await llm.chat(system, prompt)
            value = extract_json(raw)
        except LLMError as e:
            raw = e.raw
            errors.append(str(e))
        except ValueError as e:
            errors.append(f"LLM output is not JSON: {e}")
        else:
            try:
                items = _items_of(value)
            except ValueError as e:
                errors.append(f"LLM output is not a change list: {e}")
    result = plan_changes(items, memories, {m.key for m in shown}, now, cfg)
    result.raw, result.parsed, result.skipped = raw, items, skipped
    result.errors = errors + result.errors
    result.shown_keys = [m.key for m in shown]
    result.prompt_tokens = estimate_tokens(system) + estimate_tokens(prompt)
    return result
