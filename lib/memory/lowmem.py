# The answer to a message whose handling ran out of heap outside a tool call (parsing it, say):
# a JSON-RPC error to the request's id, worded for a voice, so the client is never left waiting.
#
# Loaded for that answer only (memory.mcp), then unloaded.

import gc

from micropython import const

from memory import forget, oversize, spoken
from memory.mcp import INTERNAL_ERROR, _error, _valid_id

_HEAD = const(96)  # characters of the message searched for its id, as for an oversized one


def answer(dispatcher, text, msg=None):
    """The error for `msg` once parsed (its id), else for `text` (an id among its first bytes)."""
    gc.collect()
    if isinstance(msg, dict):
        rid = msg.get("id")
        rid = rid if _valid_id(rid) else None
    elif text is not None:
        head = text[:_HEAD]
        head = head.encode() if isinstance(head, str) else bytes(head)
        rid = oversize._head_id(head)
    else:
        rid = None  # a batch: no one id to answer
    forget("oversize")
    return _error(rid, INTERNAL_ERROR, spoken.say(MemoryError(), dispatcher.language))
