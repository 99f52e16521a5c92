# The acknowledged-change journal: records appended to one file before an answer leaves, read back at boot.
#
# A record is a header `<2sHI` (magic b"XJ", payload length, CRC-32 of the payload) and the payload;
# what the payload says is the store's business. Records are written and read in pieces, never whole. The file is closed after every append, which on
# LittleFS commits it. Reading stops at the first record that is short or fails its check (a torn
# tail); that tail is cut off before anything is appended after it.

import binascii
import struct

from micropython import const

from memory import fs

_MAGIC = b"XJ"
_HEADER = const(8)
MAX_PAYLOAD = const(0xFFFF)
_ROOM_EXTRA = const(8192)  # a record may start a new block, and LittleFS rewrites the file's metadata
_CHUNK = const(256)  # bytes read at a time to check a record


class AckJournal:
    def __init__(self, path, room=None):
        self.path = path
        self._room = room  # room(bytes): make that much space on the partition or raise (archive.make_room)
        self.size = 0  # bytes of whole records in the file
        self.appends = 0  # records appended since boot
        self.torn = 0  # bytes of torn tail found in the file (and cut off)
        self.cuts = 0
        self._header = bytearray(_HEADER)
        self._checked = False

    def records(self):
        """Each whole record, oldest first (a generator): a Payload to read the record from, valid
        until the next one is asked for. A torn tail ends the records.

        A record is read twice, in small pieces: once for its check, then by the caller, so no
        record is ever held whole in RAM.
        """
        self.size = 0
        try:
            f = fs.open(self.path, "rb")
        except OSError:
            self._checked = True
            return
        buf = bytearray(_CHUNK)
        try:
            while True:
                got = f.readinto(self._header)
                if not got:
                    break
                magic, length, crc = struct.unpack("<2sHI", self._header)
                if got < _HEADER or magic != _MAGIC or not _check(f, length, crc, buf):
                    break
                start = self.size + _HEADER
                f.seek(start)
                yield Payload(f, length)
                self.size = start + length
                f.seek(self.size)
        finally:
            f.close()
        self._check_tail()

    def _check_tail(self):
        # Anything after the last whole record would hide every record appended later: keep only
        # the whole records (new file, then rename: a cut here leaves the old file or the new one).
        self._checked = True
        whole = self.size
        length = fs.stat(self.path)[6]
        if length == whole:
            return
        self.torn += length - whole
        tmp = self.path + ".tmp"
        with fs.open(self.path, "rb") as src:
            with fs.open(tmp, "wb") as dst:
                left = whole
                while left:
                    chunk = src.read(left if left < 512 else 512)
                    dst.write(chunk)
                    left -= len(chunk)
        fs.rename(tmp, self.path)

    def append(self, pieces):
        """Append one record, its payload `pieces` one after the other (buffers: the record is
        never joined in RAM), and close the file, so it is on flash when this returns."""
        length = crc = 0
        for piece in pieces:
            length += len(piece)
            crc = binascii.crc32(piece, crc)
        if length > MAX_PAYLOAD:
            raise ValueError("journal record of %d bytes, at most %d" % (length, MAX_PAYLOAD))
        if not self._checked:
            for _ in self.records():
                pass
        if self._room is not None:
            self._room(length + _HEADER + _ROOM_EXTRA)
        struct.pack_into("<2sHI", self._header, 0, _MAGIC, length, crc)
        with fs.open(self.path, "ab") as f:
            f.write(self._header)
            for piece in pieces:
                f.write(piece)
        self.size += _HEADER + length
        self.appends += 1

    def cut(self):
        """Forget every record: what they said is now in NVS."""
        if self.size == 0 and self._checked:
            return
        try:
            fs.remove(self.path)
        except OSError as e:
            if e.args[0] != 2:  # ENOENT: nothing to cut
                raise
        self.size = 0
        self._checked = True
        self.cuts += 1

    def stats(self):
        return {"bytes": self.size, "appends": self.appends, "cuts": self.cuts, "torn_bytes": self.torn}


def _check(f, length, crc, buf):
    """Whether the next `length` bytes of `f` are all there and have the CRC-32 `crc`."""
    view = memoryview(buf)
    got = 0
    left = length
    while left:
        n = f.readinto(view[: left if left < _CHUNK else _CHUNK])
        if not n:
            return False
        got = binascii.crc32(view[:n], got)
        left -= n
    return got == crc


class Payload:
    """One record's payload, read in order: read(n) and readinto() as a file's, within the record."""

    def __init__(self, f, length):
        self._f = f
        self.left = length

    def read(self, n):
        data = self._f.read(n if n < self.left else self.left)
        self.left -= len(data)
        return data

    def readinto(self, view):
        """Fill `view` (no more than is left); returns the bytes read."""
        n = len(view) if len(view) < self.left else self.left
        got = self._f.readinto(view[:n]) if n else 0
        self.left -= got
        return got
