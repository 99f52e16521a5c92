# In-memory asyncio streams and a SHA-1 for link tests that must run where there are no sockets.

import asyncio
import struct

from memory import ws
from sha1_fake import Sha1


async def in_task(coro):
    """Await `coro` as a task of its own. In the WebAssembly port the test runner's coroutine resumes
    only when no task is ready, and cannot be cancelled (asyncio.wait_for cancels the task that
    waits), so a test that takes turns with busy tasks, or runs link code, runs it this way."""
    return await asyncio.create_task(coro)


class FakeStream:
    """Reader and writer in one, like MicroPython's Stream: reads from `incoming`, records writes.

    `respond` (optional) is called with the bytes written so far after each write and may return
    bytes to append to what can be read (a peer answering a handshake).
    """

    def __init__(self, incoming=b"", respond=None):
        self.incoming = bytearray(incoming)
        self.out = bytearray()
        self.closed = False
        self.respond = respond
        self.extra = {"peername": ("127.0.0.1", 40000)}

    def feed(self, data):
        self.incoming += data

    async def readexactly(self, n):
        if len(self.incoming) < n:
            self.incoming = bytearray()
            raise EOFError
        data = bytes(self.incoming[:n])
        self.incoming = self.incoming[n:]
        return data

    async def readline(self):
        i = self.incoming.find(b"\n")
        end = len(self.incoming) if i < 0 else i + 1
        data = bytes(self.incoming[:end])
        self.incoming = self.incoming[end:]
        return data

    def write(self, data):
        if self.closed:
            raise OSError(32)  # EPIPE
        self.out += data
        if self.respond:
            more = self.respond(bytes(self.out))
            if more:
                self.incoming += more

    async def drain(self):
        pass

    def close(self):
        self.closed = True

    async def wait_closed(self):
        pass

    def get_extra_info(self, name):
        return self.extra[name]


def read_frames(data, client_sent=None):
    """Split bytes a WebSocket wrote into [(fin, opcode, masked, payload)] (payload unmasked)."""
    frames = []
    i = 0
    while i < len(data):
        b0, b1 = data[i], data[i + 1]
        n = b1 & 0x7F
        i += 2
        if n == 126:
            n = struct.unpack(">H", data[i : i + 2])[0]
            i += 2
        elif n == 127:
            n = struct.unpack(">Q", data[i : i + 8])[0]
            i += 8
        masked = bool(b1 & 0x80)
        key = None
        if masked:
            key = bytes(data[i : i + 4])
            i += 4
        payload = bytes(data[i : i + n])
        i += n
        if key:
            payload = ws.mask(payload, key)
        frames.append((bool(b0 & 0x80), b0 & 0x0F, masked, payload))
    return frames


def close_code(frame):
    """The status code in a close frame's payload."""
    return struct.unpack(">H", frame[3][:2])[0]


def ensure_sha1():
    """Give memory.ws a SHA-1 on ports that lack hashlib.sha1 (the WebAssembly port)."""
    if ws._sha1 is None:
        ws._sha1 = Sha1
