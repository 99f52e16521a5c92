# File access for the memory package: the port's own filesystem, or a volume the simulator mounted.
#
# On a board, boot.py mounts the `memory` partition at /data with vfs and every call here is the
# builtin one. On CPython the simulator mounts a LittleFS image (littlefs-python) at /data through
# mount(); paths under that prefix go to the image. Anything else is the port's own filesystem.

import os

_builtin_open = open
_mounts = []  # [(prefix, volume)], registered by the simulator only


def mount(prefix, volume):
    """Route paths under `prefix` to `volume` (open, remove, rename, listdir, stat, statvfs, mkdir)."""
    umount(prefix)
    _mounts.append((prefix.rstrip("/"), volume))


def umount(prefix):
    prefix = prefix.rstrip("/")
    for i in range(len(_mounts) - 1, -1, -1):
        if _mounts[i][0] == prefix:
            _mounts.pop(i)


def _route(path):
    for prefix, volume in _mounts:
        if path == prefix:
            return volume, "/"
        if path.startswith(prefix) and path[len(prefix)] == "/":
            return volume, path[len(prefix) :]
    return None, path


def open(path, mode="r"):  # noqa: A001 - the module mirrors the builtin's name on purpose
    volume, p = _route(path)
    return volume.open(p, mode) if volume else _builtin_open(p, mode)


def remove(path):
    volume, p = _route(path)
    (volume or os).remove(p)


def rename(old, new):
    v1, p1 = _route(old)
    v2, p2 = _route(new)
    if v1 is not v2:
        raise OSError(18)  # EXDEV: rename across volumes
    (v1 or os).rename(p1, p2)


def listdir(path):
    volume, p = _route(path)
    return (volume or os).listdir(p)


def mkdir(path):
    volume, p = _route(path)
    (volume or os).mkdir(p)


def stat(path):
    """os.stat-shaped tuple: [0] mode (0x4000 for a directory), [6] size."""
    volume, p = _route(path)
    return (volume or os).stat(p)


def statvfs(path):
    """os.statvfs-shaped tuple: [0] block size, [2] blocks, [3] free blocks."""
    volume, p = _route(path)
    return (volume or os).statvfs(p)


def exists(path):
    try:
        stat(path)
        return True
    except OSError:
        return False


def makedirs(path):
    """mkdir -p."""
    cur = ""
    for part in path.split("/"):
        if not part:
            continue
        cur += "/" + part
        if not exists(cur):
            mkdir(cur)


def free_bytes(path):
    s = statvfs(path)
    return s[0] * s[3]
