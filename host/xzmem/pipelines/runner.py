"""Runs the stages on an exchange or a conversation: op batches out, one extraction-log entry per stage.

The caller (CLI, gateway, chat) sends the batches to the device; the local keyed mirror follows
the ops at once so the next exchange sees them.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime

from xzmem.config import Config
from xzmem.device.ops import Batch, end_conversation, make_batches
from xzmem.llm import LLMClient
from xzmem.pipelines.changes import ChangeResult, detect_changes
from xzmem.pipelines.extraction_log import ExtractionLog
from xzmem.pipelines.never_remember import NeverRemember
from xzmem.pipelines.profile import (
    PROFILE_KEY,
    ProfileResult,
    ProfileStore,
    format_profile,
    last_daily_run,
    profile_op,
    synthesize,
    touches_profile_inputs,
)
from xzmem.pipelines.reflect import ReflectResult, reflect
from xzmem.pipelines.sieve import SieveResult, is_small_talk_exchange, run_sieve
from xzmem.pipelines.state import KeyedMemory, KeyedMirror, MemorySource, WorkingSnapshot
from xzmem.pipelines.working import MemoryItem, WorkingMemory, relevance

# A working memory this important that prompts have recalled this often is promoted to a keyed one.
PROMOTE_IMPORTANCE = 0.7
PROMOTE_TRIGGERS = 2
WORKING_RECALL_LIMIT = 5
KEYED_RECALL_LIMIT = 5
promotion_log = logging.getLogger("xzmem.promote")


@dataclass
class ExchangeOutcome:
    sieve: SieveResult
    changes: ChangeResult
    profile: ProfileResult | None
    batches: list[Batch] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)


@dataclass
class PromptContext:
    """What the prompt of one turn gets from the host: recalled working and keyed memories and the
    working-memory context summary."""

    working: list[MemoryItem]
    keyed: list[KeyedMemory]
    summary: str


@dataclass
class PromoteOutcome:
    promoted: list[MemoryItem]
    changes: ChangeResult
    batches: list[Batch] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)


@dataclass
class ReflectOutcome:
    reflection: ReflectResult
    batches: list[Batch] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)


@dataclass
class ConversationEnd:
    """Everything a finished conversation sends, last of all the device's end_conversation op."""

    reflection: ReflectOutcome | None
    promotion: PromoteOutcome | None
    batches: list[Batch] = field(default_factory=list)


class Pipelines:
    def __init__(
        self,
        cfg: Config,
        conn: sqlite3.Connection,
        llm: LLMClient,
        source: MemorySource | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.cfg = cfg
        self.llm = llm
        self.clock = clock
        self.log = ExtractionLog(conn)
        self.mirror = KeyedMirror(conn)
        self.source = source or self.mirror
        self.profiles = ProfileStore(conn)
        self.snapshot = WorkingSnapshot(conn)
        self.never = NeverRemember(conn)
        self.working = WorkingMemory.from_config(cfg.working, clock)
        self.snapshot.load_into(self.working)
        self.recalled: list[str] = []  # keyed memories this conversation's prompts have seen, for reflection
        # The wall time dates are read in: this computer's, or the device's once a chat has asked it.
        self.local_time: Callable[[float], datetime] = datetime.fromtimestamp

    @property
    def device_id(self) -> str | None:
        """The device these pipelines work for; the extraction log names it in every entry."""
        return self.log.device_id

    @device_id.setter
    def device_id(self, value: str | None) -> None:
        self.log.device_id = value

    def _emit(self, stage: str, ops: list[dict]) -> list[Batch]:
        """Batches for `ops`; keyed changes are mirrored locally and may mark the profile stale."""
        if not ops:
            return []
        categories = {m.key: m.category for m in self.source.list_keyed()}
        if touches_profile_inputs(ops, categories):
            self.profiles.mark_stale()
        self.mirror.apply_ops(ops)
        return make_batches(stage, ops)

    async def refresh_profile(self, now: float | None = None, force: bool = False) -> ProfileResult | None:
        """Synthesize the profile when there is none, when it is stale, when today's daily run has not
        happened yet, or when forced; None when not needed."""
        now = self.clock() if now is None else now
        state = self.profiles.get()
        if not force and state.synthesized is not None:
            if not state.stale and (state.synthesized_at or 0) >= last_daily_run(now):
                return None
        memories = self.source.list_keyed()
        result = await synthesize(self.llm, memories + self.profiles.observed(), now)
        batch_ids: list[str] = []
        if result.data is not None:
            self.profiles.save_synthesized(result.data, now)
            existing = next((m for m in memories if m.key == PROFILE_KEY), None)
            op = profile_op(self.profiles.get().effective, now, existing.created_at if existing else None)
            result.ops = [op]
            self.mirror.apply_ops(result.ops)
            result.batches = make_batches("profile", result.ops)
            batch_ids = [b.batch_id for b in result.batches]
        if result.skipped != "no core memories" and result.skipped != "llm off":
            self.log.record("profile", {"core_memories": len(memories)}, result.raw, result.data,
                            result.errors, batch_ids, result.prompt_tokens)
        return result

    async def exchange(
        self,
        user: str,
        assistant: str,
        now: float | None = None,
        on_fast_batch: Callable[[Batch], Awaitable[None]] | None = None,
    ) -> ExchangeOutcome:
        """Sieve and change detection on one exchange, concurrently."""
        now = self.clock() if now is None else now
        profile = await self.refresh_profile(now) if self.llm.enabled else None
        effective = self.profiles.get().effective
        fast_batches: list[Batch] = []

        async def fast_ops_ready(ops: list[dict]) -> None:
            self.profiles.observe(ops, now)
            fast_batches.extend(make_batches("sieve-fast", ops))
            if on_fast_batch is not None:
                for batch in fast_batches:
                    await on_fast_batch(batch)

        memories = self.source.list_keyed()
        topic = self.never.match(user + "\n" + assistant)
        if topic is not None:
            # The person asked never to remember this: no channel sees the turn at all.
            why = f"never remember: {topic}"
            sieve, changes = SieveResult(skipped=why), ChangeResult(skipped=why)
        else:
            sieve, changes = await asyncio.gather(
                run_sieve(self.llm, self.working, user, assistant, now, format_profile(effective),
                          self.cfg.sieve.additional_instructions, on_fast_ops=fast_ops_ready,
                          local_time=self.local_time),
                detect_changes(self.llm, [m for m in memories if m.key != PROFILE_KEY], user, assistant, now,
                               self.cfg.changes,
                               skip_llm="small talk" if is_small_talk_exchange(user, assistant) else None),
            )
        changes.ops, dropped = self.never.keep(changes.ops)
        changes.notes.extend(dropped)
        deep_batches = self._emit("sieve-deep", sieve.deep_ops)
        change_batches = self._emit("changes", changes.ops)
        self.snapshot.save(self.working)
        exchange_input = {"user": user, "assistant": assistant, "now": now}
        log_ids = [
            self.log.record(
                "sieve", exchange_input, sieve.raw,
                {"signals": [asdict(s) for s in sieve.signals], "fast_ops": sieve.fast_ops,
                 "extracted": [m.to_record() for m in sieve.extracted], "deep_ops": sieve.deep_ops,
                 "fallback": sieve.fallback, "skipped": sieve.skipped, "llm_output": sieve.parsed},
                sieve.errors, [b.batch_id for b in fast_batches + deep_batches], sieve.prompt_tokens,
            ),
            self.log.record(
                "changes", dict(exchange_input, shown_keys=changes.shown_keys), changes.raw,
                {"items": changes.parsed, "ops": changes.ops, "notes": changes.notes,
                 "refusals": [asdict(r) for r in changes.refusals], "skipped": changes.skipped},
                changes.errors + [f"refused {r.action} {r.key}: {r.reason}" for r in changes.refusals],
                [b.batch_id for b in change_batches], changes.prompt_tokens,
            ),
        ]
        profile_batches = profile.batches if profile is not None else []
        batches = profile_batches + fast_batches + deep_batches + change_batches
        return ExchangeOutcome(sieve, changes, profile, batches, log_ids)

    def context(self, query: str, summary_chars: int = 400, now: float | None = None) -> PromptContext:
        """Recall for one turn's prompt: the best working memories (each counts a trigger, which
        promotion reads) and keyed memories for `query`, and the working-memory summary. The keyed
        ones are remembered for this conversation's reflection."""
        now = self.clock() if now is None else now
        working = [item for item, _ in self.working.retrieve(query, WORKING_RECALL_LIMIT, now=now)]
        for item in working:
            item.metadata["triggers"] = item.metadata.get("triggers", 0) + 1
        if working:
            self.snapshot.update(working)
        memories = [m for m in self.source.list_keyed() if m.key != PROFILE_KEY]
        scores = relevance(query, [m.payload + " " + " ".join(m.tags) for m in memories]) if memories else []
        ranked = sorted(zip(scores, range(len(memories)), strict=True), key=lambda s: -s[0])
        keyed = [memories[i] for score, i in ranked[:KEYED_RECALL_LIMIT] if score > 0]
        self.note_recalled(m.key for m in keyed)
        return PromptContext(working, keyed, self.working.get_context_summary(summary_chars))

    def note_recalled(self, keys) -> None:
        """Keyed memories the conversation read (a prompt showed them, or a tool answered them)."""
        known = {m.key for m in self.source.list_keyed()}
        for key in keys:
            if key in known and key not in self.recalled:
                self.recalled.append(key)

    async def promote(self, now: float | None = None) -> PromoteOutcome | None:
        """Working memories past the importance and trigger thresholds go through change detection
        into keyed memories; each promotion is logged. None when nothing is due or the LLM is off."""
        now = self.clock() if now is None else now
        due = [m for m in self.working.memories
               if not m.forgotten and not m.metadata.get("promoted") and m.importance >= PROMOTE_IMPORTANCE
               and m.metadata.get("triggers", 0) >= PROMOTE_TRIGGERS]
        if not due or not self.llm.enabled:
            return None
        memories = [m for m in self.source.list_keyed() if m.key != PROFILE_KEY]
        text = "\n".join(m.content for m in due)
        changes = await detect_changes(self.llm, memories, text, "", now, self.cfg.changes)
        batches = self._emit("promote", changes.ops)
        if not changes.errors:
            for item in due:
                item.metadata["promoted"] = now
            self.snapshot.save(self.working)
        log_id = self.log.record(
            "promote", {"working": [m.to_record() for m in due], "now": now}, changes.raw,
            {"items": changes.parsed, "ops": changes.ops, "notes": changes.notes,
             "refusals": [asdict(r) for r in changes.refusals]},
            changes.errors, [b.batch_id for b in batches], changes.prompt_tokens,
        )
        for item in due:
            promotion_log.info("working memory %s (importance %.2f, %d triggers) promoted: %s ops, %s",
                               item.id, item.importance, item.metadata.get("triggers", 0), len(changes.ops),
                               "; ".join(changes.errors) or "ok")
        return PromoteOutcome(due, changes, batches, [log_id])

    async def reflect(self, messages: list[dict], recalled: list[str] | None = None, now: float | None = None) -> ReflectOutcome:
        now = self.clock() if now is None else now
        memories = [m for m in self.source.list_keyed() if m.key != PROFILE_KEY]
        result = await reflect(self.llm, messages, memories, now, recalled)
        result.ops, dropped = self.never.keep(result.ops)
        result.notes.extend(dropped)
        batches = self._emit("reflect", result.ops)
        log_id = self.log.record(
            "reflect", {"messages": messages, "recalled": result.recalled_keys, "now": now}, result.raw,
            {"output": result.parsed, "ops": result.ops, "notes": result.notes,
             "refusals": [asdict(r) for r in result.refusals], "skipped": result.skipped},
            result.errors + [f"refused {r.what}: {r.reason}" for r in result.refusals],
            [b.batch_id for b in batches], result.prompt_tokens,
        )
        return ReflectOutcome(result, batches, [log_id])

    async def finish_conversation(self, messages: list[dict], now: float | None = None) -> ConversationEnd:
        """Reflect on the conversation with the keyed memories it read (LLM on), promote the working
        memories that are due, and end the conversation on the device (one flush, one interaction)."""
        now = self.clock() if now is None else now
        reflection = await self.reflect(messages, list(self.recalled), now) if messages and self.llm.enabled else None
        promotion = await self.promote(now)
        self.recalled = []
        batches = (reflection.batches if reflection else []) + (promotion.batches if promotion else [])
        batches += make_batches("end", [end_conversation()])
        return ConversationEnd(reflection, promotion, batches)
