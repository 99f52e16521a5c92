# Simulated machine module: Timer, RTC, unique_id, reset, as far as the firmware uses them.

import time


class ResetRequested(SystemExit):
    """machine.reset() in the simulator: the process exits so that a supervisor can restart it."""


def unique_id():
    return b"\x24\x0a\xc4\x12\x34\x56"


def reset():
    raise ResetRequested(0)


class RTC:
    """RTC().datetime(...) remembers what was set; the clock module keeps time in the simulator."""

    _set = None

    def datetime(self, value=None):
        if value is None:
            if RTC._set is not None:
                return RTC._set
            t = time.gmtime()
            return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0)
        RTC._set = tuple(value)


def _later(now_ms, period):
    # ticks wrap around on MicroPython: add and compare through ticks_add/ticks_diff where they exist
    return time.ticks_add(now_ms, period) if hasattr(time, "ticks_add") else now_ms + period


def _reached(now_ms, deadline):
    return (time.ticks_diff(now_ms, deadline) if hasattr(time, "ticks_diff") else now_ms - deadline) >= 0


class Timer:
    """A software timer the simulator drives; callbacks run when tick() passes their deadline."""

    ONE_SHOT = 0
    PERIODIC = 1
    _active = []

    def __init__(self, id=-1, **kwargs):
        self._callback = None
        if kwargs:
            self.init(**kwargs)

    def init(self, mode=PERIODIC, period=1000, callback=None, freq=None):
        if freq:
            period = int(1000 / freq)
        self._mode = mode
        self._period = period
        self._callback = callback
        self._deadline = _later(time.ticks_ms(), period) if hasattr(time, "ticks_ms") else 0
        if self not in Timer._active:
            Timer._active.append(self)

    def deinit(self):
        if self in Timer._active:
            Timer._active.remove(self)

    @classmethod
    def tick(cls, now_ms):
        for t in list(cls._active):
            if _reached(now_ms, t._deadline) and t._callback:
                if t._mode == cls.ONE_SHOT:
                    t.deinit()
                else:
                    t._deadline = _later(now_ms, t._period)
                t._callback(t)

