# The device program: config, WiFi, clock, the memory service, its links and background loops.

import asyncio

from micropython import const

from memory import clock, forget, mcp, steps

CONFIG_PATH = "/config.json"
DATA = "/data"
_UPKEEP_EVERY = const(3600)  # seconds of device time between upkeep checks
_NIGHTLY_HOUR = const(3)
_SUNDAY = const(6)  # clock.parts() counts weekdays from Monday = 0

current = None  # the running Device, for the serial transport's call_tool()


class Device:
    """Everything the device serves, wired together; links are added by serve()."""

    def __init__(self, cfg, data=DATA):
        from memory import assemble  # boot only: unloaded again

        assemble.build(self, cfg, data)
        forget("assemble")

    def _make_sync(self):
        # Made when the host first syncs: a device nobody syncs never loads memory.sync.
        from memory.sync import Sync

        return Sync(self.memory, self._sync_path, self._sync_room)

    def call_tool(self, name, args_json):
        """Run one tool as a trusted local caller (the serial transport); returns the result as JSON text."""
        import json

        try:
            args = json.loads(args_json) if args_json else {}
        except ValueError as e:
            return mcp.dumps(mcp.tool_error("arguments are not JSON: %s" % e))
        result = self.dispatcher.call_local(name, args, mcp.Link("serial", trusted=True))
        self.store.flush()
        return mcp.dumps(result)

    def link_closed(self, link):
        """A client that made changes went away: its conversation is over, so NVS is written once
        (by a task of its own: another client's call may be under way)."""
        if self.store.pending():
            asyncio.create_task(self._flush())

    async def _flush(self):
        async with self.dispatcher.lock:  # tool calls and the loops below change memory one at a time
            try:
                await steps.run(self.store.flush_steps())
            except OSError as e:  # the changes stay in RAM and the journal for the next flush
                print("memory: flush failed, changes kept in RAM:", e)

    def _reminder_to_server(self, item):
        if not self.server.connections:
            return False  # held for the next link instead of told to nobody
        text = mcp.notification("notifications/message", {"level": "info", "logger": "memory.reminder", "data": item})
        asyncio.create_task(self.server.broadcast(text))

    def upkeep(self, now=None):
        """Once a night: archive aged facts and moments; on Sunday nights past events too (seed 003)."""
        return steps.finish(self.upkeep_steps(now))

    def upkeep_steps(self, now=None):
        """upkeep() as a generator (memory.steps)."""
        now = clock.now() if now is None else now
        if not clock.is_set(now):
            return None
        parts = clock.local_parts(now)
        if parts[3] < _NIGHTLY_HOUR or parts[:3] == self._last_upkeep_day:
            return None
        self._last_upkeep_day = parts[:3]
        return (yield from self.store.archive_aged_steps(now, events=parts[6] == _SUNDAY))

    async def _upkeep_loop(self):
        while True:
            try:
                async with self.dispatcher.lock:
                    await steps.run(self.upkeep_steps())
            except Exception as e:  # upkeep failing must not stop the device
                print("upkeep failed:", e)
            await asyncio.sleep(_UPKEEP_EVERY / clock.speed())

    async def serve(self, ready=print):
        """Start the server and loops; run until cancelled, flushing on the way out."""
        lock = self.dispatcher.lock
        tasks = [self.reminders.run(lock), self.store.autoflush(lock), self._upkeep_loop()]
        from memory import assemble

        await assemble.start(self, ready)
        del assemble  # this coroutine lives as long as the device: it must not keep the module
        forget("assemble")
        try:
            await asyncio.gather(*tasks)
        finally:
            self.shutdown()

    def shutdown(self):
        try:
            self.store.flush()
        except Exception as e:  # report, then let the caller finish stopping
            print("memory: final flush failed:", e)


class _KeyedOnUse:
    """The keyed store (memory.keyed), opened at its first use: a device whose conversations never
    touch keyed memories does not hold that code in RAM."""

    def __init__(self, directory, room):
        self._directory = directory
        self._room = room
        self._store = None

    def __getattr__(self, name):
        if self._store is None:
            from memory.keyed import KeyedStore

            self._store = KeyedStore(self._directory, room=self._room, check=False)
        return getattr(self._store, name)


async def main(config_path=None):
    global current
    from memory import startup

    cfg = startup.start(config_path or CONFIG_PATH)
    del startup  # main() runs as long as the device: it must not keep the module
    forget("startup")
    forget("config")
    current = Device(cfg)
    await current.serve()


def call_tool(name, args_json):
    """The serial transport's entry: mpremote runs this on the board against the running device."""
    device = current
    if device is None:
        from memory import startup

        device = Device(startup.load_config(CONFIG_PATH))
        forget("startup")
        forget("config")
    return device.call_tool(name, args_json)
