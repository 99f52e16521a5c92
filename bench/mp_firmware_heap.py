# Runs under the MicroPython WebAssembly port, driven by bench/mp_firmware.mjs (bench/firmware_heap.py
# starts it): the whole device program as app.main() starts it, with the simulator's fakes for what
# the port lacks (NVS, sockets), and one MCP client talking to its server.
#
# The driver calls one function of this module per step and collects garbage between steps, so
# the live heap is exact there; automatic collection is off, so what a step allocates is exact too.
# A step that writes frames waits at each drain() until the driver releases it: one frame per step.

import asyncio
import asyncio.core
import binascii
import gc
import json
import struct

from sha1_fake import Sha1

CONFIG = "/bench/config.json"
KEYWORD = "记"  # every hot and archived fact in the bench's memory has it
_held = {}
_wires = []
_kept = []  # first copies of modules loaded again, and the globals of bodies run again: alive while measured


class Wire:
    """One TCP connection as MicroPython's Stream sees it: the bench feeds what the peer sends and
    counts what the device writes; drain() waits for the driver (one frame per step)."""

    def __init__(self):
        self.incoming = bytearray()
        self.view = memoryview(self.incoming)
        self.pos = 0
        self.arrived = asyncio.Event()
        self.gate = asyncio.Event()
        self.waiting = False  # a drain() waits for the driver
        self.closed = False
        self.writes = 0
        self.bytes = 0
        self.largest_write = 0
        self.replies = 0  # frames with FIN set

    def feed(self, data):
        if self.pos == len(self.incoming):
            self.incoming = bytearray(data)
            self.pos = 0
        else:
            self.incoming += data
        self.view = memoryview(self.incoming)  # reads slice it: one small object per read, as a socket's
        self.arrived.set()

    async def readexactly(self, n):
        # One coroutine per read, as MicroPython's own Stream.readexactly.
        while len(self.incoming) - self.pos < n:
            if self.closed:
                raise EOFError
            self.arrived.clear()
            await self.arrived.wait()
        data = bytes(self.view[self.pos : self.pos + n])
        self.pos += n
        return data

    async def readline(self):
        while self.incoming.find(b"\n", self.pos) < 0:
            if self.closed:
                raise EOFError
            self.arrived.clear()
            await self.arrived.wait()
        end = self.incoming.find(b"\n", self.pos) + 1
        data = bytes(self.view[self.pos : end])
        self.pos = end
        return data

    def write(self, data):
        if self.closed:
            raise OSError(32)
        self.writes += 1
        self.bytes += len(data)
        if len(data) > self.largest_write:
            self.largest_write = len(data)
        if data[0] & 0x80 and data[0] & 0x0F < 8:
            self.replies += 1

    async def drain(self):
        self.waiting = True
        self.gate.clear()
        await self.gate.wait()
        self.waiting = False

    def close(self):
        self.closed = True
        self.arrived.set()

    async def wait_closed(self):
        pass

    def get_extra_info(self, name):
        return ("127.0.0.1", 40000)


class _Listener:
    def close(self):
        pass

    async def wait_closed(self):
        pass


async def _start_server(callback, host, port, backlog=5):
    _held["accept"] = callback
    return _Listener()


async def _open_connection(host, port, ssl=None, server_hostname=None):
    raise OSError(113, f"no route to {host} (the bench has no network)")


def client_frame(obj):
    """A text frame as a client sends it: masked, with the all-zero key (the payload reads as is)."""
    payload = json.dumps(obj).encode()
    n = len(payload)
    if n < 126:
        head = struct.pack(">BB", 0x81, 0x80 | n)
    else:
        head = struct.pack(">BBH", 0x81, 0x80 | 126, n)
    return head + b"\x00\x00\x00\x00" + payload


def _call(rid, name, arguments):
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


_parked = None


def nvs_park():
    """Take the fake NVS's contents off the heap (into a file), so the driver can weigh them."""
    global _parked
    import esp32

    flash = esp32.nvs_flash()
    with open("/bench/parked.txt", "w") as f:
        for ns, key, kind, value in flash.items:
            text = binascii.hexlify(value).decode() if kind == "blob" else value
            f.write(f"{ns}\t{key}\t{kind}\t{text}\n")
    _parked = len(flash.items)
    flash.items = []


def nvs_unpark():
    """Put back what nvs_park() took."""
    import esp32

    flash = esp32.nvs_flash()
    items = [None] * _parked
    with open("/bench/parked.txt") as f:
        for i in range(_parked):
            ns, key, kind, value = f.readline().rstrip("\n").split("\t")
            items[i] = [ns, key, kind, binascii.unhexlify(value) if kind == "blob" else int(value)]
    flash.items = items


def prepare():
    """Fakes in place, NVS loaded; nothing of the firmware imported yet (the driver's baseline follows)."""
    import esp32

    with open("/bench/args.json") as f:
        args = json.load(f)
    # Loaded from the file the bench wrote, then kept only on the heap: the fake's saves (the whole
    # partition as JSON on every commit) are the simulator's cost, not the firmware's.
    esp32.configure_nvs(args["nvs"], reserve=200).path = None
    asyncio.start_server = _start_server
    asyncio.open_connection = _open_connection
    gc.disable()  # the driver collects between steps


def start():
    from memory import app, ws

    ws._sha1 = Sha1  # the port has no hashlib.sha1; the handshake needs one
    _held["main"] = asyncio.create_task(app.main(CONFIG))


def step():
    """Let every task that can run, run (releasing writes that wait); True while frames are pending."""
    for w in _wires:
        if w.waiting:
            w.gate.set()
    asyncio.core._run_iter()
    for w in _wires:
        if w.waiting:
            return True
    return False


def connect():
    w = Wire()
    _wires.append(w)
    _held["client"] = w
    asyncio.create_task(_held["accept"](w, w))
    w.feed(b"GET /mcp HTTP/1.1\r\nHost: device\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Protocol: mcp\r\nAuthorization: Bearer bench-token\r\n\r\n")
    w.feed(client_frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}))
    w.feed(client_frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))


def send(kind):
    """Feed the client's request for one measured action; the driver steps until it is answered."""
    if kind == "tools_list":
        msg = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}
    elif kind == "read":
        msg = _call(1, "memory", {"action": "read"})
    elif kind == "recall_10":
        msg = _call(2, "memory", {"action": "recall", "type": "fact", "keyword": KEYWORD, "limit": 10})
    elif kind == "recall_50":
        msg = _call(3, "memory", {"action": "recall", "type": "fact", "keyword": KEYWORD, "limit": 50})
    else:
        ops = [{"op": "write", "type": "fact", "content": f"bench fact {i}: 记住这件事 " + "x" * 60} for i in range(20)]
        msg = _call(4, "memory_sync", {"action": "apply", "batch_id": "bench-20", "ops": ops})
    frame = client_frame(msg)
    _held["request_bytes"] = len(frame)
    _held["client"].feed(frame)
    frame = msg = None


def answered():
    """Frames the client has received so far that end a message."""
    return _held["client"].replies


def request_bytes():
    return _held["request_bytes"]


def import_all(names):
    for name in json.loads(names):
        __import__(name)


def reimport(name):
    """Load a module again from its .mpy while all it imports is loaded: its code and objects."""
    import sys

    _kept.append(sys.modules.pop(name))  # kept: freeing the first copy would hide the second's cost
    __import__(name)


def compile_body(path):
    with open(path) as f:
        _held["body"] = compile(f.read(), path, "exec")


def run_body(name):
    """A module's body run again into fresh globals: the objects alone, as a frozen import makes them."""
    globs = {"__name__": name}
    exec(_held["body"], globs)  # the code object stays until the next compile_body(), outside the measure
    _kept.append(globs)


def loaded_modules():
    import sys

    return json.dumps([name for name in sys.modules if name == "memory" or name.startswith("memory.")])


# ---- the WebSocket alone: what one frame costs ----


def frame_socket(client):
    from memory import ws

    w = Wire()
    _held["frame_wire"] = w
    _held["frame_socket"] = ws.WebSocket(w, w, client)
    _held["payload"] = bytes(1024)
    _held["frame_text"] = client_frame({"t": "a" * 1010})  # a 1 KB text frame as a client sends it


def send_frame():
    """One 1 KB frame sent by a task of its own (counted too: an upper bound), its drain released at once."""
    _held["task"] = asyncio.create_task(_held["frame_socket"].send(_held["payload"]))
    asyncio.core._run_iter()
    _held["frame_wire"].gate.set()
    asyncio.core._run_iter()


def start_receiver():
    """A task that receives on the frame socket for good, as a server session does."""
    _held["task"] = asyncio.create_task(_receive_forever(_held["frame_socket"]))
    asyncio.core._run_iter()


async def _receive_forever(sock):
    while True:
        _held["got"] = await sock.recv()


def feed_frame():
    _held["got"] = None
    _held["frame_wire"].feed(_held["frame_text"])


def recv_frame():
    """The receiver takes the 1 KB masked text frame fed in the step before; returns the text's length.

    In steady state: the step also starts reading the next frame, as the one before it started this.
    """
    asyncio.core._run_iter()
    return len(_held["got"])


def release():
    task = _held.pop("task", None)
    if task is not None:
        task.cancel()
        asyncio.core._run_iter()
    for key in ("frame_wire", "frame_socket", "payload", "frame_text", "got"):
        _held.pop(key, None)
