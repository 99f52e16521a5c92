# Moving a hot store from layout 1 to layout 2, once, at boot (memory.storeload loads it when the
# old id counter "nid" is there or no counter is, and memory.store unloads it).
#
# Layout 1 kept one record per key "<old><n>" for the types below and events of 96 bytes; layout 2
# packs several records per key "<old>s<k>" (so NVS use stays under 30 %) and events are 104 bytes
# (event_type 16 B, emotion, intensity, significance). Every step survives a power cut:
# - a new key is written only from its old keys, and an old key is erased only once the new key
#   holding its slot is in NVS; where that new key exists, its old keys are stale and never read;
# - the new counter "ids" is written, then "nid" erased, only once no old key is left.
# The ack journal may still hold images of old keys (power lost before layout 1 flushed):
# take_image() puts them into their slots of the new tables, so no old key is written again.

import struct

from micropython import const

from memory.nvstore import _ID_KEY, ERASE_LEN, ERR_FULL, ERR_LENGTH, ERR_NOT_FOUND, MAX_ID, OLD_ID_KEY, _u32

# (table name, layout 1 key prefix)
_MOVED = (("family", "fm"), ("fact", "fa"), ("trait", "tr"), ("habit", "hb"), ("moment", "mo"), ("schedule", "ev"))
_OLD_EVENT_FMT = "<4I64s12s4B"
_OLD_EVENT_SIZE = const(96)
_OLD_MAX = const(160)  # the largest layout 1 record (a moment)


def migrate(nv):
    """Move every layout 1 key of `nv`'s namespace into layout 2. Returns the records moved."""
    nvs = nv._nvs
    try:
        old_top = nvs.get_i32(OLD_ID_KEY)
        counter = True
    except OSError as e:
        if e.args[0] != ERR_NOT_FOUND:
            raise
        old_top = 0
        counter = False
    buf = bytearray(_OLD_MAX)
    moved = left = 0
    for name, old in _MOVED:
        t = _table(nv, name)
        size = _OLD_EVENT_SIZE if name == "schedule" else t.size
        block = t.size * t.per_key
        done = []  # slots whose new key is in NVS: their old keys may go
        for k in range(t.keys()):
            if _exists(nvs, t.key(k)) and t.key(k) not in nv.corrupt:
                done.extend(range(k * t.per_key, (k + 1) * t.per_key))
                continue
            found = 0
            for s in range(k * t.per_key, (k + 1) * t.per_key):
                rid = _read_old(nv, t, old, s, buf, size)
                if rid:
                    found += 1
                    if rid > old_top:
                        old_top = rid
            if not found:
                continue
            try:
                nvs.set_blob(t.key(k), memoryview(t.buf)[k * block : (k + 1) * block])
            except OSError as e:
                if e.args[0] != ERR_FULL:
                    raise
                t.dirty[k] = 1  # the next flush tries again; the old keys stay until it has
                left += found
                continue
            moved += found
            done.extend(range(k * t.per_key, (k + 1) * t.per_key))
        nvs.commit()
        for s in done:
            if old + str(s) not in nv.corrupt:
                _erase(nvs, old + str(s))
        nvs.commit()
    if old_top >= nv.next_id:
        nv.next_id = old_top + 1
    nv.moving = left > 0
    if left or not (counter or moved):
        return moved
    nvs.set_i32(_ID_KEY, nv.next_id - 1)
    nv._saved_id = nv._logged_id = nv.next_id - 1
    nvs.commit()
    if counter:
        _erase(nvs, OLD_ID_KEY)
        nvs.commit()
    print("memory: moved %d records to NVS layout 2" % moved)
    return moved


def image_problem(nv, key, dlen, record):
    """What keeps a journal image of layout 1 key `key` from being taken (a record id past MAX_ID,
    which take_image() would drop), or None; reads past the image either way."""
    for name, old in _MOVED:
        p = len(old)
        if key[:p] != old or not key[p:].isdigit():
            continue
        if dlen == (_OLD_EVENT_SIZE if name == "schedule" else _table(nv, name).size):
            rid = struct.unpack("<I", record.read(4))[0]
            record.skip(dlen - 4)
            return "a record id past %d in %s" % (MAX_ID, key) if rid > MAX_ID else None
        break
    record.skip(dlen)
    return None


def take_image(nv, key, dlen, record):
    """Put a journal image of layout 1 key `key` (`dlen` bytes, or ERASE_LEN) from `record` into its
    slot; 1 when taken, 0 when `key` is no layout 1 key (its bytes are read past)."""
    for name, old in _MOVED:
        p = len(old)
        if key[:p] != old or not key[p:].isdigit():
            continue
        t = _table(nv, name)
        s = int(key[p:])
        size = _OLD_EVENT_SIZE if name == "schedule" else t.size
        if s >= t.cap or dlen != ERASE_LEN and dlen != size:
            break
        if dlen == ERASE_LEN:
            _clear(t, s)
        else:
            buf = bytearray(size)
            record.readinto(memoryview(buf))  # ids past MAX_ID were set aside (memory.storeload)
            _place(t, s, buf)
            if t.used[s] and _u32(buf, 0) >= nv.next_id:
                nv.next_id = _u32(buf, 0) + 1
        t.dirty[s // t.per_key] = 1
        return 1
    if dlen != ERASE_LEN:
        record.skip(dlen)
    return 0


def _read_old(nv, t, old, s, buf, size):
    """Layout 1 key `old`+s into slot s of `t`: the record's id, 0 when the key is missing or bad."""
    key = old + str(s)
    view = memoryview(buf)[:size]
    try:
        got = nv._nvs.get_blob(key, view)
    except OSError as e:
        if e.args[0] == ERR_NOT_FOUND:
            return 0
        if e.args[0] != ERR_LENGTH:
            raise
        got = -1
    rid = _u32(buf, 0)
    if got != size or not rid or rid > MAX_ID:
        nv.corrupt.append(key)
        return 0
    _place(t, s, view)
    return rid


def _place(t, s, data):
    """A layout 1 record into slot s: an event of 96 bytes is widened, the others are as they were."""
    start = s * t.size
    if len(data) == t.size:
        t.buf[start : start + t.size] = data
    else:
        i, learned, when, done_at, content, etype, repeat, anchor, prio, flags = struct.unpack(_OLD_EVENT_FMT, data)
        # A new event's emotion is neutral, its intensity and significance the middle of 1-5.
        struct.pack_into("<4I64s16s8B", t.buf, start, i, learned, when, done_at, content, etype, repeat, anchor,
                         prio, flags, 0, 3, 3, 0)
    t.used[s] = 1 if _u32(t.buf, start) else 0


def _clear(t, s):
    for i in range(s * t.size, (s + 1) * t.size):
        t.buf[i] = 0
    t.used[s] = 0


def _exists(nvs, key):
    try:
        nvs.get_blob(key, bytearray(0))
    except OSError as e:
        if e.args[0] == ERR_NOT_FOUND:
            return False
        if e.args[0] != ERR_LENGTH:
            raise
    return True


def _erase(nvs, key):
    try:
        nvs.erase_key(key)
    except OSError as e:
        if e.args[0] != ERR_NOT_FOUND:
            raise


def _table(nv, name):
    for t in nv.tables:
        if t.name == name:
            return t
    raise ValueError("no table %s" % name)
