"""Device op batches (docs/sync.md): builders, validation, UTF-8 cuts and batch ids."""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass, field

MAX_OPS_PER_BATCH = 64
# The device reads one message of at most 4,096 bytes (its receive buffer, memory.ws.MAX_MESSAGE); a
# batch's ops as UTF-8 JSON keep 512 of them for the tools/call around them (ids, envelope).
MESSAGE_MAX_BYTES = 4096
BATCH_MAX_BYTES = MESSAGE_MAX_BYTES - 512
PAYLOAD_MAX_BYTES = 200
CATEGORY_MAX_BYTES = 24
TAG_MAX_BYTES = 16
MAX_TAGS = 4
MOOD_MAX_BYTES = 16
KEY_RE = re.compile(r"^mem_[a-z0-9_]{1,12}$")
SOURCES = ("user", "assistant", "both", "reflection", "sieve")
WRITE_TYPES = (
    "name", "age", "gender", "location", "birthday", "like", "dislike", "family",
    "fact", "trait", "habit", "moment", "goal", "schedule",
)
REPEATS = ("none", "daily", "weekly", "monthly", "yearly")
EMOTIONS = ("neutral", "happy", "sad", "excited", "worried", "touched")
EVENT_TYPE_MAX_BYTES = 16
# A schedule's time; a date without its year (MM-DD, time optional) is a yearly one, like a birthday.
DATETIME_RE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}|\d{2}-\d{2}( \d{2}:\d{2})?)$")
_KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def cut_utf8(text: str, max_bytes: int) -> tuple[str, bool]:
    """Cut `text` to at most `max_bytes` of UTF-8 on a character boundary; say whether it was cut."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text, False
    return data[:max_bytes].decode("utf-8", errors="ignore"), True


def new_key() -> str:
    """A fresh keyed-memory key: `mem_` and 10 random characters of [a-z0-9]."""
    return "mem_" + "".join(secrets.choice(_KEY_ALPHABET) for _ in range(10))


def new_batch_id(stage: str) -> str:
    """A batch id unique enough for the device's replay window: stage, time, random suffix."""
    return f"{stage[:20]}-{int(time.time() * 1000)}-{secrets.token_hex(4)}"


@dataclass
class Batch:
    """One `memory_sync apply` call: a batch id and 1-64 ops."""

    batch_id: str
    ops: list[dict]

    def to_json(self) -> dict:
        return {"batch_id": self.batch_id, "ops": self.ops}


@dataclass
class BuiltOp:
    """An op plus the notes the builder made (text cut, fields dropped)."""

    op: dict
    notes: list[str] = field(default_factory=list)


def put_mem(
    key: str,
    category: str,
    payload: str,
    importance: int,
    source: str,
    tags: list[str],
    trigger_count: int,
    created_at: int,
    updated_at: int,
    last_triggered: int,
) -> BuiltOp:
    """A `put_mem` op with every field inside the device's limits; cuts are reported in notes."""
    notes = []
    if not KEY_RE.match(key):
        raise ValueError(f"key must be mem_ + 1-12 of [a-z0-9_], got {key!r}")
    if source not in SOURCES:
        raise ValueError("source must be one of {}, got {!r}".format("|".join(SOURCES), source))
    if not 1 <= int(importance) <= 10:
        raise ValueError(f"importance must be 1-10, got {importance!r}")
    category, cut = cut_utf8(category, CATEGORY_MAX_BYTES)
    if cut:
        notes.append(f"category cut to {CATEGORY_MAX_BYTES} bytes")
    payload, cut = cut_utf8(payload, PAYLOAD_MAX_BYTES)
    if cut:
        notes.append(f"payload cut to {PAYLOAD_MAX_BYTES} bytes on a character boundary")
    clean_tags = []
    for tag in tags:
        tag = tag.strip()
        if not tag or tag in clean_tags:
            continue
        if len(clean_tags) == MAX_TAGS:
            notes.append(f"tags beyond {MAX_TAGS} dropped")
            break
        tag, cut = cut_utf8(tag, TAG_MAX_BYTES)
        if cut:
            notes.append(f"tag cut to {TAG_MAX_BYTES} bytes")
        clean_tags.append(tag)
    op = {
        "op": "put_mem",
        "key": key,
        "category": category,
        "payload": payload,
        "importance": int(importance),
        "source": source,
        "tags": clean_tags,
        "trigger_count": int(trigger_count),
        "created_at": int(created_at),
        "updated_at": int(updated_at),
        "last_triggered": int(last_triggered),
    }
    return BuiltOp(op, notes)


def del_mem(key: str) -> dict:
    if not KEY_RE.match(key):
        raise ValueError(f"key must be mem_ + 1-12 of [a-z0-9_], got {key!r}")
    return {"op": "del_mem", "key": key}


def write(type_: str, content: str, **fields) -> dict:
    """A `write` op with the `memory` tool's fields (schedule: datetime, repeat, priority, event_type,
    emotion, intensity, significance)."""
    if type_ not in WRITE_TYPES:
        raise ValueError("type must be one of {}, got {!r}".format("|".join(WRITE_TYPES), type_))
    op = {"op": "write", "type": type_, "content": content}
    op.update({k: v for k, v in fields.items() if v is not None})
    validate_op(op)
    return op


def mood(name: str | None, soul_state_code: int | None = None) -> dict:
    """The mood op: a mood in words, and/or reflection's soul state code (then the mood is kept)."""
    op: dict = {"op": "mood"}
    if name is not None:
        op["mood"] = cut_utf8(name, MOOD_MAX_BYTES)[0]
    if soul_state_code is not None:
        op["soul_state_code"] = soul_state_code
    validate_op(op)
    return op


def end_conversation() -> dict:
    """The op that tells the device a conversation is over: it counts the interaction and flushes once."""
    return {"op": "end_conversation"}


def validate_op(op: dict) -> None:
    """Raise ValueError naming the field when `op` breaks docs/sync.md."""
    kind = op.get("op")
    if kind == "write":
        if op.get("type") not in WRITE_TYPES:
            raise ValueError("write.type must be a memory type, got {!r}".format(op.get("type")))
        if op["type"] == "family":
            if not op.get("relation") or not op.get("name"):
                raise ValueError(f"write family needs relation and name, got {op!r}")
        elif not isinstance(op.get("content"), str) or not op["content"].strip():
            raise ValueError("write.content must be a non-empty string, got {!r}".format(op.get("content")))
        if op["type"] == "schedule":
            if not DATETIME_RE.match(op.get("datetime", "")):
                raise ValueError("schedule datetime must be YYYY-MM-DD HH:MM or MM-DD (yearly), got {!r}".format(
                    op.get("datetime")))
            if op.get("repeat", "none") not in REPEATS:
                raise ValueError("schedule repeat must be {}, got {!r}".format("|".join(REPEATS), op.get("repeat")))
            for name in ("priority", "intensity", "significance"):
                if not 1 <= int(op.get(name, 3)) <= 5:
                    raise ValueError(f"schedule {name} must be 1-5, got {op.get(name)!r}")
            if len(str(op.get("event_type", "")).encode("utf-8")) > EVENT_TYPE_MAX_BYTES:
                raise ValueError("schedule event_type must be <= {} bytes of UTF-8, got {!r}".format(
                    EVENT_TYPE_MAX_BYTES, op.get("event_type")))
            if op.get("emotion", "neutral") not in EMOTIONS:
                raise ValueError("schedule emotion must be one of {}, got {!r}".format("|".join(EMOTIONS), op.get("emotion")))
    elif kind == "delete":
        if op.get("type") not in WRITE_TYPES:
            raise ValueError("delete.type must be a memory type, got {!r}".format(op.get("type")))
    elif kind == "put_mem":
        for name in ("key", "category", "payload", "importance", "source", "tags", "trigger_count",
                     "created_at", "updated_at", "last_triggered"):
            if name not in op:
                raise ValueError(f"put_mem.{name} is missing")
        if not KEY_RE.match(op["key"]):
            raise ValueError("put_mem.key must be mem_ + 1-12 of [a-z0-9_], got {!r}".format(op["key"]))
        if len(op["payload"].encode("utf-8")) > PAYLOAD_MAX_BYTES:
            raise ValueError(f"put_mem.payload must be <= {PAYLOAD_MAX_BYTES} bytes")
        if not 1 <= op["importance"] <= 10:
            raise ValueError("put_mem.importance must be 1-10, got {!r}".format(op["importance"]))
        if op["source"] not in SOURCES:
            raise ValueError("put_mem.source must be one of {}, got {!r}".format("|".join(SOURCES), op["source"]))
        if len(op["tags"]) > MAX_TAGS or any(len(t.encode("utf-8")) > TAG_MAX_BYTES for t in op["tags"]):
            raise ValueError(f"put_mem.tags must be <= {MAX_TAGS} tags of <= {TAG_MAX_BYTES} bytes, got {op['tags']!r}")
    elif kind == "del_mem":
        if not KEY_RE.match(op.get("key", "")):
            raise ValueError("del_mem.key must be mem_ + 1-12 of [a-z0-9_], got {!r}".format(op.get("key")))
    elif kind == "coins":
        if not isinstance(op.get("amount"), int):
            raise ValueError("coins.amount must be an integer, got {!r}".format(op.get("amount")))
    elif kind == "mood":
        if "mood" not in op and op.get("soul_state_code") is None:
            raise ValueError("mood needs mood (words) or soul_state_code")
        if "mood" in op and (not isinstance(op["mood"], str) or len(op["mood"].encode("utf-8")) > MOOD_MAX_BYTES):
            raise ValueError(f"mood.mood must be a string of <= {MOOD_MAX_BYTES} bytes, got {op.get('mood')!r}")
        code = op.get("soul_state_code")
        if code is not None and not (isinstance(code, int) and 0 <= code <= 15):
            raise ValueError(f"mood.soul_state_code must be 0-15, got {code!r}")
    elif kind != "end_conversation":
        raise ValueError(f"op must be write|delete|put_mem|del_mem|coins|mood|end_conversation, got {kind!r}")


def json_bytes(value: object) -> int:
    """Bytes of `value` as the compact UTF-8 JSON a call carries it in."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def split_runs(items: list, max_count: int, max_bytes: int = BATCH_MAX_BYTES) -> list[list]:
    """`items` in order, in runs of at most `max_count` whose JSON array stays within `max_bytes`
    (an item bigger than that on its own makes a run of one)."""
    runs: list[list] = []
    run: list = []
    size = 2  # the brackets
    for item in items:
        n = json_bytes(item) + 1  # and its comma
        if run and (len(run) == max_count or size + n > max_bytes):
            runs.append(run)
            run, size = [], 2
        run.append(item)
        size += n
    if run:
        runs.append(run)
    return runs


def make_batches(stage: str, ops: list[dict]) -> list[Batch]:
    """Validate `ops` and split them into batches of at most 64 ops and BATCH_MAX_BYTES of JSON,
    each with its own id."""
    for op in ops:
        validate_op(op)
    return [Batch(new_batch_id(stage), run) for run in split_runs(ops, MAX_OPS_PER_BATCH)]
