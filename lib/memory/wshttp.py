# The HTTP side of a WebSocket: the upgrade request and its answer (server), header lines (both roles).
#
# Needed only while a connection is being set up: the server loads it for each upgrade and unloads
# it after (memory.server), so an open connection costs only memory.ws.

import binascii

from micropython import const

from memory import ws

_MAX_HEADERS = const(48)
_MAX_LINE = const(4096)
_MAX_REFUSAL = const(512)  # bytes of a refused upgrade's body that are read and reported
_HEX = "0123456789abcdefABCDEF"
_REASONS = {
    101: "Switching Protocols",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    426: "Upgrade Required",
    500: "Internal Server Error",
    503: "Service Unavailable",
}

class Request:
    """The HTTP upgrade request a client sent: method, path, query (dict), headers (lower-case names)."""

    def __init__(self, method, target, headers):
        self.method = method
        self.target = target
        path, _, query = target.partition("?")
        self.path = path
        self.query = parse_query(query)
        self.headers = headers

    def subprotocols(self):
        value = self.headers.get("sec-websocket-protocol", "")
        return [p.strip() for p in value.split(",") if p.strip()]


def unquote(text):
    """Percent-decode a URL component ('+' is a space), as UTF-8."""
    if "%" not in text and "+" not in text:
        return text
    raw = text.replace("+", " ").encode()
    out = bytearray()
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == 0x25 and i + 2 < n and chr(raw[i + 1]) in _HEX and chr(raw[i + 2]) in _HEX:
            out.append(int(raw[i + 1 : i + 3].decode(), 16))
            i += 3
            continue
        out.append(c)
        i += 1
    try:
        return bytes(out).decode()
    except UnicodeError:
        raise ValueError("query is not UTF-8 after percent-decoding")


def parse_query(query):
    """'a=1&b=x%20y' -> {'a': '1', 'b': 'x y'}; the first value of a repeated name wins."""
    out = {}
    for part in query.split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        name = unquote(name)
        if name not in out:
            out[name] = unquote(value)
    return out


async def read_line(reader):
    line = await reader.readline()
    if not line:
        raise EOFError
    if len(line) > _MAX_LINE or not line.endswith(b"\n"):
        raise ws.HandshakeError(400, "header line too long or cut")
    try:
        return line.decode().rstrip("\r\n")
    except UnicodeError:
        raise ws.HandshakeError(400, "header is not UTF-8")


async def refusal_body(reader, headers):
    # The server's own words for a refused upgrade (its response body), when it gave a length.
    try:
        n = int(headers.get("content-length", "0"))
        if not 0 < n <= _MAX_REFUSAL:
            return ""
        body = (await reader.readexactly(n)).decode().strip()
    except (ValueError, EOFError, OSError):  # UnicodeError is a ValueError
        return ""
    return ": " + body if body else ""


async def read_headers(reader):
    headers = {}
    for _ in range(_MAX_HEADERS + 1):
        line = await read_line(reader)
        if not line:
            return headers
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise ws.HandshakeError(400, "malformed header line %r" % line[:40])
        name = name.lower()
        value = value.strip()
        headers[name] = headers[name] + ", " + value if name in headers else value
    raise ws.HandshakeError(400, "more than %d header lines" % _MAX_HEADERS)


async def read_request(reader):
    """Read the client's HTTP request head; ws.HandshakeError(400) when it is not HTTP/1.1."""
    try:
        method, target, version = (await read_line(reader)).split(" ")
    except ValueError:
        raise ws.HandshakeError(400, "malformed request line")
    if version != "HTTP/1.1" or not target.startswith("/"):
        raise ws.HandshakeError(400, "not an HTTP/1.1 request")
    try:
        return Request(method, target, await read_headers(reader))
    except ValueError as e:
        raise ws.HandshakeError(400, str(e))


def has_token(value, token):
    return token in [p.strip().lower() for p in value.split(",")]


async def respond(writer, status, body="", headers=None):
    """Answer a plain HTTP error (before any upgrade) and close the connection."""
    body = body.encode()
    head = "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n" % (
        status,
        _REASONS.get(status, "Error"),
        len(body),
    )
    for name, value in headers or ():
        head += "%s: %s\r\n" % (name, value)
    try:
        writer.write(head.encode() + b"\r\n" + body)
        await writer.drain()
    except OSError:
        pass
    try:
        writer.close()
        await writer.wait_closed()
    except Exception:  # the client may already be gone
        pass


async def accept(reader, writer, request, subprotocols=(), max_size=ws.MAX_MESSAGE):
    """Complete the server side of the upgrade (101) and return the WebSocket.

    The first of our `subprotocols` that the client offered is chosen; none is chosen when the
    client offered none of them. ws.HandshakeError(400 or 426) when the request is not a valid upgrade;
    the caller answers it with respond().
    """
    h = request.headers
    if request.method != "GET":
        raise ws.HandshakeError(400, "WebSocket upgrade must be GET, got %s" % request.method[:16])
    if not has_token(h.get("upgrade", ""), "websocket") or not has_token(h.get("connection", ""), "upgrade"):
        raise ws.HandshakeError(426, "expected a WebSocket upgrade")
    if h.get("sec-websocket-version") != "13":
        raise ws.HandshakeError(426, "Sec-WebSocket-Version must be 13")
    key = h.get("sec-websocket-key", "")
    try:
        valid_key = len(binascii.a2b_base64(key.encode())) == 16
    except Exception:  # ValueError from C binascii, a bare Exception from the pure-Python one
        valid_key = False
    if not valid_key:
        raise ws.HandshakeError(400, "Sec-WebSocket-Key must be 16 bytes in base64")
    offered = request.subprotocols()
    chosen = None
    for p in subprotocols:
        if p in offered:
            chosen = p
            break
    head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n" % ws.accept_key(key)
    if chosen:
        head += "Sec-WebSocket-Protocol: %s\r\n" % chosen
    writer.write(head.encode() + b"\r\n")
    await writer.drain()
    return ws.WebSocket(reader, writer, False, chosen, max_size)
