# Stored text that is no longer UTF-8 (a flipped bit on flash): read without its bad bytes, and noted.
#
# Loaded only when such a field is met (memory.records.decode).

from micropython import const

_MAX_NOTES = const(8)

found = []  # what was read around bad bytes since boot, for stats (memory.store)


def salvage(data):
    """`data` (bytes that fail to decode) as text without the bytes that are not UTF-8."""
    out = []
    i = 0
    n = len(data)
    while i < n:
        b = data[i]
        size = 1 if b < 0x80 else 2 if 0xC2 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF5 else 0
        try:
            out.append(data[i : i + size].decode() if size and i + size <= n else None)
        except UnicodeError:
            out.append(None)
        if out[-1] is None:
            out.pop()
            i += 1
        else:
            i += size
    text = "".join(out)
    note = "text stored with bytes that are not UTF-8, read as %r" % text[:24]
    if note not in found and len(found) < _MAX_NOTES:
        found.append(note)
        print("memory:", note)
    return text
