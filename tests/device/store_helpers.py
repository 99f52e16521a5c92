# Shared pieces of the hot-store tests: a fake clock, a fake archive, a fresh NVS, a store filled up.

import os

import esp32
from memory.store import Event, Store


def _scratch_dir():
    """Where tests keep their files: on CPython one folder per process, since checkouts test at once."""
    if not hasattr(os, "getpid"):
        return "/tmp" if "tmp" in os.listdir("/") else "."  # MicroPython: the port's own in-memory files
    import atexit
    import shutil
    import tempfile

    path = tempfile.mkdtemp(prefix="xzmem-device-tests-")
    atexit.register(shutil.rmtree, path, True)
    return path


TMP = _scratch_dir()
T0 = 1767225600  # 2026-01-01 00:00 UTC
DAY = 86400


class Clock:
    def __init__(self, t=T0):
        self.t = t

    def __call__(self):
        return self.t


class FakeArchive:
    """Keeps what it is given; `fail` makes append raise as a full or broken archive would."""

    def __init__(self):
        self.items = []
        self.calls = []
        self.fail = None

    def append_steps(self, kind, items):
        # The store runs the archive's append as steps (memory.steps): one step here.
        yield
        if self.fail is not None:
            raise self.fail
        self.calls.append((kind, len(items)))
        self.items.extend(items)


def remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def fresh_nvs(path=None, reserve=200):
    if path:
        remove(path)
        remove(path + ".tmp")
    return esp32.configure_nvs(path, reserve=reserve)


def fill_every_type(store, text_bytes=None):
    """Every type at capacity, with text at full field width (multi-byte characters)."""

    def txt(prefix, i, width):
        base = "%s%d " % (prefix, i)
        return base + "记" * ((width - len(base)) // 3 + 1)  # one character too many: cut at its start

    store.write("name", {"content": txt("n", 0, 32)})
    store.write("age", {"content": 30})
    store.write("gender", {"content": "female"})
    store.write("location", {"content": txt("l", 0, 32)})
    store.write("birthday", {"content": "1996-03-15"})
    for i in range(8):
        store.write("like", {"content": txt("like", i, 31)})
        store.write("dislike", {"content": txt("dis", i, 31)})
        store.write("family", {"relation": txt("r", i, 23), "name": txt("m", i, 32), "closeness": 1 + i % 5})
    for i in range(16):
        store.add_event(Event(txt("e", i, 64), T0 + 3600 * (i + 1), "meeting", i % 4, 1, 1 + i % 5))
    for i in range(20):
        store.write("fact", {"content": txt("f", i, 120)})
    for i in range(10):
        store.write("trait", {"content": txt("t", i, 56)})
        store.write("habit", {"content": txt("h", i, 56)})
        store.write("moment", {"topic": txt("tp", i, 24), "content": txt("mo", i, 124), "emotion": "happy",
                               "intensity": 4, "importance": 5})
    for i in range(5):
        store.write("goal", {"content": txt("g", i, 88)})
    for i in range(30):
        store.write("chat", {"role": "user" if i % 2 == 0 else "assistant", "content": txt("c", i, 87)})
    store.set_affection({"total_coins_spent": 120, "mood": "开心", "soul_state_code": "0110",
                         "interactions": 9, "last_interaction": T0})


def new_store(clock=None, archiver=None, **kw):
    return Store(archiver=archiver, now=clock or Clock(), **kw)
