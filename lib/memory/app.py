# The device program: config, WiFi, clock, the memory service, its links and background loops.

import asyncio

from micropython import const

from memory import clock, config, fs, links, mcp
from memory.reminder import Announcer, ReminderLoop
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.sync import Sync
from memory.tools import MemoryTool, SyncTool

CONFIG_PATH = "/config.json"
DATA = "/data"
_WIFI_ATTEMPTS = const(3)
_WIFI_WAIT_MS = const(10000)
_WIFI_POLL_MS = const(200)
_UPKEEP_EVERY = const(3600)  # seconds of device time between upkeep checks
_NIGHTLY_HOUR = const(3)

INSTRUCTIONS = (
    "Call memory(action=read) when a conversation starts; write what the user tells about themselves; "
    "recall when they ask about the past. 对话开始先读取记忆。"
)

current = None  # the running Device, for the serial transport's call_tool()


def connect_wifi(cfg, wait_ms=_WIFI_WAIT_MS):
    """Join the configured network; returns a status line. No SSID: assume the port already has a network."""
    if not cfg["wifi_ssid"]:
        return "wifi: no wifi_ssid in config, using the existing network"
    import time

    import network

    wlan = network.WLAN(network.STA_IF)
    wlan.active(True)
    for attempt in range(1, _WIFI_ATTEMPTS + 1):
        if wlan.isconnected():
            break
        wlan.connect(cfg["wifi_ssid"], cfg["wifi_password"])
        # Poll in 200 ms steps; time.sleep() with a fraction works on every port and on CPython.
        for _ in range(wait_ms // _WIFI_POLL_MS):
            if wlan.isconnected():
                break
            time.sleep(_WIFI_POLL_MS / 1000)
        if not wlan.isconnected():
            print("wifi: attempt %d of %d failed (status %s)" % (attempt, _WIFI_ATTEMPTS, wlan.status()))
    if not wlan.isconnected():
        return 'wifi: could not join "%s"; serving memory over serial only' % cfg["wifi_ssid"]
    return 'wifi: connected to "%s" as %s' % (cfg["wifi_ssid"], wlan.ifconfig()[0])


def set_clock_by_ntp(cfg):
    try:
        import ntptime

        if cfg["ntp_host"]:
            ntptime.host = cfg["ntp_host"]
        ntptime.settime()
        return "clock: set by NTP, %s" % clock.iso_local(clock.now())
    except (ImportError, OSError) as e:
        return "clock: NTP failed (%s); %s" % (e, "still set" if clock.is_set() else "not set, no reminders yet")


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

            self.archive = Archive(data + "/archive")
            self.keyed = KeyedStore(data + "/keyed")
            journal = AckJournal(data + "/acked.jnl")
        else:
            print("memory: %s is not mounted; no archive, no keyed memories and every change flushes NVS" % data)
        self.store = Store(archiver=self.archive, keyed=self.keyed, journal=journal)
        self.schedules = Schedules(self.store, Event, cfg["language"])
        self.memory = MemoryService(self.store, self.schedules, self.archive, self.keyed,
                                    cfg["device_id"] or links.default_device_id(), cfg["language"])
        self.sync = Sync(self.memory, (data if self.keyed else "") + "/sync.json")
        self.announcer = Announcer()
        self.reminders = ReminderLoop(self.schedules, self.store, self.announcer)
        self.dispatcher = mcp.Dispatcher(instructions=INSTRUCTIONS, language=cfg["language"])
        self.dispatcher.on_close = self.link_closed
        self.dispatcher.add(MemoryTool(self.memory))
        self.dispatcher.add(SyncTool(self.memory, self.sync))
        self.server = None
        self.links = []
        self._last_upkeep_day = None

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
            from memory.server import Server

            self.server = Server(self.dispatcher, cfg["token"], cfg["listen_host"], cfg["listen_port"])
            await self.server.start()
            self.announcer.add(self._reminder_to_server)
            ready("xzmem device ready %s" % self.server.url)
        else:
            ready("xzmem device ready (no token in config: the MCP server is off)")
        self.links = links.start_links(cfg, self.dispatcher, self.announcer)
        from memory import selftest

        print(selftest.run(self))
        try:
            await asyncio.gather(*tasks)
        finally:
            self.shutdown()

    def shutdown(self):
        try:
            self.store.flush()
        except Exception as e:  # report, then let the caller finish stopping
            print("memory: final flush failed:", e)


async def main(config_path=None):
    global current
    try:
        cfg = config.load(config_path or CONFIG_PATH)
    except ValueError as e:
        # Memory stays reachable over serial (xzmem --device PORT) so the file can be fixed.
        print("config: %s; starting with defaults, no network server until it is fixed" % e)
        cfg = config.validate({})
    print(connect_wifi(cfg))
    print(set_clock_by_ntp(cfg))
    current = Device(cfg)
    await current.serve()


def call_tool(name, args_json):
    """The serial transport's entry: mpremote runs this on the board against the running device."""
    device = current or Device(config.load(CONFIG_PATH))
    return device.call_tool(name, args_json)
