# The hot store at boot: its tables filled from NVS, then the ack journal's records replayed over them.
#
# Used once, while memory.store.Store opens: it is unloaded after, so its code costs no RAM later.

import binascii
import struct

from micropython import const

from memory import fs
from memory.ackjournal import HEAD, HEADER, MAGIC
from memory.nvstore import (
    _ID_KEY,
    ENTRY,
    ERASE_LEN,
    ERR_LENGTH,
    ERR_NOT_FOUND,
    MAX_ID,
    OLD_ID_KEY,
    _mark_used,
)

_CHUNK = const(256)  # bytes read at a time to check a journal record


def replay_journal(journal, nv):
    """Replay every whole record of `journal` into `nv`'s tables; returns the keys taken."""
    taken = 0
    for record in records(journal):
        # A CRC says a record is as written, not right: one the store cannot take is skipped whole.
        problem = _problem(nv, record)
        if problem:
            journal.bad += 1
            print("memory: journal record %d set aside: %s" % (journal.bad, problem))
            continue
        record.rewind()
        taken += _replay_record(nv, record)
    return taken


def _problem(nv, record):
    """What is wrong inside a record (None: it can be replayed)."""
    if record.left < 4:
        return "no id counter"
    if struct.unpack("<I", record.read(4))[0] > MAX_ID:
        return "an id counter past %d" % MAX_ID
    while record.left:
        klen = record.read(1)[0]
        if not klen or klen + 2 > record.left:
            return "a key name cut short"
        try:
            key = record.read(klen).decode()
        except UnicodeError:
            return "a key name that is not UTF-8"
        dlen = struct.unpack("<H", record.read(2))[0]
        if dlen == ERASE_LEN:
            continue
        if dlen > record.left:
            return "a key image past the record's end"
        t = _find_key(nv, key)[0]
        if t is None:  # perhaps a key of the old layout (memory.relayout, loaded to replay it anyway)
            from memory import relayout

            problem = relayout.image_problem(nv, key, dlen, record)
            if problem:
                return problem
            continue
        if dlen != t.size * t.per_key or not t.counted:
            record.skip(dlen)
            continue
        for _ in range(t.per_key):
            if struct.unpack("<I", record.read(4))[0] > MAX_ID:
                return "a record id past %d in %s" % (MAX_ID, key)
            record.skip(t.size - 4)
    return None


def check_journal(journal):
    """Read `journal` through once, so a torn tail is cut off (nothing is replayed)."""
    for _ in records(journal):
        pass


def load_tables(nv):
    """Fill every table from NVS; missing keys are empty slots. A store of the old layout (or none
    yet) is moved to the current one first (memory.relayout)."""
    counter = _i32(nv, _ID_KEY)
    if counter is not None:
        nv._saved_id = max(0, counter)
    old = counter is None or _i32(nv, OLD_ID_KEY) is not None
    top = 0
    for t in nv.tables:
        block = t.size * t.per_key
        view = memoryview(t.buf)
        for n in range(t.keys()):
            start = n * block
            try:
                got = nv._nvs.get_blob(t.key(n), view[start : start + block])
            except OSError as e:
                if e.args[0] == ERR_NOT_FOUND:
                    continue
                if e.args[0] != ERR_LENGTH:
                    raise
                got = -1
            used_top = _mark_used(t, n) if got == block else 0
            if got != block or used_top > MAX_ID:  # wrong size, or ids too big
                nv.corrupt.append(t.key(n))
                for i in range(start, start + block):
                    t.buf[i] = 0
                for slot in range(n * t.per_key, (n + 1) * t.per_key):
                    t.used[slot] = 0
                continue
            top = max(top, used_top)
    nv.next_id = max(nv._saved_id, top) + 1
    nv._logged_id = nv.next_id - 1
    if old:
        from memory import relayout  # unloaded by memory.store with this module

        relayout.migrate(nv)


def _i32(nv, key):
    try:
        return nv._nvs.get_i32(key)
    except OSError as e:
        if e.args[0] != ERR_NOT_FOUND:
            raise
    return None


def _replay_record(nv, record):
    """Put a journal record's key images back into the tables, marked for the next flush.

    `record` is read in order (a Payload), each image straight into its table.
    Images overwrite whole keys, so replaying a record twice, or one NVS already holds,
    changes nothing. Returns the number of keys taken; unknown keys and wrong sizes are skipped.
    """
    nv.next_id = max(nv.next_id, struct.unpack("<I", record.read(4))[0] + 1)
    taken = 0
    while record.left:
        klen = record.read(1)[0]
        key = record.read(klen).decode()
        dlen = struct.unpack("<H", record.read(2))[0]
        t, n = _find_key(nv, key)
        if t is None:  # a key of the old layout goes to its slot in the new one, if it is one
            from memory import relayout

            got = relayout.take_image(nv, key, dlen, record)
            taken += got
            continue
        block = t.size * t.per_key
        if dlen == ERASE_LEN:
            for i in range(n * block, (n + 1) * block):
                t.buf[i] = 0
            for s in range(n * t.per_key, (n + 1) * t.per_key):
                t.used[s] = 0
        elif dlen != block:
            while dlen:  # an image this store cannot take: read past it
                dlen -= len(record.read(dlen if dlen < ENTRY else ENTRY))
            continue
        else:
            record.readinto(memoryview(t.buf)[n * block : (n + 1) * block])
            top = _mark_used(t, n)
            if top >= nv.next_id:
                nv.next_id = top + 1
        t.dirty[n] = 1
        taken += 1
    if taken:
        nv._touch()
    return taken


def _find_key(nv, key):
    for t in nv.tables:
        p = len(t.prefix)
        if key[:p] == t.prefix and key[p:].isdigit() and int(key[p:]) < t.keys():
            return t, int(key[p:])
    return None, 0


def records(journal):
    """Each whole record, oldest first (a generator): a Payload to read the record from, valid
    until the next one is asked for. A torn tail ends the records.

    A record is read twice, in small pieces: once for its check, then by the caller, so no
    record is ever held whole in RAM.
    """
    journal.size = 0
    try:
        f = fs.open(journal.path, "rb")
    except OSError:
        journal._checked = True
        return
    buf = bytearray(_CHUNK)
    try:
        while True:
            got = f.readinto(journal._header)
            if not got:
                break
            magic, length, crc = struct.unpack(HEAD, journal._header)
            if got < HEADER or magic != MAGIC or not _check(f, length, crc, buf):
                break
            start = journal.size + HEADER
            f.seek(start)
            yield Payload(f, length, start)
            journal.size = start + length
            f.seek(journal.size)
    finally:
        f.close()
    _check_tail(journal)


def _check_tail(journal):
    # Anything after the last whole record would hide every record appended later: keep only
    # the whole records (new file, then rename: a cut here leaves the old file or the new one).
    journal._checked = True
    whole = journal.size
    length = fs.stat(journal.path)[6]
    if length == whole:
        return
    journal.torn += length - whole
    tmp = journal.path + ".tmp"
    with fs.open(journal.path, "rb") as src:
        with fs.open(tmp, "wb") as dst:
            left = whole
            while left:
                chunk = src.read(left if left < 512 else 512)
                dst.write(chunk)
                left -= len(chunk)
    fs.rename(tmp, journal.path)


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

    def __init__(self, f, length, start):
        self._f = f
        self._start = start
        self.length = self.left = length

    def rewind(self):
        self._f.seek(self._start)
        self.left = self.length

    def skip(self, n):
        self._f.seek(self._start + self.length - self.left + n)
        self.left -= n

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
