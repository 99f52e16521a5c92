"""Memory Sieve (seed 004): the fast channel's device writes and the deep channel's LLM extraction,
run concurrently on one exchange (the user's words and the assistant's answer).

Deep-channel memories go into working memory; one that names a dated event (seed 003: a plan, a
birthday, an anniversary, with its type, emotion and significance) also becomes a schedule write for
the device. Small talk skips the LLM; an LLM failure keeps the raw turn as a low-importance working
memory instead of losing it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from xzmem.llm import LLMClient, LLMError, describe_validation_error, parse_reply
from xzmem.pipelines.categories import CATEGORIES
from xzmem.pipelines.events import event_op, join_fast_schedule
from xzmem.pipelines.fast_channel import Signal, fast_channel
from xzmem.pipelines.prompt_files import load_prompt
from xzmem.pipelines.tokens import estimate_tokens
from xzmem.pipelines.working import MemoryItem, WorkingMemory

FALLBACK_IMPORTANCE = 0.3
FALLBACK_CUT = 100
SMALL_TALK_ASSISTANT_CHARS = 100
_SMALL_TALK = re.compile(
    r"^(?:你好|您好|嗨|哈喽|早上好|早安|中午好|下午好|晚上好|晚安|谢谢|多谢|谢啦|好的|好吧|好|嗯+|哦+|啊+|哈+|呵+|嘿+|"
    r"再见|拜拜|没事|没什么|对|是的|行|可以|收到|明白|知道了|今天天气(?:真|很|挺)?(?:好|不错)|"
    r"hi|hello|hey|thanks|thank you|thx|ok|okay|yes|no|sure|bye|good (?:morning|night|evening)|lol|haha|nice|cool)"
    r"[\s,.!?，。！？~～啊呀呢吧哈]*$",
    re.I,
)
Category = Literal[CATEGORIES]  # type: ignore[valid-type]


class ExtractedMemory(BaseModel):
    content: str = Field(min_length=1)
    category: Category
    importance: float = Field(ge=0.0, le=1.0)
    source: Literal["user", "assistant", "both"]
    reasoning: str = ""
    event: Any = None  # checked field by field (pipelines/events.py): a bad field never costs the memory


class ExtractionOutput(BaseModel):
    memories: list


@dataclass
class SieveResult:
    signals: list[Signal] = field(default_factory=list)
    fast_ops: list[dict] = field(default_factory=list)
    deep_ops: list[dict] = field(default_factory=list)  # schedule writes for the events the LLM named
    extracted: list[MemoryItem] = field(default_factory=list)
    fallback: bool = False
    skipped: str | None = None
    errors: list[str] = field(default_factory=list)
    raw: str | None = None
    parsed: dict | None = None
    prompt_tokens: int = 0


def is_small_talk(text: str) -> bool:
    """Greetings, thanks, acknowledgements and weather chat with nothing to remember."""
    return bool(_SMALL_TALK.match(text.strip())) or not text.strip()


def is_small_talk_exchange(user: str, assistant: str) -> bool:
    """Seed 004's skip rule: small talk from the user and a short answer."""
    return is_small_talk(user) and len(assistant) < SMALL_TALK_ASSISTANT_CHARS


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n] + "…"


WEEKDAYS = "一二三四五六日"


def now_text(local: datetime) -> str:
    """The device's local time as the prompt gives it, so the LLM can date 明天 or 下周五."""
    return local.strftime("%Y-%m-%d %H:%M") + " 星期" + WEEKDAYS[local.weekday()]


def build_extraction_prompt(user: str, assistant: str, profile_text: str = "", additional: str = "",
                            local_now: datetime | None = None) -> tuple[str, str]:
    """The extraction prompt, with the synthesized profile and the configured extra instructions appended."""
    system, prompt = load_prompt("extraction").render(
        user=user, assistant=assistant, now=now_text(local_now or datetime.now()))
    if profile_text:
        prompt += "\n\n" + profile_text
    if additional:
        prompt += "\n\n补充要求：" + additional
    return system, prompt


async def run_sieve(
    llm: LLMClient,
    working: WorkingMemory,
    user: str,
    assistant: str,
    now: float,
    profile_text: str = "",
    additional: str = "",
    user_id: str = "",
    session_id: str = "",
    on_fast_ops: Callable[[list[dict]], Awaitable[None]] | None = None,
    local_time: Callable[[float], datetime] = datetime.fromtimestamp,
) -> SieveResult:
    """Run both channels; `on_fast_ops` gets the fast channel's writes as soon as they exist.
    `local_time` gives the wall time of `now` that 今天/明天 are counted from (the device's)."""
    result = SieveResult()

    async def fast() -> None:
        result.signals, result.fast_ops = fast_channel(user, local_time(now))
        if on_fast_ops is not None and result.fast_ops:
            await on_fast_ops(result.fast_ops)

    async def deep() -> None:
        if is_small_talk_exchange(user, assistant):
            result.skipped = "small talk"
            return
        if not llm.enabled:
            result.skipped = "llm off"
            return
        system, prompt = build_extraction_prompt(user, assistant, profile_text, additional, local_time(now))
        result.prompt_tokens = estimate_tokens(system) + estimate_tokens(prompt)
        try:
            raw, _ = await llm.chat(system, prompt)
            result.raw = raw
            output = parse_reply(raw, ExtractionOutput)
        except LLMError as e:
            result.raw = e.raw if e.raw is not None else result.raw
            result.errors.append(str(e))
            _fallback()
            return
        result.parsed = output.model_dump()
        for n, item in enumerate(output.memories):
            try:
                memory = ExtractedMemory.model_validate(item)
            except ValidationError as e:
                result.errors.append(f"memories.{n} does not match the schema: {describe_validation_error(e)}")
                continue
            result.extracted.append(
                working.add(
                    memory.content.strip(), memory.importance, timestamp=now, category=memory.category,
                    source=memory.source, user_id=user_id, session_id=session_id,
                    metadata={"reasoning": memory.reasoning},
                )
            )
            if memory.event is not None:
                built = event_op(memory.event, memory.content.strip(), local_time(now), f"memories.{n}.event")
                result.errors.extend(built.problems)
                if built.op is not None:
                    result.deep_ops.append(built.op)
        if output.memories and not result.extracted:
            _fallback()

    def _fallback() -> None:
        result.fallback = True
        content = f"[未提取] 用户: {_cut(user, FALLBACK_CUT)} | 助手: {_cut(assistant, FALLBACK_CUT)}"
        result.extracted.append(
            working.add(content, FALLBACK_IMPORTANCE, timestamp=now, category="context", source="both",
                        user_id=user_id, session_id=session_id)
        )

    await asyncio.gather(fast(), deep())
    result.deep_ops = [join_fast_schedule(op, result.fast_ops) for op in result.deep_ops]
    return result
