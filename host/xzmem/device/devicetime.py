"""The device's clock as the host sees it: how far it is from this computer's, and its UTC offset.

Words like 今天 and 明天 mean the child's day, which is the device's: a device whose clock differs
from the computer's (a simulator started with --start-time, a board in another time zone) must get
its reminders on its own dates. `memory_sync stats` tells the device's local time and offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any


@dataclass(frozen=True)
class DeviceTime:
    skew: float  # device Unix seconds minus this computer's, when they were compared
    utc_offset: int  # seconds east of UTC, the device's

    @classmethod
    def from_stats(cls, stats: dict[str, Any], host_now: float) -> DeviceTime | None:
        """From a `memory_sync stats` answer read at `host_now`; None when the device's clock is unset
        or the answer has no clock (then this computer's time is the best guess)."""
        clock = stats.get("clock") if isinstance(stats, dict) else None
        if not isinstance(clock, dict) or not clock.get("set"):
            return None
        try:
            offset = int(clock["utc_offset"])
            local = datetime.fromisoformat(str(clock["now"])).replace(tzinfo=timezone.utc)
        except (KeyError, TypeError, ValueError):
            return None
        return cls(local.timestamp() - offset - host_now, offset)

    def now(self, host_now: float) -> float:
        return host_now + self.skew

    def local(self, unix: float) -> datetime:
        """`unix` as the device's local wall time (naive, as the fast channel reads dates)."""
        return (datetime.fromtimestamp(unix, timezone.utc) + timedelta(seconds=self.utc_offset)).replace(tzinfo=None)
