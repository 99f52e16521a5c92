# The device put together at boot (memory.app.Device): storage, memory service, tools, then the server,
# links and self-test. Used once: memory.app unloads it after.

from micropython import const

from memory import app, clock, forget, fs, mcp, statefile
from memory.reminder import Announcer, ReminderLoop
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.tools import MemoryTool, SyncTool

_BOOT_ROOM = const(16384)

INSTRUCTIONS = (
    "Call memory(action=read) when a conversation starts; write what the user tells about themselves; "
    "recall when they ask about the past. 对话开始先读取记忆。"
)


def build(device, cfg, data):
    """Device.__init__: every part of `device` made and wired together."""
    device.cfg = cfg
    clock.set_utc_offset(cfg["utc_offset"])
    device.archive = None
    device.keyed = None
    journal = None
    if fs.exists(data):
        from memory.ackjournal import AckJournal
        from memory.archive import Archive

        try:
            device.archive = Archive(data + "/archive")
            _boot_room(device.archive, data)
            statefile.folder(data + "/keyed")
            if fs.listdir(data + "/keyed"):  # records, or a cut's .tmp: checked now, so the boot log names damage
                from memory.keyed import KeyedStore

                KeyedStore(data + "/keyed", room=device.archive.make_room)
            device.keyed = app._KeyedOnUse(data + "/keyed", device.archive.make_room)
            journal = AckJournal(data + "/acked.jnl", room=device.archive.make_room)
        except (OSError, ValueError) as e:  # the boot goes on: memory in NVS is still served
            from memory.space import explain

            print("memory: %s cannot be used this boot (%s); no archive and no keyed memories"
                  % (data, explain(e)))
            device.archive = device.keyed = journal = None
    else:
        print("memory: %s is not mounted; no archive, no keyed memories and every change flushes NVS" % data)
    forget("keyed")
    device.store = Store(archiver=device.archive, keyed=device.keyed, journal=journal)
    device.schedules = Schedules(device.store, Event, cfg["language"])
    device.memory = MemoryService(device.store, device.schedules, device.archive, device.keyed,
                                  cfg["device_id"] or _default_device_id(), cfg["language"])
    # No partition, no replay log: a path outside /data would be the port's own root (the host's, in
    # the simulator), shared with every other device there.
    device._sync_path = data + "/sync" if device.keyed else None
    device._sync_room = device.archive.make_room if device.archive else None
    device.announcer = Announcer()
    device.reminders = ReminderLoop(device.schedules, device.store, device.announcer)
    device.dispatcher = mcp.Dispatcher(instructions=INSTRUCTIONS, language=cfg["language"])
    device.dispatcher.on_close = device.link_closed
    device.dispatcher.add(MemoryTool(device.memory))
    device.dispatcher.add(SyncTool(device.memory, device._make_sync))
    device.server = None
    device.links = []
    device._last_upkeep_day = None


def _boot_room(archive, data):
    """Folders and repairs need a few blocks; a partition left full gives up its oldest archive.
    Full even then, the boot goes on: every stored memory is served, and a change is refused with
    the full partition's sentence until room is freed (each write asks for room again)."""
    from memory.space import MemoryFull

    try:
        archive.make_room(_BOOT_ROOM)
    except MemoryFull as e:
        print("memory: %s is full (%s); stored memories are served, changes wait for room" % (data, e))


async def start(device, ready):
    """The first half of Device.serve(): the server (with a token), the links, the self-test."""
    cfg = device.cfg
    if cfg["token"]:
        from memory.server import Server, client_budget

        links = (1 if cfg["endpoint_url"] else 0) + (1 if cfg["xiaozhi_url"] else 0)
        device.server = Server(device.dispatcher, cfg["token"], cfg["listen_host"], cfg["listen_port"],
                               max_clients=client_budget(links))
        await device.server.start()
        device.announcer.add(device._reminder_to_server)
        ready("xzmem device ready %s" % device.server.url)
    else:
        ready("xzmem device ready (no token in config: the MCP server is off)")
    device.links = _start_links(cfg, device.dispatcher, device.announcer)
    from memory import selftest

    print(selftest.run(device))
    forget("selftest")


def _default_device_id():
    from memory import links

    return links.default_device_id()


def _start_links(cfg, dispatcher, announcer):
    # The links' code (links, endpoint, xiaozhi, outlink, the WebSocket client) loads only when configured.
    if not (cfg["endpoint_url"] or cfg["xiaozhi_url"]):
        return []
    from memory import links

    return links.start_links(cfg, dispatcher, announcer)
