# memory.archive when the partition fills up, and the store's archive-then-delete contract.

import unittest

from archive_testkit import DAY, at, event, fact, files, moment, scratch, wipe
from memory import fs
from memory.archive import Archive
from memory.keyed import KeyedStore
from memory.space import MemoryFull


def _facts(first, n, start):
    return [fact(i, start + (i - first) * DAY // 4, "fact %d padded with some words to take room" % i)
            for i in range(first, first + n)]


class Space(unittest.TestCase):
    def setUp(self):
        self.root = scratch("space")

    def tearDown(self):
        wipe(self.root)

    def test_oldest_segments_are_dropped_first_and_reported(self):
        a = Archive(self.root, part_bytes=2048, reserve_bytes=4096, capacity=96 * 1024)
        start = at("2024-01-01")
        for k in range(96):
            a.append("fact", _facts(k * 5, 5, start + k * 5 * DAY // 4))
        s = a.stats()
        self.assertTrue(s["dropped_segments"] > 0)
        self.assertTrue(s["free"] >= 0)
        self.assertEqual(s["counts"]["fact"] + s["dropped_records"], 480)
        self.assertTrue(s["counts"]["fact"] > 100)
        # The newest records survive, the very first ones are gone.
        self.assertEqual(a.recall("fact", limit=1)["items"][0]["id"], "f479")
        self.assertEqual(a.recall("fact", keyword="fact 0 padded")["count"], 0)
        oldest = a.recall("fact", end_date="2024-12-31", limit=50)["items"][-1]["learned_at"]
        self.assertTrue(oldest > start)

    def test_full_with_nothing_to_drop_fails_clearly_and_keeps_nothing(self):
        a = Archive(self.root, part_bytes=2048, reserve_bytes=4096, capacity=12 * 1024)
        try:
            a.append("fact", _facts(0, 40, at("2024-01-01")))
            self.fail("append did not fail")
        except MemoryFull as e:
            self.assertIn("memory is full", str(e))
            self.assertFalse("Errno" in str(e))
        self.assertEqual(a.count("fact"), 0)
        self.assertFalse(fs.exists(self.root + "/journal.json"))
        self.assertEqual(files(self.root, ".jsonl"), [])


class SharedPartition(unittest.TestCase):
    """Keyed memories ask the archive for room: its oldest segments go, and when none are left the
    write is refused before anything is written, with a sentence."""

    def setUp(self):
        self.root = scratch("shared")

    def tearDown(self):
        wipe(self.root)

    def test_keyed_writes_take_room_from_the_oldest_segments_then_are_refused(self):
        a = Archive(self.root + "/archive", part_bytes=2048, reserve_bytes=8192, capacity=64 * 1024,
                    floor_bytes=4096)
        for k in range(6):
            a.append("fact", _facts(k * 5, 5, at("2024-01-01") + k * 40 * DAY))
        before = a.stats()["segments"]
        keyed = KeyedStore(self.root + "/keyed", room=a.make_room)
        # Others' files (not counted by `capacity` on this test filesystem) took 40 KB: measure again.
        a.capacity -= 40 * 1024
        a._free_hint = None
        rec = {"key": "mem_a", "category": "c", "payload": "p", "importance": 3, "source": "user"}
        self.assertEqual(keyed.put(rec)["result"], "ADDED")
        self.assertTrue(a.stats()["segments"] < before)
        self.assertTrue(a.stats()["dropped_records"] > 0)
        a.capacity -= 64 * 1024  # now nothing the archive holds would be enough
        a._free_hint = None
        rec["key"] = "mem_b"
        try:
            keyed.put(rec)
            self.fail("a write with no room was accepted")
        except MemoryFull as e:
            self.assertTrue(str(e).startswith("the memory is full"), str(e))
            self.assertTrue("nothing was stored" in str(e) and "Errno" not in str(e), str(e))
        self.assertEqual(keyed.keys(), ["mem_a"])
        self.assertEqual(a.stats()["refused_full"], 1)


class StandInStore:
    """The store's side of the contract, reduced to lists: archive first, then delete."""

    def __init__(self, archive):
        self.archive = archive
        self.facts = []
        self.moments = []
        self.events = []

    def add(self, kind, rec):
        held, cap, batch = (self.facts, 20, 5) if kind == "fact" else (self.moments, 10, 3)
        held.append(rec)
        if len(held) >= cap:
            oldest = sorted(held, key=lambda r: r["learned_at"])[:batch]
            self.archive.append(kind, oldest)  # raises: nothing is deleted
            for r in oldest:
                held.remove(r)

    def _move(self, kind, held, old):
        if old:
            self.archive.append(kind, old)
            for r in old:
                held.remove(r)

    def nightly(self, now):
        """Facts and moments learned more than 30 days ago go to the archive."""
        for kind, held in (("fact", self.facts), ("moment", self.moments)):
            self._move(kind, held, [r for r in held if r["learned_at"] < now - 30 * DAY])

    def weekly(self, now):
        """Events that are over go to the archive."""
        self._move("event", self.events, [r for r in self.events if r["when"] < now])


class StoreContract(unittest.TestCase):
    def setUp(self):
        self.root = scratch("contract")

    def tearDown(self):
        wipe(self.root)

    def test_rolling_archive_of_facts_and_moments(self):
        store = StandInStore(Archive(self.root))
        t = at("2025-01-01")
        for i in range(20):
            store.add("fact", fact(i, t + i * 60))
        self.assertEqual(len(store.facts), 15)
        self.assertEqual(store.archive.count("fact"), 5)
        self.assertEqual([it["id"] for it in store.archive.recall("fact")["items"]], ["f4", "f3", "f2", "f1", "f0"])
        for i in range(10):
            store.add("moment", moment(i, t + i * 60, "topic %d" % i, "moment %d" % i))
        self.assertEqual(len(store.moments), 7)
        self.assertEqual(store.archive.count("moment"), 3)

    def test_nightly_and_weekly_rules(self):
        store = StandInStore(Archive(self.root))
        now = at("2025-03-01")
        store.facts = [fact(1, now - 40 * DAY), fact(2, now - 5 * DAY)]
        store.moments = [moment(1, now - 31 * DAY, "t", "c"), moment(2, now - 29 * DAY, "t", "c")]
        store.events = [event(1, now - 3 * DAY, "done"), event(2, now + DAY, "coming")]
        store.nightly(now)
        store.weekly(now)
        self.assertEqual([r["id"] for r in store.facts], ["f2"])
        self.assertEqual([r["id"] for r in store.moments], ["m2"])
        self.assertEqual([r["id"] for r in store.events], ["e2"])
        self.assertEqual([it["id"] for it in store.archive.recall("fact")["items"]], ["f1"])
        self.assertEqual(store.archive.recall("event")["items"][0]["content"], "done")
        self.assertEqual(store.archive.count("moment"), 1)

    def test_failed_archive_keeps_records_in_the_store(self):
        store = StandInStore(Archive(self.root, reserve_bytes=4096, capacity=8 * 1024))
        t = at("2025-01-01")
        for i in range(19):
            store.add("fact", fact(i, t + i * 60))
        try:
            store.add("fact", fact(19, t + 19 * 60))
            self.fail("archiving did not fail")
        except MemoryFull:
            pass
        self.assertEqual(len(store.facts), 20)
        self.assertEqual(store.archive.count("fact"), 0)
