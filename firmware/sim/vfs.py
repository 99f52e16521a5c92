# Simulated vfs module for CPython: VfsLfs2 on a block device, mounted into memory.fs.
#
# MicroPython has vfs built in (and it wins over this file there); on CPython this lets the same
# boot.py mount the `memory` partition, with LittleFS done by littlefs-python (see lfsvolume).

import errno

import lfsvolume
from memory import fs

_mounted = {}  # path -> VfsLfs2


class VfsLfs2:
    """vfs.VfsLfs2(bdev): mounting fails with OSError(84) on a partition that holds no LittleFS."""

    def __init__(self, bdev, readsize=32, progsize=32, lookahead=32, mtime=True):
        self.volume = lfsvolume.LfsVolume(bdev)

    @staticmethod
    def mkfs(bdev, readsize=32, progsize=32, lookahead=32):
        lfsvolume.mkfs(bdev)


def mount(obj, path, readonly=False):
    path = path.rstrip("/") or "/"
    if path in _mounted:
        raise OSError(errno.EPERM, "%s is already mounted" % path)
    _mounted[path] = obj
    fs.mount(path, obj.volume)


def umount(path):
    path = path.rstrip("/") or "/"
    obj = _mounted.pop(path, None)
    if obj is None:
        raise OSError(errno.EINVAL, "%s is not mounted" % path)
    fs.umount(path)
    obj.volume.unmount()
