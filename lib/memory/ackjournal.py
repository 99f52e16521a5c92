# The acknowledged-change journal: records appended to one file before an answer leaves, read back at boot.
#
# A record is a header `<2sHI` (magic b"XJ", payload length, CRC-32 of the payload) and the payload;
# what the payload says is the store's business. The file is closed after every append, which on
# LittleFS commits it. Reading stops at the first record that is short or fails its check (a torn
# tail); that tail is cut off before anything is appended after it.

import binascii
import struct

from micropython import const

from memory import fs

_MAGIC = b"XJ"
_HEADER = const(8)
MAX_PAYLOAD = const(0xFFFF)


class AckJournal:
    def __init__(self, path):
        self.path = path
        self.size = 0  # bytes of whole records in the file
        self.appends = 0  # records appended since boot
        self.torn = 0  # bytes of torn tail found in the file (and cut off)
        self.cuts = 0
        self._header = bytearray(_HEADER)
        self._checked = False

    def records(self):
        """Each whole record's payload, oldest first (a generator); a torn tail ends the records."""
        self.size = 0
        try:
            f = fs.open(self.path, "rb")
        except OSError:
            self._checked = True
            return
        try:
            while True:
                got = f.readinto(self._header)
                if not got:
                    break
                magic, length, crc = struct.unpack("<2sHI", self._header)
                if got < _HEADER or magic != _MAGIC:
                    break
                payload = f.read(length)
                if len(payload) < length or binascii.crc32(payload) != crc:
                    break
                self.size += _HEADER + length
                yield payload
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

    def append(self, payload):
        """Append one record and close the file, so it is on flash when this returns."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("journal record of %d bytes, at most %d" % (len(payload), MAX_PAYLOAD))
        if not self._checked:
            for _ in self.records():
                pass
        struct.pack_into("<2sHI", self._header, 0, _MAGIC, len(payload), binascii.crc32(payload))
        with fs.open(self.path, "ab") as f:
            f.write(self._header)
            f.write(payload)
        self.size += _HEADER + len(payload)
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
