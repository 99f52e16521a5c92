# State files on the memory partition: loaded by shape, a damaged one moved aside and reported.
#
# LittleFS checksums its metadata but not file data, so a file can read back as valid JSON of the
# wrong shape. Whatever is wrong with a state file, or a path of the wrong kind (a file where a
# folder belongs), is renamed to "<path>.bad" and listed in `moved` (for `stats` and the boot log);
# the caller starts from what remains. Nothing here stops a boot.

import json

from micropython import const

from memory import fs

_DIR = const(0x4000)
_MAX_BYTES = const(65536)  # a state file larger than this is damaged, not read into RAM

moved = []  # ["<path>: <what was wrong>", ...] since boot


def set_aside(path, problem):
    """Rename `path` to a free "<path>.bad" name and report it; returns the new name (None if stuck)."""
    target = path + ".bad"
    n = 1
    while fs.exists(target):
        target = "%s.bad%d" % (path, n)
        n += 1
    try:
        fs.rename(path, target)
    except OSError:
        target = None
        try:
            fs.remove(path)  # cannot be renamed: then at least it must not be read again
        except OSError:
            pass
    note = "%s: %s; %s" % (path, problem, "moved to " + target if target else "removed")
    moved.append(note)
    print("memory: state file", note)
    return target


def is_dir(path):
    try:
        return fs.stat(path)[0] & _DIR != 0
    except OSError:
        return False


def folder(path):
    """Make sure `path` is a folder: a file in its place (or in a parent's) is set aside first."""
    cur = ""
    for part in path.split("/"):
        if not part:
            continue
        cur += "/" + part
        if fs.exists(cur) and not is_dir(cur):
            set_aside(cur, "a file where a folder belongs")
        if not fs.exists(cur):
            fs.mkdir(cur)


def load(path, check, default=None):
    """The JSON value in `path` if check(value) returns None; otherwise set the file aside, return default.

    A missing file is `default` without a report; check(value) returns what is wrong, or None.
    """
    try:
        f = fs.open(path)
    except OSError:
        if is_dir(path):
            set_aside(path, "a folder where a file belongs")
        return default
    try:
        try:
            text = f.read(_MAX_BYTES + 1)
        finally:
            f.close()
        if len(text) > _MAX_BYTES:
            problem = "larger than %d bytes" % _MAX_BYTES
        else:
            value = json.loads(text)
            problem = check(value)
            if problem is None:
                return value
    except (ValueError, UnicodeError, MemoryError):
        problem = "not JSON"
    except OSError:
        problem = "unreadable"
    set_aside(path, problem)
    return default


def save(path, value):
    """Write `value` as JSON: a new file renamed over the old, so a power cut leaves one or the other."""
    tmp = path + ".tmp"
    with fs.open(tmp, "w") as f:
        f.write(json.dumps(value))
    fs.rename(tmp, path)


def is_int(value, lo=0):
    return isinstance(value, int) and not isinstance(value, bool) and value >= lo

