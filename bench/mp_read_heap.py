# Runs under MicroPython (bench/read_heap.py starts it): the `memory` read overview as the device
# answers it, every type full: the heap while the answer is written out as WebSocket frames.
#
# main() yields between measurements; bench/mp_script.mjs collects garbage at each yield, so the
# live heap is exact there (live_peak_bytes: the most seen at any step boundary). Automatic
# collection is off, so what a step allocates is exact too: the live heap inside a step is at most
# what was live when it began plus what it allocated, garbage included (peak_bound_bytes).

import gc
import json

_held = {}


class _Sink:
    """A socket writer that keeps nothing: counts bytes and frames; drain() hands control back."""

    def __init__(self):
        self.bytes = 0
        self.writes = 0
        self.largest_write = 0

    def write(self, data):
        self.bytes += len(data)
        self.writes += 1
        if len(data) > self.largest_write:
            self.largest_write = len(data)

    def drain(self):
        return _pause()


def _pause():
    # Awaited by the WebSocket after each frame: yields out of the coroutine to the bench's driver.
    yield


def _setup():
    import esp32
    from memory import clock, mcp
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
    # Every pass answers the same, biggest overview: the 16 due reminders stay untold.
    _held["link"].peek = True
    _held["request"] = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                   "params": {"name": "memory", "arguments": {"action": "read"}}})


def _pieces_measure():
    # One answer kept whole (outside any heap measurement): its size, pieces and content.
    from memory import mcp

    reply = list(_held["dispatcher"].handle(_held["request"], _held["link"]))
    text = "".join(reply)
    inner = json.loads(text)["result"]["content"][0]["text"]
    overview = json.loads(inner)
    pieces = list(_held["dispatcher"].tools[0].memory.overview_peek())
    _held["shape"] = {
        "reply_message_bytes": len(text.encode()),
        "overview_json_bytes": len(inner.encode()),
        "overview_pieces": len(pieces),
        "largest_overview_piece_bytes": max([len(p.encode()) for p in pieces]),
        "reply_pieces": len(reply),
        "largest_reply_piece_bytes": max([len(p.encode()) for p in reply]),
        "overview_counts": {k: len(v) for k, v in overview.items() if isinstance(v, list)},
        "frame_buffer_bytes": __import__("memory.ws").ws.STREAM_FRAME,
        "same_as_joined_path": json.loads(mcp.tool_result(mcp.Streamed(_held["dispatcher"].tools[0].memory.overview_peek))["content"][0]["text"]) == overview,
    }


def _stats():
    return {"steps": 0, "live_peak_bytes": 0, "peak_bound_bytes": 0, "largest_step_allocation_bytes": 0}


def _step(stats, live_before, allocated):
    stats["steps"] += 1
    if live_before > stats["live_peak_bytes"]:
        stats["live_peak_bytes"] = live_before
    if live_before + allocated > stats["peak_bound_bytes"]:
        stats["peak_bound_bytes"] = live_before + allocated
    if allocated > stats["largest_step_allocation_bytes"]:
        stats["largest_step_allocation_bytes"] = allocated


def _drive(steps, stats, base):
    """Advance `steps` (a generator or coroutine) one step per yield, recording each step's heap."""
    done = False
    while not done:
        before = gc.mem_alloc()
        try:
            steps.send(None)
        except StopIteration:
            done = True
        _step(stats, before - base, gc.mem_alloc() - before)
        yield


def _pieces():
    """Steps that take the dispatcher's answer one piece at a time (no socket): the finest grain."""
    gc.collect()
    base = gc.mem_alloc()
    yield
    stats = _stats()
    before = gc.mem_alloc()
    reply = _held["dispatcher"].handle(_held["request"], _held["link"])
    _step(stats, before - base, gc.mem_alloc() - before)
    yield
    yield from _drive(reply, stats, base)
    reply = None
    yield
    stats["kept_after_bytes"] = gc.mem_alloc() - base
    _held["pieces"] = stats


def _streamed(client):
    """Steps that answer the read and send it on a WebSocket, one frame per step.

    client: masked frames, as the outbound links (endpoint, xiaozhi) send; else the server link's.
    """
    from memory import ws

    sink = _Sink()
    sock = ws.WebSocket(None, sink, client)
    gc.collect()
    base = gc.mem_alloc()
    yield
    stats = _stats()
    before = gc.mem_alloc()
    coro = sock.send(_held["dispatcher"].handle(_held["request"], _held["link"]))
    _step(stats, before - base, gc.mem_alloc() - before)
    yield
    yield from _drive(coro, stats, base)  # each send runs until the next frame is written
    coro = None
    yield
    stats["kept_after_bytes"] = gc.mem_alloc() - base
    stats["frames"] = sink.writes  # one write per frame up to ws.STREAM_FRAME
    stats["sent_bytes"] = sink.bytes
    stats["largest_write_bytes"] = sink.largest_write
    _held["client" if client else "server"] = stats


def _joined():
    # The serial transport's path (and batches): the pieces joined into one text.
    before = gc.mem_alloc()
    _held["joined"] = _held["dispatcher"].tools[0].call({"action": "read"}, _held["link"]).text()
    _held["joined_alloc"] = gc.mem_alloc() - before


def main():
    gc.disable()  # explicit collections between steps still run
    _setup()
    yield
    _pieces_measure()
    yield
    yield from _pieces()
    yield from _streamed(False)
    yield from _streamed(True)
    base = gc.mem_alloc()
    _joined()
    yield
    joined_live = gc.mem_alloc() - base
    out = {
        "interpreter": "micropython-webassembly",
        "target_bytes": 16 * 1024,
        "single_allocation_target_bytes": 8 * 1024,
        "reply_pieces_one_per_step": _held["pieces"],
        "streamed_server_link": _held["server"],
        "streamed_outbound_link_masked": _held["client"],
        "joined_serial_path": {"live_text_bytes": joined_live, "allocated_bytes": _held["joined_alloc"]},
    }
    out.update(_held["shape"])
    print("@@json " + json.dumps(out))
