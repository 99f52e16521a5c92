# Field values a few memory types take as codes, checked when they are written (memory.person,
# memory.notes): gender, birthday, emotion. Loaded by the first such write.

from memory import clock
from memory.records import EMOTIONS, GENDERS, int_value
from memory.refusal import Refusal

_GENDER_ALIASES = {"男": "male", "女": "female", "其他": "other", "m": "male", "f": "female"}
# The Chinese words a refusal offers (memory.spoken) are taken as well: a refusal never lists as
# allowed a word it would refuse.
_EMOTION_WORDS = ("平静", "开心", "难过", "兴奋", "担心", "感动")


def gender_code(value):
    """1 male, 2 female, 3 other; accepts the English names and the Chinese words."""
    if not isinstance(value, str):
        raise Refusal("gender must be a string, got %r" % (value,), "type", "gender", value, "string")
    name = _GENDER_ALIASES.get(value.strip(), value.strip().lower())
    if name not in GENDERS:
        raise Refusal("gender must be one of male, female, other, got %r" % value, "choice", "gender", value, GENDERS)
    return GENDERS.index(name) + 1


def check_birthday(value):
    """'YYYY-MM-DD' or 'MM-DD', a real calendar day (Feb 29 allowed without a year)."""
    if not isinstance(value, str):
        raise Refusal("birthday must be a string, got %r" % (value,), "type", "birthday", value, "string")
    value = value.strip()
    if len(value) == 10:
        clock.parse_date(value, "birthday")
        return value
    if len(value) == 5 and value[2] == "-" and value[:2].isdigit() and value[3:].isdigit():
        m, d = int(value[:2]), int(value[3:])
        if 1 <= m <= 12 and 1 <= d <= clock.days_in_month(2000, m):
            return value
    raise Refusal("birthday must be YYYY-MM-DD or MM-DD, got %r" % value, "format", "birthday", value, "1996-03-15")


def emotion_code(value):
    """An emotion name (neutral, happy, sad, excited, worried, touched), its Chinese word or its number 0-5."""
    if isinstance(value, str) and not value.strip().isdigit():
        name = value.strip().lower()
        if name in _EMOTION_WORDS:
            return _EMOTION_WORDS.index(name)
        if name not in EMOTIONS:
            raise Refusal("emotion must be one of %s, got %r" % (", ".join(EMOTIONS), value), "choice", "emotion", value, EMOTIONS)
        return EMOTIONS.index(name)
    return int_value("emotion", value, 0, len(EMOTIONS) - 1)
