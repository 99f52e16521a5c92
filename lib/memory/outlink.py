# Outbound links: connect to a server, serve until the link dies, wait out a backoff, connect again.
#
# EndpointLink and XiaozhiLink fill in what is said on the socket (session) and how a reminder is
# worded (reminder_message); the connecting, the idle watchdog, the backoff and the reminder sink
# live here once.

import asyncio
import time

from micropython import const

from memory import mcp, ws, wsclient

FIRST_DELAY = const(1)  # seconds before the first reconnect
MAX_DELAY = const(600)  # the delay doubles up to this
IDLE_TIMEOUT = const(120)  # no frame for this long: the link is dead
_CONNECT_TIMEOUT = const(20)
# errno values (the same on MicroPython's ports and Linux) of the failures a link meets most
_NET_ERRORS = {104: "connection reset", 110: "timed out", 111: "connection refused", 113: "no route to host"}


class Backoff:
    """Reconnect delays: `first` seconds, doubling up to `limit`; reset() after a healthy connection."""

    def __init__(self, first=FIRST_DELAY, limit=MAX_DELAY):
        if first <= 0 or limit < first:
            raise ValueError("backoff needs 0 < first <= limit, got %r and %r" % (first, limit))
        self.first = first
        self.limit = limit
        self.delay = first

    def next(self):
        """The delay to wait now; the one after it doubles."""
        d = self.delay
        self.delay = d * 2 if d * 2 < self.limit else self.limit
        return d

    def reset(self):
        self.delay = self.first


def link_error(e):
    """A link's failure in words: a socket error is the network's (memory.mcp would call an
    OSError a storage failure)."""
    if isinstance(e, asyncio.TimeoutError):
        return "network error: timed out"
    if isinstance(e, OSError):
        code = e.args[0] if e.args else None
        if isinstance(code, int):
            return "network error: %s (errno %d)" % (_NET_ERRORS.get(abs(code), "socket error"), code)
        return "network error: %s" % (code or type(e).__name__)
    # For the device's own log, so the exception's words stay (a tool's answer would hide them).
    return str(e) or type(e).__name__


def redact(url):
    """The URL without its query, so that logs and link names never show a token."""
    return url.split("?", 1)[0]


class OutboundLink:
    """Keeps one outbound WebSocket alive; subclasses speak the protocol in session()."""

    kind = "link"
    subprotocols = ()

    def __init__(self, url, dispatcher, announcer=None, trusted=False, backoff=None, sleep=None, idle_timeout=IDLE_TIMEOUT, ssl=None, log=print):
        wsclient.parse_url(url)  # ValueError now, not at the first connect
        self.url = url
        self.dispatcher = dispatcher
        self.announcer = announcer
        self.link = mcp.Link("%s %s" % (self.kind, redact(url)), trusted)
        self.link.voice = not trusted
        self.backoff = backoff or Backoff()
        self.sleep = sleep or asyncio.sleep  # tests inject one that records the delays
        self.idle_timeout = idle_timeout
        self.connect_timeout = _CONNECT_TIMEOUT
        self.ssl = ssl  # None: wss:// uses the platform's default context
        self.log = log
        self.sock = None
        self.healthy = False  # the current connection did real work (see subclasses)
        self.connects = 0  # upgrades that succeeded
        self.failures = 0  # connections that failed or ended
        self._sends = []
        # One bound method, made once: the announcer finds it again by identity on every port.
        self.sink = self._deliver

    def headers(self):
        return ()

    async def run(self):
        """Connect, serve, reconnect with backoff: forever (cancel the task to stop)."""
        while True:
            self.healthy = False
            try:
                await self.run_once()
            except Exception as e:  # refused, reset, timed out, garbage: all end in a reconnect
                self.log("%s: %s" % (self.link.name, link_error(e)))
            self.failures += 1
            if self.healthy:
                self.backoff.reset()
            delay = self.backoff.next()
            self.log("%s: reconnecting in %d s" % (self.link.name, delay))
            await self.sleep(delay)

    async def run_once(self):
        """One connection, from the upgrade until it ends."""
        sock = await asyncio.wait_for(wsclient.connect(self.url, self.headers(), self.subprotocols, self.ssl), self.connect_timeout)
        self.sock = sock
        self.connects += 1
        self.log("%s: connected" % self.link.name)
        watchdog = asyncio.create_task(self._watch(sock))
        try:
            await self.session(sock)
        except ws.ConnectionClosed as e:  # the server's close code and reason say why, e.g. a refused token
            self.log("%s: %s" % (self.link.name, e))
        finally:
            watchdog.cancel()
            self.sock = None
            if self.announcer:
                self.announcer.remove(self.sink)
            await sock.release()
            self.dispatcher.link_closed(self.link)

    async def session(self, sock):
        raise NotImplementedError

    def attach_reminders(self):
        """From now on reminders go out on this connection (held ones first)."""
        if self.announcer:
            self.announcer.remove(self.sink)
            # Only the host gateway (a trusted link) is known to show reminders to someone; a relay
            # or voice server may drop them, so those stay untold for the next read.
            self.announcer.add(self.sink, self.link.trusted)

    def reminder_message(self, item):
        raise NotImplementedError

    def _deliver(self, item):
        sock = self.sock
        if sock is None or sock.closed:
            raise OSError("%s is down" % self.link.name)  # the announcer keeps the reminder for later
        self._sends = [t for t in self._sends if not t.done()]
        self._sends.append(asyncio.create_task(self._send_quietly(sock, self.reminder_message(item))))

    async def _send_quietly(self, sock, text):
        try:
            await sock.send(text)
        except ws.ConnectionClosed:
            pass  # the session task sees the same dead socket and reconnects

    async def _watch(self, sock):
        # A server that says nothing for half the idle time is pinged (a live one answers with a
        # pong, which counts as a frame); one that stays quiet past the idle time is dropped.
        step = self.idle_timeout / 4
        while not sock.closed:
            await asyncio.sleep(step)
            quiet = time.time() - sock.last_rx
            if quiet >= self.idle_timeout:
                self.log("%s: no frame for %d s, reconnecting" % (self.link.name, quiet))
                sock.abort()
                return
            if quiet >= self.idle_timeout / 2:
                try:
                    await sock.ping(b"xzmem")
                except ws.ConnectionClosed:
                    return
