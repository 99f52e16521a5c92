# Closing a WebSocket (memory.ws): the close handshake either way, failing on a protocol error,
# and bounded waits for a peer that stops answering.
#
# Loaded by the first connection that closes.

import asyncio
import struct

from micropython import const

from memory import ws

_CLOSE_WAIT = const(3)  # seconds to wait for the peer's half of the close handshake


async def on_close(sock, payload):
    """The peer's close frame came: answer it (once) and end the connection."""
    broken = True
    if len(payload) == 1:
        code, reason = ws.CLOSE_PROTOCOL_ERROR, "close payload of 1 byte"
    elif not payload:
        code, reason, broken = ws.CLOSE_NO_STATUS, "", False
    else:
        code = struct.unpack(">H", payload[:2])[0]
        try:
            reason = payload[2:].decode()
            broken = False
        except UnicodeError:
            code, reason = ws.CLOSE_BAD_DATA, "close reason is not UTF-8"
        if not broken and not valid_close_code(code):
            code, reason, broken = ws.CLOSE_PROTOCOL_ERROR, "invalid close code %d" % code, True
    if not sock._close_sent:
        # Echo the peer's code (1000 when it sent none); a broken close frame is answered with the error.
        try:
            if broken:
                await _send_close(sock, code, reason)
            else:
                await _send_close(sock, ws.CLOSE_NORMAL if code == ws.CLOSE_NO_STATUS else code)
        except ws.ConnectionClosed:
            pass
    sock.close_code, sock.close_reason = code, reason
    if sock.client:
        # RFC 6455 7.1.1: the server closes TCP first; give it a moment to do so.
        await _within(sock, sock.reader.readexactly(1), _CLOSE_WAIT)
    await _shutdown(sock)


async def _send_close(sock, code, reason=""):
    sock._close_sent = True
    await sock._send_frame(ws.OP_CLOSE, _close_payload(code, reason))


async def fail(sock, code, reason):
    # The peer broke the protocol: say why in a close frame and drop the connection.
    if not sock._close_sent:
        try:
            await _send_close(sock, code, reason)
        except ws.ConnectionClosed:
            pass
    sock.close_code, sock.close_reason = code, reason
    await _shutdown(sock)


async def _within(sock, coro, seconds):
    # Like asyncio.wait_for, but time running out drops the connection (so the read fails)
    # instead of cancelling a read halfway through a frame.
    timer = asyncio.create_task(_abort_after(sock, seconds))
    try:
        await coro
    except Exception:  # EOF, reset, a broken frame or the abort: the connection ends either way
        pass
    finally:
        timer.cancel()


async def _abort_after(sock, seconds):
    await asyncio.sleep(seconds)
    sock.abort()


async def _shutdown(sock):
    sock._close_sent = True
    try:
        sock.writer.close()
    except OSError:
        pass
    # CPython flushes what is buffered before the stream counts as closed: bounded, for a peer
    # that stopped reading. On MicroPython wait_closed() is what closes the socket.
    if not sock._released:
        sock._released = True
        await _within(sock, sock.writer.wait_closed(), _CLOSE_WAIT)


async def close(sock, code, reason):
    """Start the close handshake and wait for the peer's close frame (unless another task is reading)."""
    if sock.close_code is not None:
        return
    if not sock._close_sent:
        try:
            await _send_close(sock, code, reason)
        except ws.ConnectionClosed:
            return
    if sock._reading:
        return  # the task inside recv() sees the peer's close frame and finishes the handshake
    await _within(sock, _drain_until_close(sock), _CLOSE_WAIT)
    if sock.close_code is None:
        sock.close_code, sock.close_reason = code, reason
    await _shutdown(sock)


async def _drain_until_close(sock):
    while True:
        op, _, payload = await sock._read_frame()
        if op == ws.OP_CLOSE:
            await on_close(sock, payload)
            return


def _close_payload(code, reason):
    if code == ws.CLOSE_NO_STATUS:
        return b""
    return struct.pack(">H", code) + reason.encode()[:ws.MAX_CONTROL - 2]


def valid_close_code(code):
    return (1000 <= code <= 1014 and code not in (1004, 1005, 1006)) or 3000 <= code <= 4999
