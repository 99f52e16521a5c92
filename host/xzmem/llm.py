"""OpenAI-compatible chat client for the pipelines: the only module that talks to an LLM.

Works with any server speaking the chat-completions API (DeepSeek, Qwen, GLM, Doubao, OpenAI,
Ollama, vLLM, llama.cpp). JSON is taken out of code fences, reasoning blocks and chatter; what
still does not parse, or does not match the schema, raises LLMError with the raw text kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from xzmem.config import LLMConfig

if TYPE_CHECKING:
    import openai

LLM_OFF_MESSAGE = (
    "LLM stages are off: no LLM configured (set XZMEM_LLM_BASE_URL and XZMEM_LLM_MODEL, "
    "or [llm] base_url and model in the config file)"
)

_THINK = re.compile(r"<think>.*?</think>", re.S)
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


class LLMError(Exception):
    """An LLM call that gave nothing usable; `raw` keeps whatever text came back."""

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.raw = raw


class LLMOff(LLMError):
    """No LLM is configured."""


@dataclass
class LLMReply:
    raw: str
    data: Any
    prompt_tokens: int | None


def extract_json(text: str) -> Any:
    """The JSON value in an LLM reply: whole text, a fenced block, or the first value in chatter."""
    text = _THINK.sub("", text).strip()
    candidates = [text] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            pass
    decoder = json.JSONDecoder()
    for start in _top_level_openers(text):
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        return value
    raise ValueError("no complete JSON object or array in the reply")


def _top_level_openers(text: str):
    """Positions of `{` / `[` outside any bracket opened before them.

    A truncated reply leaves its outer bracket open, so the complete objects nested inside it
    are never mistaken for the answer.
    """
    depth = 0
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch in "{[":
            if depth == 0:
                yield i
            depth += 1
        elif ch in "}]":
            depth = max(0, depth - 1)
        elif ch == '"' and depth > 0:
            in_string = True


def describe_validation_error(error: ValidationError) -> str:
    """`field.path: message` for each problem, so a bad field is named."""
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append("{}: {} (got {!r})".format(where, item["msg"], item.get("input")))
    return "; ".join(parts)


class LLMClient:
    """Async chat-completions client with a timeout, bounded retries and JSON parsing."""

    def __init__(self, cfg: LLMConfig):
        self.cfg = cfg
        self._client = None
        if cfg.enabled:
            import openai  # here, not at the top: it takes most of a second and most commands need no LLM

            self._client = openai.AsyncOpenAI(
                base_url=cfg.base_url or None,
                api_key=cfg.api_key or "not-needed",
                timeout=cfg.timeout,
                max_retries=cfg.max_retries,
            )

    @property
    def enabled(self) -> bool:
        return self._client is not None

    async def chat(
        self, system: str, user: str, *, temperature: float | None = None, max_tokens: int | None = None
    ) -> tuple[str, int | None]:
        """One completion; returns its text and the prompt tokens the server counted (if it says)."""
        if self._client is None:
            raise LLMOff(LLM_OFF_MESSAGE)
        response = await self._create(
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            temperature=self.cfg.temperature if temperature is None else temperature,
            max_tokens=max_tokens or self.cfg.max_tokens,
        )
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        return text, getattr(usage, "prompt_tokens", None)

    async def _create(self, **request: Any) -> Any:
        """A chat completion with the client's errors turned into one-line LLMErrors."""
        import openai

        try:
            response = await self._client.chat.completions.create(model=self.cfg.model, **request)
        except openai.APITimeoutError:
            raise LLMError(f"LLM timed out after {self.cfg.timeout:.1f} s ({self.cfg.max_retries} retries)") from None
        except openai.APIStatusError as e:
            raise LLMError(f"LLM answered HTTP {e.status_code}: {str(e)[:200]}", raw=_body_text(e)) from None
        except openai.APIConnectionError as e:
            raise LLMError("cannot reach the LLM at {}: {}".format(self.cfg.base_url or "the default URL", e)) from None
        except openai.APIResponseValidationError as e:
            raise LLMError(f"LLM sent a malformed response: {e}") from None
        if not response.choices:
            raise LLMError("LLM answered with no choices")
        return response

    async def converse(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        """One turn of a function-calling conversation: the assistant message as a dict
        (`content`, and `tool_calls` when the model wants tools run), ready to append to `messages`."""
        if self._client is None:
            raise LLMOff(LLM_OFF_MESSAGE)
        options: dict[str, Any] = {"tools": tools} if tools else {}
        response = await self._create(messages=messages, temperature=self.cfg.temperature,
                                      max_tokens=self.cfg.max_tokens, **options)
        message = response.choices[0].message
        reply: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            reply["tool_calls"] = [
                {"id": call.id, "type": "function",
                 "function": {"name": call.function.name, "arguments": call.function.arguments or "{}"}}
                for call in message.tool_calls
            ]
        return reply

    async def complete_json(self, system: str, user: str, schema: Any) -> LLMReply:
        """Ask, extract the JSON and validate it against `schema` (a pydantic model or type)."""
        raw, prompt_tokens = await self.chat(system, user)
        return LLMReply(raw, parse_reply(raw, schema), prompt_tokens)


def parse_reply(raw: str, schema: Any) -> Any:
    """Extract and validate; LLMError (with `raw`) when either step fails."""
    try:
        value = extract_json(raw)
    except ValueError as e:
        raise LLMError(f"LLM output is not JSON: {e}", raw=raw) from None
    try:
        return TypeAdapter(schema).validate_python(value)
    except ValidationError as e:
        raise LLMError(f"LLM output does not match its schema: {describe_validation_error(e)}", raw=raw) from None


def _body_text(error: openai.APIStatusError) -> str | None:
    try:
        return error.response.text
    except Exception:
        return None
