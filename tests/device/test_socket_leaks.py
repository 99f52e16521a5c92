# Every connection the device's server ends closes its socket: abrupt disconnects, handshake
# timeouts, keepalive drops, refusals and close handshakes. Counted on MicroPython-shaped streams
# (firmware/sim/mpstream), where Stream.close() does nothing and only wait_closed() closes: the
# device holds at most 10 sockets (ESP-IDF's limit), so each one left open is a client refused later.

import asyncio
import json
import unittest

from memory import mcp, server, wsclient
from mpstream import Network
from ws_fakes import ensure_sha1

ensure_sha1()

TOKEN = "leak-test-token"


class Echo(mcp.Tool):
    name = "echo"
    description = "Returns its arguments."

    def call(self, arguments, link):
        return arguments


async def started(**kwargs):
    net = Network()
    d = mcp.Dispatcher()
    d.add(Echo())
    try:
        real = asyncio.start_server
    except (AttributeError, ImportError):  # the WebAssembly port has no sockets, so no stream server
        real = None
    net.install()
    try:
        s = await server.Server(d, TOKEN, host="127.0.0.1", log=lambda line: None, **kwargs).start()
    finally:
        if real is not None:
            asyncio.start_server = real
    return net, s


async def client(net, token=TOKEN):
    stream = net.connect()
    sock = await wsclient.handshake(stream, stream, "device", 8765, "/mcp", [("Authorization", "Bearer " + token)], ("mcp",))
    return stream, sock


async def call(sock, rid):
    await sock.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": rid}}}))
    return json.loads(await sock.recv())


async def until_held(net, s, n, seconds):
    # Polls: the device notices a dropped peer on its own task's schedule.
    for _ in range(int(seconds * 50)):
        if net.held == n and len(s.connections) == n:
            return
        await asyncio.sleep(0.02)


class Leaks(unittest.TestCase):
    async def test_abrupt_disconnects_close_every_socket(self):
        net, s = await started()
        try:
            for i in range(8):
                stream, sock = await client(net)
                self.assertEqual((await call(sock, i))["id"], i)
                stream.s.close()  # the phone left: no close frame
                await until_held(net, s, 0, 1)
            self.assertEqual((net.opened, net.held, len(s.connections)), (8, 0, 0))
        finally:
            await s.stop()

    async def test_a_client_that_never_finishes_its_upgrade_is_cut_off_and_its_socket_closed(self):
        net, s = await started()
        s.handshake_timeout = 0.05
        try:
            silent = net.connect()
            half = net.connect()
            half.write(b"GET /mcp HTTP/1.1\r\nHost: dev\r\n")
            await until_held(net, s, 0, 1)
            self.assertEqual((net.opened, net.held), (2, 0))
            self.assertEqual(await silent.s.read(1), b"")  # the device hung up
        finally:
            await s.stop()

    async def test_a_client_that_stops_answering_pings_is_dropped_and_its_socket_closed(self):
        net, s = await started(ping_interval=1)
        try:
            stream, sock = await client(net)
            self.assertEqual(net.held, 1)
            await until_held(net, s, 0, 4)  # nobody reads this end, so no pong comes back
            self.assertEqual((net.opened, net.held, len(s.connections)), (1, 0, 0))
        finally:
            await s.stop()

    async def test_refusals_close_handshakes_and_stop_close_every_socket(self):
        net, s = await started()
        try:
            try:
                await client(net, token="wrong-token")
                self.fail("a wrong token was accepted")
            except Exception as e:
                self.assertIn("401", str(e))
            _, sock = await client(net)
            await call(sock, 1)
            await sock.close()
            await until_held(net, s, 0, 1)
            self.assertEqual((net.opened, net.held), (2, 0))
            await client(net)
            await client(net)
            await until_held(net, s, 2, 1)
        finally:
            await s.stop()
        await until_held(net, s, 0, 1)
        self.assertEqual((net.opened, net.held), (4, 0))
