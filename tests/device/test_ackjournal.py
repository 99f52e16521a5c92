# The acknowledged-change journal: what the memory tool answered survives a power cut before any NVS flush.
#
# Every change goes through the real `memory` tool (MemoryTool -> MemoryService -> Store), so the
# journal record is written where a user's answer would be. A reboot is new objects over the same
# NVS file and journal file. Power is cut at every NVS write of a flush and at every byte of a
# journal append; each time, every acknowledged change is back after the reboot, coins exactly.

import os
import unittest

import esp32
from memory import fs, mcp
from memory.ackjournal import AckJournal
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.tools import MemoryTool
from store_helpers import TMP, Clock, remove

_TAG = str(os.getpid()) if hasattr(os, "getpid") else "mp"  # two checkouts testing at once share /tmp
_NVS = "%s/ackj_%s_nvs.json" % (TMP, _TAG)
_JOURNAL = "%s/ackj_%s.jnl" % (TMP, _TAG)
_LINK = mcp.Link("test", trusted=True)
T0 = 1767225600  # 2026-01-01 00:00 UTC

# One acknowledged change of every kind the memory tool makes.
CHANGES = (
    {"action": "write", "type": "name", "content": "小明"},
    {"action": "write", "type": "age", "content": 9},
    {"action": "write", "type": "like", "content": "恐龙"},
    {"action": "write", "type": "dislike", "content": "香菜"},
    {"action": "write", "type": "family", "relation": "妈妈", "name": "李华", "closeness": 5},
    {"action": "write", "type": "fact", "content": "养了一只猫"},
    {"action": "write", "type": "trait", "content": "好奇"},
    {"action": "write", "type": "habit", "content": "睡前读书"},
    {"action": "write", "type": "goal", "content": "学会游泳"},
    {"action": "write", "type": "moment", "content": "第一次看海", "emotion": "happy", "importance": 4},
    {"action": "write", "type": "chat", "role": "user", "content": "今天去了动物园"},
    {"action": "write", "type": "schedule", "content": "钢琴课", "datetime": "2026-01-03 16:00", "repeat": "weekly"},
    {"action": "write", "type": "schedule", "content": "看牙医", "datetime": "2026-01-02 10:00"},
    {"action": "write", "type": "coins", "content": 7},
    {"action": "write", "type": "mood", "content": "开心"},
    {"action": "complete_schedule", "content": "钢琴课"},
    {"action": "delete", "type": "dislike", "content": "香菜"},
    {"action": "write", "type": "coins", "content": 5},
)


def boot(journal=True, reserve=200):
    """A device after power-on: NVS from its file, the journal replayed, the memory tool on top.

    reserve: NVS entries taken by others (a large one makes the NVS partition full).
    """
    esp32.configure_nvs(_NVS, reserve=reserve)
    store = Store(now=Clock(T0), journal=AckJournal(_JOURNAL) if journal else None)
    return store, MemoryTool(MemoryService(store, Schedules(store, Event)))


def ask(tool, args):
    return tool.call(dict(args), _LINK)


def snapshot(store):
    """What a user could read back: every type's records (ids and times included), coins, mood."""
    out = {}
    for kind in ("profile", "like", "dislike", "family", "fact", "trait", "habit", "goal", "moment", "chat",
                 "schedule", "affection"):
        out[kind] = store.read(kind)
    return out


def wipe():
    for p in (_NVS, _NVS + ".tmp", _JOURNAL, _JOURNAL + ".tmp"):
        remove(p)


class Journal(unittest.TestCase):
    def setUp(self):
        wipe()

    def tearDown(self):
        esp32.configure_nvs(None)

    def test_every_change_is_back_after_a_reboot_without_any_flush(self):
        store, tool = boot()
        for args in CHANGES:
            ask(tool, args)
        self.assertEqual(esp32.nvs_flash().writes, 0)  # nothing reached NVS: only the journal holds it
        want = snapshot(store)
        store, tool = boot()
        self.assertEqual(snapshot(store), want)
        self.assertEqual(store.affection()["total_coins_spent"], 12)
        self.assertEqual(store.affection()["mood"], "开心")
        # the boot flushed what it replayed and cut the journal: a second reboot changes nothing
        self.assertEqual(store.journal.size, 0)
        self.assertFalse(fs.exists(_JOURNAL))
        store, tool = boot()
        self.assertEqual(snapshot(store), want)

    def test_a_noop_writes_no_journal_record(self):
        store, tool = boot()
        ask(tool, CHANGES[0])
        size = store.journal.size
        ask(tool, CHANGES[0])
        self.assertEqual(store.journal.size, size)

    def test_flush_cuts_the_journal_and_new_ids_stay_fresh(self):
        store, tool = boot()
        ask(tool, {"action": "write", "type": "fact", "content": "a"})
        ask(tool, {"action": "write", "type": "fact", "content": "b"})
        ask(tool, {"action": "delete", "type": "fact", "content": "b"})
        store.flush()
        self.assertEqual(store.journal.size, 0)
        ask(tool, {"action": "write", "type": "fact", "content": "c"})
        ids = [x["id"] for x in store.read("fact")]
        store, tool = boot()
        self.assertEqual([x["id"] for x in store.read("fact")], ids)
        ask(tool, {"action": "write", "type": "fact", "content": "d"})
        self.assertEqual(store.read("fact")[-1]["id"], ids[-1] + 1)

    def test_a_deleted_records_id_is_not_handed_out_again_after_a_cut(self):
        store, tool = boot()
        ask(tool, {"action": "write", "type": "fact", "content": "a"})
        gone = store.read("fact")[0]["id"]
        ask(tool, {"action": "delete", "type": "fact", "content": "a"})
        store, tool = boot()
        ask(tool, {"action": "write", "type": "fact", "content": "b"})
        self.assertTrue(store.read("fact")[0]["id"] > gone)

    def test_replay_twice_counts_coins_once(self):
        store, tool = boot()
        ask(tool, {"action": "write", "type": "coins", "content": 30})
        ask(tool, {"action": "write", "type": "coins", "content": 4})
        saved = _read(_JOURNAL)
        store, tool = boot()  # replays, flushes, cuts
        _write(_JOURNAL, saved)  # as if the power went before the cut
        store, tool = boot()
        self.assertEqual(store.affection()["total_coins_spent"], 34)

    def test_without_a_journal_every_acknowledged_change_flushes(self):
        store, tool = boot(journal=False)
        ask(tool, {"action": "write", "type": "like", "content": "猫"})
        self.assertEqual(store.pending(), 0)
        store, tool = boot(journal=False)
        self.assertEqual([x["content"] for x in store.read("like")], ["猫"])

    def test_a_journal_that_cannot_be_written_falls_back_to_nvs(self):
        store, tool = boot()
        store.journal.path = TMP + "/no such dir/acked.jnl"
        ask(tool, {"action": "write", "type": "like", "content": "猫"})
        self.assertEqual(store.pending(), 0)
        self.assertTrue("journal" in store.stats() and store.stats()["journal"]["error"])
        store, tool = boot()
        self.assertEqual([x["content"] for x in store.read("like")], ["猫"])

    def test_idle_flush_waits_for_sixty_quiet_seconds(self):
        store, tool = boot()
        clock = store._clock
        ask(tool, {"action": "write", "type": "fact", "content": "a"})
        clock.t += 50
        ask(tool, {"action": "write", "type": "fact", "content": "b"})
        clock.t += 59
        self.assertEqual(store.tick(), 0)
        clock.t += 1
        self.assertTrue(store.tick() > 0)
        self.assertEqual(store.journal.size, 0)


class PowerCuts(unittest.TestCase):
    def setUp(self):
        wipe()

    def tearDown(self):
        esp32.configure_nvs(None)

    def test_power_cut_at_every_nvs_write_of_the_flush(self):
        cut = 1
        while True:
            wipe()
            store, tool = boot()
            for args in CHANGES:
                ask(tool, args)
            want = snapshot(store)
            esp32.nvs_flash().cut_power_at(cut)
            try:
                store.end_conversation()
                finished = True
            except esp32.PowerCut:
                finished = False
            store, tool = boot()
            got = snapshot(store)
            for a in (got["affection"][0], want["affection"][0]):
                # the conversation's end counts an interaction, which may or may not have been saved
                a.pop("interactions")
                a.pop("last_interaction")
            self.assertEqual(got, want, "cut at NVS write %d" % cut)
            if finished:
                break
            cut += 1
        self.assertTrue(cut > 10)

    def test_power_cut_at_every_byte_of_a_journal_append(self):
        store, tool = boot()
        for args in CHANGES[:-1]:
            ask(tool, args)
        before = snapshot(store)
        ask(tool, CHANGES[-1])  # 5 more coins
        after = snapshot(store)
        whole = _read(_JOURNAL)
        last = _record_starts(whole)[-1]
        for keep in range(last, len(whole)):
            _write(_JOURNAL, whole[:keep])  # the power went after `keep` bytes reached flash
            esp32.configure_nvs(None)
            store, tool = boot()
            self.assertEqual(snapshot(store), before, "journal cut at byte %d of %d" % (keep, len(whole)))
            self.assertEqual(store.affection()["total_coins_spent"], 7)
        _write(_JOURNAL, whole)
        esp32.configure_nvs(None)
        store, tool = boot()
        self.assertEqual(snapshot(store), after)

    def test_power_cut_inside_the_append_then_more_changes(self):
        # The torn record was never acknowledged. When the boot cannot flush the replay (NVS full),
        # the torn tail is cut off anyway, so what is acknowledged next is appended where a later
        # boot reads it.
        store, tool = boot()
        ask(tool, CHANGES[0])
        real_open = fs.open

        class Torn:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, data):
                self.f.write(bytes(data)[:3])
                raise esp32.PowerCut("power cut during the journal append")

        def torn_open(path, mode="r"):
            f = real_open(path, mode)
            return Torn(f) if mode == "ab" else f

        fs.open = torn_open
        try:
            ask(tool, CHANGES[1])
            self.fail("no power cut")
        except esp32.PowerCut:
            pass
        finally:
            fs.open = real_open
        store, tool = boot(reserve=1385)  # the boot's flush of the replay fails: NVS is full
        self.assertTrue(store.pending() > 0)
        self.assertEqual(store.journal.torn, 3)  # the 3 bytes that reached the file
        ask(tool, CHANGES[2])
        store, tool = boot()
        self.assertEqual(store.read("profile")[0].get("name"), "小明")
        self.assertEqual(store.read("profile")[0].get("age"), None)
        self.assertEqual([x["content"] for x in store.read("like")], ["恐龙"])


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _record_starts(data):
    starts = []
    pos = 0
    while pos < len(data):
        starts.append(pos)
        pos += 8 + (data[pos + 2] | data[pos + 3] << 8)
    return starts


if __name__ == "__main__":
    unittest.main()
