# Helpers for the archive tests: scratch directories, sample records, power cuts inside fs calls.

import os

from esp32 import PowerCut
from memory import clock, fs
from store_helpers import TMP

_serial = [0]
DAY = 86400


def scratch(name):
    """A fresh empty directory in the tests' scratch folder."""
    _serial[0] += 1
    path = "%s/xzarchive_%s_%d_%d" % (TMP, name, clock.now() % 100000, _serial[0])
    wipe(path)
    fs.makedirs(path)
    return path


def wipe(path):
    if not fs.exists(path):
        return
    if fs.stat(path)[0] & 0x4000:
        for name in fs.listdir(path):
            wipe(path + "/" + name)
        os.rmdir(path)
    else:
        fs.remove(path)


def at(date, hour=12):
    """Unix seconds of a UTC date 'YYYY-MM-DD' at `hour`."""
    y, m, d = clock.parse_date(date)
    return clock.days_from_civil(y, m, d) * DAY + hour * 3600


def fact(i, t, content=None):
    return {"id": "f%d" % i, "type": "fact", "learned_at": t, "content": content or "fact number %d" % i}


def moment(i, t, topic, content):
    return {"id": "m%d" % i, "type": "moment", "learned_at": t, "topic": topic, "content": content,
            "emotion_type": 1, "emotion_intensity": 4, "importance": 3}


def event(i, t, content):
    return {"id": "e%d" % i, "type": "event", "learned_at": t, "content": content, "when": t + DAY,
            "event_type": 1, "priority": 3, "repeat": "none", "completed": False}


def files(root, suffix):
    """Paths of every file under root ending with suffix."""
    out = []
    for name in fs.listdir(root):
        p = root + "/" + name
        if fs.stat(p)[0] & 0x4000:
            out.extend(files(p, suffix))
        elif name.endswith(suffix):
            out.append(p)
    out.sort()
    return out


class CutPower:
    """Patch fs so that the power goes off inside a chosen call; undo() restores fs."""

    def __init__(self):
        self._open, self._remove, self._rename = fs.open, fs.remove, fs.rename

    def undo(self):
        fs.open, fs.remove, fs.rename = self._open, self._remove, self._rename

    def during_append_write(self, keep):
        """The next append-mode write stores only its first `keep` bytes, then the power fails."""
        real = self._open

        class Torn:
            def __init__(self, f):
                self.f = f

            def write(self, data):
                self.f.write(bytes(data)[:keep])
                self.f.close()
                raise PowerCut("power cut during append")

            def close(self):
                self.f.close()

        def patched(path, mode="r"):
            f = real(path, mode)
            return Torn(f) if mode == "ab" else f

        fs.open = patched

    def at_remove(self, suffix):
        """Power fails instead of removing the next path ending with `suffix`."""
        real = self._remove

        def patched(path):
            if path.endswith(suffix):
                raise PowerCut("power cut removing %s" % path)
            real(path)

        fs.remove = patched
