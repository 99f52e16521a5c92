# Room on the memory partition: the refusal a full partition gives, storage errors in plain words,
# and stored text whose bytes are no longer UTF-8 (a flipped bit), read without them and noted.
#
# The archive is the only thing that may be dropped to make room (archive.Archive.make_room); every
# other writer asks it for room before writing, so LittleFS itself never runs out mid-write.

from micropython import const

from memory.refusal import Refusal

_ENOSPC = const(28)
_MAX_NOTES = const(8)

damaged = []  # what was read around bad bytes since boot, for stats (memory.store)


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
    if note not in damaged and len(damaged) < _MAX_NOTES:
        damaged.append(note)
        print("memory:", note)
    return text


class MemoryFull(Refusal):
    """A write refused before anything changed because the partition has no room left; `value` is
    how many archived records were dropped trying to make room.

    A Refusal (a ValueError): every link reports the sentence as it is, and a voice hears it in the
    device's language (memory.spoken).
    """

    def __init__(self, text, dropped=0):
        super().__init__(text, "nospace", None, dropped)


def explain(e):
    """A storage failure as a sentence without errno numbers or LittleFS names."""
    if isinstance(e, ValueError):
        return str(e)
    if isinstance(e, MemoryError):  # foreseen: a long-running heap can be short for a moment
        return "the device was short of working memory"
    if not isinstance(e, OSError):
        return unexpected(e)
    if isinstance(e, OSError) and len(e.args) == 1 and isinstance(e.args[0], str):
        return e.args[0]  # raised with a sentence of ours
    code = e.args[0] if isinstance(e, OSError) and e.args and isinstance(e.args[0], int) else 0
    if code == _ENOSPC or code == -_ENOSPC:
        return "the memory is full"
    return "the memory storage failed (code %d)" % code if code else "the memory storage failed"


def unexpected(e):
    """A failure no check foresaw, as a sentence for the caller (a voice may read it out); the
    exception itself goes to the device's log, where a developer can find it."""
    print("memory: unexpected %s: %s" % (type(e).__name__, e))
    return "the device could not do this (an internal fault; the device log has the details)"


def dropped_note(segments, records):
    """What make_room gave up, for the sentence that reports it ('' when nothing)."""
    if not segments:
        return ""
    return "; %d old archive segment(s) with %d record(s) were dropped to make room" % (segments, records)
