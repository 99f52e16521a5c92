# Power cut at every NVS write of a scripted 200-operation workload, then a reboot over the same file.
#
# After each cut the rebooted store must hold, for every record, either its value from the last
# completed flush or the value the interrupted flush was writing; nothing may fail to load, and new
# ids must not repeat ids already handed out. Both interpreters cut at every write.

import unittest

import esp32
from memory.store import Event, Store
from store_helpers import TMP, Clock, FakeArchive, fresh_nvs, remove

_PATH = TMP + "/store_cut_test.json"


def _workload():
    """200 operations touching every type, with a flush or conversation end every 9 operations."""
    ops = []
    for i in range(200):
        c = i % 13
        if i % 9 == 8:
            ops.append(("end",) if i % 2 else ("flush",))
        elif c == 0:
            ops.append(("write", "name", {"content": "name %d" % (i % 7)}))
        elif c == 1:
            ops.append(("write", "like", {"content": "item %d" % (i % 11)}))
        elif c == 2:
            ops.append(("write", "dislike", {"content": "item %d" % (i % 11)}))
        elif c == 3:
            ops.append(("write", "family", {"relation": "rel%d" % (i % 3), "name": "n%d" % (i % 5),
                                            "closeness": 1 + i % 5}))
        elif c == 4 or c == 9 or (c == 10 and i % 3):
            ops.append(("write", "fact", {"content": "fact %d" % i}))
        elif c == 5:
            ops.append(("write", "moment", {"topic": "t%d" % (i % 4), "content": "moment %d" % i,
                                            "emotion": i % 6}))
        elif c == 6:
            ops.append(("event", i))
        elif c == 7:
            ops.append(("write", "chat", {"role": "user", "content": "chat %d" % i}))
        elif c == 8 and i % 2:
            ops.append(("delete", "fact", {"content": "fact %d" % (i - 4)}))
        elif c == 10 or c == 8:
            ops.append(("write", "age", {"content": i % 90}))
        elif c == 11:
            ops.append(("coins", i % 17))
        else:
            ops.append(("aged",) if i > 150 else ("write", "trait", {"content": "trait %d" % (i % 12)}))
    return ops


def _run_op(store, op, clock):
    clock.t += 3600
    kind = op[0]
    try:
        if kind == "write":
            store.write(op[1], op[2])
        elif kind == "delete":
            store.delete(op[1], op[2])
        elif kind == "event":
            evs = store.events()
            i = op[1]
            if len(evs) >= 12:
                store.delete_event(evs[0])
            elif evs and i % 2:
                ev = evs[-1]
                ev.reminded, ev.completed = 1, i % 4 == 1
                store.update_event(ev)
            else:
                store.add_event(Event("event %d" % i, clock.t + 7200, repeat=i % 4, priority=1 + i % 5))
        elif kind == "coins":
            store.add_coins(op[1])
        elif kind == "flush":
            store.flush()
        elif kind == "end":
            store.end_conversation()
        else:
            store.archive_aged(clock.t + 30 * 86400 - 48 * 3600)
    except ValueError as e:
        if "full" not in str(e) and "capacity" not in str(e):
            raise  # only capacity errors are part of the script


def _snapshot(store):
    """Every record by identity -> its value."""
    snap = {}
    profile = store.read("profile")
    snap[("profile",)] = sorted(profile[0].items()) if profile else None
    for kind in ("like", "dislike", "fact", "trait", "habit", "goal"):
        for r in store.read(kind):
            snap[("rec", r["id"])] = (kind, r["content"], r["learned_at"])
    for r in store.read("family"):
        snap[("rec", r["id"])] = ("family", r["relation"], r["name"], r["closeness"])
    for r in store.read("moment"):
        snap[("rec", r["id"])] = ("moment", r["topic"], r["content"], r["emotion"])
    for ev in store.events():
        snap[("rec", ev.id)] = sorted(ev.to_dict().items())
    for m in store.read("chat"):
        snap[("chat", m["seq"])] = (m["role"], m["content"])
    snap[("affection",)] = sorted(store.affection().items())
    return snap


class _Tracker:
    """Wraps store.flush_steps (every flush runs it) to keep the acknowledged state and the state a
    flush is writing."""

    def __init__(self, store):
        self.acked = _snapshot(store)
        self.inflight = self.acked
        self._flush_steps = store.flush_steps
        store.flush_steps = self.flush_steps
        self.store = store

    def flush_steps(self):
        self.inflight = _snapshot(self.store)
        n = yield from self._flush_steps()
        self.acked = self.inflight
        return n


def _run(cut_at):
    """Run the workload, cutting power at NVS write `cut_at` (0: never). Returns (tracker, archive, ids)."""
    # The partition runs in RAM and is written to its file once, when the power goes: the file then
    # holds exactly what the simulator would have saved after each write, at a fraction of the time.
    remove(_PATH)
    flash = fresh_nvs()
    if cut_at:
        flash.cut_power_at(cut_at)
    clock = Clock()
    archive = FakeArchive()
    tracker = _Tracker(Store(archiver=archive, now=clock))
    for op in _workload():
        try:
            _run_op(tracker.store, op, clock)
        except esp32.PowerCut:
            break
    flash.path = _PATH
    flash._save(flash.items)
    return tracker, archive, flash.writes


class PowerCutReplay(unittest.TestCase):
    def tearDown(self):
        remove(_PATH)

    def test_workload_is_200_ops_and_exercises_archive_and_every_key_kind(self):
        self.assertEqual(len(_workload()), 200)
        tracker, archive, writes = _run(0)
        kinds = [c[0] for c in archive.calls]
        self.assertIn("fact", kinds)
        self.assertIn("moment", kinds)
        self.assertIn("event", kinds)
        self.assertTrue(writes > 100, "only %d writes" % writes)

    def test_cut_at_every_write_keeps_old_or_new_of_every_record(self):
        total = _run(0)[2]
        for k in range(1, total + 1):
            tracker, archive, _ = _run(k)
            esp32.configure_nvs(_PATH, reserve=200)  # reboot: new objects over the same file
            clock = Clock(10**9 + 7 * 10**8)
            again = Store(archiver=archive, now=clock)
            self.assertEqual(again.stats()["corrupt_keys"], [], "cut at write %d" % k)
            got = _snapshot(again)
            old, new = tracker.acked, tracker.inflight
            for key in set(got) | set(old) | set(new):
                value = got.get(key)
                if value != old.get(key) and value != new.get(key):
                    self.fail("cut at write %d: %r is %r, neither old %r nor new %r"
                              % (k, key, value, old.get(key), new.get(key)))
            taken = {i["id"] for i in archive.items} | {key[1] for key in got if key[0] == "rec"}
            rid = again.write("fact", {"content": "after reboot %d" % k}).get("id")
            if rid is not None:
                self.assertTrue(rid not in taken, "cut at write %d: id %d handed out again" % (k, rid))
