# Deep memory: the JSONL archive on the `memory` partition, with recall, counts and crash repair.
#
# Layout (docs/storage.md): ROOT/<kind>/<YYYYMM>/<n>.jsonl holds the records of one kind learned
# in one UTC month, split into parts of about 24 KB; <n>.idx beside each part is a 4 KB sidecar
# with the part's line count, learned_at range and a gram filter of its text. Sidecars are derived
# data: whenever one disagrees with its part it is rebuilt from the part.

import json
import struct

from micropython import const

from memory import clock, fs, jsontext, statefile, steps
from memory.gramfilter import GramFilter, fold, keyword_positions
from memory.lines import LineReader, ends_with_newline
from memory.space import MemoryFull, dropped_note, explain

KINDS = ("fact", "moment", "event")
MAX_LIMIT = const(50)

_PART_BYTES = const(24576)  # a part is closed once it reaches this size
_IDX_BYTES = const(4096)  # one flash block: header + filter
_HEAD_BYTES = const(32)
_FILTER_BITS = const(32512)  # (_IDX_BYTES - _HEAD_BYTES) * 8
_RESERVE = const(65536)  # free space the archive leaves to everything else: at least this, or 5 %
_FLOOR = const(16384)  # free space no writer may take: LittleFS copy-on-write and metadata
_BLOCK = const(4096)
_SLACK = const(65536)  # what a drop frees beyond the need, so free space is not measured at every write
_COPY = const(512)
_SIDE_BUF = const(512)  # repairs and duplicate checks read with their own buffer, not recall's
_MAGIC = b"XZA1"
_HEAD = "<4sIHHIIB"  # magic, bytes covered, lines, bad lines, min learned, max learned, sorted

# Fields each kind must carry, with their type (None: any JSON value but null).
_FIELDS = {
    "fact": (("content", str),),
    "moment": (("topic", str), ("content", str), ("emotion_type", int), ("emotion_intensity", int), ("importance", int)),
    "event": (("content", str), ("when", int), ("event_type", None), ("priority", int), ("repeat", None), ("completed", None)),
}
# Fields a keyword is looked for in.
_TEXT = {"fact": ("content",), "moment": ("topic", "content"), "event": ("content",)}


def _loads(mv):
    try:
        return json.loads(mv)
    except TypeError:  # CPython's json does not take a memoryview
        return json.loads(bytes(mv))


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_record(kind, rec):
    """None when `rec` is a well-formed record of `kind`, else what is wrong with it."""
    if not isinstance(rec, dict):
        return "record must be an object"
    rid = rec.get("id")
    if not (isinstance(rid, str) and rid) and not _is_int(rid):
        return "id must be a non-empty string or an integer, got %r" % (rid,)
    if rec.get("type", kind) != kind:
        return "type must be %s, got %r" % (kind, rec.get("type"))
    t = rec.get("learned_at")
    if not _is_int(t) or t < 0:
        return "learned_at must be Unix seconds, got %r" % (t,)
    for name, typ in _FIELDS[kind]:
        v = rec.get(name)
        if v is None:
            return "%s needs field %s" % (kind, name)
        if typ is int and not _is_int(v) or typ is str and not isinstance(v, str):
            return "%s must be %s, got %r" % (name, "an integer" if typ is int else "a string", v)
    return None


def _month(t):
    y, m = clock.parts(t)[:2]
    return "%04d%02d" % (y, m)


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
            self._reindex(kind, mdir, n)
            h = self._read_head(mdir, n, positions)
        return h

    def _reindex(self, kind, mdir, n):
        """Rebuild part n's sidecar from the part, cutting off a torn last line first."""
        path = "%s/%d.jsonl" % (mdir, n)
        size = fs.stat(path)[6]
        if not ends_with_newline(path, size):
            size = self._last_newline(path, size)
            self._truncate(path, size)
        buf = bytearray(_IDX_BYTES)
        flt = GramFilter(memoryview(buf)[_HEAD_BYTES:])
        lines = bad = tmax = srt = 0
        tmin = 0xFFFFFFFF
        srt = 1
        text = _TEXT[kind]
        it = LineReader(_SIDE_BUF).lines(path)
        try:
            for mv in it:
                try:
                    rec = _loads(mv)
                except ValueError:
                    bad += 1
                    continue
                if check_record(kind, rec) is not None:
                    bad += 1
                    continue
                t = rec["learned_at"]
                if lines and t < tmax:
                    srt = 0
                lines += 1
                tmin = t if t < tmin else tmin
                tmax = t if t > tmax else tmax
                for name in text:
                    flt.add_text(fold(rec[name]))
        finally:
            it.close()
        if not lines:
            tmin = 0
        struct.pack_into(_HEAD, buf, 0, _MAGIC, size, lines, bad, tmin, tmax, srt)
        self._write_idx(mdir, n, buf)

    def _write_idx(self, mdir, n, buf):
        path = "%s/%d.idx" % (mdir, n)
        tmp = path + ".tmp"
        f = fs.open(tmp, "wb")
        try:
            f.write(buf)
        finally:
            f.close()
        fs.rename(tmp, path)

    def _last_newline(self, path, size):
        """Length of the file's prefix that ends with its last newline (0 if it has none)."""
        f = fs.open(path, "rb")
        try:
            chunk = bytearray(_COPY)
            end = size
            while end > 0:
                start = end - _COPY if end > _COPY else 0
                f.seek(start)
                got = f.readinto(memoryview(chunk)[: end - start])
                i = bytes(chunk[:got]).rfind(b"\n")
                if i >= 0:
                    return start + i + 1
                end = start
        finally:
            f.close()
        return 0

    def _truncate(self, path, size):
        """Keep the first `size` bytes of a file: copy them and rename over it (no truncate on boards)."""
        tmp = path + ".tmp"
        src = fs.open(path, "rb")
        try:
            dst = fs.open(tmp, "wb")
            try:
                chunk = bytearray(_COPY)
                mv = memoryview(chunk)
                left = size
                while left > 0:
                    got = src.readinto(mv[: _COPY if left > _COPY else left])
                    if not got:
                        break
                    dst.write(mv[:got])
                    left -= got
            finally:
                dst.close()
        finally:
            src.close()
        fs.rename(tmp, path)

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

    def _check_journal(self, plan):
        if not isinstance(plan, list):
            return "not a list"
        for entry in plan:
            if not (isinstance(entry, list) and len(entry) == 4 and entry[0] in KINDS
                    and self._is_month_dir(entry[1], entry[0]) and statefile.is_int(entry[2])
                    and statefile.is_int(entry[3])):
                return "an entry is not [kind, month folder, part, bytes]"
        return None

    # ---- crash repair

    def repair(self):
        """Finish what a power cut interrupted: undo an unfinished append, complete a drop."""
        for kind in KINDS:
            for month in self._months(kind):
                if not statefile.is_dir(self._mdir(kind, month)):
                    statefile.set_aside(self._mdir(kind, month), "a file where a month folder belongs")
        plan = self._load_json("journal.json", self._check_journal, None)
        if plan is not None:
            self._rollback(plan)
        c = self._counters()
        if c.get("dropping"):
            self._remove_part(c["dropping"][0], c["dropping"][1])
            c["dropping"] = None
            self._save_json("stats.json", c)

    def _rollback(self, plan):
        """Put every part an append touched back to its size before the append."""
        for kind, mdir, n, old in plan:
            path = "%s/%d.jsonl" % (mdir, n)
            if not fs.exists(path):
                continue
            if old == 0:
                self._remove_part(mdir, n)
                continue
            if fs.stat(path)[6] != old:
                self._truncate(path, old)
            self._reindex(kind, mdir, n)
        try:
            fs.remove(self.root + "/journal.json")
        except OSError:
            pass

    def _remove_part(self, mdir, n):
        for suffix in (".idx", ".idx.tmp", ".jsonl.tmp", ".jsonl"):
            try:
                fs.remove("%s/%d%s" % (mdir, n, suffix))
            except OSError:
                pass
        if not fs.listdir(mdir):
            try:
                fs.remove(mdir)  # LittleFS removes an empty directory; elsewhere it stays
            except OSError:
                pass

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

    def _oldest(self, keep):
        """(kind, month dir, part) of the oldest part not in `keep` [(month dir, part)], or None."""
        best = None
        for kind in KINDS:
            for month in self._months(kind):
                if best is not None and month >= best[0]:
                    break
                mdir = self._mdir(kind, month)
                parts = [n for n in self._parts(mdir) if (mdir, n) not in keep]
                if parts:
                    best = (month, kind, mdir, parts[0])
                    break
        return best and best[1:]

    def _drop(self, kind, mdir, n):
        """Remove one segment, counting it first; returns (records it held, bytes it took on flash)."""
        h = self._head_of(kind, mdir, n)
        records = h[1] if h else 0
        try:
            size = fs.stat("%s/%d.jsonl" % (mdir, n))[6]
        except OSError:
            size = 0
        freed = (size + _BLOCK - 1) // _BLOCK * _BLOCK + _IDX_BYTES
        c = self._counters()
        c["dropped_segments"] += 1
        c["dropped_records"] += records
        c["dropping"] = [mdir, n]
        self._save_json("stats.json", c)
        self._remove_part(mdir, n)
        c["dropping"] = None
        self._save_json("stats.json", c)
        return records, freed

    def make_room(self, need):
        """Make sure `need` bytes can be written outside the archive and still leave the floor free,
        dropping the oldest archive segments if it takes that. MemoryFull when even that is not enough."""
        steps.finish(self._make_room(need, [], self.floor, self.floor))

    def _make_room(self, need, keep, want, least):
        """Drop the oldest segments (not those in `keep`) until `need` bytes leave `want` free; with
        nothing left to drop, settle for `least`. Returns the segments dropped. A generator of steps
        (memory.steps): a step per segment dropped."""
        want = want if want > least else least
        # statvfs walks the whole LittleFS: the estimate (the last answer less what was written
        # since, deletions not counted) is trusted while it leaves `want`.
        if self._free_hint is not None and self._free_hint - need >= want:
            self._free_hint -= need
            return 0
        free = self.free_bytes()
        segments = records = 0
        if free - need < want:
            # Drop a slack more than needed, so the next writes do not have to measure again.
            while free < need + want + self._slack:
                victim = self._oldest(keep)
                if victim is None:
                    break
                yield
                got, freed = self._drop(*victim)
                records += got
                segments += 1
                free += freed  # counted, not measured
            if segments:
                free = self.free_bytes()
        if free < need + least:
            self._free_hint = None
            self.refused += 1
            raise MemoryFull("the memory is full: %d bytes are needed and %d are free%s; nothing was stored"
                             % (need + least, free if free > 0 else 0, dropped_note(segments, records)))
        self._free_hint = free - need
        return segments

    # ---- append

    def append(self, kind, items):
        """Archive `items` (records of `kind`); returns how many were new.

        All or nothing: on any error (bad record, no space, I/O) the archive is as before and
        the error says why. Records whose id is already archived are skipped.
        """
        return steps.finish(self.append_steps(kind, items))

    def append_steps(self, kind, items):
        """append() as a generator (memory.steps): a step per segment checked for duplicates and
        per segment dropped to make room; the writing itself is one step."""
        _check_kind(kind)
        now = clock.now()
        groups = {}  # month -> [(id, learned_at, line bytes)]
        seen = []
        for i, item in enumerate(items):
            err = check_record(kind, item)
            if err:
                raise ValueError("%s %d: %s" % (kind, i, err))
            if item["id"] in seen:
                continue
            seen.append(item["id"])
            rec = dict(item)
            rec["type"] = kind
            if not _is_int(rec.get("archived_at")):
                rec["archived_at"] = now  # a line restored from an export keeps its first archive time
            t = rec["learned_at"]
            groups.setdefault(_month(t), []).append((rec["id"], t, (jsontext.dumps(rec) + "\n").encode()))
        plan = []  # [kind, month dir, part, bytes before]: the journal
        chunks = []  # the lines going to each part of the plan
        need = 0
        keep = []
        for month in sorted(groups):
            mdir = self._mdir(kind, month)
            group = yield from self._drop_archived(kind, mdir, groups[month])
            if not group:
                continue
            fs.makedirs(mdir)
            parts = self._parts(mdir)
            n = parts[-1] if parts else 0
            keep.append((mdir, n))
            size = fs.stat("%s/%d.jsonl" % (mdir, n))[6] if parts else 0
            chunk = None
            for g in group:
                if chunk is None or size >= self.part_bytes:
                    if size >= self.part_bytes:
                        n, size = n + 1, 0
                    chunk = []
                    plan.append([kind, mdir, n, size])
                    chunks.append(chunk)
                    need += _IDX_BYTES + _BLOCK  # its sidecar, and a block rewritten or begun
                chunk.append(g)
                size += len(g[2])
                need += len(g[2])
        if not plan:
            return 0
        yield from self._make_room(need, keep, self.reserve, self.floor)
        yield
        self._save_json("journal.json", plan)
        added = 0
        try:
            for i, entry in enumerate(plan):  # no step inside: an append is undone only by its own rollback
                mdir, n = entry[1], entry[2]
                f = fs.open("%s/%d.jsonl" % (mdir, n), "ab")
                try:
                    for g in chunks[i]:
                        f.write(g[2])
                finally:
                    f.close()
                self._index_append(kind, mdir, n, entry[3], chunks[i])
                added += len(chunks[i])
        except OSError as e:
            self._free_hint = None
            self._rollback(plan)
            if e.args and e.args[0] in (28, -28):
                self.refused += 1
                raise MemoryFull("the memory is full; nothing was stored")
            raise OSError("archive append failed, nothing archived: " + explain(e))
        fs.remove(self.root + "/journal.json")
        return added

    def _drop_archived(self, kind, mdir, group):
        """The entries of `group` whose id is not yet in the month's parts (a generator of steps)."""
        if not fs.exists(mdir):
            return group
        tmin = min(g[1] for g in group)
        tmax = max(g[1] for g in group)
        ids = [g[0] for g in group]
        found = []
        for n in self._parts(mdir):
            yield
            h = self._head_of(kind, mdir, n)
            if not h or not h[1] or h[4] < tmin or h[3] > tmax:
                continue
            it = LineReader(_SIDE_BUF).lines("%s/%d.jsonl" % (mdir, n))
            try:
                for mv in it:
                    try:
                        rid = _loads(mv).get("id")
                    except (ValueError, AttributeError):
                        continue
                    if rid in ids and rid not in found:
                        found.append(rid)
            finally:
                it.close()
        return [g for g in group if g[0] not in found]

    def _index_append(self, kind, mdir, n, old, group):
        """Add the records just appended to part n (which had `old` bytes) to its sidecar."""
        buf = bytearray(_IDX_BYTES)
        lines = bad = tmin = tmax = 0
        srt = 1
        if old:
            try:
                f = fs.open("%s/%d.idx" % (mdir, n), "rb")
                try:
                    f.readinto(buf)
                finally:
                    f.close()
            except OSError:
                pass
            magic, covered, lines, bad, tmin, tmax, srt = struct.unpack_from(_HEAD, buf, 0)
            if magic != _MAGIC or covered != old:
                self._reindex(kind, mdir, n)  # the sidecar was behind already: rebuild it whole
                return
        flt = GramFilter(memoryview(buf)[_HEAD_BYTES:])
        text = _TEXT[kind]
        size = old
        for _, t, line in group:
            rec = json.loads(line)
            if lines and t < tmax:
                srt = 0
            if not lines:
                tmin = tmax = t
            tmin = t if t < tmin else tmin
            tmax = t if t > tmax else tmax
            lines += 1
            size += len(line)
            for name in text:
                flt.add_text(fold(rec[name]))
        struct.pack_into(_HEAD, buf, 0, _MAGIC, size, lines, bad, tmin, tmax, srt)
        self._write_idx(mdir, n, buf)

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

    def recall(self, kind, keyword=None, start_date=None, end_date=None, limit=10):
        """Newest-first records of `kind` matching a keyword and/or a local date range.

        Returns {"type", "count", "items"}; each item is the stored record plus "timestamp",
        the local ISO time it was learned. `self.last` tells what was read.
        """
        return steps.finish(self.recall_steps(kind, keyword, start_date, end_date, limit))

    def recall_steps(self, kind, keyword=None, start_date=None, end_date=None, limit=10):
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
                            rec = _loads(mv)
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
