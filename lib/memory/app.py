# The device program: config, WiFi, clock, the memory service, its links and background loops.

import asyncio

from micropython import const

from memory import clock, forget, fs, mcp
from memory.reminder import Announcer, ReminderLoop
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.space import explain
from memory.store import Event, Store
from memory.tools import MemoryTool, SyncTool

CONFIG_PATH = "/config.json"
DATA = "/data"
_UPKEEP_EVERY = const(3600)  # seconds of device time between upkeep checks
_NIGHTLY_HOUR = const(3)
_BOOT_ROOM = const(16384)

INSTRUCTIONS = (
    "Call memory(action=read) when a conversation starts; write what the user tells about themselves; "
    "recall when they ask about the past. 对话开始先读取记忆。"
)

current = None  # the running Device, for the serial transport's call_tool()


class Device:
    """Everything the device serves, wired together; links are added by serve()."""

    def __init__(self, cfg, data=DATA):
        self.cfg = cfg
        clock.set_utc_offset(cfg["utc_offset"])
        self.archive = None
        self.keyed = None
        journal = None
        if fs.exists(data):
            from memory.ackjournal import AckJournal
            from memory.archive import Archive
            from memory.keyed import KeyedStore

            try:
                self.archive = Archive(data + "/archive")
                # Folders and repairs need a few blocks; a partition left full gives up its oldest archive.
                self.archive.make_room(_BOOT_ROOM)
                KeyedStore(data + "/keyed", room=self.archive.make_room)  # checked now, so the boot log names damage
                self.keyed = _KeyedOnUse(data + "/keyed", self.archive.make_room)
                journal = AckJournal(data + "/acked.jnl", room=self.archive.make_room)
            except (OSError, ValueError) as e:  # the boot goes on: memory in NVS is still served
                print("memory: %s cannot be used this boot (%s); no archive and no keyed memories"
                      % (data, explain(e)))
                self.archive = self.keyed = journal = None
        else:
            print("memory: %s is not mounted; no archive, no keyed memories and every change flushes NVS" % data)
        forget("keyed")
        self.store = Store(archiver=self.archive, keyed=self.keyed, journal=journal)
        self.schedules = Schedules(self.store, Event, cfg["language"])
        self.memory = MemoryService(self.store, self.schedules, self.archive, self.keyed,
                                    cfg["device_id"] or _default_device_id(), cfg["language"])
        self._sync_path = (data if self.keyed else "") + "/sync"
        self._sync_room = self.archive.make_room if self.archive else None
        self.announcer = Announcer()
        self.reminders = ReminderLoop(self.schedules, self.store, self.announcer)
        self.dispatcher = mcp.Dispatcher(instructions=INSTRUCTIONS, language=cfg["language"])
        self.dispatcher.on_close = self.link_closed
        self.dispatcher.add(MemoryTool(self.memory))
        self.dispatcher.add(SyncTool(self.memory, self._make_sync))
        self.server = None
        self.links = []
        self._last_upkeep_day = None

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
        """A client that made changes went away: its conversation is over, so NVS is written once."""
        if self.store.pending():
            self.store.flush()

    def _reminder_to_server(self, item):
        if not self.server.connections:
            return False  # held for the next link instead of told to nobody
        text = mcp.notification("notifications/message", {"level": "info", "logger": "memory.reminder", "data": item})
        asyncio.create_task(self.server.broadcast(text))

    def upkeep(self, now=None):
        """Once a night: archive aged facts, moments and past events."""
        now = clock.now() if now is None else now
        if not clock.is_set(now):
            return None
        parts = clock.local_parts(now)
        if parts[3] < _NIGHTLY_HOUR or parts[:3] == self._last_upkeep_day:
            return None
        self._last_upkeep_day = parts[:3]
        return self.store.archive_aged(now)

    async def _upkeep_loop(self):
        while True:
            try:
                self.upkeep()
            except Exception as e:  # upkeep failing must not stop the device
                print("upkeep failed:", e)
            await asyncio.sleep(_UPKEEP_EVERY / clock.speed())

    async def serve(self, ready=print):
        """Start the server and loops; run until cancelled, flushing on the way out."""
        cfg = self.cfg
        tasks = [self.reminders.run(), self.store.autoflush(), self._upkeep_loop()]
        if cfg["token"]:
            from memory.server import Server, client_budget

            links = (1 if cfg["endpoint_url"] else 0) + (1 if cfg["xiaozhi_url"] else 0)
            self.server = Server(self.dispatcher, cfg["token"], cfg["listen_host"], cfg["listen_port"],
                                 max_clients=client_budget(links))
            await self.server.start()
            self.announcer.add(self._reminder_to_server)
            ready("xzmem device ready %s" % self.server.url)
        else:
            ready("xzmem device ready (no token in config: the MCP server is off)")
        self.links = _start_links(cfg, self.dispatcher, self.announcer)
        from memory import selftest

        print(selftest.run(self))
        del selftest  # this coroutine lives as long as the device: it must not keep the module
        forget("selftest")
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


def _default_device_id():
    from memory import links

    return links.default_device_id()


def _start_links(cfg, dispatcher, announcer):
    # The links' code (links, endpoint, xiaozhi, outlink, the WebSocket client) loads only when configured.
    if not (cfg["endpoint_url"] or cfg["xiaozhi_url"]):
        return []
    from memory import links

    return links.start_links(cfg, dispatcher, announcer)


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
