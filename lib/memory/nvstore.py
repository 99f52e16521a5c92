# NVS under the hot store: RAM images of fixed-size record tables, dirty keys, one flush that writes them.
#
# Each table owns NVS keys "<prefix><n>". A key holds `per_key` records (docs/storage.md): a record
# is replaced by one atomic write of its key, so a power cut between two writes leaves every record
# either old or new. Several records share a key so the store stays under 30 % of the partition;
# a key whose records are all deleted is erased. The id counter "ids" is written before the
# records of a flush, so an id handed out is never handed out again after a power cut. (Layout 1
# kept one record per key and the counter in "nid": memory.relayout moves such a store, once.)

import struct

import esp32
from micropython import const

from memory import steps

ERR_NOT_FOUND = const(-4354)
ERR_FULL = const(-4357)
ERR_LENGTH = const(-4364)
_ID_KEY = "ids"
OLD_ID_KEY = "nid"  # layout 1's counter: while it is there, memory.relayout has work left
ENTRY = const(32)
_MAX_NAME = const(15)  # NVS namespaces and keys
MAX_ID = const(0x7FFFFFFF)  # record ids and the id counter: the counter is an NVS i32
_MAX_KEPT_ID = const(0x7FFF0000)  # an imported id leaves this device 65535 ids of its own at least
ERASE_LEN = const(0xFFFF)  # a journal image's length for a key that is erased
_ERASED = b"\xff\xff"


def blob_entries(size):
    """NVS entries a blob of `size` bytes costs on a fresh page: chunk header, data, index."""
    return 2 + (size + ENTRY - 1) // ENTRY


class Table:
    """`cap` records of `size` bytes, kept in one preallocated bytearray; `per_key` records per NVS key.

    A record slot is in use when `used[slot]` is 1. In keys holding several records an empty slot
    is all zero bytes and a used one has a non-zero id in its first four bytes. `counted` tables take
    their ids from the store's id counter; the others keep their own (chat sequence) or none (singletons).
    """

    def __init__(self, name, prefix, size, cap, per_key=1, counted=True):
        if cap % per_key:
            raise ValueError("%s: capacity %d is not a multiple of %d records per key" % (name, cap, per_key))
        self.name = name
        self.prefix = prefix
        self.size = size
        self.cap = cap
        self.per_key = per_key
        self.counted = counted
        self.buf = bytearray(size * cap)
        self.used = bytearray(cap)
        self.dirty = bytearray(cap // per_key)  # keys the next NVS flush writes
        self.unlogged = bytearray(cap // per_key)  # keys changed since the last journal record

    def keys(self):
        return len(self.dirty)

    def key(self, n):
        return "%s%d" % (self.prefix, n)

    def count(self):
        return sum(self.used)

    def slots(self):
        """Used slot numbers, in slot order."""
        return [s for s in range(self.cap) if self.used[s]]

    def free_slot(self):
        for s in range(self.cap):
            if not self.used[s]:
                return s
        return -1

    def field(self, slot, start, width):
        """A view of `width` bytes at `start` in a slot's record (no copy)."""
        off = slot * self.size + start
        return memoryview(self.buf)[off : off + width]

    def u32(self, slot, start=0):
        """The u32 at `start` in a slot's record: 0 is the id, 4 learned_at in most layouts."""
        return _u32(self.buf, slot * self.size + start)

    def find_id(self, rid):
        for s in self.slots():
            if _u32(self.buf, s * self.size) == rid:
                return s
        return -1

    def oldest_first(self):
        """Used slots by learned_at, then id."""
        order = [(_u32(self.buf, s * self.size + 4), _u32(self.buf, s * self.size), s) for s in self.slots()]
        order.sort()
        return [o[2] for o in order]

    def entries(self):
        """NVS entries this table costs when every slot is used."""
        return self.keys() * blob_entries(self.size * self.per_key)


class NvStore:
    """The tables of one NVS namespace, their RAM images and what is waiting to be written."""

    def __init__(self, namespace, tables, now):
        if not isinstance(namespace, str) or not 1 <= len(namespace) <= _MAX_NAME:
            raise ValueError("NVS namespace must be 1-%d characters, got %r" % (_MAX_NAME, namespace))
        self._nvs = esp32.NVS(namespace)
        self._now = now
        self.tables = tables
        self.next_id = 1
        self._saved_id = 0
        self._logged_id = 0  # the id counter as the last journal record (or flush) has it
        self.dirty_since = None
        self.changed_at = None  # when the last change was made
        self.corrupt = []  # keys whose stored blob had the wrong size, ignored at load
        self.moving = False  # memory.relayout left old-layout keys in NVS (the partition was full)


    # ---- journal records: the images of the keys changed since the last record ----

    def unlogged(self):
        """A journal record of every key changed since the last one, as a list of pieces to write
        one after the other (None when there is none). The key images are views of the tables:
        the record is written before anything changes them, and never built whole.

        `<I` the last id handed out, then per key: name length (B), name, data length (H,
        0xFFFF for an erased key), data.
        """
        parts = [struct.pack("<I", self.next_id - 1)]
        for t in self.tables:
            block = t.size * t.per_key
            view = memoryview(t.buf)
            for n in range(t.keys()):
                if not t.unlogged[n]:
                    continue
                key = t.key(n).encode()
                if self.erasable(t, n):
                    parts.append(struct.pack("<B", len(key)) + key + _ERASED)
                else:
                    parts.append(struct.pack("<B", len(key)) + key + struct.pack("<H", block))
                    parts.append(view[n * block : (n + 1) * block])
        return parts if len(parts) > 1 or self.next_id - 1 > self._logged_id else None

    def logged(self):
        """The keys of the last unlogged() record are in the journal now."""
        self._logged_id = self.next_id - 1
        for t in self.tables:
            for n in range(t.keys()):
                t.unlogged[n] = 0


    def erasable(self, t, n):
        """Whether key n of `t` is erased rather than written: none of its slots is in use. While
        memory.relayout has old keys left (`moving`), a shared key is written even when empty: were
        it missing, the next boot would read its slots from their old keys again."""
        if t.per_key > 1 and self.moving:
            return False
        for s in range(n * t.per_key, (n + 1) * t.per_key):
            if t.used[s]:
                return False
        return True

    def keep_ids_above(self, rid):
        if not 0 <= rid <= _MAX_KEPT_ID:
            raise ValueError("id must be 0-%d, got %d" % (_MAX_KEPT_ID, rid))
        if rid >= self.next_id:
            self.next_id = rid + 1
            self._touch()

    def new_id(self):
        rid = self.next_id
        if rid > MAX_ID:
            raise ValueError("no record ids are left on this device (all %d used)" % MAX_ID)
        self.next_id += 1
        self._touch()
        return rid

    def save_ids(self, upto=None):
        """Persist the id counter if it has not been saved past id `upto` (default: every id handed out)."""
        if (self.next_id - 1 if upto is None else upto) <= self._saved_id:
            return 0
        self._nvs.set_i32(_ID_KEY, self.next_id - 1)
        self._saved_id = self.next_id - 1
        return 1

    def put(self, table, slot, data):
        """Store record bytes in a slot. False (and nothing to write) when the slot already holds them."""
        start = slot * table.size
        if table.used[slot] and table.buf[start : start + table.size] == data:
            return False
        table.buf[start : start + table.size] = data
        table.used[slot] = 1
        table.dirty[slot // table.per_key] = 1
        table.unlogged[slot // table.per_key] = 1
        self._touch()
        return True

    def clear(self, table, slot):
        if not table.used[slot]:
            return False
        start = slot * table.size
        for i in range(start, start + table.size):
            table.buf[i] = 0
        table.used[slot] = 0
        table.dirty[slot // table.per_key] = 1
        table.unlogged[slot // table.per_key] = 1
        self._touch()
        return True

    def _touch(self):
        self.changed_at = self._now()
        if self.dirty_since is None:
            self.dirty_since = self.changed_at

    def pending(self):
        """NVS writes the next flush will make."""
        n = 1 if self.next_id - 1 > self._saved_id else 0
        for t in self.tables:
            n += sum(t.dirty)
        return n

    def flush(self):
        """Write every dirty key: the id counter, then erases, then records. Returns the writes made.

        A full partition leaves the keys it could not write dirty (their old values stay in NVS)
        and raises OSError(-4357) after trying the rest.
        """
        return steps.finish(self.flush_steps())

    def flush_steps(self):
        """flush() as a generator (memory.steps): a step per key written. Nothing may change the
        tables between its steps (the caller holds the device's lock)."""
        writes = 0
        failed = 0
        try:
            writes += self.save_ids()
        except OSError as e:
            if e.args[0] != ERR_FULL:
                raise
            failed += 1
        for erasing in (True, False):
            for t in self.tables:
                block = t.size * t.per_key
                for n in range(t.keys()):
                    if not t.dirty[n]:
                        continue
                    empty = self.erasable(t, n)
                    if empty != erasing:
                        continue
                    yield
                    try:
                        if empty:
                            self._nvs.erase_key(t.key(n))
                        else:
                            self._nvs.set_blob(t.key(n), memoryview(t.buf)[n * block : (n + 1) * block])
                        writes += 1
                    except OSError as e:
                        if e.args[0] == ERR_FULL:
                            failed += 1
                            continue
                        if e.args[0] != ERR_NOT_FOUND:  # erasing a record that never reached NVS
                            raise
                    t.dirty[n] = 0
        self._nvs.commit()
        if failed:
            raise OSError(ERR_FULL, "NVS partition full: %d record key(s) not saved; stored records are kept" % failed)
        self.dirty_since = None
        return writes

    def entries(self):
        """NVS entries the namespace costs with every table full (its namespace entry and counter included)."""
        return 2 + sum(t.entries() for t in self.tables)

    def entries_now(self):
        """NVS entries the stored records cost now, by the same rule."""
        n = 2
        for t in self.tables:
            for k in range(t.keys()):
                if sum(t.used[k * t.per_key : (k + 1) * t.per_key]):
                    n += blob_entries(t.size * t.per_key)
        return n


def _mark_used(t, n):
    """Set the used flags of key n's slots from their ids; the highest counted id among them."""
    top = 0
    for s in range(n * t.per_key, (n + 1) * t.per_key):
        rid = _u32(t.buf, s * t.size)
        t.used[s] = 1 if t.per_key == 1 or rid else 0
        if t.used[s] and t.counted and rid > top:
            top = rid
    return top


def _u32(buf, off):
    return buf[off] | buf[off + 1] << 8 | buf[off + 2] << 16 | buf[off + 3] << 24
