# Deep memory: the JSONL archive on the `memory` partition, with recall, counts and crash repair.
#
# Layout (docs/storage.md): ROOT/<kind>/<YYYYMM>/<n>.jsonl holds the records of one kind learned
# in one UTC month, split into parts of about 24 KB; <n>.idx beside each part is a 4 KB sidecar
# with the part's line count, learned_at range and a gram filter of its text. Sidecars are derived
# data: whenever one disagrees with its part it is rebuilt from the part.

import struct

from micropython import const

from memory import clock, fs, jsontext, statefile, steps
from memory.gramfilter import fold, keyword_positions
from memory.lines import LineReader

KINDS = ("fact", "moment", "event")
MAX_LIMIT = const(50)

_PART_BYTES = const(24576)  # a part is closed once it reaches this size
_IDX_BYTES = const(4096)  # one flash block: header + filter
_HEAD_BYTES = const(32)
_FILTER_BITS = const(32512)  # (_IDX_BYTES - _HEAD_BYTES) * 8
_RESERVE = const(65536)  # free space the archive leaves to everything else: at least this, or 5 %
_FLOOR = const(16384)  # free space no writer may take: LittleFS copy-on-write and metadata
_BLOCK = const(4096)
IDX_PIECE = const(1016)  # sidecar filter bytes built at a time (memory.archivewrite): a quarter
# Allocated with this module at boot, as archiving happens all day (each write into a full type)
# and a heap fragmented by then may have no free kilobyte left in one piece.
idx_piece = bytearray(IDX_PIECE)
_SLACK = const(65536)  # what a drop frees beyond the need, so free space is not measured at every write
_MAX_ID = const(0x7FFFFFFF)  # the hot store's ids (memory.nvstore.MAX_ID): an archived id is kept out of its way
_U32_MAX = const(0xFFFFFFFF)  # learned_at ranges are u32 in the sidecars
_MAGIC = b"XZA1"
_HEAD = "<4sIHHIIB"  # magic, bytes covered, lines, bad lines, min learned, max learned, sorted
# For memory.archivewrite: const() names with an underscore are no module attributes on MicroPython.
IDX_BYTES = _IDX_BYTES
HEAD_BYTES = _HEAD_BYTES
BLOCK = _BLOCK

# Fields each kind must carry, with their type (None: any JSON value but null).
_FIELDS = {
    "fact": (("content", str),),
    "moment": (("topic", str), ("content", str), ("emotion_type", int), ("emotion_intensity", int), ("importance", int)),
    "event": (("content", str), ("when", int), ("event_type", None), ("priority", int), ("repeat", None), ("completed", None)),
}
# Fields a keyword is looked for in.
_TEXT = {"fact": ("content",), "moment": ("topic", "content"), "event": ("content",)}


def _earlier(t1, until):
    """A recall's last second: end_date's, or `until` (Unix seconds) when that comes first."""
    if until is None:
        return t1
    if not _is_int(until) or until < 0:
        raise ValueError("until must be Unix seconds, got %r" % (until,))
    return until if t1 is None or until < t1 else t1


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_record(kind, rec):
    """None when `rec` is a well-formed record of `kind`, else what is wrong with it."""
    if not isinstance(rec, dict):
        return "record must be an object"
    rid = rec.get("id")
    if not (isinstance(rid, str) and rid) and not (_is_int(rid) and 0 <= rid <= _MAX_ID):
        return "id must be a non-empty string or an integer 0-%d, got %r" % (_MAX_ID, rid)
    if rec.get("type", kind) != kind:
        return "type must be %s, got %r" % (kind, rec.get("type"))
    t = rec.get("learned_at")
    if not _is_int(t) or not 0 <= t <= _U32_MAX:
        return "learned_at must be Unix seconds (0-%d), got %r" % (_U32_MAX, t)
    for name, typ in _FIELDS[kind]:
        v = rec.get(name)
        if v is None:
            return "%s needs field %s" % (kind, name)
        if typ is int and not _is_int(v) or typ is str and not isinstance(v, str):
            return "%s must be %s, got %r" % (name, "an integer" if typ is int else "a string", v)
    return None


def _month_number(name):
    """YYYYMM -> months since year 0, for counting months down."""
    return int(name[:4]) * 12 + int(name[4:]) - 1


def _month_span(name):
    """First and last Unix second (UTC) of the month named YYYYMM."""
    y, m = int(name[:4]), int(name[4:])
    start = clock.days_from_civil(y, m, 1) * 86400
    return start, start + clock.days_in_month(y, m) * 86400 - 1


def _check_kind(kind):
    if kind not in KINDS:
        raise ValueError("type must be one of fact, moment, event, got %r" % (kind,))


class Archive:
    """Append-only store of archived records; see the module header for the layout."""

    def __init__(self, root="/data/archive", part_bytes=_PART_BYTES, reserve_bytes=None, capacity=None,
                 floor_bytes=_FLOOR):
        self.root = root.rstrip("/")
        self.part_bytes = part_bytes
        # capacity: pretend the volume holds this many bytes (tests on a filesystem without limits)
        self.capacity = capacity
        total = self._total_bytes()
        if reserve_bytes is None:
            reserve_bytes = max(_RESERVE, total // 20)
        # The estimate of free space is trusted while it leaves this much on top (less on a small partition).
        self._slack = min(_SLACK, total // 8) if total else _SLACK
        self.reserve = reserve_bytes
        self.floor = floor_bytes
        self.refused = 0  # writes refused for want of room since boot
        self.reader = LineReader()  # recall's; suspended recall steps keep their place in it
        self._head = bytearray(_HEAD_BYTES)
        self._bit = bytearray(1)
        self._free_hint = None  # free bytes at the last statvfs, less what appends took since
        self.last = {}  # what the last recall read
        for kind in KINDS:
            statefile.folder(self.root + "/" + kind)
        self.repair()

    # ---- paths and listing

    def _mdir(self, kind, month):
        return "%s/%s/%s" % (self.root, kind, month)

    def _months(self, kind):
        names = [n for n in fs.listdir(self.root + "/" + kind) if len(n) == 6 and clock.ascii_digits(n)]
        names.sort()
        return names

    def _parts(self, mdir):
        nums = []
        for name in fs.listdir(mdir):
            if name.endswith(".jsonl"):
                try:
                    nums.append(int(name[:-6]))
                except ValueError:
                    pass  # not a part of ours
        nums.sort()
        return nums

    # ---- sidecars

    def _read_head(self, mdir, n, positions=None):
        """Header of part n as (covered, lines, bad, tmin, tmax, sorted, matches), or None.

        With `positions`, also probes the gram filter: matches is False when a bit is clear.
        Returns None when the sidecar is missing, damaged or behind its part.
        """
        try:
            f = fs.open("%s/%d.idx" % (mdir, n), "rb")
        except OSError:
            return None
        matches = True
        try:
            head = self._head
            if f.readinto(head) != _HEAD_BYTES:
                return None
            self.last["index_bytes"] = self.last.get("index_bytes", 0) + _HEAD_BYTES
            magic, covered, lines, bad, tmin, tmax, srt = struct.unpack_from(_HEAD, head, 0)
            if magic != _MAGIC:
                return None
            if positions:
                bit = self._bit
                for p in positions:
                    f.seek(_HEAD_BYTES + (p >> 3))
                    if f.readinto(bit) != 1:
                        return None
                    self.last["index_bytes"] += 1
                    if not bit[0] & (1 << (p & 7)):
                        matches = False
                        break
        finally:
            f.close()
        try:
            size = fs.stat("%s/%d.jsonl" % (mdir, n))[6]
        except OSError:
            return None
        if size != covered:
            return None
        return covered, lines, bad, tmin, tmax, srt, matches

    def _head_of(self, kind, mdir, n, positions=None):
        """_read_head, rebuilding the sidecar first when it is missing or stale."""
        h = self._read_head(mdir, n, positions)
        if h is None:
            _writer().reindex(self, kind, mdir, n)
            h = self._read_head(mdir, n, positions)
        return h

    # ---- state files

    def _load_json(self, name, check, default):
        return statefile.load(self.root + "/" + name, check, default)

    def _save_json(self, name, value):
        statefile.save(self.root + "/" + name, value)

    def _counters(self):
        c = self._load_json("stats.json", self._check_counters, None)
        return c or {"dropped_segments": 0, "dropped_records": 0, "dropping": None}

    def _is_month_dir(self, mdir, kind=None):
        """Whether `mdir` is ROOT/<kind>/<YYYYMM> (what journal and counters may name, nothing else)."""
        if not isinstance(mdir, str):
            return False
        for k in KINDS if kind is None else (kind,):
            head = "%s/%s/" % (self.root, k)
            month = mdir[len(head) :]
            if mdir.startswith(head) and len(month) == 6 and clock.ascii_digits(month):
                return True
        return False

    def _check_counters(self, c):
        if not isinstance(c, dict):
            return "not an object"
        for name in ("dropped_segments", "dropped_records"):
            if not statefile.is_int(c.get(name)):
                return "%s is not a count" % name
        d = c.get("dropping")
        if d is not None and not (isinstance(d, list) and len(d) == 2 and self._is_month_dir(d[0])
                                  and statefile.is_int(d[1])):
            return "dropping names no segment"
        return None

    # ---- crash repair

    def repair(self):
        """Finish what a power cut interrupted: undo an unfinished append, complete a drop."""
        for kind in KINDS:
            for month in self._months(kind):
                if not statefile.is_dir(self._mdir(kind, month)):
                    statefile.set_aside(self._mdir(kind, month), "a file where a month folder belongs")
        if fs.exists(self.root + "/journal.json") or self._counters().get("dropping"):
            _writer().repair(self)

    # ---- space

    def _total_bytes(self):
        if self.capacity is not None:
            return self.capacity
        try:
            st = fs.statvfs(self.root.rsplit("/", 1)[0] or "/")
        except OSError:
            return 0
        return st[0] * st[2]

    def free_bytes(self):
        if self.capacity is None:
            return fs.free_bytes(self.root)
        used = 0
        for kind in KINDS:
            for month in self._months(kind):
                mdir = self._mdir(kind, month)
                for name in fs.listdir(mdir):
                    used += (fs.stat(mdir + "/" + name)[6] + _BLOCK - 1) // _BLOCK * _BLOCK
        return self.capacity - used

    def make_room(self, need):
        """Make sure `need` bytes can be written outside the archive and still leave the floor free,
        dropping the oldest archive segments if it takes that. MemoryFull when even that is not enough."""
        if not self.has_room(need, self.floor):
            steps.finish(_writer().make_room_steps(self, need, [], self.floor, self.floor))

    def has_room(self, need, want):
        """Whether `need` more bytes still leave `want` free; if so they are counted as taken.

        statvfs walks the whole LittleFS: the estimate (the last answer less what was written
        since, deletions not counted) is trusted while it leaves `want`, and measured when not.
        """
        if self._free_hint is None or self._free_hint - need < want:
            free = self.free_bytes()
            if free - need < want:
                return False
            self._free_hint = free
        self._free_hint -= need
        return True

    def append(self, kind, items):
        """Archive `items` (records of `kind`); returns how many were new.

        All or nothing: on any error (bad record, no space, I/O) the archive is as before and
        the error says why. Records whose id is already archived are skipped (memory.archivewrite).
        """
        return steps.finish(self.append_steps(kind, items))

    def append_steps(self, kind, items):
        """append() as a generator (memory.steps): a step per segment checked for duplicates and
        per segment dropped to make room; the writing itself is one step."""
        return (yield from _writer().append_steps(self, kind, items))

    # ---- recall

    def count(self, kind):
        """Records of `kind` in the archive."""
        _check_kind(kind)
        total = 0
        for month in self._months(kind):
            mdir = self._mdir(kind, month)
            for n in self._parts(mdir):
                h = self._head_of(kind, mdir, n)
                total += h[1] if h else 0
        return total

    def recall(self, kind, keyword=None, start_date=None, end_date=None, limit=10, until=None):
        """Newest-first records of `kind` matching a keyword and/or a local date range, learned at or
        before `until` (Unix seconds) when given.

        Returns {"type", "count", "items"}; each item is the stored record plus "timestamp",
        the local ISO time it was learned. `self.last` tells what was read.
        """
        return steps.finish(self.recall_steps(kind, keyword, start_date, end_date, limit, until))

    def recall_steps(self, kind, keyword=None, start_date=None, end_date=None, limit=10, until=None):
        """recall() as a generator: yields before each segment probed, each line read and each
        item finished, and returns the reply (StopIteration.value). One at a time per Archive:
        the line buffer is shared."""
        _check_kind(kind)
        if not _is_int(limit) or not 1 <= limit <= MAX_LIMIT:
            raise ValueError("limit must be 1-%d, got %r" % (MAX_LIMIT, limit))
        t0 = t1 = None
        if start_date:
            t0 = clock.from_local(*clock.parse_date(start_date, "start_date"))
        if end_date:
            t1 = clock.from_local(*clock.parse_date(end_date, "end_date")) + 86399
        t1 = _earlier(t1, until)
        if t0 is not None and t1 is not None and t0 > t1:
            raise ValueError("start_date %s is after end_date %s" % (start_date, end_date))
        if keyword is not None and not isinstance(keyword, str):
            raise ValueError("keyword must be a string, got %r" % (keyword,))
        kw = fold(keyword.strip()) if keyword else ""
        positions = keyword_positions(kw, _FILTER_BITS) if kw else None
        ascii_letters = kw.encode().upper() != kw.encode()
        # A keyword that JSON writes as it is (no ASCII letters to fold, nothing escaped) can be
        # looked for in the raw line first: a line without its bytes is not parsed at all.
        raw = kw.encode() if kw and not ascii_letters and '"' not in kw and "\\" not in kw else None
        parsed = 0
        text = _TEXT[kind]
        reader = self.reader
        reader.bytes_read = reader.lines_read = 0
        self.last = {"index_bytes": 0, "segments_read": 0, "segments_probed": 0, "skipped": 0}
        best = []  # records, newest first, at most `limit`
        # Months are counted down from the newest folder rather than held as a list of names.
        months = self._months(kind)
        first = _month_number(months[0]) if months else 0
        ym = _month_number(months[-1]) if months else -1
        months = None
        while ym >= first:
            month = "%04d%02d" % (ym // 12, ym % 12 + 1)
            ym -= 1
            m0, m1 = _month_span(month)
            if t0 is not None and m1 < t0 or t1 is not None and m0 > t1:
                continue
            if len(best) == limit and m1 < best[-1]["learned_at"]:
                break
            mdir = self._mdir(kind, month)
            if not fs.exists(mdir):
                continue
            todo = []
            for n in self._parts(mdir):
                yield
                self.last["segments_probed"] += 1
                h = self._head_of(kind, mdir, n, positions)
                if not h or not h[1] or not h[6]:
                    continue
                if t0 is not None and h[4] < t0 or t1 is not None and h[3] > t1:
                    continue
                todo.append((h[4], n))
            todo.sort()
            for tmax, n in reversed(todo):
                if len(best) == limit and tmax < best[-1]["learned_at"]:
                    break
                self.last["segments_read"] += 1
                it = reader.lines("%s/%d.jsonl" % (mdir, n))
                try:
                    for mv in it:
                        yield
                        if raw is not None:
                            buf = reader.buf
                            if buf.find(raw, reader.start, reader.end) < 0 and buf.find(b"\\u", reader.start, reader.end) < 0:
                                continue
                        parsed += 1
                        try:
                            rec = jsontext.loads(mv)
                        except ValueError:
                            self.last["skipped"] += 1
                            continue
                        if check_record(kind, rec) is not None:
                            self.last["skipped"] += 1
                            continue
                        t = rec["learned_at"]
                        if t0 is not None and t < t0 or t1 is not None and t > t1:
                            continue
                        if len(best) == limit and t <= best[-1]["learned_at"]:
                            continue
                        if kw and not self._has(rec, text, kw, ascii_letters):
                            continue
                        self._insert(best, rec, limit)
                finally:
                    it.close()
        self.last["bytes_read"] = reader.bytes_read + self.last["index_bytes"]
        self.last["lines_read"] = reader.lines_read
        self.last["lines_parsed"] = parsed
        for rec in best:
            yield
            rec["timestamp"] = clock.iso_local(rec["learned_at"])
        return {"type": kind, "count": len(best), "items": best}

    @staticmethod
    def _has(rec, fields, kw, ascii_letters):
        for name in fields:
            # Without ASCII letters in the keyword, case cannot matter: skip the folded copy.
            if kw in (fold(rec[name]) if ascii_letters else rec[name]):
                return True
        return False

    @staticmethod
    def _insert(best, rec, limit):
        rid = rec["id"]
        t = rec["learned_at"]
        for other in best:
            if other["id"] == rid:
                return  # the same record archived twice: keep one
        i = len(best)
        while i > 0 and best[i - 1]["learned_at"] < t:
            i -= 1
        best.insert(i, rec)
        if len(best) > limit:
            best.pop()

    def stats(self):
        """Space and counts: bytes used, records per type, segments, drops, bad lines, free bytes."""
        return steps.finish(self.stats_steps())

    def stats_steps(self):
        """stats() as a generator (memory.steps): a step per month folder and per segment."""
        counts = {}
        used = segments = bad = 0
        for kind in KINDS:
            total = 0
            for month in self._months(kind):
                mdir = self._mdir(kind, month)
                yield
                for n in self._parts(mdir):
                    yield
                    h = self._head_of(kind, mdir, n)
                    if h:
                        segments += 1
                        total += h[1]
                        bad += h[2]
                        used += h[0] + _IDX_BYTES
            counts[kind] = total
        c = self._counters()
        yield
        return {
            "bytes": used,
            "counts": counts,
            "segments": segments,
            "dropped_segments": c["dropped_segments"],
            "dropped_records": c["dropped_records"],
            "bad_lines": bad,
            "free": self.free_bytes(),
            "reserve": self.reserve,
            "refused_full": self.refused,
        }


def _writer():
    # Appends, rebuilds, repairs and drops: loaded by the first of them, then kept.
    from memory import archivewrite

    return archivewrite
