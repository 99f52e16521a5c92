# Runs under the MicroPython WebAssembly port, driven by bench/board_soak.mjs (bench/board_soak.py
# starts it). boot(): the device program as app.main() starts it, its server on MicroPython-shaped
# in-memory streams (firmware/sim/mpstream, which counts the device's sockets), and one client with
# the owner's token. clamp(): ballast holds the heap's free space to what the board would have.
# soak(): the client's mixed calls, dropping its connection now and then.

import asyncio
import binascii
import gc
import json
import random

import esp32
import micropython
from memory import ws, wsclient
from micropython import const
from mpstream import Network

CONFIG = "/bench/config.json"
TOKEN = "bench-token"
TYPES = (
    ("name", {"content": "小明"}), ("age", {"content": "8"}), ("gender", {"content": "男"}),
    ("location", {"content": "杭州"}), ("birthday", {"content": "2017-05-04"}),
    ("like", {"content": "恐龙"}), ("dislike", {"content": "青椒"}),
    ("family", {"relation": "妈妈", "name": "李红", "closeness": 5}),
    ("fact", {"content": "今天记得去公园放风筝"}), ("trait", {"content": "好奇"}),
    ("habit", {"content": "睡前听故事"}), ("moment", {"content": "第一次骑自行车", "topic": "骑车", "emotion": "happy"}),
    ("goal", {"content": "学会游泳"}), ("chat", {"content": "你好呀", "role": "user"}),
    ("coins", {"amount": 3}), ("mood", {"content": "开心"}),
)
_BALLAST_BLOCK = const(1040)  # a bytearray(1024): its object and its data, in 16-byte blocks
_SPLIT = const(134217728)  # what gc.mem_free() adds on this port: room it could still take from malloc
MAP_EVERY = 4  # calls between two looks at the heap's block map (each look prints all of it)
FULL = ("已经存满了", "is full")  # the refusal of a write to a type at capacity (the store starts full)
MEMORY_BYTES = const(1048576)  # the unix run's memory partition (bench/board_soak.py builds it)
CLIENT_MAX = const(2048)  # the longest answer the client reads whole
NOMEM = ("忙不过来", "short of working memory")


def _reply_id(head):
    """The id of a JSON-RPC answer from its first bytes (the device writes "id" second, with no space)."""
    at = head.find(b'"id":')
    if at < 0:
        return None
    end = at + 5
    while end < len(head) and 48 <= head[end] <= 57:
        end += 1
    return int(head[at + 5 : end]) if end > at + 5 else None


class _Digest:
    """Stands in for hashlib.sha1 in the handshake, which both ends compute with it. A board has
    SHA-1 in C; the plain-Python one (sha1_fake) makes about 100 KB of big-integer garbage per
    handshake, which this port could not collect before the handshake's turn ends."""

    def __init__(self, data):
        self.data = data

    def digest(self):
        out = bytearray(20)
        for i, b in enumerate(self.data):
            out[i % 20] ^= b
        return bytes(out)


class Soak:
    def __init__(self, calls, seed):
        self.calls = calls
        random.seed(seed)
        self.net = Network()
        self.rid = 0
        self.sched = 0
        self.maps = True
        self.stream = None
        self.sock = None
        self.at = -1  # the call under way (board_soak.mjs watches that it moves on)
        self.out = {"memory_errors": 0, "sessions_lost": 0, "leaked_sockets": 0, "live_max": 0,
                    "reconnects": 0, "answered": 0, "errors": 0, "full": 0, "first_problems": []}

    def problem(self, text):
        if len(self.out["first_problems"]) < 5:
            self.out["first_problems"].append(text[:400])

    async def connect(self):
        for _ in range(200):
            if self.net.accept is not None:
                break
            await asyncio.sleep(0.01)
        self.stream = self.net.connect()
        self.sock = await wsclient.handshake(self.stream, self.stream, "device", 8765, "/mcp",
                                             [("Authorization", "Bearer " + TOKEN)], ("mcp",), CLIENT_MAX)
        await self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "soak", "version": "1"}})
        await self.sock.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    async def rpc(self, method, params):
        self.rid += 1
        await self.sock.send(json.dumps({"jsonrpc": "2.0", "id": self.rid, "method": method, "params": params}))
        while True:
            try:
                reply = self.parse(await self.sock.recv())
            except ws.MessageTooBig as e:
                # A long answer (a recall of 50 is 12 KB): the client shares the device's heap here,
                # so it reads such answers past in pieces. Refusals are short: a long one is an answer.
                reply = {"id": _reply_id(e.head), "result": {"bytes": e.size}}
            if reply.get("id") == self.rid:
                return reply

    def request(self, i):
        r = random.getrandbits(8) % 16
        if r < 2:
            return "memory", {"action": "read"}
        if r < 6:
            kind, extra = TYPES[random.getrandbits(8) % len(TYPES)]
            args = {"action": "write", "type": kind}
            args.update(extra)
            if "content" in args and kind not in ("age", "gender", "birthday"):
                args["content"] = args["content"] + " " + str(i)
            return "memory", args
        if r < 8:
            return "memory", {"action": "recall", "type": "fact", "keyword": "记", "limit": 50}
        if r < 10:
            return "memory", {"action": "search", "keyword": "公园"}
        if r < 12:
            return self.schedule_change()
        if r < 13:
            if not self.sched % 2:  # none of ours waiting: add one, to complete another time
                return self.schedule_change()
            return "memory", {"action": "complete_schedule", "content": f"练琴 {self.sched}"}
        if r < 15:
            ops = [{"op": "write", "type": "fact", "content": f"同步事实 {i}-{k} 记住这件事"} for k in range(20)]
            return "memory_sync", {"action": "apply", "batch_id": f"soak-{i}", "ops": ops}
        return None, None  # an abrupt reconnect

    def schedule_change(self):
        # Schedules come and go: one is added, then deleted, so the 16 places never fill.
        self.sched += 1
        n = self.sched
        if n % 2:
            return "memory", {"action": "write", "type": "schedule", "content": f"练琴 {n}",
                              "datetime": f"2030-03-{1 + n % 28:02d} {8 + n % 12:02d}:{n % 60:02d}"}
        return "memory", {"action": "delete", "type": "schedule", "content": f"练琴 {n - 1}"}

    def parse(self, message):
        return json.loads(message)  # MicroPython parses a long answer's memoryview where it lies

    def text(self, reply):
        return json.dumps(reply)  # MicroPython's json keeps Chinese as it is

    def judge(self, reply, name, args):
        self.out["answered"] += 1
        text = self.text(reply)
        if any(w in text for w in NOMEM) or "MemoryError" in text:
            self.out["memory_errors"] += 1
            self.problem(text)
        elif any(w in text for w in FULL):
            self.out["full"] += 1  # a type at capacity, refused as it should be
        elif "error" in reply or reply.get("result", {}).get("isError"):
            self.out["errors"] += 1
            self.problem(f"{name} {args.get('action')}: {text}")

    async def until_held(self, n):
        for _ in range(250):
            if self.net.held == n:
                return
            await asyncio.sleep(0.02)

    async def live(self):
        gc.collect()  # on this port a collection only runs once control is back in JavaScript
        await asyncio.sleep_ms(2)
        a = gc.mem_alloc()
        if a > self.out["live_max"]:
            self.out["live_max"] = a

    def block_map(self):
        print("@@map")  # board_soak.mjs reads the map between the marks
        try:
            micropython.mem_info(1)
        finally:
            print("@@end")

    async def boot(self):
        from memory import app

        ws._sha1 = _Digest  # the WebAssembly port has no hashlib.sha1; the handshake needs one
        asyncio.sleep = _turn_sleep
        _turns_end_when_low()
        self.net.install()
        self.main = asyncio.create_task(app.main(CONFIG))
        await self.connect()
        await self.make_room()
        print("soak: connected")

    async def make_room(self):
        for n in (0, 1):  # the store starts full: room for the soak's own schedules
            await self.rpc("tools/call", {"name": "memory", "arguments": {"action": "delete", "type": "schedule",
                                                                            "content": f"e{n} "}})

    async def run(self):
        await self.live()
        for i in range(self.calls):
            self.at = i
            await asyncio.sleep_ms(1)  # a turn ends between calls too
            name, args = self.request(i)
            if name is None:
                self.stream.s.close()  # the phone left: no close frame
                self.out["reconnects"] += 1
                await self.until_held(0)
                await self.connect()
            else:
                try:
                    mapped = self.maps and i % MAP_EVERY == 0
                    if mapped:
                        self.block_map()
                    reply = await self.rpc("tools/call", {"name": name, "arguments": args})
                    if mapped:
                        self.block_map()
                    self.judge(reply, name, args)
                except MemoryError as e:
                    self.out["memory_errors"] += 1  # the client's side, on the same heap
                    self.problem("client: " + repr(e))
                    await self.lost()
                except Exception as e:  # the session ended under the client
                    self.out["sessions_lost"] += 1
                    self.problem(f"{name} {args.get('action')}: {e!r}")
                    await self.lost()
            if i % 10 == 0:
                await self.live()
        await self.live()
        self.stream.s.close()
        await self.until_held(0)
        self.out["leaked_sockets"] = self.net.held
        self.out["sockets_opened"] = self.net.opened
        self.out["loop_faults"] = _turn[0]
        self.out["low_turns"] = _turn[1]
        self.main.cancel()
        return self.out

    async def lost(self):
        self.stream.s.close()
        await self.until_held(0)
        await self.connect()


def prepare():
    esp32.configure_nvs(None, reserve=200)


def add_item(ns, key, kind, value):
    """One NVS entry as bench/board_soak.py wrote it (a blob in hex); called once per entry."""
    esp32.nvs_flash().items.append([ns, key, kind, binascii.unhexlify(value) if kind == "blob" else int(value)])


def _turn_sleep(t):
    # This port collects garbage only when the event loop hands control back to JavaScript, which
    # it does when no task is ready. A zero sleep (a turn for the other tasks: after each frame
    # written, each slice of long work) is made 1 ms so that the loop can get there, as a board's
    # collector runs whenever an allocation needs it.
    return asyncio.sleep_ms(int(t * 1000) if t > 0 else 1)


# The port's event loop runs every task that is due before it gives control back to JavaScript, and
# only then can the port collect. Two things follow. One turn can allocate a lot: a turn with one
# slice of a 20-op memory_sync into a full table (memory.steps.run, 10 ms or one step, whichever is
# longer) took 200 KB here, so a heap that a board (which collects whenever an allocation needs it)
# holds with room to spare runs dry within one turn. And whatever then escapes the loop (its own
# js.setTimeout failing for lack of heap, when a task that died of the MemoryError is queued for its
# exception handler) reaches the port's proxy_c_to_js_call, which formats the exception on the heap
# outside any handler: that MemoryError ends in the port's nlr_jump_fail(), an endless loop, and node
# spins at 100 % CPU for good. So on this port the soak (1) ends the firmware's step slices (its own
# memory.steps.run) once the heap's free room is under half what it was when the slice began, or
# under 32 KB, where a board would collect, and asks for a collection at the turn's end
# (low_turns), and (2) calls the port's loop inside a handler, so that nothing escapes it: a failure
# is counted in loop_faults and the loop is started again from JavaScript (revive()).
_LOW_ROOM = const(32768)  # free bytes under which a slice ends whatever room it began with
_turn = [0, 0]  # failures of the loop (loop_faults); slices ended for a low heap (low_turns)
_revive = [False]  # the loop failed and may have no timer left: board_soak.mjs calls revive()


def _free():
    return gc.mem_free() - _SPLIT


def _turns_end_when_low():
    import asyncio.core as core
    from time import ticks_diff, ticks_ms

    from memory import steps

    port_run_iter = core._run_iter

    def run_iter():
        try:
            port_run_iter()
        except BaseException:  # never into the port: see above (nothing is allocated here)
            _turn[0] += 1
            _revive[0] = True

    async def run_steps(work):
        # memory.steps.run, whose slices also end when the heap runs low.
        start, room = ticks_ms(), _free()
        try:
            while True:
                next(work)
                free = _free()
                if free < room // 2 or free < _LOW_ROOM:
                    gc.collect()  # done once this turn is over
                    _turn[1] += 1
                elif ticks_diff(ticks_ms(), start) < 10:
                    continue
                await asyncio.sleep(0)
                start, room = ticks_ms(), _free()
        except StopIteration as done:
            return done.value
        finally:
            work.close()

    core._run_iter = run_iter  # what the port's timer calls
    steps.run = run_steps


def progress():
    """The call under way and the loop's failures so far, for board_soak.mjs's watch."""
    return f"{_soak.at} {_turn[0]}"


def revive():
    """Called from JavaScript now and then: starts the loop again after it failed."""
    if _revive[0]:
        try:
            import asyncio.core as core

            _revive[0] = False
            core._schedule_run_iter(0)
        except BaseException:  # still short: the next call tries again
            _revive[0] = True


_soak = None
_ballast = None
BALLAST = 0  # bytes the ballast holds


async def boot(calls, seed):
    """Start the firmware and connect the client; turns are made to end often and the block map
    is read (a unix port runs the device alone: unix_device)."""
    global _soak
    _soak = Soak(calls, seed)
    await _soak.boot()


def _unix_setup(work):
    """Under a unix port: /bench is the folder `work`, /data the LittleFS image work/memory.img
    mounted as boot.py mounts the memory partition (the real LittleFS driver over a file-backed
    partition), and the fake NVS loaded an entry at a time. Returns the fake NVS's weight."""
    import vfs
    from memory import mount

    vfs.mount(vfs.VfsPosix(work), "/bench")
    esp32.configure_partition("memory", "/bench/memory.img", MEMORY_BYTES)
    print("soak: /data", mount.mount_data(esp32.Partition("memory")))
    gc.collect()
    empty = gc.mem_alloc()
    prepare()
    with open("/bench/nvs.lines") as f:
        for line in f:
            add_item(*line.rstrip("\n").split("\t"))
    gc.collect()
    return gc.mem_alloc() - empty


def unix_weigh(work):
    """Prints "@@nvs BYTES": what the fake NVS takes of a unix port's heap (bench/board_soak.py adds it)."""
    print("@@nvs", _unix_setup(work))


def unix_device(work):
    """The device alone under a unix port, serving on a real socket for a client in another process
    (bench/board_soak_client.py): /bench, /data and the NVS as _unix_setup() makes them, then
    app.main() with the listen port of work/config.json. Every second the heap is collected and the
    live heap noted; on SIGINT prints "@@json" with live_max (less the fake NVS)."""
    nvs = _unix_setup(work)
    ws._sha1 = _Digest  # the client computes the accept key with the same stand-in
    gc.collect()
    base = gc.mem_alloc()  # the harness (this module, the fakes, the fake NVS) before the firmware starts
    live = [0]

    def note():
        gc.collect()
        live[0] = max(live[0], gc.mem_alloc())

    async def watch():
        while True:
            await asyncio.sleep(1)
            note()

    async def run():
        from memory import app

        asyncio.create_task(watch())
        await app.main(CONFIG)

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass
    note()  # a run shorter than a second is noted at least once
    print("@@json " + json.dumps({"live_max": live[0] - nvs, "firmware_live_max": live[0] - base, "fake_nvs_bytes": nvs}))


def clamp(free):
    """Take the heap's free space down to `free` bytes with ballast (1 KB blocks, the last smaller)."""
    global _ballast
    held = gc.mem_alloc()
    room = _total() - held
    n = max(0, room - free) // _BALLAST_BLOCK
    _ballast = [None] * (n + 2)
    for i in range(n - 64 if n > 64 else 0):  # the bulk in one go; the last 64 KB measured as it goes
        _ballast[i] = bytearray(1024)
    i = n - 64 if n > 64 else 0
    while _total() - gc.mem_alloc() - _BALLAST_BLOCK > free and i < n + 1:
        _ballast[i] = bytearray(1024)
        i += 1
    global BALLAST
    BALLAST = gc.mem_alloc() - held
    return _total() - gc.mem_alloc()


def _total():
    return gc.mem_alloc() + gc.mem_free() - _SPLIT


async def soak():
    return json.dumps(await _soak.run())
