"""`xzmem chat`'s conversation loop: the user talks, the LLM answers with the device's `memory` tool,
and after every turn the pipelines' op batches go through the outbox to the device.

No terminal code here: lines come in on a receive stream (closing it ends the chat) and everything
the chat says goes to `say(text)`. With no LLM configured a rule-based responder answers from the
fast channel's writes and the device's overview.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream

from xzmem.chat.answers import acknowledge, answer_from_overview, is_question
from xzmem.config import Config
from xzmem.db import open_db
from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.devicetime import DeviceTime
from xzmem.device.ops import Batch
from xzmem.device.outbox import Outbox
from xzmem.llm import LLMClient, LLMError
from xzmem.pipelines.briefing import context_text
from xzmem.pipelines.fast_channel import fast_channel
from xzmem.pipelines.prompt_files import load_prompt
from xzmem.pipelines.runner import Pipelines

REMINDER_LOGGER = "memory.reminder"
EXIT_WORDS = ("/exit", "/quit", "/bye")
MAX_TOOL_ROUNDS = 6
OUTBOX_FILE = "outbox.sqlite3"
LLM_OFF_NOTE = "（没有配置 LLM：LLM 阶段已关闭，用规则回答，快通道照常记忆）"

_KEYED_KEY = re.compile(r"\bmem_[a-z0-9_]{1,12}\b")


def reminder_text(data: Any) -> str:
    """The line a reminder notification shows in the chat."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            return "⏰ " + data
    if isinstance(data, dict):
        return "⏰ " + str(data.get("text") or f"{data.get('datetime', '')} {data.get('content', '')}".strip())
    return "⏰ " + str(data)


def memory_function(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The device's `memory` tool as an OpenAI function definition (memory_sync stays host-only)."""
    for tool in tools:
        if tool.get("name") == "memory":
            return [{"type": "function", "function": {
                "name": "memory", "description": tool.get("description", ""),
                "parameters": tool.get("inputSchema") or {"type": "object", "properties": {}},
            }}]
    raise DeviceError("the device offers no `memory` tool", retryable=False)


class Chat:
    """One chat with one device. `start()`, then `turn(text)` per message, `end_conversation()` when
    it is over; `on_message` is the DeviceClient's notification callback (reminders)."""

    def __init__(
        self,
        cfg: Config,
        pipelines: Pipelines,
        outbox: Outbox,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.time,
    ):
        self.cfg = cfg
        self.pipelines = pipelines
        self.llm: LLMClient = pipelines.llm
        self.outbox = outbox
        self.say = say
        self.clock = clock
        self.client: DeviceClient | None = None
        self.device_id = ""
        self.overview: dict[str, Any] = {}
        self.functions: list[dict[str, Any]] = []
        self.conversation: list[dict[str, str]] = []
        self.llm_messages: list[dict[str, Any]] = []

    async def on_message(self, params: Any) -> None:
        if getattr(params, "logger", None) == REMINDER_LOGGER:
            self.say(reminder_text(params.data))

    async def start(self, client: DeviceClient) -> None:
        """Learn the device's id, its memory overview and (LLM on) its `memory` tool; send leftovers."""
        self.client = client
        self.device_id = self.pipelines.device_id = await client.device_id()
        await self._follow_device_clock(client)
        self.overview = await client.memory(action="read")
        if self.llm.enabled:
            self.functions = memory_function(await client.list_tools(with_user_tools=False))
        else:
            self.say(LLM_OFF_NOTE)
        if self.outbox.pending(self.device_id):
            await self.send_pending()

    async def _follow_device_clock(self, client: DeviceClient) -> None:
        """Count time and dates (今天, 明天) on the device's clock from here on, not this computer's."""
        try:
            device_time = DeviceTime.from_stats(await client.sync(action="stats"), self.clock())
        except DeviceError:
            return  # a link without memory_sync: this computer's clock is the best guess
        if device_time is not None:
            host_clock = self.clock
            self.clock = lambda: device_time.now(host_clock())
            self.pipelines.local_time = device_time.local

    def _opening_messages(self) -> list[dict[str, Any]]:
        system, memory = load_prompt("chat").render(
            overview=json.dumps(self.overview, ensure_ascii=False),
            now=self.pipelines.local_time(self.clock()).strftime("%Y-%m-%d %H:%M"),
        )
        return [{"role": "system", "content": system}, {"role": "system", "content": memory}]

    async def turn(self, user: str) -> str:
        """Answer one message, then run the pipelines on the exchange and send their batches."""
        now = self.clock()
        reply = None
        if self.llm.enabled:
            try:
                reply = await self._llm_reply(user)
            except LLMError as exc:
                self.say(f"（LLM 出错，改用规则回答：{exc}）")
        if reply is None:
            reply = await self._rule_reply(user, now)
        self.say(reply)
        self.conversation += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
        sent: set[str] = set()

        async def fast_batch_ready(batch: Batch) -> None:
            if batch.batch_id not in sent:
                sent.add(batch.batch_id)
                self.outbox.enqueue(self.device_id, batch.ops)
                await self.send_pending()

        outcome = await self.pipelines.exchange(user, reply, now, on_fast_batch=fast_batch_ready)
        if self.llm.enabled:
            for problem in dict.fromkeys(s.problem for s in outcome.sieve.signals if s.problem):
                self.say(f"  （没有记下：{problem}。）")
        later = [b for b in outcome.batches if b.batch_id not in sent]
        for batch in later:
            self.outbox.enqueue(self.device_id, batch.ops)
        if later:
            await self.send_pending()
        if self.llm.enabled and later:
            self.say(f"  （记忆整理：{sum(len(b.ops) for b in later)} 条改动已发给设备）")
        return reply

    async def _llm_reply(self, user: str) -> str:
        if not self.llm_messages:
            self.llm_messages = self._opening_messages()
        # What the host recalls for these words (working and keyed memories, the context summary)
        # rides along as a system note just before them.
        recalled = context_text(self.pipelines.context(user))
        if recalled:
            self.llm_messages.append({"role": "system", "content": recalled})
        self.llm_messages.append({"role": "user", "content": user})
        for _ in range(MAX_TOOL_ROUNDS):
            message = await self.llm.converse(self.llm_messages, self.functions)
            self.llm_messages.append(message)
            calls = message.get("tool_calls")
            if not calls:
                return message["content"].strip() or "……"
            for call in calls:
                result = await self._run_tool(call["function"]["name"], call["function"]["arguments"])
                self.llm_messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        message = await self.llm.converse(self.llm_messages, [])
        self.llm_messages.append(message)
        return message["content"].strip() or "……"

    async def _run_tool(self, name: str, arguments: str) -> str:
        """Run one tool call of the model on the device; the answer (or the error) goes back to the model."""
        if name != "memory":
            return json.dumps({"error": f"unknown tool {name!r}; only `memory` is available"})
        try:
            args = json.loads(arguments or "{}")
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            return json.dumps({"error": f"arguments are not a JSON object: {exc}"})
        self.say("  · memory " + " ".join(str(args[k]) for k in ("action", "type", "content") if k in args))
        try:
            answer = await self.client.call("memory", args)
        except DeviceError as exc:
            return json.dumps({"error": str(exc)}, ensure_ascii=False)
        text = json.dumps(answer, ensure_ascii=False)
        self.pipelines.note_recalled(_KEYED_KEY.findall(text))
        return text

    async def _rule_reply(self, user: str, now: float) -> str:
        signals, writes = fast_channel(user, self.pipelines.local_time(now))
        problems = list(dict.fromkeys(s.problem for s in signals if s.problem))
        if problems:
            return f"这个我没法记下：{'；'.join(problems)}。换个说法再告诉我一次吧？"
        if writes and self.pipelines.never.match(user) is None:  # a never-remember topic is not kept
            return acknowledge(writes, user)
        if is_question(user):
            try:
                self.overview = await self.client.memory(action="read")
            except DeviceError as exc:
                self.say(f"（设备暂时连不上，用上次读到的记忆回答：{exc}）")
            answer = answer_from_overview(user, self.overview)
            if answer:
                return answer
        return "嗯，我在听。"

    async def send_pending(self) -> None:
        """Drain the outbox to the device; on failure the batches wait for the next turn."""
        report = await self.outbox.drain(self.client, self.device_id)
        if report.error:
            self.say(f"（设备没有收到：{report.pending} 批记忆留在发件箱，稍后重发。{report.error}）")

    async def end_conversation(self) -> None:
        """Reflect on the conversation with what it read (LLM on), promote due working memories, tell
        the device the conversation ended, and send it all; the next message starts a new one."""
        if self.conversation:
            ending = await self.pipelines.finish_conversation(self.conversation)
            for batch in ending.batches:
                self.outbox.enqueue(self.device_id, batch.ops)
            await self.send_pending()
            if ending.reflection and ending.reflection.batches:
                changed = sum(len(b.ops) for b in ending.reflection.batches)
                self.say(f"  （对话反思：{changed} 条改动已发给设备）")
            if ending.promotion and ending.promotion.batches:
                changed = sum(len(b.ops) for b in ending.promotion.batches)
                self.say(f"  （工作记忆转为长期记忆：{changed} 条改动已发给设备）")
        self.conversation = []
        self.llm_messages = []

    async def run(
        self, lines: ObjectReceiveStream[str], echo: str | None = None, ready: Callable[[], None] | None = None
    ) -> None:
        """Take messages until the stream closes or an exit word; `idle_minutes` of silence ends a
        conversation (reflection) without ending the chat. With `echo`, each message is said first
        behind that prompt (for scripted input nobody typed); `ready()` is called whenever the chat
        waits for the next message (a terminal shows its prompt then)."""
        idle = self.cfg.chat.idle_minutes * 60
        while True:
            if ready is not None:
                ready()
            with anyio.move_on_after(idle if self.conversation else math.inf) as waiting:
                try:
                    line = await lines.receive()
                except anyio.EndOfStream:
                    break
            if waiting.cancelled_caught:
                await self.end_conversation()
                continue
            line = line.strip()
            if line.lower() in EXIT_WORDS:
                break
            if line:
                if echo is not None:
                    self.say(echo + line)
                await self.turn(line)
        await self.end_conversation()
        left = len(self.outbox.pending(self.device_id))
        if left:
            self.say(f"（{left} 批记忆还在发件箱里；设备回来后运行 `xzmem outbox --send`）")


async def run_chat(
    cfg: Config,
    target: str,
    token: str | None,
    lines: ObjectReceiveStream[str],
    say: Callable[[str], None],
    clock: Callable[[], float] = time.time,
    echo: str | None = None,
    ready: Callable[[], None] | None = None,
) -> Chat:
    """Open the device, the outbox and the host database from `cfg`, and chat until `lines` ends.

    A device that cannot be reached at the start raises DeviceError.
    """
    llm = LLMClient(cfg.llm)
    pipelines = Pipelines(cfg, open_db(cfg.data_path), llm, clock=clock)
    with Outbox(cfg.data_path / OUTBOX_FILE) as outbox:
        chat = Chat(cfg, pipelines, outbox, say, clock)
        # Few, short reconnect attempts: while the device is away a turn should not stall, and its
        # batches wait in the outbox for the next turn anyway.
        async with DeviceClient(target, token, on_message=chat.on_message, reconnect_attempts=2,
                                backoff=(0.5, 1.0)) as client:
            await chat.start(client)
            await chat.run(lines, echo, ready)
    return chat
