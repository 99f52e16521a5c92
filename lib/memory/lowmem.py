# The answer to a message whose handling ran out of heap outside a tool call (parsing it, say):
# a JSON-RPC error to the request's id, worded for a voice, so the client is never left waiting.
#
# Loaded for that answer only (memory.mcp), then unloaded.

import gc

from micropython import const

from memory import forget, oversize, spoken
from memory.mcp import INTERNAL_ERROR, _error

_HEAD = const(96)  # characters of the message searched for its id, as for an oversized one


def answer(dispatcher, text):
    gc.collect()
    head = text[:_HEAD]
    if isinstance(head, str):
        head = head.encode()
    forget("oversize")
    return _error(oversize._head_id(head), INTERNAL_ERROR, spoken.say(MemoryError(), dispatcher.language))
