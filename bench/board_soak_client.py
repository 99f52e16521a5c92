"""The soak's client in its own process (CPython), for a device run under a unix port on a real socket.

bench/board_soak.py --micropython starts the device alone under the unix binary
(board_soak_mp.unix_device) and drives it from here over TCP on 127.0.0.1: the same call mix as the
in-process client of the WebAssembly soak (board_soak_mp.Soak), but nothing of the client shares
the device's heap, and the sockets are the operating system's, as a board's are lwIP's. The device's
open sockets are counted in /proc/PID/fd (the listening one left out).
"""

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import board_soak_mp
from board_soak_mp import CLIENT_MAX, TOKEN
from memory import ws, wsclient

# The mix awaits asyncio.sleep_ms() between calls, as MicroPython has it; CPython's asyncio does not.
if not hasattr(asyncio, "sleep_ms"):
    asyncio.sleep_ms = lambda ms: asyncio.sleep(ms / 1000)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DeviceSockets:
    """The device process's TCP sockets: `held` those open less the listener, `opened` connections made."""

    def __init__(self, pid):
        self.fd_dir = Path(f"/proc/{pid}/fd")
        self.opened = 0

    @property
    def held(self):
        n = 0
        for fd in self.fd_dir.iterdir():
            try:
                n += os.readlink(fd).startswith("socket:")
            except OSError:  # closed while we looked
                pass
        return n - 1


class _Drop:
    # What the mix calls to leave abruptly (stream.s.close()): the TCP connection reset, no close frame.
    def __init__(self, writer):
        self.s = self
        self.writer = writer

    def close(self):
        self.writer.transport.abort()


class _Nothing:
    def cancel(self):
        pass


class HostSoak(board_soak_mp.Soak):
    def __init__(self, calls, seed, port, pid):
        super().__init__(calls, seed)
        self.port = port
        self.net = DeviceSockets(pid)
        self.maps = False
        self.main = _Nothing()  # the device runs in its own process

    async def connect(self):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.net.opened += 1
        self.stream = _Drop(writer)
        self.sock = await wsclient.handshake(reader, writer, "device", self.port, "/mcp",
                                             [("Authorization", "Bearer " + TOKEN)], ("mcp",), CLIENT_MAX)
        await self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "soak", "version": "1"}})
        await self.sock.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def parse(self, message):
        return json.loads(message if isinstance(message, str) else bytes(message))

    def text(self, reply):
        return json.dumps(reply, ensure_ascii=False)  # the refusals are matched by their words

    async def live(self):
        pass  # the device notes its own live heap (board_soak_mp.unix_device)

    async def start(self):
        await self.connect()
        await self.make_room()


def drive(cmd, work, port, calls, seed, timeout):
    """Start the device (`cmd`, its output into work/device.log), wait for it to listen, run the mix,
    stop it with SIGINT. Returns (the client's figures, the device's output)."""
    log = open(work / "device.log", "w+", encoding="utf-8", errors="replace")
    device = subprocess.Popen(cmd, cwd=work, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if device.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.1)
        out = None
        if device.poll() is None:
            ws._sha1 = board_soak_mp._Digest  # as the device's server computes the accept key

            async def run():
                soak = HostSoak(calls, seed, port, device.pid)
                await asyncio.sleep(0.5)  # the probe connection above: let the device close it
                await soak.start()
                return await soak.run()

            out = asyncio.run(asyncio.wait_for(run(), timeout))
    finally:
        if device.poll() is None:
            device.send_signal(signal.SIGINT)
            try:
                device.wait(10)
            except subprocess.TimeoutExpired:
                device.kill()
                device.wait()
        log.seek(0)
        output = log.read()
        log.close()
    return out, output
