# The MCP server transport: ws://HOST:8765/mcp, subprotocol mcp, a token, several clients at once.
#
# Each connection is upgraded only after its token checks out (401 before the upgrade otherwise),
# then every text message goes through the shared Dispatcher. Server links are trusted: the token
# is what keeps memory_sync to its owner.

import asyncio
import time

from micropython import const

from memory import forget, mcp, ws

PORT = const(8765)
PATH = "/mcp"
SUBPROTOCOL = "mcp"
_MAX_CLIENTS = const(6)
_SOCKETS = const(10)  # ESP-IDF's default socket limit (CONFIG_LWIP_MAX_SOCKETS)
_HANDSHAKE_TIMEOUT = const(10)
_PING_INTERVAL = const(60)  # an idle client is pinged after this long and dropped after twice this


def client_budget(links):
    """How many clients the server takes at once beside `links` outbound links.

    Every socket the device may hold stays under ESP-IDF's limit: the listener, the links, the
    clients, one more connection accepted only to be refused (503), and one for NTP or DNS.
    """
    return min(_MAX_CLIENTS, _SOCKETS - 4 - links)


class Connection:
    """One upgraded client: its WebSocket and the mcp.Link its tools see."""

    def __init__(self, sock, peer):
        self.ws = sock
        self.link = mcp.Link("ws %s" % (peer,), trusted=True)
        self.ping_sent = 0  # when the keepalive pinged it, 0 once it answered

    async def send(self, text):
        await self.ws.send(text)


class Server:
    """Serves a Dispatcher over WebSocket. start() binds; broadcast() reaches every connected client."""

    def __init__(self, dispatcher, token, host="0.0.0.0", port=PORT, path=PATH, max_clients=_MAX_CLIENTS, ping_interval=_PING_INTERVAL, log=print):
        if not token or not isinstance(token, str):
            raise ValueError("token must be a non-empty string, got %r" % (token,))
        self.dispatcher = dispatcher
        self.token = token
        self.host = host
        self.port = port
        self.path = path
        self.max_clients = max_clients
        self.ping_interval = ping_interval
        self.handshake_timeout = _HANDSHAKE_TIMEOUT  # seconds a client gets to send its upgrade request
        self.log = log
        self.connections = []
        self._upgrading = 0  # handshakes between the client-count check and the 101
        self.refused = 0  # HTTP refusals (bad path, token, upgrade, too many clients)
        self._server = None
        self._watch_task = None

    async def start(self):
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        sockets = getattr(self._server, "sockets", None)  # CPython only: learn the port when 0 was asked
        if sockets:
            self.port = sockets[0].getsockname()[1]
        if self.ping_interval:
            self._watch_task = asyncio.create_task(self._watch())
        return self

    async def stop(self):
        """Stop listening and close every connection with 1001 (going away)."""
        if self._watch_task:
            self._watch_task.cancel()
            self._watch_task = None
        if self._server:
            self._server.close()
        for c in list(self.connections):
            try:
                await c.ws.close(ws.CLOSE_GOING_AWAY, "server stopping")
            except Exception:  # already gone
                pass
            c.ws.abort()
        if self._server:
            await self._server.wait_closed()
            self._server = None

    @property
    def url(self):
        return "ws://%s:%d%s" % (self.host, self.port, self.path)

    async def broadcast(self, text):
        """Send a message (a notification) to every connected client; returns how many got it."""
        sent = 0
        for c in list(self.connections):
            try:
                await c.send(text)
                sent += 1
            except Exception:  # a dead client is cleaned up by its own task
                pass
        return sent


    async def _upgrade(self, reader, writer, peer):
        # The upgrade's code (memory.gate, memory.wshttp) is loaded for the handshake only.
        from memory import gate

        forget("gate")
        forget("wshttp")
        return await gate.handshake(self, reader, writer, peer)

    async def _serve(self, reader, writer):
        conn = None
        try:
            try:
                peer = writer.get_extra_info("peername")
            except (KeyError, AttributeError):
                peer = None
            conn = await self._upgrade(reader, writer, peer)
            if conn is not None:
                await self._session(conn)
        except (ws.ConnectionClosed, EOFError, OSError):
            pass
        except Exception as e:  # one broken connection must never stop the server or the others
            self.log("mcp server: connection error: %r" % (e,))
        finally:
            if conn is not None:
                if conn in self.connections:
                    self.connections.remove(conn)
                await conn.ws.release()
                self.dispatcher.link_closed(conn.link)
            else:
                await ws.drop(writer)

    async def _session(self, conn):
        sock, link, dispatcher = conn.ws, conn.link, self.dispatcher
        while True:
            try:
                msg = mcp.message_text(await sock.recv())
            except ws.MessageTooBig as e:  # read past: answered, and the connection goes on
                await sock.send(dispatcher.too_big(e))
                continue
            reply = await dispatcher.handle_async(msg, link)
            msg = None
            if reply is not None:
                await sock.send(reply)
            # A sent answer must not stay referenced while the next message is awaited: a streamed
            # one still holds every record it was made from.
            reply = None
            # A turn for every other task after each message: reading what is already buffered never
            # waits, so a client that floods (pings, say) would otherwise keep the loop to itself.
            await asyncio.sleep(0)

    async def _watch(self):
        # Ping clients that went quiet; drop those that stay quiet (a phone that left the WiFi).
        while True:
            await asyncio.sleep(self.ping_interval / 2)
            now = time.time()
            for c in list(self.connections):
                if c.ping_sent and c.ws.last_rx >= c.ping_sent:
                    c.ping_sent = 0  # it answered (a pong or anything else)
                if now - c.ws.last_rx < self.ping_interval:
                    continue
                if not c.ping_sent:
                    c.ping_sent = now
                    try:
                        await c.ws.ping(b"xzmem")
                    except Exception:  # its own task notices the dead connection
                        pass
                elif now - c.ping_sent >= self.ping_interval:
                    c.ws.abort()
