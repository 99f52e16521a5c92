# In-memory TCP connections shaped like MicroPython's asyncio streams, for running the device's
# server where there is no network (the WebAssembly port) and counting the sockets it leaves open.
#
# As MicroPython's asyncio.Stream: close() does nothing, wait_closed() closes the socket, and
# there is no transport. A read waiting on a socket that gets closed wakes with OSError (EBADF),
# as on the ESP32, whose poll reports a closed lwIP socket.

import asyncio

_EBADF = 9
_ECONNRESET = 104


class Socket:
    """One end of a connection. `net` counts the device's ends that opened and really closed."""

    def __init__(self, net, counted):
        self.net = net
        self.counted = counted
        self.peer = None
        self.inbox = bytearray()
        self.pos = 0
        self.open = True
        self.eof = False  # the peer closed: reads end once the inbox is read
        self.changed = asyncio.Event()
        if counted:
            net.opened += 1

    def close(self):
        if not self.open:
            return
        self.open = False
        if self.counted:
            self.net.closed += 1
        self.inbox = bytearray()
        self.changed.set()
        peer = self.peer
        if peer is not None:
            peer.eof = True
            peer.changed.set()

    def write(self, data):
        if not self.open:
            raise OSError(_EBADF)
        peer = self.peer
        if peer is None or not peer.open:
            raise OSError(_ECONNRESET)
        peer.inbox += data
        peer.changed.set()
        return len(data)

    async def read(self, n):
        """Up to n bytes once some are there; b"" once the peer closed and all was read."""
        while True:
            if not self.open:
                raise OSError(_EBADF)
            left = len(self.inbox) - self.pos
            if left:
                m = n if n < left else left
                data = bytes(self.inbox[self.pos : self.pos + m])
                self.pos += m
                if self.pos == len(self.inbox):
                    self.inbox = bytearray()
                    self.pos = 0
                return data
            if self.eof:
                return b""
            self.changed.clear()
            await self.changed.wait()

    async def readline(self):
        while True:
            if not self.open:
                raise OSError(_EBADF)
            end = self.inbox.find(b"\n", self.pos)
            if end >= 0 or self.eof:
                end = len(self.inbox) if end < 0 else end + 1
                data = bytes(self.inbox[self.pos : end])
                self.pos = end
                return data
            self.changed.clear()
            await self.changed.wait()


class Stream:
    """MicroPython's asyncio.Stream over a Socket: reader and writer in one."""

    def __init__(self, sock, peername=("127.0.0.1", 40000)):
        self.s = sock
        self.e = {"peername": peername}

    def get_extra_info(self, name):
        return self.e[name]

    def close(self):
        pass

    async def wait_closed(self):
        self.s.close()

    async def readexactly(self, n):
        r = b""
        while n:
            chunk = await self.s.read(n)
            if not chunk:
                raise EOFError
            r += chunk
            n -= len(chunk)
        return r

    async def readline(self):
        return await self.s.readline()

    def write(self, data):
        self.s.write(data)

    async def drain(self):
        await asyncio.sleep(0)


class _Listener:
    def __init__(self, net):
        self.net = net

    def close(self):
        self.net.accept = None

    async def wait_closed(self):
        pass


class Network:
    """Stands in for asyncio.start_server: `connect()` opens a connection to the listening device.

    `opened - closed` is how many sockets the device holds; only the device's ends count.
    """

    def __init__(self):
        self.opened = 0
        self.closed = 0
        self.accept = None
        self.tasks = []

    @property
    def held(self):
        return self.opened - self.closed

    def install(self):
        asyncio.start_server = self.start_server

    async def start_server(self, callback, host, port, backlog=5):
        self.accept = callback
        return _Listener(self)

    def connect(self):
        """A client's Stream on a new connection; the device's side is served by its own task."""
        if self.accept is None:
            raise OSError(111)  # ECONNREFUSED
        device, client = Socket(self, True), Socket(self, False)
        device.peer, client.peer = client, device
        self.tasks = [t for t in self.tasks if not t.done()]
        theirs = Stream(device)
        self.tasks.append(asyncio.create_task(self.accept(theirs, theirs)))
        return Stream(client)
