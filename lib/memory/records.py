# Fixed-size record layouts of the hot store, field validation, and UTF-8 text cut to a field's width.
#
# Every layout is little-endian without padding. docs/storage.md lists each one byte by byte;
# tests check that the sizes below match struct.calcsize of the formats.

import struct

from micropython import const

from memory.refusal import Refusal

# Profile: learned-at times of name, age, gender, location, birthday; then those five fields: name,
# age (255 = unset), gender (0 unset, 1 male, 2 female, 3 other), location, birthday (YYYY-MM-DD or MM-DD).
PROFILE_FMT = "<5I32sBB32s10s"
PROFILE_SIZE = const(96)
# Family member: id, learned_at, closeness 1-5, relation, name.
FAMILY_FMT = "<IIB23s32s"
FAMILY_SIZE = const(64)
# Like or dislike: id, learned_at, kind (1 like, 2 dislike), item.
PREF_FMT = "<IIB31s"
PREF_SIZE = const(40)
# Event: id, learned_at, when, completed_at, content, event_type, repeat, anchor_day, priority,
# flags (bit 0 reminded, bit 1 completed, bit 2 told: the reminder reached the user), emotion type,
# emotion intensity 1-5, significance 1-5, a spare byte.
EVENT_FMT = "<4I64s16s8B"
EVENT_SIZE = const(104)
EVENT_TYPE_BYTES = const(16)
# Fact: id, learned_at, content.
FACT_FMT = "<II120s"
FACT_SIZE = const(128)
# Trait and habit: id, learned_at, content.
SHORT_FMT = "<II56s"
SHORT_SIZE = const(64)
# Special moment: id, learned_at, emotion type, emotion intensity 1-5, importance 1-5, a spare
# byte, topic, content.
MOMENT_FMT = "<II4B24s124s"
MOMENT_SIZE = const(160)
# Personal goal: id, learned_at, content.
GOAL_FMT = "<II88s"
GOAL_SIZE = const(96)
# Chat message: sequence number, time, role (1 user, 2 assistant), text.
CHAT_FMT = "<IIB87s"
CHAT_SIZE = const(96)
# Affection: total_coins_spent, interactions, last_interaction, soul_state_code, mood.
AFFECTION_FMT = "<iIIB16s"
AFFECTION_SIZE = const(29)

ADDED = "ADDED"
UPDATED = "UPDATED"
DELETED = "DELETED"
NOOP = "NOOP"

LIKE = const(1)
DISLIKE = const(2)
_REMINDED = const(1)
_COMPLETED = const(2)
_TOLD = const(4)
_U32_MAX = const(0xFFFFFFFF)

GENDERS = ("male", "female", "other")
EMOTIONS = ("neutral", "happy", "sad", "excited", "worried", "touched")
ROLES = ("user", "assistant")


# Trimmed from both ends of text fields, the same set on every interpreter: CPython's str.strip()
# takes every Unicode space, MicroPython's only the ASCII ones.
_SPACES = " \t\n\r\v\f\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def trim(text):
    """`text` without the spaces and line breaks at either end (see _SPACES)."""
    start, end = 0, len(text)
    while start < end and text[start] in _SPACES:
        start += 1
    while end > start and text[end - 1] in _SPACES:
        end -= 1
    return text[start:end] if start or end < len(text) else text


def cut(text, limit):
    """(UTF-8 bytes of `text` at most `limit` long, whether it was cut).

    The cut goes back to the start of the character it would split, so the bytes always decode.
    """
    data = text.encode()
    if len(data) <= limit:
        return data, False
    end = limit
    while end > 0 and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end], True


def decode(raw):
    """A fixed-width text field back to str (it is NUL-padded).

    Flash can hand back a flipped bit: a field that is not UTF-8 any more reads without the bad
    bytes (memory.space notes it for stats), so one damaged record never stops a read or export.
    """
    end = raw.find(b"\0")
    data = bytes(raw if end < 0 else raw[:end])
    try:
        return data.decode()
    except UnicodeError:
        from memory.space import salvage

        return salvage(data)


def same(raw, data):
    """Whether a NUL-padded field `raw` holds exactly the bytes `data`."""
    n = len(data)
    if n > len(raw) or raw[:n] != data:
        return False
    return n == len(raw) or raw[n] == 0


def text_field(fields, name, limit, truncated, required=True):
    """Field `name` of `fields` as UTF-8 bytes, trimmed and cut to `limit`; appends `name` to
    `truncated` when anything was trimmed or cut."""
    value = fields.get(name)
    if value is None:
        if required:
            raise Refusal("%s is required" % name, "missing", name)
        return b""
    if not isinstance(value, str):
        raise Refusal("%s must be a string, got %s %r" % (name, type(value).__name__, value), "type", name, value, "string")
    trimmed = trim(value)
    if required and not trimmed:
        raise Refusal("%s must not be empty" % name, "empty", name)
    if "\0" in trimmed:
        raise ValueError("%s must not contain NUL characters, got %r" % (name, value))
    data, was_cut = cut(trimmed, limit)
    if was_cut or trimmed != value:
        truncated.append(name)  # what is stored differs from what was sent: say so
    return data


def int_value(name, value, lo, hi):
    """`value` as an int within lo..hi; digit strings are accepted (models often quote numbers)."""
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text[:1] == "-" else text
        if not digits or not digits.isdigit():
            raise Refusal("%s must be an integer, got %r" % (name, value), "type", name, value, "integer")
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refusal("%s must be an integer, got %s %r" % (name, type(value).__name__, value), "type", name, value, "integer")
    if not lo <= value <= hi:
        raise Refusal("%s must be %d-%d, got %d" % (name, lo, hi, value), "range", name, value, (lo, hi))
    return value


def int_field(fields, name, lo, hi, default=None):
    value = fields.get(name)
    if value is None:
        if default is None:
            raise Refusal("%s is required" % name, "missing", name)
        return default
    return int_value(name, value, lo, hi)


def _flag(name, value):
    """0/1 or a bool."""
    return int_value(name, int(value) if isinstance(value, bool) else value, 0, 1)


class Event:
    """One event or schedule. `when` and the other times are Unix seconds (UTC).

    repeat: 0 none, 1 daily, 2 weekly, 3 monthly, 4 yearly (an anniversary: a date given as MM-DD);
    anchor_day: the day of month a monthly or yearly repeat keeps (1-31, 0 = none); priority 1-5;
    emotion: an index of EMOTIONS, intensity and significance 1-5; reminded, completed and told are 0 or 1. A reminder is
    `reminded` once announced and `told` once a path that reaches the user took it (a link to the
    host gateway, or a `memory read` answer); until then the next read repeats it.
    """

    def __init__(self, content="", when=0, event_type="schedule", repeat=0, anchor_day=0, priority=3,
                 reminded=0, completed=0, completed_at=0, id=0, learned_at=0, told=0, emotion=0, intensity=3,
                 significance=3):
        self.id = id
        self.learned_at = learned_at
        self.when = when
        self.content = content
        self.event_type = event_type
        self.repeat = repeat
        self.anchor_day = anchor_day
        self.priority = priority
        self.reminded = reminded
        self.completed = completed
        self.completed_at = completed_at
        self.told = told
        self.emotion = emotion
        self.intensity = intensity
        self.significance = significance

    def __repr__(self):
        return "Event(id=%d, when=%d, content=%r, repeat=%d, priority=%d, reminded=%d, completed=%d)" % (
            self.id, self.when, self.content, self.repeat, self.priority, self.reminded, self.completed)

    def to_dict(self):
        return {
            "id": self.id, "learned_at": self.learned_at, "when": self.when, "content": self.content,
            "event_type": self.event_type, "repeat": self.repeat, "anchor_day": self.anchor_day,
            "priority": self.priority, "reminded": self.reminded, "completed": self.completed,
            "completed_at": self.completed_at, "told": self.told, "emotion": EMOTIONS[self.emotion] if self.emotion < len(EMOTIONS) else "neutral",
            "intensity": self.intensity, "significance": self.significance,
        }

    def pack(self, truncated):
        """The 104-byte record; checks every field. Text cut to its width is named in `truncated`."""
        content = text_field({"content": self.content}, "content", 64, truncated)
        event_type = text_field({"event_type": self.event_type or ""}, "event_type", EVENT_TYPE_BYTES, truncated, False)
        when = int_value("when", self.when, 0, _U32_MAX)
        learned_at = int_value("learned_at", self.learned_at or 0, 0, _U32_MAX)
        completed_at = int_value("completed_at", self.completed_at or 0, 0, _U32_MAX)
        repeat = int_value("repeat", self.repeat, 0, 4)
        anchor = int_value("anchor_day", self.anchor_day or 0, 0, 31)
        priority = int_value("priority", self.priority, 1, 5)
        flags = (_REMINDED if _flag("reminded", self.reminded) else 0) | (
            _COMPLETED if _flag("completed", self.completed) else 0) | (_TOLD if _flag("told", self.told) else 0)
        emotion = int_value("emotion", self.emotion, 0, len(EMOTIONS) - 1)
        intensity = int_value("intensity", self.intensity, 1, 5)
        significance = int_value("significance", self.significance, 1, 5)
        buf = bytearray(EVENT_SIZE)
        struct.pack_into(EVENT_FMT, buf, 0, self.id, learned_at, when, completed_at, content,
                         event_type, repeat, anchor, priority, flags, emotion, intensity, significance, 0)
        return buf

    @staticmethod
    def unpack(buf, offset=0):
        i, learned, when, done_at, content, etype, repeat, anchor, prio, flags, emo, inten, sig, _ = (
            struct.unpack_from(EVENT_FMT, buf, offset))
        return Event(decode(content), when, decode(etype), repeat, anchor, prio, flags & _REMINDED,
                     (flags & _COMPLETED) >> 1, done_at, i, learned, (flags & _TOLD) >> 2, emo, inten, sig)

