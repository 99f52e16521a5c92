# Time for the memory package: Unix seconds (UTC) whatever the port's epoch, local time by offset.
#
# ESP32 MicroPython counts from 2000-01-01, the unix and WebAssembly ports and CPython from 1970.
# Everything stored is Unix seconds; only this module knows about epochs, offsets and the
# simulator's fast clock.

import time

from micropython import const

_EPOCH_2000 = const(946684800)
_PORT_EPOCH = _EPOCH_2000 if time.gmtime(0)[0] == 2000 else 0
_VALID_FROM = const(1704067200)  # 2024-01-01: anything earlier means nobody set the clock
_VALID_TO = const(4291747199)  # 2105-12-31 23:59:59: the last year whose times fit the records' u32
VALID_FROM = _VALID_FROM  # for memory.clocktext (a const() with an underscore is no module attribute)
VALID_TO = _VALID_TO
_DAY = const(86400)

_utc_offset = 0  # seconds east of UTC, from the device config
_skew = 0  # seconds added to the port clock after set_now() where the RTC cannot be set
_sim_start = None  # (unix at start, port seconds at start) when the simulator runs the clock fast
_sim_speed = 1


def _port_seconds():
    return time.time()


def now():
    """Current time in Unix seconds (UTC)."""
    if _sim_start is not None:
        base, port_at_start = _sim_start
        return int(base + (_port_seconds() - port_at_start) * _sim_speed)
    return int(_port_seconds()) + _PORT_EPOCH + _skew


def set_now(unix):
    """Set the clock (NTP on the device, `memory_sync set_clock` from the host)."""
    global _skew, _sim_start
    unix = int(unix)
    if _sim_start is not None:
        _sim_start = (unix, _port_seconds())
        return
    try:
        import machine

        y, mo, d, h, mi, s, wd = parts(unix)[:7]
        machine.RTC().datetime((y, mo, d, wd, h, mi, s, 0))
    except (ImportError, AttributeError):
        pass
    _skew = 0
    _skew = unix - now()


def simulate(start_unix, speed=1):
    """Simulator only: start the clock at `start_unix` and run it `speed` times faster than real time.

    simulate(None) goes back to the port's own clock.
    """
    global _sim_start, _sim_speed, _skew
    if start_unix is None:
        _sim_start, _sim_speed, _skew = None, 1, 0
        return
    if speed <= 0:
        raise ValueError("speed must be > 0, got %r" % speed)
    _sim_speed = speed
    _sim_start = (int(start_unix), _port_seconds())


def speed():
    return _sim_speed


def is_set(unix=None):
    """False until the clock has been set: a board that never saw NTP starts in 2000."""
    return (now() if unix is None else unix) >= _VALID_FROM


def set_utc_offset(seconds):
    global _utc_offset
    if not -14 * 3600 <= seconds <= 14 * 3600:
        raise ValueError("utc_offset must be within +-14 hours, got %d seconds" % seconds)
    _utc_offset = int(seconds)


def utc_offset():
    return _utc_offset


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_from_civil(y, m, d):
    """Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z):
    """(year, month, day) for days since 1970-01-01."""
    z += 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return y + (m <= 2), m, d


def parts(unix):
    """(year, month, day, hour, minute, second, weekday 0=Monday) of Unix seconds, in UTC."""
    days = unix // _DAY
    secs = unix - days * _DAY
    y, m, d = civil_from_days(days)
    return y, m, d, secs // 3600, secs % 3600 // 60, secs % 60, (days + 3) % 7


def local_parts(unix):
    """parts() in the configured local time."""
    return parts(unix + _utc_offset)


def from_local(y, mo, d, h=0, mi=0, s=0):
    """Unix seconds of a local wall-clock time."""
    return days_from_civil(y, mo, d) * _DAY + h * 3600 + mi * 60 + s - _utc_offset


def ascii_digits(text):
    # int() takes fullwidth and other Unicode digits, signs and underscores on CPython: not here.
    for ch in text:
        if ch < "0" or ch > "9":
            return False
    return True


def format_local(unix, with_seconds=False):
    """'YYYY-MM-DD HH:MM' (or with ':SS') in local time."""
    y, m, d, h, mi, s = local_parts(unix)[:6]
    if with_seconds:
        return "%04d-%02d-%02d %02d:%02d:%02d" % (y, m, d, h, mi, s)
    return "%04d-%02d-%02d %02d:%02d" % (y, m, d, h, mi)


def iso_local(unix):
    """'YYYY-MM-DDTHH:MM:SS' in local time, the timestamp form of the archive and replies."""
    y, m, d, h, mi, s = local_parts(unix)[:6]
    return "%04d-%02d-%02dT%02d:%02d:%02d" % (y, m, d, h, mi, s)


def local_date(unix):
    y, m, d = local_parts(unix)[:3]
    return "%04d-%02d-%02d" % (y, m, d)


# Reading dates and times (memory.clocktext, loaded by the first one).


def check_settable(unix):
    """`unix` as an int when the clock may be set to it (2024-01-01 ... 2105-12-31 UTC), else ValueError."""
    from memory import clocktext

    return clocktext.check_settable(unix)


def parse_date(text, field="date"):
    """'YYYY-MM-DD' -> (y, m, d), validated."""
    from memory import clocktext

    return clocktext.parse_date(text, field)


def parse_local_datetime(text, field="datetime"):
    """'YYYY-MM-DD HH:MM' in local time -> Unix seconds, validated."""
    from memory import clocktext

    return clocktext.parse_local_datetime(text, field)
