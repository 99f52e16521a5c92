# Simulated ntptime: the simulator's clock is already right, so settime() only fails when told to.

host = "pool.ntp.org"
# Tests set this to an OSError to make settime() fail as it does without network.
fail_with = None


def settime():
    if fail_with is not None:
        raise fail_with
