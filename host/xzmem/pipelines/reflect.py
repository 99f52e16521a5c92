"""Reflection after a conversation (seed 001): soul state, useful memories, merges and new memories.

The whole output contract is validated: a 4-bit `soul_state_code`, all four memory lists, and
`merge_groups` only with at least one new memory on the same topic. A judgment phrased as a
question is refused. Useful memories get their trigger count raised; each merge group is replaced
by the new memory on its topic, stored under the group's first key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

from xzmem.device import ops as opslib
from xzmem.llm import LLMClient, LLMError, parse_reply
from xzmem.pipelines.prompt_files import load_prompt
from xzmem.pipelines.state import KeyedMemory
from xzmem.pipelines.tokens import estimate_tokens
from xzmem.pipelines.working import relevance

# Seed 001's memory types onto seed 004's categories (see categories.py), with default importance.
TYPE_CATEGORY = {"knowledge": "fact", "skill": "skill", "event": "fact", "emotional": "insight"}
TYPE_TAG = {"event": "事件", "emotional": "情绪"}
TYPE_IMPORTANCE = {"knowledge": 6, "skill": 6, "event": 5, "emotional": 4}
TYPE_ORDER = ("knowledge", "skill", "event", "emotional")
RECALL_LIMIT = 10
_QUESTION = re.compile(
    r"[?？]\s*$|^(?:如何|怎么|怎样|为什么|为何|什么|是否|能否|可否|是不是|有没有|哪|谁)"
    r"|^(?:how|what|why|when|where|who|which|whether|is|are|do|does|did|can|could|should|would)\b",
    re.I,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewMemory(Strict):
    judgment: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    reasoning: str
    tags: list[str]


class NewMemories(Strict):
    knowledge: list[NewMemory]
    skill: list[NewMemory]
    emotional: list[NewMemory]
    event: list[NewMemory]


class FeedbackData(Strict):
    useful_memory_ids: list[str]
    merge_groups: list[list[str]]
    new_memories: NewMemories


class ReflectionOutput(Strict):
    soul_state_code: Annotated[str, StringConstraints(pattern=r"^[01]{4}$")]
    feedback_data: FeedbackData


@dataclass
class Refusal:
    what: str
    reason: str


@dataclass
class ReflectResult:
    ops: list[dict] = field(default_factory=list)
    soul_state_code: str | None = None
    refusals: list[Refusal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    raw: str | None = None
    parsed: dict | None = None
    recalled_keys: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    skipped: str | None = None


def format_conversation(messages: list[dict]) -> str:
    names = {"user": "用户", "assistant": "助手"}
    return "\n".join("{}：{}".format(names.get(m["role"], m["role"]), m["content"]) for m in messages)


def recall_for(messages: list[dict], memories: list[KeyedMemory], limit: int = RECALL_LIMIT) -> list[KeyedMemory]:
    text = "\n".join(m["content"] for m in messages)
    scores = relevance(text, [m.payload + " " + " ".join(m.tags) for m in memories]) if memories else []
    ranked = sorted(zip(scores, range(len(memories)), strict=True), key=lambda s: -s[0])
    return [memories[i] for s, i in ranked[:limit] if s > 0]


def _topic_score(memory: NewMemory, group: list[KeyedMemory]) -> float:
    shared_tags = set(memory.tags) & {t for m in group for t in m.tags}
    text = memory.judgment + " " + " ".join(memory.tags)
    return len(shared_tags) + max(relevance(text, [m.payload + " " + " ".join(m.tags) for m in group]))


def plan_reflection(output: ReflectionOutput, memories: list[KeyedMemory], now: float) -> ReflectResult:
    """Turn a schema-valid reflection into ops; a broken merge contract raises ValueError."""
    now = int(now)
    result = ReflectResult(soul_state_code=output.soul_state_code)
    known = {m.key: m for m in memories}
    feedback = output.feedback_data

    candidates: list[tuple[str, NewMemory]] = []
    for kind in TYPE_ORDER:
        for n, memory in enumerate(getattr(feedback.new_memories, kind)):
            if _QUESTION.search(memory.judgment):
                result.refusals.append(Refusal(f"new_memories.{kind}.{n}", f"judgment is a question, not a statement: {memory.judgment!r}"))
            else:
                candidates.append((kind, memory))

    if feedback.merge_groups and not candidates:
        raise ValueError("merge_groups is not empty but new_memories has no usable memory to replace them")
    groups: list[list[KeyedMemory]] = []
    for g, group in enumerate(feedback.merge_groups):
        if not group:
            result.refusals.append(Refusal(f"merge_groups.{g}", "empty merge group"))
            continue
        members = []
        for key in dict.fromkeys(group):
            if key in known:
                members.append(known[key])
            else:
                result.refusals.append(Refusal(f"merge_groups.{g}", f"no memory with id {key}"))
        if members:
            groups.append(members)

    used: set[int] = set()
    merged_keys: set[str] = set()
    for members in groups:
        scores = [_topic_score(mem, members) for _, mem in candidates]
        best = max(range(len(candidates)), key=lambda i: scores[i])
        if scores[best] <= 0:
            raise ValueError(
                "merge group %s has no new memory on the same topic" % [m.key for m in members]
            )
        kind, memory = candidates[best]
        target = members[0]
        importance = max([TYPE_IMPORTANCE[kind]] + [m.importance for m in members])
        built = opslib.put_mem(
            target.key, TYPE_CATEGORY[kind], memory.judgment, importance, "reflection",
            memory.tags + ([TYPE_TAG[kind]] if kind in TYPE_TAG else []),
            sum(m.trigger_count for m in members), min(m.created_at for m in members), now, now,
        )
        result.ops.append(built.op)
        result.notes.extend(f"{target.key}: {n}" for n in built.notes)
        for m in members[1:]:
            if m.key not in merged_keys:
                result.ops.append(opslib.del_mem(m.key))
                result.notes.append(f"{m.key} merged into {target.key}")
        merged_keys.update(m.key for m in members)
        used.add(best)

    for key in dict.fromkeys(feedback.useful_memory_ids):
        if key not in known:
            result.refusals.append(Refusal("useful_memory_ids", f"no memory with id {key}"))
        elif key not in merged_keys:
            m = known[key]
            result.ops.append(opslib.put_mem(
                m.key, m.category, m.payload, m.importance, m.source, m.tags,
                m.trigger_count + 1, m.created_at, m.updated_at, now,
            ).op)

    for i, (kind, memory) in enumerate(candidates):
        if i in used:
            continue
        key = opslib.new_key()
        while key in known:
            key = opslib.new_key()
        built = opslib.put_mem(
            key, TYPE_CATEGORY[kind], memory.judgment, TYPE_IMPORTANCE[kind], "reflection",
            memory.tags + ([TYPE_TAG[kind]] if kind in TYPE_TAG else []), 1, now, now, now,
        )
        result.ops.append(built.op)
        result.notes.extend(f"{key}: {n}" for n in built.notes)
    # The code is a state for the device to keep, not a mood: the mood in words stays as it is.
    result.ops.append(opslib.mood(None, int(output.soul_state_code, 2)))
    return result


async def reflect(
    llm: LLMClient,
    messages: list[dict],
    memories: list[KeyedMemory],
    now: float,
    recalled: list[str] | None = None,
) -> ReflectResult:
    """Reflect on a finished conversation. `recalled` names the memories the conversation saw;
    without it the most relevant ones are chosen."""
    if recalled is None:
        shown = recall_for(messages, memories)
    else:
        by_key = {m.key: m for m in memories}
        shown = [by_key[k] for k in recalled if k in by_key]
    result = ReflectResult(recalled_keys=[m.key for m in shown])
    if not llm.enabled:
        result.skipped = "llm off"
        return result
    listing = json.dumps([m.to_prompt() for m in shown], ensure_ascii=False, separators=(",", ":"))
    system, prompt = load_prompt("reflect").render(memories=listing, conversation=format_conversation(messages))
    prompt_tokens = estimate_tokens(system) + estimate_tokens(prompt)
    try:
        raw, _ = await llm.chat(system, prompt)
    except LLMError as e:
        result.errors.append(str(e))
        result.raw, result.prompt_tokens = e.raw, prompt_tokens
        return result
    try:
        output = parse_reply(raw, ReflectionOutput)
        planned = plan_reflection(output, memories, now)
    except LLMError as e:
        result.errors.append(str(e))
        result.raw, result.prompt_tokens = raw, prompt_tokens
        return result
    except ValueError as e:
        result.errors.append(f"reflection breaks the merge contract: {e}")
        result.raw, result.prompt_tokens, result.parsed = raw, prompt_tokens, output.model_dump()
        return result
    planned.raw, planned.parsed, planned.prompt_tokens = raw, output.model_dump(), prompt_tokens
    planned.recalled_keys = result.recalled_keys
    return planned
