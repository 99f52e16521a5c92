# Writing the archive (memory.archive): append, sidecar rebuilds, crash repair, dropping old segments.
#
# Recall and counts need none of this: memory.archive loads it on the first append, repair, rebuild
# or drop, so a device that only reads its archive never holds this code in RAM.

import json
import struct

from micropython import const

from memory import archive, clock, fs, jsontext, statefile
from memory.archive import _HEAD, _MAGIC, _TEXT, KINDS, _check_kind, _is_int, check_record
from memory.gramfilter import GramFilter, fold
from memory.lines import LineReader, ends_with_newline
from memory.space import MemoryFull, dropped_note, explain

_COPY = const(512)
_SIDE_BUF = const(512)  # repairs and duplicate checks read with their own buffer, not recall's
_FILTER_BYTES = const(4064)  # a sidecar's filter: archive.IDX_BYTES less its header
_PIECE = archive.IDX_PIECE  # filter bytes built at a time: a quarter, so no buffer reaches 1 KB


def _month(t):
    y, m = clock.parts(t)[:2]
    return "%04d%02d" % (y, m)


def repair(a):
    """Undo an append a power cut interrupted; complete a drop it interrupted."""
    plan = a._load_json("journal.json", lambda p: _check_journal(a, p), None)
    if plan is not None:
        _rollback(a, plan)
    c = a._counters()
    if c.get("dropping"):
        _remove_part(a, c["dropping"][0], c["dropping"][1])
        c["dropping"] = None
        a._save_json("stats.json", c)


def reindex(a, kind, mdir, n):
    """Rebuild part n's sidecar from the part, cutting off a torn last line first."""
    path = "%s/%d.jsonl" % (mdir, n)
    size = fs.stat(path)[6]
    if not ends_with_newline(path, size):
        size = _last_newline(a, path, size)
        _truncate(a, path, size)
    text = _TEXT[kind]
    head = [size, 0, 0, 0xFFFFFFFF, 0, 1]  # covered bytes, lines, bad lines, tmin, tmax, sorted

    def add(flt):
        count = flt.first == 0  # the header's figures are counted on the first pass only
        it = LineReader(_SIDE_BUF).lines(path)
        try:
            for mv in it:
                try:
                    rec = jsontext.loads(mv)
                except ValueError:
                    rec = None
                if rec is None or check_record(kind, rec) is not None:
                    if count:
                        head[2] += 1
                    continue
                if count:
                    t = rec["learned_at"]
                    if head[1] and t < head[4]:
                        head[5] = 0
                    head[1] += 1
                    head[3] = t if t < head[3] else head[3]
                    head[4] = t if t > head[4] else head[4]
                for name in text:
                    flt.add_text(fold(rec[name]))
        finally:
            it.close()
        if not head[1]:
            head[3] = 0

    _write_idx(mdir, n, head, False, add)


def _write_idx(mdir, n, head, keep, add):
    """Write part n's sidecar: its filter a piece at a time, then the header from `head`.

    Each piece starts from the old sidecar's bytes when `keep`, else from zeros; `add(flt)` adds
    the text that belongs in it. No buffer over _PIECE bytes is needed, so a long-running device
    with a fragmented heap can still archive.
    """
    path = "%s/%d.idx" % (mdir, n)
    tmp = path + ".tmp"
    piece = archive.idx_piece  # nothing else runs while it is in use: no await in here
    src = fs.open(path, "rb") if keep else None
    try:
        f = fs.open(tmp, "wb")
        try:
            f.write(bytes(archive.HEAD_BYTES))
            for first in range(0, _FILTER_BYTES, _PIECE):
                got = 0
                if src is not None:
                    src.seek(archive.HEAD_BYTES + first)
                    got = src.readinto(piece) or 0
                for i in range(got, _PIECE):
                    piece[i] = 0
                add(GramFilter(piece, _FILTER_BYTES * 8, first * 8))
                f.write(piece)
            f.seek(0)
            f.write(struct.pack(_HEAD, _MAGIC, head[0], head[1], head[2], head[3], head[4], head[5]))
        finally:
            f.close()
    finally:
        if src is not None:
            src.close()
    fs.rename(tmp, path)


def _last_newline(a, path, size):
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


def _truncate(a, path, size):
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


def _check_journal(a, plan):
    if not isinstance(plan, list):
        return "not a list"
    for entry in plan:
        if not (isinstance(entry, list) and len(entry) == 4 and entry[0] in KINDS
                and a._is_month_dir(entry[1], entry[0]) and statefile.is_int(entry[2])
                and statefile.is_int(entry[3])):
            return "an entry is not [kind, month folder, part, bytes]"
    return None


def _rollback(a, plan):
    """Put every part an append touched back to its size before the append."""
    for kind, mdir, n, old in plan:
        path = "%s/%d.jsonl" % (mdir, n)
        if not fs.exists(path):
            continue
        if old == 0:
            _remove_part(a, mdir, n)
            continue
        if fs.stat(path)[6] != old:
            _truncate(a, path, old)
        reindex(a, kind, mdir, n)
    try:
        fs.remove(a.root + "/journal.json")
    except OSError:
        pass


def _remove_part(a, mdir, n):
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


def _oldest(a, keep):
    """(kind, month dir, part) of the oldest part not in `keep` [(month dir, part)], or None."""
    best = None
    for kind in KINDS:
        for month in a._months(kind):
            if best is not None and month >= best[0]:
                break
            mdir = a._mdir(kind, month)
            parts = [n for n in a._parts(mdir) if (mdir, n) not in keep]
            if parts:
                best = (month, kind, mdir, parts[0])
                break
    return best and best[1:]


def _drop(a, kind, mdir, n):
    """Remove one segment, counting it first; returns (records it held, bytes it took on flash)."""
    h = a._head_of(kind, mdir, n)
    records = h[1] if h else 0
    try:
        size = fs.stat("%s/%d.jsonl" % (mdir, n))[6]
    except OSError:
        size = 0
    freed = (size + archive.BLOCK - 1) // archive.BLOCK * archive.BLOCK + archive.IDX_BYTES
    c = a._counters()
    c["dropped_segments"] += 1
    c["dropped_records"] += records
    c["dropping"] = [mdir, n]
    a._save_json("stats.json", c)
    _remove_part(a, mdir, n)
    c["dropping"] = None
    a._save_json("stats.json", c)
    return records, freed


def make_room_steps(a, need, keep, want, least):
    """Drop the oldest segments (not those in `keep`) until `need` bytes leave `want` free; with
    nothing left to drop, settle for `least`. Returns the segments dropped. A generator of steps
    (memory.steps): a step per segment dropped."""
    want = want if want > least else least
    if a.has_room(need, want):
        return 0
    free = a.free_bytes()
    segments = records = 0
    if free - need < want:
        # Drop a slack more than needed, so the next writes do not have to measure again.
        while free < need + want + a._slack:
            victim = _oldest(a, keep)
            if victim is None:
                break
            yield
            got, freed = _drop(a, *victim)
            records += got
            segments += 1
            free += freed  # counted, not measured
        if segments:
            free = a.free_bytes()
    if free < need + least:
        a._free_hint = None
        a.refused += 1
        raise MemoryFull("the memory is full: %d bytes are needed and %d are free%s; nothing was stored"
                         % (need + least, free if free > 0 else 0, dropped_note(segments, records)), records)
    a._free_hint = free - need
    return segments


def append_steps(a, kind, items):
    """Archive.append_steps(): see there."""
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
        mdir = a._mdir(kind, month)
        group = yield from _drop_archived(a, kind, mdir, groups[month])
        if not group:
            continue
        fs.makedirs(mdir)
        parts = a._parts(mdir)
        n = parts[-1] if parts else 0
        keep.append((mdir, n))
        size = fs.stat("%s/%d.jsonl" % (mdir, n))[6] if parts else 0
        chunk = None
        for g in group:
            if chunk is None or size >= a.part_bytes:
                if size >= a.part_bytes:
                    n, size = n + 1, 0
                chunk = []
                plan.append([kind, mdir, n, size])
                chunks.append(chunk)
                need += archive.IDX_BYTES + archive.BLOCK  # its sidecar, and a block rewritten or begun
            chunk.append(g)
            size += len(g[2])
            need += len(g[2])
    if not plan:
        return 0
    yield from make_room_steps(a, need, keep, a.reserve, a.floor)
    yield
    a._save_json("journal.json", plan)
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
            _index_append(a, kind, mdir, n, entry[3], chunks[i])
            added += len(chunks[i])
    except OSError as e:
        a._free_hint = None
        _rollback(a, plan)
        if e.args and e.args[0] in (28, -28):
            a.refused += 1
            raise MemoryFull("the memory is full; nothing was stored")
        raise OSError("archive append failed, nothing archived: " + explain(e))
    fs.remove(a.root + "/journal.json")
    return added


def _drop_archived(a, kind, mdir, group):
    """The entries of `group` whose id is not yet in the month's parts (a generator of steps)."""
    if not fs.exists(mdir):
        return group
    tmin = min(g[1] for g in group)
    tmax = max(g[1] for g in group)
    ids = [g[0] for g in group]
    found = []
    for n in a._parts(mdir):
        yield
        h = a._head_of(kind, mdir, n)
        if not h or not h[1] or h[4] < tmin or h[3] > tmax:
            continue
        it = LineReader(_SIDE_BUF).lines("%s/%d.jsonl" % (mdir, n))
        try:
            for mv in it:
                try:
                    rid = jsontext.loads(mv).get("id")
                except (ValueError, AttributeError):
                    continue
                if rid in ids and rid not in found:
                    found.append(rid)
        finally:
            it.close()
    return [g for g in group if g[0] not in found]


def _index_append(a, kind, mdir, n, old, group):
    """Add the records just appended to part n (which had `old` bytes) to its sidecar."""
    head = [old, 0, 0, 0, 0, 1]  # covered bytes, lines, bad lines, tmin, tmax, sorted
    if old:
        got = b""
        try:
            f = fs.open("%s/%d.idx" % (mdir, n), "rb")
            try:
                got = f.read(archive.HEAD_BYTES)
            finally:
                f.close()
        except OSError:
            pass
        if len(got) < archive.HEAD_BYTES:
            got = bytes(archive.HEAD_BYTES)
        magic, covered, head[1], head[2], head[3], head[4], head[5] = struct.unpack_from(_HEAD, got, 0)
        if magic != _MAGIC or covered != old:
            reindex(a, kind, mdir, n)  # the sidecar was behind already: rebuild it whole
            return
    texts = []
    for _, t, line in group:
        rec = json.loads(line)
        if head[1] and t < head[4]:
            head[5] = 0
        if not head[1]:
            head[3] = head[4] = t
        head[3] = t if t < head[3] else head[3]
        head[4] = t if t > head[4] else head[4]
        head[1] += 1
        head[0] += len(line)
        for name in _TEXT[kind]:
            texts.append(fold(rec[name]))

    def add(flt):
        for text in texts:
            flt.add_text(text)

    _write_idx(mdir, n, head, bool(old), add)
