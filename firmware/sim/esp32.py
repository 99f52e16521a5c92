# Simulated esp32 module: NVS with ESP-IDF's entry accounting, and flash partitions over files.
#
# Runs on CPython (xzmem sim, host tests) and on MicroPython (the WebAssembly port in tests).
# The real module has no configuration calls; the functions below that the real one lacks
# (configure_nvs, nvs_flash, configure_partitions) are for the simulator and tests only.

import json
import os

from micropython import const

# ESP-IDF error codes as MicroPython raises them: OSError(-code).
ERR_NOT_FOUND = const(-4354)  # ESP_ERR_NVS_NOT_FOUND 0x1102
ERR_NOT_ENOUGH_SPACE = const(-4357)  # ESP_ERR_NVS_NOT_ENOUGH_SPACE 0x1105
ERR_KEY_TOO_LONG = const(-4361)  # ESP_ERR_NVS_KEY_TOO_LONG 0x1109
ERR_INVALID_LENGTH = const(-4364)  # ESP_ERR_NVS_INVALID_LENGTH 0x110c

_PAGE_BYTES = const(4096)
_ENTRIES_PER_PAGE = const(126)
_ENTRY_BYTES = const(32)
_MAX_KEY = const(15)
_MAX_NAMESPACE = const(15)
_MAX_BLOB = const(508000)


class PowerCut(BaseException):
    """Raised by the write at which a test cut the power, and by every write after it.

    A BaseException so that firmware code catching Exception cannot swallow the cut.
    """


def _blob_entries(first_free, size):
    """Entries a blob costs when its data starts on a page with `first_free` free entries.

    ESP-IDF writes the data as chunks (one header entry plus ceil(bytes/32) data entries),
    splitting at page ends, then one blob-index entry. Returns (entries, free entries left
    on the page where the index lands, pages advanced).
    """
    entries = 0
    free = first_free
    pages = 0
    remaining = size
    while True:
        if free < 2:
            entries += free  # the tail of a page too small for a chunk is skipped
            free = _ENTRIES_PER_PAGE
            pages += 1
        room = (free - 1) * _ENTRY_BYTES
        chunk = remaining if remaining < room else room
        used = 1 + (chunk + _ENTRY_BYTES - 1) // _ENTRY_BYTES
        entries += used
        free -= used
        remaining -= chunk
        if remaining <= 0:
            break
    if free < 1:
        free = _ENTRIES_PER_PAGE
        pages += 1
    return entries + 1, free - 1, pages


class NVSFlash:
    """The whole `nvs` partition: every namespace, the entry accounting, counters, faults."""

    def __init__(self, path=None, size=48 * 1024, reserve=0):
        if size % _PAGE_BYTES or size < 3 * _PAGE_BYTES:
            raise ValueError("nvs size must be a multiple of 4096 and at least 3 pages, got %d" % size)
        self.path = path
        self.pages = size // _PAGE_BYTES
        # One page stays free for ESP-IDF's garbage collection.
        self.usable_entries = (self.pages - 1) * _ENTRIES_PER_PAGE
        self.reserve = reserve
        self.items = []  # [namespace, key, kind, value] in write order, as the log on flash
        self.writes = 0
        self.entries_written = 0
        self.bytes_written = 0
        self.cut_at = 0
        self.dead = False
        self.damage = None  # what loading a damaged file lost, for the boot log and stats
        if path:
            self._load()

    def _load(self):
        """Read the partition file; a damaged one is kept as "<file>.bad" and NVS keeps the entries
        that still parse, as ESP-IDF drops entries whose checksum fails. `damage` says what was lost."""
        try:
            with open(self.path, "rb") as f:
                raw = f.read()
        except OSError:
            return
        # The file is ASCII JSON; flipped bits can make bytes that are not, which must not stop the read.
        text = bytes(b if b < 128 else 63 for b in raw).decode()
        items, lost, problem = _parse_items(text)
        self.items = items
        if problem is None:
            return
        bad = self.path + ".bad"
        try:
            os.rename(self.path, bad)
        except OSError:  # gone meanwhile: nothing to keep aside
            bad = "gone"
        self._save(items)
        self.damage = "%s was %s: kept %d entries, lost %s; the damaged file is %s" % (
            self.path, problem, len(items), ", ".join(lost) if lost else "none that could be named", bad)
        print("nvs:", self.damage)

    def _commit(self, items):
        """Make `items` the partition's contents: the file first, so a write interrupted while saving
        (SIGTERM in the simulator) is not done, and the next write of the same value is not skipped."""
        self._save(items)
        self.items = items

    def _save(self, items):
        if not self.path:
            return
        out = []
        for ns, key, kind, value in items:
            out.append([ns, key, kind, _hex(value) if kind == "blob" else value])
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"items": out}, f)
        os.rename(tmp, self.path)

    def _layout_entries(self, items):
        """Entries used by `items` laid out in order, after the reserve, as if freshly compacted."""
        used = 0
        free = _ENTRIES_PER_PAGE
        reserve = self.reserve
        while reserve > 0:
            take = reserve if reserve < free else free
            used += take
            free -= take
            reserve -= take
            if free == 0:
                free = _ENTRIES_PER_PAGE
        seen = []
        for ns, _key, kind, value in items:
            if ns not in seen:
                seen.append(ns)
                used, free = _place(used, free, 1)
            if kind == "blob":
                cost, left, _ = _blob_entries(free, len(value))
                used += cost
                free = left
                if free == 0:
                    free = _ENTRIES_PER_PAGE
            else:
                used, free = _place(used, free, 1)
        return used

    def entries_used(self):
        return self._layout_entries(self.items)

    def entries_free(self):
        return self.usable_entries - self.entries_used()

    def namespace_entries(self, namespace):
        """Entries one namespace costs by itself (its namespace entry included)."""
        saved = self.reserve
        self.reserve = 0
        try:
            return self._layout_entries([i for i in self.items if i[0] == namespace])
        finally:
            self.reserve = saved

    def cut_power_at(self, write_number):
        """Lose power during write number `write_number` (1-based, counted from now)."""
        self.cut_at = self.writes + write_number

    def find(self, ns, key):
        for i, item in enumerate(self.items):
            if item[0] == ns and item[1] == key:
                return i
        return -1

    def write(self, ns, key, kind, value):
        if self.dead:
            raise PowerCut("power is off")
        i = self.find(ns, key)
        if i >= 0 and self.items[i][2] == kind and self.items[i][3] == value:
            return  # ESP-IDF compares and skips identical values
        new_items = [it for it in self.items if not (it[0] == ns and it[1] == key)]
        new_items.append([ns, key, kind, value])
        if self._layout_entries(new_items) > self.usable_entries:
            raise OSError(ERR_NOT_ENOUGH_SPACE)
        self.writes += 1
        if self.cut_at and self.writes >= self.cut_at:
            self.dead = True
            raise PowerCut("power cut at NVS write %d" % self.writes)
        cost = _blob_entries(_ENTRIES_PER_PAGE, len(value))[0] if kind == "blob" else 1
        self.entries_written += cost
        self.bytes_written += cost * _ENTRY_BYTES
        self._commit(new_items)

    def erase(self, ns, key):
        if self.dead:
            raise PowerCut("power is off")
        i = self.find(ns, key)
        if i < 0:
            raise OSError(ERR_NOT_FOUND)
        self.writes += 1
        if self.cut_at and self.writes >= self.cut_at:
            self.dead = True
            raise PowerCut("power cut at NVS erase %d" % self.writes)
        self._commit(self.items[:i] + self.items[i + 1 :])


def _item(value):
    """[ns, key, kind, value] from a stored item, or None when it is not one."""
    if not isinstance(value, list) or len(value) != 4:
        return None
    ns, key, kind, v = value
    if not isinstance(ns, str) or not isinstance(key, str) or not 0 < len(ns) <= _MAX_NAMESPACE or not 0 < len(key) <= _MAX_KEY:
        return None
    if kind == "i32" and isinstance(v, int) and not isinstance(v, bool) and -0x80000000 <= v <= 0x7FFFFFFF:
        return [ns, key, kind, v]
    if kind == "blob" and isinstance(v, str) and len(v) % 2 == 0:
        try:
            return [ns, key, kind, _unhex(v)]
        except ValueError:
            return None
    return None


def _parse_items(text):
    """(items, names of items lost, what was wrong or None) from the file's text.

    A file that is not JSON any more (cut short, bits flipped) is read item by item: each item is a
    flat list, so the text between "[" and "]" of one parses on its own.
    """
    try:
        data = json.loads(text)
        pieces = data["items"] if isinstance(data, dict) and isinstance(data.get("items"), list) else None
        problem = None if pieces is not None else "not an NVS file"
    except (ValueError, KeyError, TypeError):
        pieces = None
        problem = "empty" if not text.strip() else "not JSON"
    if pieces is None:
        pieces = []
        start = text.find("[[")
        for part in (text[start + 1 :].split("], [") if start >= 0 else []):
            part = part.strip().lstrip("[").rstrip("]}").rstrip()
            try:
                pieces.append(json.loads("[" + part + "]"))
            except ValueError:
                pieces.append(None)
    items = []
    lost = []
    for piece in pieces:
        item = _item(piece)
        if item is None:
            named = isinstance(piece, list) and len(piece) > 1 and isinstance(piece[0], str) and isinstance(piece[1], str)
            lost.append("%s/%s" % (piece[0], piece[1]) if named else "an unreadable entry")
            continue
        for i in range(len(items)):
            if items[i][0] == item[0] and items[i][1] == item[1]:
                items.pop(i)
                break
        items.append(item)
    if lost and problem is None:
        problem = "damaged"
    return items, lost, problem


def _place(used, free, n):
    if free < n:
        used += free
        free = _ENTRIES_PER_PAGE
    return used + n, free - n


def _hex(b):
    return "".join("%02x" % x for x in b)


def _unhex(s):
    """bytes of a hex string; ValueError when it is not one."""
    return bytes(int(s[i : i + 2], 16) for i in range(0, len(s), 2))


_flash = None


def configure_nvs(path=None, size=48 * 1024, reserve=0):
    """Simulator only: choose the file behind the `nvs` partition (None keeps it in RAM)."""
    global _flash
    _flash = NVSFlash(path, size, reserve)
    return _flash


def nvs_flash():
    """Simulator only: the current NVS partition, for counters and fault injection."""
    global _flash
    if _flash is None:
        _flash = NVSFlash()
    return _flash


def _check_key(key):
    if not isinstance(key, str):
        raise TypeError("NVS key must be str")
    if len(key) > _MAX_KEY:
        raise OSError(ERR_KEY_TOO_LONG)


class NVS:
    """esp32.NVS(namespace): the same methods and errors as MicroPython's."""

    def __init__(self, namespace):
        if len(namespace) > _MAX_NAMESPACE:
            raise OSError(ERR_KEY_TOO_LONG)
        self._ns = namespace
        self._flash = nvs_flash()

    def set_i32(self, key, value):
        _check_key(key)
        if not -0x80000000 <= value <= 0x7FFFFFFF:
            raise OverflowError("overflow converting long int to machine word")
        self._flash.write(self._ns, key, "i32", int(value))

    def get_i32(self, key):
        _check_key(key)
        i = self._flash.find(self._ns, key)
        if i < 0 or self._flash.items[i][2] != "i32":
            raise OSError(ERR_NOT_FOUND)
        return self._flash.items[i][3]

    def set_blob(self, key, value):
        _check_key(key)
        value = bytes(value)
        if len(value) > _MAX_BLOB:
            raise OSError(ERR_INVALID_LENGTH)
        self._flash.write(self._ns, key, "blob", value)

    def get_blob(self, key, buffer):
        _check_key(key)
        i = self._flash.find(self._ns, key)
        if i < 0 or self._flash.items[i][2] != "blob":
            raise OSError(ERR_NOT_FOUND)
        value = self._flash.items[i][3]
        if len(buffer) < len(value):
            raise OSError(ERR_INVALID_LENGTH)
        buffer[: len(value)] = value
        return len(value)

    def erase_key(self, key):
        _check_key(key)
        self._flash.erase(self._ns, key)

    def commit(self):
        if self._flash.dead:
            raise PowerCut("power is off")


class Partition:
    """esp32.Partition over a file-backed block device with 4096-byte blocks.

    The block protocol (readblocks, writeblocks, ioctl) is what vfs.VfsLfs2 and
    littlefs-python's user context use.
    """

    BOOT = 0
    RUNNING = 1
    TYPE_APP = 0
    TYPE_DATA = 1
    _table = {}

    def __init__(self, label, block_size=_PAGE_BYTES):
        if label not in Partition._table:
            raise ValueError("no partition labelled %r" % label)
        self.label = label
        self.path, self.size = Partition._table[label]
        self.block_size = block_size
        self.block_count = self.size // block_size
        # Counters and a power cut, as NVSFlash has them: a write is a block program or erase.
        self.writes = 0
        self.bytes_written = 0
        self.erases = 0
        self.cut_at = 0
        try:
            os.stat(self.path)
        except OSError:
            with open(self.path, "wb") as f:
                blank = b"\xff" * _PAGE_BYTES
                for _ in range(self.size // _PAGE_BYTES):
                    f.write(blank)

    @staticmethod
    def find(type=TYPE_DATA, subtype=0xFF, label=None):
        if label is None:
            return [Partition(lbl) for lbl in Partition._table]
        return [Partition(label)] if label in Partition._table else []

    def info(self):
        return (Partition.TYPE_DATA, 0x81, 0, self.size, self.label, False)

    def _file(self):
        # One unbuffered handle per partition: LittleFS reads 32 bytes at a time, and opening the
        # image for each read made every LittleFS call slow. Unbuffered, a write is in the file
        # (the OS's) as soon as it returns, so a killed simulator loses nothing written.
        f = getattr(self, "_f", None)
        if f is None:
            try:
                f = open(self.path, "r+b", 0)
            except TypeError:  # MicroPython's open() takes no buffering argument
                f = open(self.path, "r+b")
            self._f = f
        return f

    def readblocks(self, block_num, buf, offset=0):
        f = self._file()
        pos = block_num * self.block_size + offset
        if hasattr(os, "pread"):
            data = os.pread(f.fileno(), len(buf), pos)  # one system call for LittleFS's many small reads
            buf[: len(data)] = data
        else:  # MicroPython: into LittleFS's own buffer, allocating nothing, as the C driver does
            f.seek(pos)
            f.readinto(buf)

    def cut_power_at(self, write_number):
        """Lose power during flash write number `write_number` (1-based, counted from now)."""
        self.cut_at = self.writes + write_number

    def _write(self, size):
        self.writes += 1
        if self.cut_at and self.writes >= self.cut_at:
            raise PowerCut("power cut at flash write %d" % self.writes)
        self.bytes_written += size

    def writeblocks(self, block_num, buf, offset=None):
        self._write(len(buf))
        if offset is None:
            # Without an offset the blocks are erased first, as the real driver does.
            offset = 0
        f = self._file()
        f.seek(block_num * self.block_size + offset)
        f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.block_count
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase a block
            self._write(0)
            self.erases += 1
            f = self._file()
            f.seek(arg * self.block_size)
            f.write(_erased(self.block_size))
            return 0
        return 0


_blank = None


def _erased(size):
    """An erased block's bytes, made once: erasing allocates nothing after that, as on a board."""
    global _blank
    if _blank is None or len(_blank) != size:
        _blank = b"\xff" * size
    return _blank


def configure_partition(label, path, size):
    """Simulator only: back the partition `label` with the file `path` of `size` bytes."""
    if size % _PAGE_BYTES:
        raise ValueError("partition size must be a multiple of 4096, got %d" % size)
    Partition._table[label] = (path, size)
    _erased(_PAGE_BYTES)
