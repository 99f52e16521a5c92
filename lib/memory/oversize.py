# The answer to a message too big to read (ws.MessageTooBig): a refusal sent to the request's id,
# found among the message's first bytes or, as the official MCP SDK writes it last, its last bytes.
# And a message's surrogate escapes made plain before it is parsed (plain(), memory.mcp.loads):
# a pair becomes its character (MicroPython's json would keep six bytes that are not UTF-8, and
# CPython a str it cannot send), a lone half U+FFFD.
#
# Loaded for that work only (memory.mcp), then unloaded.

import json

from memory import spoken
from memory.mcp import INVALID_REQUEST, _error, _valid_id
from memory.refusal import Refusal


def answer(dispatcher, exc):
    """Dispatcher.too_big(): see there."""
    said = spoken.say(Refusal("", "too_big", None, exc.size, exc.limit), dispatcher.language)
    message = "%s (message of %d bytes; the limit is %d bytes of UTF-8 JSON)" % (said, exc.size, exc.limit)
    rid = _head_id(exc.head)
    if rid is None:
        rid = _tail_id(exc.tail)
    return _error(rid, INVALID_REQUEST, message)


def _head_id(head):
    # The JSON-RPC id among a message's first bytes (ws.MessageTooBig.head): the member "id" (not
    # "session_id") followed by a number or a plain string; None when it is not there whole.
    at = 0
    while True:
        at = head.find(b'"id"', at)
        if at < 0:
            return None
        before = head[:at].rstrip()
        rest = head[at + 4 :].lstrip()
        at += 4
        if before[-1:] in (b"{", b",") and rest[:1] == b":":
            break
    rest = rest[1:].lstrip()
    if rest[:1] == b'"':
        end = rest.find(b'"', 1)
        token = rest[: end + 1] if end > 0 and b"\\" not in rest[:end] else b""
    else:
        end = 0
        while end < len(rest) and rest[end : end + 1] in b"-+.0123456789eE":
            end += 1
        token = rest[:end] if end < len(rest) else b""  # a number cut by the head's end is not whole
    try:
        rid = json.loads(token.decode())
    except ValueError:  # UnicodeError too
        return None
    return rid if _valid_id(rid) else None


def _tail_id(tail):
    # The JSON-RPC id when it is the message's last member, as the official MCP SDK writes it:
    # the tail ends in "id", a value, then only closing braces. None when that is not so.
    at = tail.rfind(b'"id"')
    if at < 0 or tail[:at].rstrip()[-1:] not in (b"{", b","):
        return None
    rest = tail[at + 4 :].lstrip()
    if rest[:1] != b":":
        return None
    rest = rest[1:].rstrip()
    end = len(rest)
    while end and rest[end - 1] == 0x7D:  # }
        end -= 1
    if end == len(rest):
        return None
    try:
        rid = json.loads(rest[:end].decode())
    except ValueError:  # UnicodeError too
        return None
    return rid if _valid_id(rid) else None


def plain(text):
    """`text` with every surrogate escape replaced (call only when it holds \\ud or \\uD)."""
    out = []
    start = 0
    i = text.find("\\")
    while i >= 0:
        high = _unit(text, i)
        if high is None or not 0xD800 <= high <= 0xDFFF:
            i = text.find("\\", i + 2)  # any other escape, \\ included, is two characters or more
            continue
        low = _unit(text, i + 6) if high < 0xDC00 else None
        out.append(text[start:i])
        if low is not None and 0xDC00 <= low <= 0xDFFF:
            out.append(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
            start = i + 12
        else:
            out.append("\\ufffd")
            start = i + 6
        i = text.find("\\", start)
    out.append(text[start:])
    return "".join(out)


def _unit(text, i):
    """The UTF-16 unit of a \\uXXXX escape at `i`, or None when there is none."""
    digits = text[i + 2 : i + 6]
    if text[i + 1 : i + 2] != "u" or len(digits) != 4:
        return None
    for c in digits:
        if c not in "0123456789abcdefABCDEF":
            return None
    return int(digits, 16)
