# Reminder loop: at boot and every 10 minutes, announce schedules due within the hour to the links.

import asyncio

from micropython import const

from memory import clock

_PERIOD = const(600)  # seconds of device time between checks
_KEEP_UNDELIVERED = const(8)


class Announcer:
    """Fans reminders out to the connected links; keeps a few while no link is connected."""

    def __init__(self):
        self._sinks = []
        self._undelivered = []

    def add(self, sink):
        """`sink(item)` delivers one reminder on a link; undelivered reminders go to the first sink."""
        self._sinks.append(sink)
        held, self._undelivered = self._undelivered, []
        for item in held:
            self.announce(item)

    def remove(self, sink):
        if sink in self._sinks:
            self._sinks.remove(sink)

    def announce(self, item):
        delivered = False
        for sink in list(self._sinks):
            try:
                sink(item)
                delivered = True
            except Exception as e:  # one broken link must not silence the others
                print("reminder: link failed:", e)
                self.remove(sink)
        if not delivered:
            if len(self._undelivered) >= _KEEP_UNDELIVERED:
                self._undelivered.pop(0)
            self._undelivered.append(item)
        return delivered

    def undelivered(self):
        return len(self._undelivered)


class ReminderLoop:
    def __init__(self, schedules, store, announcer):
        self.schedules = schedules
        self.store = store
        self.announcer = announcer

    def check(self, now=None):
        """One pass: announce what is due, drop week-old completed one-offs, persist the flags."""
        now = clock.now() if now is None else now
        due = self.schedules.take_due(now)
        for item in due:
            self.announcer.announce(item)
        cleaned = self.schedules.clean(now)
        if due or cleaned:
            self.store.flush()
        return due

    async def run(self):
        while True:
            try:
                self.check()
            except Exception as e:  # a bad pass must not end the loop
                print("reminder: check failed:", e)
            await asyncio.sleep(_PERIOD / clock.speed())
