"""Reading a finished conversation from a file: JSON messages, or `user:` / `assistant:` lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

_LINE = re.compile(r"^\s*(user|assistant|用户|助手|ai)\s*[:：]\s*(.*)$", re.I)
_ROLES = {"user": "user", "用户": "user", "assistant": "assistant", "助手": "assistant", "ai": "assistant"}


class ConversationError(ValueError):
    """A conversation file that cannot be read; the message names the file and the problem."""


def load_conversation(path: Path) -> tuple[list[dict], list[str] | None]:
    """(messages, recalled memory keys or None). JSON: a list of {role, content}, or an object with
    `messages` and optional `recalled`. Text: lines starting with `user:` / `assistant:` (or 用户： / 助手：);
    other lines continue the previous message."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConversationError(f"{path}: {e.strerror}") from None
    recalled = None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if data is not None:
        if isinstance(data, dict):
            recalled = data.get("recalled")
            data = data.get("messages")
        if not isinstance(data, list):
            raise ConversationError(f"{path}: expected a list of messages or {{\"messages\": [...]}}")
        messages = []
        for n, m in enumerate(data):
            if not isinstance(m, dict) or m.get("role") not in ("user", "assistant") or not isinstance(m.get("content"), str):
                raise ConversationError(f"{path}: message {n} needs role user|assistant and a content string, got {m!r}")
            messages.append({"role": m["role"], "content": m["content"]})
    else:
        messages = []
        for line in text.splitlines():
            m = _LINE.match(line)
            if m:
                messages.append({"role": _ROLES[m.group(1).lower()], "content": m.group(2).strip()})
            elif line.strip() and messages:
                messages[-1]["content"] += "\n" + line.strip()
    if not messages:
        raise ConversationError(f"{path}: no messages found")
    if recalled is not None and not (isinstance(recalled, list) and all(isinstance(k, str) for k in recalled)):
        raise ConversationError(f"{path}: recalled must be a list of memory keys")
    return messages, recalled
