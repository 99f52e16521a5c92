# Reminder loop: at boot and every 10 minutes, announce schedules due within the hour to the links.

import asyncio

from micropython import const

from memory import clock

_PERIOD = const(600)  # seconds of device time between checks
_KEEP_UNDELIVERED = const(8)


class Announcer:
    """Fans reminders out to the connected links; keeps a few while no link is connected.

    A sink that reaches the user (a link to the host gateway, which shows and can say reminders)
    marks the reminder told through `on_told`; a reminder no such sink took stays untold, and the
    next `memory read` answers it under `reminders`, so none is lost silently.
    """

    def __init__(self):
        self._sinks = []  # [(sink, reaches_user)]
        self._undelivered = []
        self.on_told = None  # on_told(item): set by the ReminderLoop

    def add(self, sink, reaches_user=False):
        """`sink(item)` delivers one reminder on a link, or returns False when nobody is there to take
        it; undelivered reminders go to the first sink."""
        self._sinks.append((sink, reaches_user))
        held, self._undelivered = self._undelivered, []
        for item in held:
            self.announce(item)

    def remove(self, sink):
        self._sinks = [s for s in self._sinks if s[0] != sink]

    def announce(self, item):
        delivered = told = False
        for sink, reaches_user in list(self._sinks):
            try:
                if sink(item) is False:
                    continue
                delivered = True
                told = told or reaches_user
            except Exception as e:  # one broken link must not silence the others
                print("reminder: link failed:", e)
                self.remove(sink)
        if told and self.on_told is not None:
            self.on_told(item)
        if not delivered:
            if len(self._undelivered) >= _KEEP_UNDELIVERED:
                self._undelivered.pop(0)  # still untold in the store: the next read answers it
            self._undelivered.append(item)
        return delivered

    def undelivered(self):
        return len(self._undelivered)


class ReminderLoop:
    def __init__(self, schedules, store, announcer):
        self.schedules = schedules
        self.store = store
        self.announcer = announcer
        announcer.on_told = schedules.mark_told

    def check(self, now=None):
        """One pass: announce what is due, drop week-old completed one-offs, persist the flags."""
        now = clock.now() if now is None else now
        due = self.schedules.take_due(now)
        for item in due:
            self.announcer.announce(item)  # may mark it told: flushed below with the reminded flags
        cleaned = self.schedules.clean(now)
        if due or cleaned:
            self.store.flush()
        return due

    async def run(self, lock):
        """Check every _PERIOD (device time); `lock` (an asyncio.Lock) keeps tool calls out meanwhile."""
        while True:
            try:
                async with lock:
                    self.check()
            except Exception as e:  # a bad pass must not end the loop
                print("reminder: check failed:", e)
            await asyncio.sleep(_PERIOD / clock.speed())
