"""Runs the stages on an exchange or a conversation: op batches out, one extraction-log entry per stage.

The caller (CLI, gateway, chat) sends the batches to the device; the local keyed mirror follows
the ops at once so the next exchange sees them.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field

from xzmem.config import Config
from xzmem.device.ops import Batch, make_batches
from xzmem.llm import LLMClient
from xzmem.pipelines.changes import ChangeResult, detect_changes
from xzmem.pipelines.extraction_log import ExtractionLog
from xzmem.pipelines.never_remember import NeverRemember
from xzmem.pipelines.profile import (
    PROFILE_KEY,
    ProfileResult,
    ProfileStore,
    format_profile,
    profile_op,
    synthesize,
    touches_profile_inputs,
)
from xzmem.pipelines.reflect import ReflectResult, reflect
from xzmem.pipelines.sieve import SieveResult, is_small_talk_exchange, run_sieve
from xzmem.pipelines.state import KeyedMirror, MemorySource, WorkingSnapshot
from xzmem.pipelines.working import WorkingMemory


@dataclass
class ExchangeOutcome:
    sieve: SieveResult
    changes: ChangeResult
    profile: ProfileResult | None
    batches: list[Batch] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)


@dataclass
class ReflectOutcome:
    reflection: ReflectResult
    batches: list[Batch] = field(default_factory=list)
    log_ids: list[int] = field(default_factory=list)


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
        """Synthesize the profile when it is missing or stale (or when forced); None when not needed."""
        now = self.clock() if now is None else now
        state = self.profiles.get()
        if not force and state.synthesized is not None and not state.stale:
            return None
        memories = self.source.list_keyed()
        result = await synthesize(self.llm, memories, now)
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
                          self.cfg.sieve.additional_instructions, on_fast_ops=fast_ops_ready),
                detect_changes(self.llm, [m for m in memories if m.key != PROFILE_KEY], user, assistant, now,
                               self.cfg.changes,
                               skip_llm="small talk" if is_small_talk_exchange(user, assistant) else None),
            )
        changes.ops, dropped = self.never.keep(changes.ops)
        changes.notes.extend(dropped)
        change_batches = self._emit("changes", changes.ops)
        self.snapshot.save(self.working)
        exchange_input = {"user": user, "assistant": assistant, "now": now}
        log_ids = [
            self.log.record(
                "sieve", exchange_input, sieve.raw,
                {"signals": [asdict(s) for s in sieve.signals], "fast_ops": sieve.fast_ops,
                 "extracted": [m.to_record() for m in sieve.extracted], "fallback": sieve.fallback,
                 "skipped": sieve.skipped, "llm_output": sieve.parsed},
                sieve.errors, [b.batch_id for b in fast_batches], sieve.prompt_tokens,
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
        return ExchangeOutcome(sieve, changes, profile, profile_batches + fast_batches + change_batches, log_ids)

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
