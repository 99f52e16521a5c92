# Dates and times as people and hosts give them (memory.clock): YYYY-MM-DD, YYYY-MM-DD HH:MM, and a
# Unix time the clock may be set to. Loaded by the first date a call brings.

from memory import clock
from memory.refusal import Refusal

_DATE_EXAMPLE = "2026-05-01"
_TIME_EXAMPLE = "2026-05-01 14:00"
_YEARLY_EXAMPLE = "03-15"


def check_settable(unix):
    """`unix` as an int when the clock may be set to it (2024-01-01 ... 2105-12-31 UTC), else ValueError."""
    if isinstance(unix, bool) or not isinstance(unix, int):
        raise ValueError("unix must be an integer number of seconds, got %r" % (unix,))
    if not clock.VALID_FROM <= unix <= clock.VALID_TO:
        raise ValueError("the clock can only be set between 2024-01-01 and 2105-12-31, got unix %d%s"
                         % (unix, _year_note(unix)))
    return unix


def _year_note(unix):
    # Only years a date can name: the year of 2**62 seconds means nothing to a reader.
    return " (year %d)" % clock.parts(unix)[0] if -(2**40) <= unix <= 2**40 else ""


def parse_date(text, field="date"):
    """'YYYY-MM-DD' -> (y, m, d), validated."""
    if not isinstance(text, str) or len(text) != 10 or text[4] != "-" or text[7] != "-":
        raise Refusal("%s must be YYYY-MM-DD, got %r" % (field, text), "format", field, text, _DATE_EXAMPLE)
    if not clock.ascii_digits(text[:4] + text[5:7] + text[8:10]):
        raise Refusal("%s must be YYYY-MM-DD in ASCII digits, got %r" % (field, text), "format", field, text, _DATE_EXAMPLE)
    y, m, d = int(text[:4]), int(text[5:7]), int(text[8:10])
    if not 1 <= m <= 12 or not 1 <= d <= clock.days_in_month(y, m):
        raise Refusal("%s is not a calendar date: %r" % (field, text), "format", field, text, _DATE_EXAMPLE)
    return y, m, d


def parse_local_datetime(text, field="datetime"):
    """'YYYY-MM-DD HH:MM' in local time -> Unix seconds, validated."""
    if not isinstance(text, str) or len(text) != 16 or text[10] != " " or text[13] != ":":
        raise Refusal("%s must be YYYY-MM-DD HH:MM, got %r" % (field, text), "format", field, text, _TIME_EXAMPLE)
    if not clock.ascii_digits(text[11:13] + text[14:16]):
        raise Refusal("%s must be YYYY-MM-DD HH:MM in ASCII digits, got %r" % (field, text), "format", field, text, _TIME_EXAMPLE)
    try:
        y, m, d = parse_date(text[:10], field)
    except Refusal as e:
        e.value = text
        e.allowed = _TIME_EXAMPLE  # the example a whole date and time should follow
        raise
    h, mi = int(text[11:13]), int(text[14:16])
    if not 0 <= h <= 23 or not 0 <= mi <= 59:
        raise Refusal("%s has no such time of day: %r" % (field, text), "format", field, text, _TIME_EXAMPLE)
    return clock.from_local(y, m, d, h, mi)


def is_month_day(text):
    """Whether `text` is given as an anniversary: MM-DD, or MM-DD HH:MM."""
    return isinstance(text, str) and len(text) in (5, 11) and text[2:3] == "-"


def parse_month_day(text, now, field="datetime"):
    """'MM-DD' or 'MM-DD HH:MM' (local; 09:00 when no time is given) -> (Unix seconds of the next
    time it comes, at or after `now`, day of month). 02-29 falls on 02-28 in other years."""
    full = text + " 09:00" if len(text) == 5 else text
    if full[5] != " " or full[8] != ":" or not clock.ascii_digits(full[:2] + full[3:5] + full[6:8] + full[9:]):
        raise Refusal("%s must be MM-DD or MM-DD HH:MM for a yearly date, got %r" % (field, text), "format", field,
                      text, _YEARLY_EXAMPLE)
    m, d, h, mi = int(full[:2]), int(full[3:5]), int(full[6:8]), int(full[9:])
    if not 1 <= m <= 12 or not 1 <= d <= clock.days_in_month(2000, m) or h > 23 or mi > 59:
        raise Refusal("%s is not a date of the year: %r" % (field, text), "format", field, text, _YEARLY_EXAMPLE)
    y = clock.local_parts(now)[0]
    while True:
        last = clock.days_in_month(y, m)
        when = clock.from_local(y, m, d if d < last else last, h, mi)
        if when >= now:
            return when, d
        y += 1
