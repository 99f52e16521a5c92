# JSON \u escapes of UTF-16 surrogates, made plain before json.loads sees them (memory.mcp).
#
# A pair (\ud83d\ude00: how clients that escape everything send an emoji) becomes the character
# itself; MicroPython's json would keep each half as three bytes that are not UTF-8, and CPython a
# str that cannot be encoded to send. A lone half stands for no character: it becomes U+FFFD, so
# the message is still answered and no text the device keeps or sends is invalid UTF-8.


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
