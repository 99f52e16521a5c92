# Simulated ntptime: the simulator's clock is already right, so settime() only records the call.

host = "pool.ntp.org"
timeout = 1
calls = 0
# Tests set this to an OSError to make settime() fail as it does without network.
fail_with = None


def time():
    import time as _time

    return int(_time.time())


def settime():
    global calls
    calls += 1
    if fail_with is not None:
        raise fail_with
