# WebSocket (RFC 6455) over asyncio streams: frames, messages, close (the HTTP upgrade is memory.wshttp).
#
# Works with CPython's StreamReader/StreamWriter and MicroPython's asyncio Stream (where reader and
# writer are one object). Only readexactly, readline, write, drain, close and wait_closed are used.

import asyncio
import binascii
import struct
import sys
import time

from micropython import const

try:
    from hashlib import sha1 as _sha1
except ImportError:  # ports built without SHA-1 (the WebAssembly test port); tests plug one in
    _sha1 = None

try:
    from os import urandom as random_bytes
except ImportError:
    import random

    def random_bytes(n):
        return bytes(random.getrandbits(8) for _ in range(n))


OP_CONT = const(0)
OP_TEXT = const(1)
OP_BINARY = const(2)
OP_CLOSE = const(8)
OP_PING = const(9)
OP_PONG = const(10)

CLOSE_NORMAL = const(1000)
CLOSE_GOING_AWAY = const(1001)
CLOSE_PROTOCOL_ERROR = const(1002)
CLOSE_UNSUPPORTED = const(1003)
CLOSE_NO_STATUS = const(1005)
CLOSE_ABNORMAL = const(1006)
CLOSE_BAD_DATA = const(1007)
CLOSE_TOO_BIG = const(1009)
CLOSE_INTERNAL_ERROR = const(1011)

MAX_MESSAGE = const(4096)  # bytes of one message: the size of the shared receive buffer
SKIP_MAX = const(262144)  # bytes of an oversized message read past (and answered) rather than closed on
_HEAD = const(96)  # bytes kept of each end of a skipped message: enough to find its JSON-RPC id
STREAM_FRAME = const(1024)  # bytes per frame of a message sent as pieces
MAX_CONTROL = const(125)
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_MAX_HEAD = const(14)  # bytes of the longest frame header: 2 + 8 (length) + 4 (masking key)
# MicroPython's Stream.write copies what the socket does not take at once, so one buffer serves
# every frame of every connection; CPython's transport may keep a reference to what it was given.
_WRITE_KEEPS = sys.implementation.name != "micropython"
_TX = bytearray(_MAX_HEAD + STREAM_FRAME)  # the frame being written: header, then the payload
_RX = bytearray(STREAM_FRAME)  # a received data frame, unmasked, until it is decoded
# A message longer than one STREAM_FRAME frame, or sent in fragments, is read into _MSG, the one
# buffer every connection shares, so that no message costs a block of its size on a heap that may
# have none left. The connection reading into it owns it (_msg_owner) until recv() returns.
_MSG = bytearray(MAX_MESSAGE)
# A message sent as pieces is gathered here into frames; shared too, since each frame leaves it (into
# _TX, then the socket) before the await that lets another connection use it.
_PIECES = bytearray(STREAM_FRAME)
_msg_owner = None
_CHECK = const(256)  # bytes of a long text message checked as UTF-8 at once
_READ = const(1008)  # bytes per read into _MSG: with its header and terminator, a 1 KB block
_WAIT = 0.01  # seconds between looks at whether _MSG is free


def _mask_plain(dst, src, n, key):
    # One byte at a time into a buffer that exists already: slow, but it allocates nothing.
    for i in range(n):
        dst[i] = src[i] ^ key[i & 3]


try:
    from memory.wsmask import mask_into  # machine code where the port has the viper emitter
except Exception:  # ImportError on CPython, SyntaxError on ports without a native emitter
    mask_into = _mask_plain

class WebSocketError(Exception):
    pass


class HandshakeError(WebSocketError):
    """The HTTP upgrade failed; `status` is the HTTP status to answer (server) or that came back (client)."""

    def __init__(self, status, message):
        super().__init__("%d %s" % (status, message))
        self.status = status
        self.message = message


class ConnectionClosed(WebSocketError):
    """The connection is closed: `code` is the close code (1006 when the TCP stream just ended)."""

    def __init__(self, code, reason=""):
        super().__init__("connection closed: %d %s" % (code, reason))
        self.code = code
        self.reason = reason


class MessageTooBig(WebSocketError):
    """recv() read past a message of `size` bytes, over `limit`; `head` holds its first bytes.

    The connection is still open: the caller answers (e.g. with a JSON-RPC error) and reads on.
    """

    def __init__(self, size, limit, head, tail=b""):
        super().__init__("message of %d bytes, over the %d-byte limit" % (size, limit))
        self.size = size
        self.limit = limit
        self.head = head
        self.tail = tail  # its last bytes (the official MCP SDK writes "id" last)


class _Fail(Exception):
    # Raised inside frame reading when the peer broke the protocol; recv() turns it into a close.
    def __init__(self, code, reason):
        super().__init__(reason)
        self.code = code
        self.reason = reason


def accept_key(key):
    """Sec-WebSocket-Accept for a Sec-WebSocket-Key (both ASCII bytes or str)."""
    if isinstance(key, str):
        key = key.encode()
    return binascii.b2a_base64(_sha1(key + _GUID).digest())[:-1].decode()


def mask(data, key):
    """`data` XOR the 4-byte masking `key` (RFC 6455 5.3) as a new bytearray; masking twice gives `data` back."""
    out = bytearray(len(data))
    mask_into(out, data, len(data), key)
    return out


def frame_header(op, length, fin=True, mask_key=None):
    """The header bytes of one frame (mask key included when given)."""
    b0 = (0x80 if fin else 0) | op
    m = 0x80 if mask_key else 0
    if length < 126:
        h = struct.pack(">BB", b0, m | length)
    elif length < 65536:
        h = struct.pack(">BBH", b0, m | 126, length)
    else:
        h = struct.pack(">BBQ", b0, m | 127, length)
    return h + mask_key if mask_key else h


def _header_into(op, length, fin, key):
    # frame_header() written into _TX; returns its length.
    b0 = (0x80 if fin else 0) | op
    m = 0x80 if key else 0
    if length < 126:
        struct.pack_into(">BB", _TX, 0, b0, m | length)
        h = 2
    elif length < 65536:
        struct.pack_into(">BBH", _TX, 0, b0, m | 126, length)
        h = 4
    else:
        struct.pack_into(">BBQ", _TX, 0, b0, m | 127, length)
        h = 10
    if key:
        _TX[h : h + 4] = key
        h += 4
    return h


def _payload_into(at, payload, start, n, key):
    # payload[start:start + n] into _TX at `at`, masked when a key is given; returns _TX.
    src = memoryview(payload)[start : start + n] if start or n < len(payload) else payload
    if key:
        mask_into(memoryview(_TX)[at:], src, n, key)
    else:
        memoryview(_TX)[at : at + n] = src
    return _TX


def _tx_view(buf, n):
    view = memoryview(buf)[:n]
    return bytes(view) if _WRITE_KEEPS else view


def encode_frame(op, payload, fin=True, mask_key=None):
    """A whole frame as bytes: header, then the payload, masked when `mask_key` is given."""
    if mask_key:
        payload = mask(payload, mask_key)
    return frame_header(op, len(payload), fin, mask_key) + payload


def char_start(buf, n):
    """Where buf[:n] may be cut without splitting a UTF-8 character: n, or where its last character starts."""
    i = n - 1
    while i > 0 and n - i < 4 and buf[i] & 0xC0 == 0x80:
        i -= 1  # back over continuation bytes to the lead byte
    lead = buf[i]
    if lead < 0xC0 or i == 0:
        return n  # ASCII (complete), or no cut point to go back to
    need = 4 if lead >= 0xF0 else 3 if lead >= 0xE0 else 2
    return i if n - i < need else n


class WebSocket:
    """One open WebSocket connection. The client role masks what it sends; the server role expects masks."""

    def __init__(self, reader, writer, client, subprotocol=None, max_size=MAX_MESSAGE):
        self.reader = reader
        self.writer = writer
        self.client = client
        self.subprotocol = subprotocol
        self.max_size = max_size if max_size < MAX_MESSAGE else MAX_MESSAGE  # what _MSG holds
        self.close_code = None  # set once the connection is closed
        self.close_reason = ""
        self.last_rx = time.time()  # when the peer last sent a frame (keepalive looks at this)
        self.last_pong = None
        self._close_sent = False
        self._released = False  # its socket is closed, or closing (release(), abort())
        self._reading = False
        self._skipped_head = b""
        self._skipped_tail = b""
        self._lock = asyncio.Lock()

    @property
    def closed(self):
        return self.close_code is not None

    async def send(self, data, frame_size=0):
        """Send a message: text (str), binary (bytes), or text given as an iterator of str pieces.

        A str or bytes message is split into frames of `frame_size` bytes if > 0. Pieces go out as
        they come, gathered into frames of `frame_size` bytes (STREAM_FRAME when 0), so the whole
        message is never built. If the iterator fails once frames are out, the connection is closed
        with 1011 (a cut message cannot be taken back) and ConnectionClosed is raised.
        """
        if self.close_code is not None or self._close_sent:
            raise ConnectionClosed(self.close_code or CLOSE_ABNORMAL, "send after close")
        if isinstance(data, str):
            op, data = OP_TEXT, data.encode()
        elif isinstance(data, (bytes, bytearray, memoryview)):
            op, data = OP_BINARY, bytes(data)
        else:
            await self._send_pieces(data, frame_size if frame_size > 0 else STREAM_FRAME)
            return
        n = len(data)
        async with self._lock:  # held for the whole message: another task's frame cannot land inside it
            if frame_size <= 0 or n <= frame_size:
                await self._write_frame(op, data)
                return
            view = memoryview(data)
            for start in range(0, n, frame_size):
                await self._write_frame(op if start == 0 else OP_CONT, view[start : start + frame_size], start + frame_size >= n)

    async def _send_pieces(self, pieces, size):
        buf = _PIECES if size == STREAM_FRAME else bytearray(size)
        view = memoryview(buf)
        n = 0  # bytes waiting in buf
        op = OP_TEXT
        failure = None
        async with self._lock:
            try:
                for piece in pieces:
                    data = piece.encode()
                    i, left = 0, len(data)
                    while left:
                        if n == size:
                            # Full: send up to the last whole character, so every frame is valid UTF-8
                            # on its own (for peers that decode frame by frame); the rest moves up.
                            cut = char_start(buf, n)
                            rest = bytes(view[cut:n])  # at most 3 bytes; buf may serve others meanwhile
                            await self._write_frame(op, view[:cut], False)
                            op = OP_CONT
                            n -= cut
                            buf[:n] = rest
                        m = size - n if size - n < left else left
                        view[n : n + m] = memoryview(data)[i : i + m]
                        n += m
                        i += m
                        left -= m
            except ConnectionClosed:
                raise
            except Exception as e:  # a bug in the producer: recorded, handled outside the lock
                failure = e
            if failure is None:
                await self._write_frame(op, view[:n])
                return
        if op == OP_TEXT:
            raise failure  # nothing went out: the connection is as it was
        await self._fail(CLOSE_INTERNAL_ERROR, "message cut off")
        raise ConnectionClosed(CLOSE_INTERNAL_ERROR, "message cut off: %r" % (failure,))

    async def ping(self, data=b""):
        await self._send_frame(OP_PING, data[:MAX_CONTROL])

    async def _send_frame(self, op, payload, fin=True):
        # The lock keeps frames of two tasks whole, and whole messages apart.
        async with self._lock:
            await self._write_frame(op, payload, fin)

    async def _write_frame(self, op, payload, fin=True):
        # Only with self._lock held. A frame up to STREAM_FRAME is built in _TX (header, then the
        # payload, masked on the way in) and goes out in one write: one TCP segment, no garbage. A
        # bigger payload follows its header through _TX in STREAM_FRAME pieces; the piece size is a
        # multiple of 4, so every piece starts at the key's first byte.
        n = len(payload)
        key = random_bytes(4) if self.client else None
        try:
            h = _header_into(op, n, fin, key)
            if n <= STREAM_FRAME:
                self.writer.write(_tx_view(_payload_into(h, payload, 0, n, key), h + n))
            else:
                self.writer.write(_tx_view(_TX, h))
                for i in range(0, n, STREAM_FRAME):
                    m = n - i if n - i < STREAM_FRAME else STREAM_FRAME
                    self.writer.write(_tx_view(_payload_into(0, payload, i, m, key), m))
            await self.writer.drain()
        except OSError as e:
            self._lost()
            raise ConnectionClosed(CLOSE_ABNORMAL, "write failed: %s" % e)

    async def recv(self):
        """The next message: str for text, bytes for binary. Answers pings; raises ConnectionClosed at the end.

        A text message over STREAM_FRAME bytes comes as a memoryview of its UTF-8 in the shared
        receive buffer instead of a str: read it before the next await, which may hand the buffer
        to another connection.
        """
        global _msg_owner
        if self.close_code is not None:
            raise ConnectionClosed(self.close_code, self.close_reason)
        self._reading = True
        try:
            return await self._recv_message()
        except _Fail as e:
            await self._fail(e.code, e.reason)
        except (EOFError, OSError):
            self._lost()
        finally:
            self._reading = False
            if _msg_owner is self:
                _msg_owner = None
        raise ConnectionClosed(self.close_code, self.close_reason)

    async def _recv_message(self):
        size = 0  # bytes of the message so far, in _MSG once it is kept there
        first_op = OP_TEXT
        started = False  # a fragmented message is in progress
        head = None  # set once the message went over max_size: it is read past, not kept
        tail = b""
        while True:
            op, fin, payload = await self._read_frame(self.max_size - size if head is None else 0, size, started)
            if op == OP_PING:
                if not self._close_sent:
                    await self._send_frame(OP_PONG, payload)
                continue
            if op == OP_PONG:
                self.last_pong = payload
                continue
            if op == OP_CLOSE:
                await self._on_close(payload)
                raise ConnectionClosed(self.close_code, self.close_reason)
            if op == OP_CONT:
                if not started:
                    raise _Fail(CLOSE_PROTOCOL_ERROR, "continuation frame with no message")
            elif started:
                raise _Fail(CLOSE_PROTOCOL_ERROR, "new message inside a fragmented one")
            else:
                first_op = op
                if fin and not isinstance(payload, int):
                    return self._message(op, payload)
                started = True
            if isinstance(payload, int):  # a frame read past: its length
                if head is None:
                    # The bytes kept so far are the message's start; the skipped frame's follow them.
                    kept = size if size < _HEAD else _HEAD
                    head = (bytes(memoryview(_MSG)[:kept]) + self._skipped_head)[:_HEAD]
                size += payload
                tail = (tail + self._skipped_tail)[-_HEAD:]
            else:
                size += len(payload)
            if size > SKIP_MAX:
                raise _Fail(CLOSE_TOO_BIG, "message over %d bytes" % SKIP_MAX)
            if fin:
                if head is not None:
                    raise MessageTooBig(size, self.max_size, bytes(head), bytes(tail))
                return self._message(first_op, memoryview(_MSG)[:size])

    def _message(self, op, payload):
        if op == OP_BINARY:
            return bytes(payload)
        n = len(payload)
        try:
            if n <= STREAM_FRAME:
                return str(payload, "utf-8")
            # Checked a piece at a time, each cut where a character starts: no copy of the whole.
            i = 0
            while i < n:
                j = n if n - i <= _CHECK else i + char_start(payload[i : i + _CHECK], _CHECK)
                str(payload[i:j], "utf-8")
                i = j
        except UnicodeError:
            raise _Fail(CLOSE_BAD_DATA, "text message is not UTF-8")
        return payload

    async def _read_frame(self, room=SKIP_MAX, at=0, started=False):
        # (op, fin, payload). A data frame longer than `room` bytes is read past in small pieces and
        # its payload is its length (an int), its first and last bytes in self._skipped_head and _tail.
        # A data frame of a fragmented message (`started`, or not final) or over STREAM_FRAME bytes
        # goes into _MSG at `at`, and its payload is a view of it there.
        r = self.reader
        b0, b1 = await r.readexactly(2)
        self.last_rx = time.time()
        op = b0 & 0x0F
        n = b1 & 0x7F
        if b0 & 0x70:
            raise _Fail(CLOSE_PROTOCOL_ERROR, "reserved bits set without an extension")
        if op not in (OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG):
            raise _Fail(CLOSE_PROTOCOL_ERROR, "unknown opcode %d" % op)
        if bool(b1 & 0x80) == self.client:
            raise _Fail(CLOSE_PROTOCOL_ERROR, "server frames must not be masked" if self.client else "client frames must be masked")
        if op >= OP_CLOSE and (n > MAX_CONTROL or not b0 & 0x80):
            raise _Fail(CLOSE_PROTOCOL_ERROR, "control frame fragmented or over 125 bytes")
        # The extended length and the masking key come in one read (one read less per frame).
        extra = 2 if n == 126 else 8 if n == 127 else 0
        ext = await r.readexactly(extra + (0 if self.client else 4)) if extra or not self.client else b""
        if extra:
            n = struct.unpack_from(">H" if extra == 2 else ">Q", ext)[0]
        if n > SKIP_MAX:
            # Refused before reading the payload, so a huge length costs no memory.
            raise _Fail(CLOSE_TOO_BIG, "frame of %d bytes, limit %d" % (n, self.max_size))
        key = None if self.client else memoryview(ext)[extra:]
        if n > room and op < OP_CLOSE:
            await self._skip(n, key)
            return op, b0 & 0x80, n
        if op < OP_CLOSE and (started or not b0 & 0x80 or n > STREAM_FRAME):
            await self._read_into(at, n, key)
            return op, b0 & 0x80, memoryview(_MSG)[at : at + n]
        payload = await r.readexactly(n) if n else b""
        if key:
            if op < OP_CLOSE:
                # Unmasked into _RX: the caller decodes it before its next await.
                mask_into(_RX, payload, n, key)
                return op, b0 & 0x80, memoryview(_RX)[:n]
            payload = mask(payload, key)
        return op, b0 & 0x80, payload

    async def _read_into(self, at, n, key):
        # A payload into _MSG at `at`, _READ bytes a read, unmasked on the way in (a piece is a
        # multiple of 4 bytes long, so each starts at the key's first byte).
        global _msg_owner
        while _msg_owner is not None and _msg_owner is not self:
            await asyncio.sleep(_WAIT)  # another connection's message is being read into it
        _msg_owner = self
        view = memoryview(_MSG)
        done = 0
        while done < n:
            m = n - done if n - done < _READ else _READ
            piece = await self.reader.readexactly(m)
            if key:
                mask_into(view[at + done :], piece, m, key)
            else:
                view[at + done : at + done + m] = piece
            done += m

    async def _skip(self, n, key):
        # Reads past a payload of n bytes, keeping its first and last _HEAD bytes.
        r = self.reader
        keep = await r.readexactly(_HEAD if n > _HEAD else n)
        self._skipped_head = mask(keep, key) if key else keep
        left = n - len(keep)
        while left > _HEAD:  # in pieces that end where the last _HEAD bytes begin
            left -= len(await r.readexactly(_HEAD if left >= 2 * _HEAD else left - _HEAD))
        tail = await r.readexactly(left) if left else b""
        if key and tail:
            at = n - left  # the masking key goes on from where this piece starts
            tail = mask(tail, bytes([key[(at + i) & 3] for i in range(4)]))
        # A short frame's last bytes begin inside the ones kept as its head.
        self._skipped_tail = tail if len(tail) == _HEAD else (self._skipped_head + tail)[-_HEAD:]


    # Closing (memory.wsclose).

    async def _on_close(self, payload):
        await _closing().on_close(self, payload)

    async def _fail(self, code, reason):
        # The peer broke the protocol: say why in a close frame and drop the connection.
        await _closing().fail(self, code, reason)

    async def close(self, code=CLOSE_NORMAL, reason=""):
        """Start the close handshake and wait for the peer's close frame (unless another task is reading)."""
        await _closing().close(self, code, reason)

    def _lost(self):
        if self.close_code is None:
            self.close_code, self.close_reason = CLOSE_ABNORMAL, "connection lost"
        self._close_sent = True

    def abort(self):
        """Drop the TCP connection now, without a close handshake or flushing what is unsent.

        A task reading from it wakes with ConnectionClosed. On MicroPython the socket closes when
        the loop next runs (its Stream closes only in wait_closed()); release() waits for that.
        """
        self._lost()
        if self._released:
            return
        if getattr(self.writer, "transport", None) is None:
            self._released = True
            asyncio.create_task(drop(self.writer))
        else:
            self.writer.transport.abort()  # CPython: closed now

    async def release(self):
        """abort(), and wait until the socket is closed. Every connection ends with this."""
        self._lost()
        if not self._released:
            self._released = True
            await drop(self.writer)


async def drop(writer):
    """Close a stream's socket now, unsent bytes and all.

    MicroPython's Stream.close() does nothing: only wait_closed() closes its socket. CPython's
    transport is aborted, so wait_closed() does not wait for a peer that stopped reading.
    """
    try:
        transport = getattr(writer, "transport", None)
        if transport is not None:
            transport.abort()
        writer.close()
        await writer.wait_closed()
    except Exception:  # reset or closed already: closed either way
        pass


def _closing():
    # Loaded by the first connection that closes, then kept.
    from memory import wsclose

    return wsclose
