# Long work as steps: a generator that yields between short pieces of work, run whole or a slice at a time.
#
# The device serves every client from one event loop: a call that works for long without awaiting
# holds up the others' pings, answers and reminders. Long work (a sync batch, a flush, scanning
# the archive) is written as a generator that yields after each bounded piece and returns its
# result; run() gives the loop a turn whenever a slice of _SLICE_MS has gone by, finish() runs the
# same steps at once for callers outside the loop (the serial transport, tests).

from micropython import const

_SLICE_MS = const(10)

try:
    from time import ticks_diff, ticks_ms
except ImportError:  # CPython
    from time import monotonic_ns

    def ticks_ms():
        return monotonic_ns() // 1000000

    def ticks_diff(a, b):
        return a - b


def finish(steps):
    """Run a generator of steps to its end; its return value."""
    try:
        while True:
            next(steps)
    except StopIteration as done:
        return done.value


async def run(steps):
    """finish() on the event loop: other tasks get a turn after every slice of work."""
    import asyncio

    start = ticks_ms()
    try:
        while True:
            next(steps)
            if ticks_diff(ticks_ms(), start) >= _SLICE_MS:
                await asyncio.sleep(0)
                start = ticks_ms()
    except StopIteration as done:
        return done.value
    finally:
        steps.close()  # cancelled between two steps: the generator's own clean-up runs now
