# JSON text as the board writes it: compact, and UTF-8 (not \uXXXX) on MicroPython and CPython alike.
#
# MicroPython's json has no ensure_ascii and never escapes non-ASCII; CPython escapes it unless told
# not to. One encoder for the wire keeps the simulator's frames byte for byte the board's, and a
# Chinese character 3 bytes instead of 6.

import json

try:
    json.dumps("", ensure_ascii=False)
except TypeError:  # MicroPython

    def dumps(obj):
        """Compact JSON text of `obj`."""
        return json.dumps(obj, separators=(",", ":"))

    def string(text):
        """`text` as a JSON string, quotes included."""
        return json.dumps(text)

else:  # CPython
    from json.encoder import encode_basestring as string  # noqa: F401  (the C encoder, UTF-8 kept)

    def dumps(obj):
        """Compact JSON text of `obj`."""
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


try:
    json.loads(memoryview(b"0"))
    loads = json.loads  # MicroPython parses a memoryview (a line read, a long message) where it lies
except TypeError:  # CPython takes str or bytes only

    def loads(text):
        """json.loads of a str, bytes or memoryview."""
        return json.loads(text if isinstance(text, (str, bytes)) else bytes(text))
