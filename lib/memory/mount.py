# Mounts the `memory` partition's LittleFS at /data, formatting it only when it holds none.
#
# Not at /memory: MicroPython looks in / before /lib, so a /memory folder would hide the
# lib/memory package. A mount error other than "no filesystem here" is reported and the
# partition is left alone: formatting it would erase the archive.

import vfs
from micropython import const

DATA = "/data"
_EILSEQ = const(84)  # LittleFS's answer for a partition that was never formatted


def mount_data(partition, path=DATA):
    """Mount `partition` at `path`; returns "mounted", "formatted" or "error: ..."."""
    if partition is None:
        return "error: no partition labelled memory"
    status = "mounted"
    try:
        volume = vfs.VfsLfs2(partition)
    except OSError as e:
        if e.args[0] != _EILSEQ:
            return "error: cannot mount %s (OSError %s), partition left as it is" % (path, e.args[0])
        try:
            vfs.VfsLfs2.mkfs(partition)
            volume = vfs.VfsLfs2(partition)
        except OSError as e2:
            return "error: cannot format %s (OSError %s)" % (path, e2.args[0])
        status = "formatted"
    try:
        vfs.mount(volume, path)
    except OSError as e:
        return "error: cannot mount %s (OSError %s)" % (path, e.args[0])
    return status
