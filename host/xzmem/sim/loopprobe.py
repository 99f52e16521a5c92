"""`xzmem sim --loop-probe FILE`: how long the device's event loop is held by one step of work.

From the moment the device serves (its MCP server listens) a task inside the simulator's loop
wakes every few milliseconds and notes how late it woke: a late wake-up is time some other step
held the loop without awaiting. Two figures per hold: its wall time, and the CPU time the loop's
thread spent in it, which is the work done (on a busy machine the wall time also counts the
waits for a CPU, which are no step's doing). A watchdog thread looks at the loop from outside and, once it has
been held for SAMPLE_AFTER, takes the main thread's stack, so the report names the code that held
it (the longest holds are kept with theirs). On stop the report is written to FILE as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
import traceback
from pathlib import Path

TICK = 0.005  # seconds the probe task sleeps between two looks at the clock
THRESHOLD = 0.1  # holds longer than this are counted apart: the bound for one step of work
SAMPLE_AFTER = 0.04  # the watchdog takes the stack of a hold that has lasted this long
_KEEP = 10  # longest holds kept with their stacks


class LoopProbe:
    def __init__(self, path: Path, serving, threshold: float = THRESHOLD):
        self.path = path
        self.serving = serving  # a function: whether the device serves yet (boot is not measured)
        self.threshold = threshold
        self.holds: list[float] = []  # every lateness of the probe task, seconds
        self.work: list[float] = []  # CPU seconds the loop's thread spent in each of those intervals
        self.worst: list[dict] = []  # the longest holds with where the main thread was
        self._woke = time.monotonic()
        self._stack: list[str] | None = None  # sampled during the hold now going on
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._since = time.monotonic()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the probe task on `loop` once it runs, and the watchdog thread now."""
        loop.call_soon(lambda: loop.create_task(self._tick()))
        threading.Thread(target=self._watch, name="loop-probe", daemon=True).start()

    async def _tick(self) -> None:
        while not self.serving():
            self._woke = time.monotonic()
            await asyncio.sleep(TICK)
        self._since = time.monotonic()
        self._stack = None
        while True:
            before = time.monotonic()
            cpu = time.thread_time()
            self._woke = before
            await asyncio.sleep(TICK)
            now = time.monotonic()
            work = time.thread_time() - cpu
            held = max(0.0, now - before - TICK)
            self._woke = now
            self.holds.append(held)
            self.work.append(work)
            if self._stack is not None:
                self._note(held, work)

    def _note(self, held: float, work: float) -> None:
        self.worst.append({"held_ms": round(held * 1000, 1), "work_ms": round(work * 1000, 1), "stack": self._stack})
        self._stack = None
        self.worst.sort(key=lambda e: -e["held_ms"])
        del self.worst[_KEEP:]

    def _watch(self) -> None:
        # Samples the stack once per hold, SAMPLE_AFTER since the loop was last seen free.
        while not self._stop.wait(SAMPLE_AFTER / 4):
            if self._stack is None and time.monotonic() - self._woke > SAMPLE_AFTER:
                frame = sys._current_frames().get(self._main)
                if frame is not None:
                    self._stack = [_where(f) for f in traceback.extract_stack(frame)][-12:]

    def report(self) -> dict:
        holds, work = sorted(self.holds), sorted(self.work)
        n = len(holds)

        def ms(values, q):
            return round(values[min(n - 1, int(n * q))] * 1000, 1) if n else 0.0

        return {
            "seconds": round(time.monotonic() - self._since, 1),
            "ticks": n,
            "longest_hold_ms": ms(holds, 1),
            "p99_hold_ms": ms(holds, 0.99),
            "longest_work_ms": ms(work, 1),
            "p99_work_ms": ms(work, 0.99),
            "holds_over_threshold": sum(1 for h in holds if h > self.threshold),
            "work_over_threshold": sum(1 for w in work if w > self.threshold),
            "threshold_ms": round(self.threshold * 1000),
            "worst": self.worst,
        }

    def finish(self) -> dict:
        self._stop.set()
        out = self.report()
        self.path.write_text(json.dumps(out, indent=1))
        print(f"loop probe: longest hold {out['longest_hold_ms']} ms (work {out['longest_work_ms']} ms CPU), "
              f"{out['holds_over_threshold']} holds over {out['threshold_ms']} ms in {out['ticks']} ticks; "
              f"report in {self.path}", flush=True)
        return out


def _where(frame: traceback.FrameSummary) -> str:
    """folder/file.py:line function"""
    where = "/".join(Path(frame.filename).parts[-2:])
    return f"{where}:{frame.lineno} {frame.name}"
