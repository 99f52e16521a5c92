"""What the xiaozhi-esp32-server memory provider does, behind the thin module `xzmem integrate` writes.

The server builds ONE provider object and shares it between all its connections: `init_memory`
runs again at each connection and overwrites `role_id`, so nothing set there says which device a
later call is for. The server calls `query_memory(query)` from the connection's chat thread (the
coroutine then runs on the server's event loop) and `save_memory(msgs, session_id)` from a thread
of its own (with a new event loop) when a conversation ends. Both calls are made by the
connection object itself (`ConnectionHandler.chat`, its save task), so the device is read from
that caller: the frame up the stack whose `self` holds this provider as its `memory`. When no such
caller is found, the query answers no memory and the save stores nothing, with a log line.

Every call opens what it needs (SQLite connections, a link to the memory device) and closes it
again: nothing is shared between threads or loops.

- query: the device overview (`memory read`), the host's recall for the query (keyed and working
  memories, the context summary) as compact Chinese text within the budget; when the device cannot
  be reached, the overview cached at the last good query, said so in the text. Never raises.
- save: the pipelines over the real turns of the dialogue (the server's temporary few-shot lines
  are left out; a dialogue with no real turn runs nothing), then reflection with the keyed
  memories the conversation's prompts showed, promotion of due working memories and the device's
  end_conversation op; every batch goes through the durable outbox, so what an unreachable device
  misses is sent by the next save.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from xzmem.config import Config, LLMConfig, load_config
from xzmem.db import open_db
from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.outbox import Outbox
from xzmem.integrations.settings import ProviderSettings, Target, check_role_id, load_settings
from xzmem.llm import LLMClient, LLMError
from xzmem.pipelines import terms
from xzmem.pipelines.briefing import briefing
from xzmem.pipelines.runner import Pipelines

OUTBOX_FILE = "outbox.sqlite3"
CACHE_FILE = "overview_cache.json"
QUERY_CONNECT_TIMEOUT = 2.0
QUERY_CALL_TIMEOUT = 3.0
SERVER_LLM_TIMEOUT = 120.0
SERVER_LLM_SESSION = "xzmem-memory"
# Frames searched above the provider's method for the connection that calls it (the server's
# chat() and save task are one or two frames up).
CALLER_FRAMES = 8
log = logging.getLogger("xzmem.xiaozhi")


class ServerLLM(LLMClient):
    """The server's own LLM object (`response(session_id, dialogue)` yields text) used for the
    pipelines' single-prompt calls when the provider has no `llm` of its own."""

    def __init__(self, server_llm: Any, timeout: float = SERVER_LLM_TIMEOUT):
        super().__init__(LLMConfig())
        self.server_llm = server_llm
        self.timeout = timeout

    @property
    def enabled(self) -> bool:
        return True

    async def chat(self, system: str, user: str, *, temperature: float | None = None,
                   max_tokens: int | None = None) -> tuple[str, int | None]:
        dialogue = [{"role": "system", "content": system}, {"role": "user", "content": user}]

        def run() -> str:
            parts = []
            for part in self.server_llm.response(SERVER_LLM_SESSION, dialogue):
                # Some providers yield (text, tool_calls) pairs; the text is what a prompt answers.
                text = part[0] if isinstance(part, tuple) else part
                if isinstance(text, str):
                    parts.append(text)
            return "".join(parts)

        try:
            return await asyncio.wait_for(asyncio.to_thread(run), self.timeout), None
        except (TimeoutError, asyncio.TimeoutError):  # one class from 3.11 on; the server runs 3.10
            raise LLMError(f"the server's LLM gave no answer within {self.timeout:.0f} s") from None
        except Exception as exc:  # the server's providers raise anything; the pipelines expect LLMError
            raise LLMError(f"the server's LLM failed: {type(exc).__name__}: {exc}") from None

    async def converse(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        raise LLMError("the server's LLM is used for single prompts only")


def dialogue_of(msgs: list[Any]) -> list[dict[str, str]]:
    """The server's Message objects as user/assistant turns; an ASR turn's JSON `{"content": ...}`
    is unwrapped, system prompts, tool traffic and the server's temporary few-shot examples
    (`is_temporary`, e.g. 给我讲个故事吧 / 拜拜) are left out."""
    out: list[dict[str, str]] = []
    for msg in msgs or []:
        if getattr(msg, "is_temporary", False):
            continue
        role = getattr(msg, "role", None)
        content = getattr(msg, "content", None)
        if role not in ("user", "assistant") or not isinstance(content, str) or not content.strip():
            continue
        text = content.strip()
        if role == "user" and text.startswith("{") and text.endswith("}"):
            try:
                data = json.loads(text)
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("content"), str):
                text = data["content"].strip()
        if text:
            out.append({"role": role, "content": text})
    return out


def exchanges_of(dialogue: list[dict[str, str]]) -> list[tuple[str, str]]:
    """(user words, the assistant's answer to them) per user turn."""
    pairs: list[tuple[str, str]] = []
    for turn in dialogue:
        if turn["role"] == "user":
            pairs.append((turn["content"], ""))
        elif pairs:
            user, answer = pairs[-1]
            pairs[-1] = (user, (answer + "\n" + turn["content"]).strip())
    return pairs


@dataclass
class SaveReport:
    role_id: str
    exchanges: int = 0
    queued: int = 0
    sent: int = 0
    pending: int = 0
    error: str | None = None
    errors: list[str] = field(default_factory=list)


def serving_connection(provider: Any) -> Any:
    """The server's connection that is calling `provider` right now: the first frame above the
    caller whose `self` has `provider` as its `memory` (ConnectionHandler.chat for a query, the
    save task inside ConnectionHandler._save_and_close for a save); None when there is none."""
    frame = sys._getframe(1)
    for _ in range(CALLER_FRAMES):
        if frame is None:
            return None
        conn = frame.f_locals.get("self")
        if conn is not None and conn is not provider and getattr(conn, "memory", None) is provider:
            return conn
        frame = frame.f_back
    return None


async def _answer(value: Any) -> Any:
    return value


class XiaozhiMemory:
    """The work of one provider object, shared by every connection of the server."""

    def __init__(self, block: dict, base: Config | None = None, clock: Callable[[], float] = time.time):
        self.settings: ProviderSettings = load_settings(block, base or load_config())
        self.clock = clock
        self._recalled: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        # The server builds the provider at start-up; the first query_memory should not pay for this.
        self.warming = threading.Thread(target=terms.warm_up, name="xzmem-warm-up", daemon=True)
        self.warming.start()

    def _caller(self, provider: Any, call: str) -> tuple[Any, str] | None:
        # (connection, its device id) of the call being made, else None with a log line.
        conn = serving_connection(provider)
        if conn is None:
            log.warning("xzmem %s: no server connection is making this call, so the device is unknown; "
                        "answering with no memory", call)
            return None
        try:
            return conn, check_role_id(getattr(conn, "device_id", None))
        except ValueError as exc:
            log.warning("xzmem %s: the connection's device id is unusable (%s); answering with no memory", call, exc)
            return None

    def query_memory(self, provider: Any, query: str) -> Coroutine[Any, Any, str]:
        """The coroutine the server's query_memory returns, for the device of the calling connection.

        Called synchronously by the provider's query_memory in the connection's chat thread, so
        the caller is still on the stack; the coroutine itself runs later on the server's loop.
        """
        found = self._caller(provider, "query_memory")
        if found is None:
            return _answer("")
        return self.query(found[1], query)

    def save_memory(self, provider: Any, msgs: list[Any], session_id: str | None = None) -> Coroutine[Any, Any, Any]:
        """The coroutine the server's save_memory returns, for the device of the calling connection
        (whose LLM runs the pipelines when the provider has no `llm` of its own)."""
        found = self._caller(provider, "save_memory")
        if found is None:
            return _answer(SaveReport("", error="no server connection made this call; nothing saved"))
        conn, role_id = found
        return self.save(role_id, msgs, session_id, server_llm=getattr(conn, "llm", None))

    def _llm(self, cfg: Config, server_llm: Any) -> LLMClient:
        if cfg.llm.enabled:
            return LLMClient(cfg.llm)
        return ServerLLM(server_llm) if server_llm is not None else LLMClient(LLMConfig())

    @contextmanager
    def _pipelines(self, cfg: Config, llm: LLMClient) -> Iterator[Pipelines]:
        """Pipelines on the role's own database, closed again (each call may be on another thread)."""
        conn = open_db(cfg.data_path)
        try:
            yield Pipelines(cfg, conn, llm, clock=self.clock)
        finally:
            conn.close()

    # -- query ------------------------------------------------------------------------------

    async def query(self, role_id: str, query: str) -> str:
        """The memory text for the system prompt; '' only when there is nothing at all to say."""
        try:
            return await self._query(check_role_id(role_id), query or "")
        except Exception as exc:  # the server's turn must go on whatever happens here
            log.warning("xzmem query_memory for %s failed: %s: %s", role_id, type(exc).__name__, exc)
            return ""

    async def _query(self, role_id: str, query: str) -> str:
        cfg = self.settings.role_config(role_id)
        target = self.settings.target_for(role_id)
        with self._pipelines(cfg, LLMClient(LLMConfig())) as pipelines:
            context = pipelines.context(query)
        with self._lock:
            seen = self._recalled.setdefault(role_id, [])
            seen.extend(m.key for m in context.keyed if m.key not in seen)
        cache = OverviewCache(cfg.data_path / CACHE_FILE)
        cached_at = None
        try:
            async with DeviceClient(target.url, target.token or None, connect_timeout=QUERY_CONNECT_TIMEOUT,
                                    call_timeout=QUERY_CALL_TIMEOUT, reconnect_attempts=0) as client:
                overview = await client.memory(action="read")
            if not isinstance(overview, dict):
                raise DeviceError(f"memory read answered {str(overview)[:60]}")
            cache.save(overview, self.clock())
        except DeviceError as exc:
            log.info("xzmem: memory device of %s unreachable, answering from the cache: %s", role_id, exc)
            overview, saved_at = cache.load()
            cached_at = datetime.fromtimestamp(saved_at).strftime("%m-%d %H:%M") if saved_at else "（无）"
        return briefing(overview, context, query, self.settings.budget_tokens, cached_at)

    # -- save -------------------------------------------------------------------------------

    async def save(self, role_id: str, msgs: list[Any], session_id: str | None = None,
                   server_llm: Any = None) -> SaveReport:
        """Run the pipelines over the finished conversation and send the batches; never raises."""
        report = SaveReport(str(role_id))
        try:
            await self._save(check_role_id(role_id), msgs, report, server_llm)
        except Exception as exc:
            report.error = f"{type(exc).__name__}: {exc}"
            log.warning("xzmem save_memory for %s (session %s) failed: %s", role_id, session_id, report.error)
        return report

    async def _save(self, role_id: str, msgs: list[Any], report: SaveReport, server_llm: Any) -> None:
        dialogue = dialogue_of(msgs)
        pairs = exchanges_of(dialogue)
        with self._lock:
            recalled = self._recalled.pop(role_id, [])
        if not pairs:
            return
        cfg = self.settings.role_config(role_id)
        target = self.settings.target_for(role_id)
        cache = OverviewCache(cfg.data_path / CACHE_FILE)
        with self._pipelines(cfg, self._llm(cfg, server_llm)) as pipelines, Outbox(self.settings.data / OUTBOX_FILE) as outbox:
            async with _device_or_none(target) as client:
                device_id = await _device_id(client)
                device_id = device_id or cache.device_id() or DeviceClient(target.url, target.token).where
                cache.remember_device(device_id)
                pipelines.device_id = device_id
                for user, answer in pairs:
                    outcome = await pipelines.exchange(user, answer)
                    report.errors += outcome.sieve.errors + outcome.changes.errors
                    report.queued += _enqueue(outbox, device_id, outcome.batches)
                report.exchanges = len(pairs)
                pipelines.note_recalled(recalled)
                ending = await pipelines.finish_conversation(dialogue)
                if ending.reflection:
                    report.errors += ending.reflection.reflection.errors
                report.queued += _enqueue(outbox, device_id, ending.batches)
                if client is not None:
                    drained = await outbox.drain(client, device_id)
                    report.sent = len(drained.acked) + len(drained.replayed)
                    report.error = drained.error
                else:
                    report.error = "memory device unreachable; the batches wait in the outbox"
                report.pending = len(outbox.pending(device_id))
        log.info("xzmem saved %d exchanges of %s: %d batches queued, %d sent, %d waiting%s", report.exchanges,
                 role_id, report.queued, report.sent, report.pending, f" ({report.error})" if report.error else "")


async def _device_id(client: DeviceClient | None) -> str | None:
    if client is None:
        return None
    try:
        return await client.device_id()
    except DeviceError:
        return None


def _enqueue(outbox: Outbox, device_id: str, batches: list) -> int:
    for batch in batches:
        outbox.enqueue(device_id, batch.ops)
    return len(batches)


@asynccontextmanager
async def _device_or_none(target: Target) -> AsyncIterator[DeviceClient | None]:
    """An open DeviceClient, or None when the device cannot be reached (the batches then wait in
    the outbox for the next save)."""
    client = DeviceClient(target.url, target.token or None, reconnect_attempts=2, backoff=(0.5, 1.0))
    try:
        await client.__aenter__()
    except DeviceError as exc:
        log.info("xzmem: memory device unreachable at save: %s", exc)
        yield None
        return
    try:
        yield client
    finally:
        await client.__aexit__(None, None, None)


class OverviewCache:
    """The last overview a query read, and the device's id, in the role's data directory."""

    def __init__(self, path: Path):
        self.path = path

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        tmp.replace(self.path)

    def save(self, overview: dict, at: float) -> None:
        data = self._read()
        data.update(overview=overview, saved_at=at)
        self._write(data)

    def load(self) -> tuple[dict | None, float | None]:
        data = self._read()
        return data.get("overview"), data.get("saved_at")

    def device_id(self) -> str | None:
        return self._read().get("device_id")

    def remember_device(self, device_id: str) -> None:
        data = self._read()
        if data.get("device_id") != device_id:
            data["device_id"] = device_id
            self._write(data)
