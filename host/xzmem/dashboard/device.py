"""The dashboard's side of the device link: what a page reads, and changes sent live or through the outbox.

A page opens one `DeviceClient` for its request (a WebSocket handshake on loopback costs a few
milliseconds) and closes it at the end, so a device that went away only costs the page its live
data. A change the device cannot take now waits in the outbox (`device/outbox.py`) and is sent,
in order, the next time any page reaches the device.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xzmem.device.address import redact
from xzmem.device.client import DeviceClient, DeviceError
from xzmem.device.outbox import Outbox

OUTBOX_FILE = "outbox.sqlite3"  # the file `xzmem chat` and `xzmem outbox` use too
PROFILE_TYPES = ("name", "age", "gender", "location", "birthday")
TEXT_TYPES = ("like", "dislike", "fact", "trait", "habit", "goal")
NOTE_TYPES = ("fact", "trait", "habit", "goal")  # deleted by id; likes and dislikes by content
EXPORT_PAGE = 100


@dataclass
class Answer:
    """What became of one change: the device's answer, a refusal in words, the outbox batch, or a note."""

    what: str
    result: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None
    queued: str | None = None
    call: dict[str, Any] = field(default_factory=dict)
    note: str | None = None  # the host's own word on a change that did not reach the device


@dataclass
class Link:
    """One request's view of the device: the open client, or why there is none."""

    client: DeviceClient | None
    device_id: str
    error: str | None = None
    drained: int = 0


class DeviceAccess:
    """Where the device is, how to get in, and the outbox for changes made while it is away."""

    def __init__(self, target: str, token: str | None, data_dir: Path, connect_timeout: float = 3.0):
        self.target = target
        self.token = token
        self.data_dir = Path(data_dir)
        self.connect_timeout = connect_timeout
        self.known_id: str | None = None
        # Batches queued before the device ever answered are kept under its address; they are sent
        # with the device's own ones once it is reached.
        self.address_id = "address:" + redact(target)

    def outbox(self) -> Outbox:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return Outbox(self.data_dir / OUTBOX_FILE)

    def backlog(self) -> int:
        with self.outbox() as box:
            ids = {self.address_id, self.known_id or self.address_id}
            return sum(len(box.pending(i)) for i in ids)

    @asynccontextmanager
    async def open(self) -> AsyncIterator[Link]:
        """A Link for one request; an unreachable device gives a Link with no client and the reason."""
        client = DeviceClient(self.target, self.token, connect_timeout=self.connect_timeout,
                              reconnect_attempts=1, call_timeout=20.0)
        try:
            await client.__aenter__()
        except DeviceError as exc:
            yield Link(None, self.known_id or self.address_id, str(exc))
            return
        try:
            link = Link(client, self.known_id or self.address_id)
            try:
                self.known_id = link.device_id = await client.device_id()
                link.drained = await self._drain(client)
            except DeviceError as exc:
                link.error = str(exc)
            yield link
        finally:
            await client.__aexit__(None, None, None)

    async def _drain(self, client: DeviceClient) -> int:
        sent = 0
        with self.outbox() as box:
            for device_id in (self.address_id, self.known_id):
                if box.pending(device_id):
                    report = await box.drain(client, device_id)
                    sent += len(report.acked) + len(report.replayed)
        return sent

    async def change(self, link: Link, calls: list[dict[str, Any]]) -> list[Answer]:
        """Run `memory` tool calls in order on the device, or queue them as one batch when it is away.

        Live, the calls stop at the first refusal (a later call may depend on an earlier one, as the
        write after a delete does). Queued, they go as one op batch, which the device applies whole.
        """
        if link.client is None or link.error:
            ops = [to_op(call) for call in calls]
            with self.outbox() as box:
                batch_id = box.enqueue(link.device_id, ops)
            return [Answer(describe(call), queued=batch_id, call=call) for call in calls]
        answers = []
        for call in calls:
            args = {k: v for k, v in call.items() if k != "_tool"}
            try:
                reply = await link.client.call(call.get("_tool", "memory"), args)
            except DeviceError as exc:
                answers.append(Answer(describe(call), refusal=refusal_words(str(exc)), call=call))
                break
            answer = answer_of(call, reply)
            answer.call = call
            answers.append(answer)
        return answers


def refusal_words(message: str) -> str:
    """The device's own reason, without the client's 'device refused memory:' prefix."""
    for prefix in ("device refused memory: ", "device refused memory_sync: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def answer_of(call: dict[str, Any], reply: Any) -> Answer:
    if isinstance(reply, dict) and call.get("action") == "apply":
        results = reply.get("results") or []
        first = results[0] if results and isinstance(results[0], dict) else {}
        if first.get("result") == "REFUSED":
            return Answer(describe(call), refusal=str(first.get("detail", "REFUSED")))
        return Answer(describe(call), str(first.get("result", "APPLIED")), first)
    if isinstance(reply, dict):
        return Answer(describe(call), str(reply.get("result", "")), reply)
    return Answer(describe(call), str(reply))


def describe(call: dict[str, Any]) -> str:
    """A short line naming the change, for the page that shows the device's answer."""
    if call.get("action") == "apply":
        op = (call.get("ops") or [{}])[0]
        return f"{op.get('op')} {op.get('key')} {op.get('payload', '')}".strip()
    parts = [str(call.get("action", "")), str(call.get("type", ""))]
    for key in ("relation", "name", "topic", "content", "datetime", "id"):
        if call.get(key) not in (None, ""):
            parts.append(f"#{call[key]}" if key == "id" else str(call[key]))
    return " ".join(parts)


def to_op(call: dict[str, Any]) -> dict[str, Any]:
    """The op batch form of a `memory` tool call (docs/sync.md), for the outbox."""
    call = dict(call)
    call.pop("_tool", None)
    if call.get("action") == "apply":
        return call["ops"][0]
    action = call.pop("action")
    if action == "write" and call.get("type") == "coins":
        return {"op": "coins", "amount": int(call.get("amount", call.get("content", 0)))}
    if action == "write" and call.get("type") == "mood":
        return {"op": "mood", "mood": str(call.get("content", ""))}
    if action not in ("write", "delete"):
        raise ValueError(f"{action} cannot wait in the outbox; it needs the device")
    return {"op": action, **call}


async def export_all(client: DeviceClient) -> list[dict[str, Any]]:
    """Every record the device holds in NVS (profile, likes, family, notes, schedules, keyed), page by page.

    The archive is not part of an export page set; the timeline reads it through `recall`.
    """
    records: list[dict[str, Any]] = []
    cursor = None
    while True:
        args: dict[str, Any] = {"action": "export", "limit": EXPORT_PAGE}
        if cursor:
            args["cursor"] = cursor
        page = await client.sync(**args)
        records.extend(page.get("records") or [])
        cursor = page.get("next_cursor")
        if not cursor:
            return records


def replace_calls(kind: str, old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls that turn record `old` of `kind` into `new` (both form fields)."""
    if kind in PROFILE_TYPES:
        return [{"action": "write", "type": kind, "content": new["content"]}]
    if kind == "family":
        write = {"action": "write", "type": "family", "relation": new["relation"], "name": new["name"]}
        if new.get("closeness"):
            write["closeness"] = int(new["closeness"])
        if old.get("name") == new["name"]:
            return [write]
        return [{"action": "delete", "type": "family", "name": old["name"], "relation": old.get("relation", "")}, write]
    if kind == "moment":
        return [note_delete("moment", old),
                {"action": "write", "type": "moment", "topic": new.get("topic", ""), "content": new["content"]}]
    if kind in ("like", "dislike"):
        if old.get("content") == new["content"]:
            return [{"action": "write", "type": kind, "content": new["content"]}]
        return [{"action": "delete", "type": kind, "content": old["content"]},
                {"action": "write", "type": kind, "content": new["content"]}]
    if kind in NOTE_TYPES:
        if old.get("content") == new["content"]:
            return [{"action": "write", "type": kind, "content": new["content"]}]
        return [note_delete(kind, old), {"action": "write", "type": kind, "content": new["content"]}]
    raise ValueError(f"{kind} records cannot be edited here")


def note_delete(kind: str, record: dict[str, Any]) -> dict[str, Any]:
    """A fact, trait, habit, goal or moment is deleted by id, or by its exact text when it has none."""
    if record.get("id") not in (None, ""):
        return {"action": "delete", "type": kind, "id": int(record["id"])}
    return {"action": "delete", "type": kind, "content": record["content"]}


def delete_call(kind: str, record: dict[str, Any]) -> dict[str, Any]:
    if kind in PROFILE_TYPES:
        return {"action": "delete", "type": kind}
    if kind == "family":
        return {"action": "delete", "type": "family", "name": record["name"], "relation": record.get("relation", "")}
    if kind in ("like", "dislike", "schedule"):
        return {"action": "delete", "type": kind, "content": record["content"]}
    if kind in NOTE_TYPES or kind == "moment":
        return note_delete(kind, record)
    raise ValueError(f"{kind} records cannot be deleted here")
