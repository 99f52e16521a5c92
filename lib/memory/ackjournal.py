# The acknowledged-change journal: records appended to one file before an answer leaves, read back at boot.
#
# A record is a header `<2sHI` (magic b"XJ", payload length, CRC-32 of the payload) and the payload;
# what the payload says is the store's business. Records are written in pieces, never joined. The
# file is closed after every append, which on LittleFS commits it. Reading (memory.storeload, at
# boot) stops at the first record that is short or fails its check (a torn tail); that tail is cut
# off before anything is appended after it.

import binascii
import struct

from micropython import const

from memory import fs

MAGIC = b"XJ"
HEADER = const(8)
HEAD = "<2sHI"  # magic, payload length, CRC-32 of the payload
MAX_PAYLOAD = const(0xFFFF)
_ROOM_EXTRA = const(8192)  # a record may start a new block, and LittleFS rewrites the file's metadata


class AckJournal:
    def __init__(self, path, room=None):
        self.path = path
        self._room = room  # room(bytes): make that much space on the partition or raise (archive.make_room)
        self.size = 0  # bytes of whole records in the file
        self.appends = 0  # records appended since boot
        self.torn = 0  # bytes of torn tail found in the file (and cut off)
        self.cuts = 0
        self.bad = 0  # whole records set aside at boot: their contents were not the store's (memory.storeload)
        self._header = bytearray(HEADER)
        self._checked = False


    def append(self, pieces):
        """Append one record, its payload `pieces` one after the other (buffers: the record is
        never joined in RAM), and close the file, so it is on flash when this returns."""
        length = crc = 0
        for piece in pieces:
            length += len(piece)
            crc = binascii.crc32(piece, crc)
        if length > MAX_PAYLOAD:
            raise ValueError("journal record of %d bytes, at most %d" % (length, MAX_PAYLOAD))
        if not self._checked:  # never read this boot (the store replays it): cut a torn tail first
            from memory import storeload

            storeload.check_journal(self)
        if self._room is not None:
            self._room(length + HEADER + _ROOM_EXTRA)
        struct.pack_into(HEAD, self._header, 0, MAGIC, length, crc)
        with fs.open(self.path, "ab") as f:
            f.write(self._header)
            for piece in pieces:
                f.write(piece)
        self.size += HEADER + length
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
        return {"bytes": self.size, "appends": self.appends, "cuts": self.cuts, "torn_bytes": self.torn,
                "bad_records": self.bad}
