# The WebSocket client: parse a ws:// or wss:// URL, connect and upgrade (the outbound links' side).
#
# Apart from memory.ws so that a device without outbound links never loads it. Host names are
# resolved once and the address reused: socket.getaddrinfo blocks MicroPython's whole event loop
# (asyncio.open_connection calls it, and it answers an IP address at once), so the device resolves
# its links' hosts at boot, before its tasks start (app.main), and again only after a connection
# to the known address failed.

import asyncio
import binascii

from memory import ws, wshttp

_addresses = {}  # host name -> the IP address it resolved to


def resolve(host, port):
    """The IP address for `host` (asked once, then remembered); OSError when DNS has no answer."""
    address = _addresses.get(host)
    if address is None:
        try:
            import socket
        except ImportError:  # a port without sockets (the test port): open_connection gets the name
            return host
        address = socket.getaddrinfo(host, port)[0][-1][0]
        _addresses[host] = address
    return address


def resolve_url(url):
    """resolve() the host of a ws:// or wss:// URL; a failure is left for the first connect to report."""
    _, host, port, _ = parse_url(url)
    try:
        resolve(host, port)
    except OSError:
        pass


def parse_url(url):
    """'ws://host:port/path?q' -> (secure, host, port, '/path?q'); ValueError for anything else."""
    if url.startswith("ws://"):
        secure, rest = False, url[5:]
    elif url.startswith("wss://"):
        secure, rest = True, url[6:]
    else:
        raise ValueError("url must start with ws:// or wss://, got %r" % url[:40])
    i = min([j for j in (rest.find("/"), rest.find("?")) if j >= 0] or [len(rest)])
    hostport, target = rest[:i], rest[i:]
    if not target.startswith("/"):
        target = "/" + target
    port = 443 if secure else 80
    if hostport.startswith("["):
        end = hostport.find("]")
        host, tail = hostport[1:end], hostport[end + 1 :]
        if tail.startswith(":"):
            port = _port(tail[1:], url)
    elif ":" in hostport:
        host, p = hostport.rsplit(":", 1)
        port = _port(p, url)
    else:
        host = hostport
    if not host:
        raise ValueError("url has no host: %r" % url[:40])
    return secure, host, port, target


def _port(text, url):
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise ValueError("url port must be 1-65535: %r" % url[:40])
    return port


async def connect(url, headers=None, subprotocols=(), ssl=None, max_size=ws.MAX_MESSAGE):
    """Open a client WebSocket to a ws:// or wss:// URL.

    `headers` is a list of (name, value) pairs sent with the upgrade (Authorization, Device-Id...).
    `ssl` goes to asyncio.open_connection (True for the platform's default context); wss:// without
    it uses True. ws.HandshakeError when the server answers anything but a valid 101.
    """
    secure, host, port, target = parse_url(url)
    if secure and ssl is None:
        ssl = True
    address = resolve(host, port)
    try:
        if secure:  # the certificate and SNI are checked against the name, not the address
            reader, writer = await asyncio.open_connection(address, port, ssl=ssl, server_hostname=host)
        else:
            reader, writer = await asyncio.open_connection(address, port)
    except OSError:
        _addresses.pop(host, None)  # the server may have moved: ask DNS again next time
        raise
    try:
        return await handshake(reader, writer, host, port, target, headers, subprotocols, max_size)
    except BaseException:
        await ws.drop(writer)
        raise


async def handshake(reader, writer, host, port, target, headers=None, subprotocols=(), max_size=ws.MAX_MESSAGE):
    """The client half of the upgrade on an open stream; returns the WebSocket."""
    key = binascii.b2a_base64(ws.random_bytes(16))[:-1].decode()
    head = "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n" % (
        target,
        host,
        port,
        key,
    )
    if subprotocols:
        head += "Sec-WebSocket-Protocol: %s\r\n" % ", ".join(subprotocols)
    for name, value in headers or ():
        head += "%s: %s\r\n" % (name, value)
    writer.write(head.encode() + b"\r\n")
    await writer.drain()
    try:
        status_line = await wshttp.read_line(reader)
        parts = status_line.split(" ", 2)
        status = int(parts[1])
    except (ValueError, IndexError, EOFError):
        raise ws.HandshakeError(502, "no HTTP response to the upgrade")
    h = await wshttp.read_headers(reader)
    if status != 101:
        raise ws.HandshakeError(status, "server refused the upgrade" + await wshttp.refusal_body(reader, h))
    if h.get("sec-websocket-accept") != ws.accept_key(key):
        raise ws.HandshakeError(502, "wrong Sec-WebSocket-Accept")
    if not wshttp.has_token(h.get("upgrade", ""), "websocket") or not wshttp.has_token(h.get("connection", ""), "upgrade"):
        raise ws.HandshakeError(502, "server did not upgrade to websocket")
    chosen = h.get("sec-websocket-protocol")
    if chosen is not None and chosen not in subprotocols:
        raise ws.HandshakeError(502, "server chose a subprotocol we did not offer: %s" % chosen[:40])
    return ws.WebSocket(reader, writer, True, chosen, max_size)
