# Runs under MicroPython (bench/read_heap.py starts it): the `memory` read overview as the device
# answers it, every type full: heap allocated while answering and the size of the reply message.
#
# main() yields between measurements; bench/mp_script.mjs collects garbage at each yield.

import gc
import json

_held = {}


def _setup():
    import esp32
    from memory import clock, mcp
    from memory.reminder import Announcer  # noqa: F401 - the device imports it too
    from memory.schedule import Schedules
    from memory.service import MemoryService
    from memory.store import Event, Store
    from memory.tools import MemoryTool
    from store_helpers import T0, Clock, FakeArchive, fill_every_type

    clock.set_utc_offset(8 * 3600)
    esp32.configure_nvs(None, reserve=200)
    filler = Store(archiver=FakeArchive(), now=Clock())
    fill_every_type(filler)
    filler.flush()
    store = Store(now=Clock(T0))
    schedules = Schedules(store, Event)
    dispatcher = mcp.Dispatcher()
    dispatcher.add(MemoryTool(MemoryService(store, schedules)))
    _held["dispatcher"] = dispatcher
    _held["link"] = mcp.Link("bench", trusted=True)
    _held["request"] = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                   "params": {"name": "memory", "arguments": {"action": "read"}}})


def _answer():
    before = gc.mem_alloc()
    reply = _held["dispatcher"].handle(_held["request"], _held["link"])
    # No collection inside this call: everything allocated while answering is still counted.
    _held["allocated"] = gc.mem_alloc() - before
    _held["reply_bytes"] = len(reply.encode())
    _held["reply"] = reply


def _overview():
    _held["overview"] = _held["dispatcher"].tools[0].memory.overview()


def _inner_text():
    from memory import mcp

    _held["text"] = mcp.dumps(_held["overview"])


def _drop_stages():
    for key in ("overview", "text"):
        _held.pop(key)


def main():
    _setup()
    yield
    base = gc.mem_alloc()
    _overview()
    yield
    overview_live = gc.mem_alloc() - base
    _inner_text()
    yield
    text_live = gc.mem_alloc() - base - overview_live
    _drop_stages()
    yield
    base = gc.mem_alloc()
    _answer()
    yield
    kept = gc.mem_alloc() - base
    reply = json.loads(_held["reply"])
    overview = json.loads(reply["result"]["content"][0]["text"])
    print("@@json " + json.dumps({
        "interpreter": "micropython-webassembly",
        "allocated_while_answering_bytes": _held["allocated"],
        "target_bytes": 16 * 1024,
        "reply_message_bytes": _held["reply_bytes"],
        "largest_single_string_bound_bytes": _held["reply_bytes"],
        "single_allocation_target_bytes": 8 * 1024,
        "kept_after_collect_bytes": kept,
        "live_overview_object_bytes": overview_live,
        "live_overview_json_bytes": text_live,
        "live_peak_estimate_bytes": overview_live + text_live + 2 * _held["reply_bytes"],
        "overview_counts": {k: len(v) for k, v in overview.items() if isinstance(v, list)},
    }))
