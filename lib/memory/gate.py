# A new connection to the MCP server (memory.server): the upgrade request read, its path and token
# checked, then the 101 answer or a refusal. Loaded for each handshake, with memory.wshttp.

import asyncio

from memory import server as server_mod
from memory import ws, wshttp


async def _refuse(server, writer, status, body, headers=None):
    server.refused += 1
    await wshttp.respond(writer, status, body, headers)


async def handshake(server, reader, writer, peer):
    """The upgrade of a new connection to `server`: its Connection, or None when it was refused."""
    # A client that never finishes its request is cut off: closing the stream ends the read.
    timer = asyncio.create_task(_close_after(writer, server.handshake_timeout))
    try:
        request = await wshttp.read_request(reader)
    except ws.HandshakeError as e:
        await _refuse(server, writer, e.status, e.message)
        return None
    finally:
        timer.cancel()
    if request.path != server.path:
        await _refuse(server, writer, 404, "no WebSocket endpoint at this path; use %s" % server.path)
        return None
    token = request_token(request)
    if token is None or not same_secret(token, server.token):
        await _refuse(server, writer, 401, "missing or wrong token", [("WWW-Authenticate", "Bearer")])
        return None
    if len(server.connections) + server._upgrading >= server.max_clients:
        await _refuse(server, writer, 503, "too many clients (%d)" % server.max_clients)
        return None
    server._upgrading += 1
    try:
        conn = server_mod.Connection(await wshttp.accept(reader, writer, request, (server_mod.SUBPROTOCOL,)), peer)
    except ws.HandshakeError as e:
        await _refuse(server, writer, e.status, e.message)
        return None
    finally:
        server._upgrading -= 1
    server.connections.append(conn)
    return conn


def same_secret(given, expected):
    """Compare two secrets in time that depends only on the expected one's length."""
    a = given.encode() if isinstance(given, str) else given
    b = expected.encode()
    diff = len(a) ^ len(b)
    n = len(a)
    for i in range(len(b)):
        diff |= (a[i % n] if n else 0) ^ b[i]
    return diff == 0


def request_token(request):
    """The token a request carries: Authorization: Bearer T, else ?token=T; None without one."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.query.get("token")


async def _close_after(writer, seconds):
    await asyncio.sleep(seconds)
    await ws.drop(writer)
