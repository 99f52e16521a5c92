# memory.keyed: host-pushed mem_xxx memories as one file each, replaced by write-then-rename.

import os
import unittest

from memory.keyed import KeyedStore
from store_helpers import T0, TMP, Clock

_DIR = TMP + "/keyed_test"


def _wipe():
    try:
        names = os.listdir(_DIR)
    except OSError:
        return
    for n in names:
        os.remove(_DIR + "/" + n)
    os.rmdir(_DIR)


def _mem(key="mem_001", **kw):
    rec = {"key": key, "category": "user_preferences", "payload": "prefers dark theme", "importance": 7,
           "source": "user", "tags": ["ui", "theme"]}
    rec.update(kw)
    return rec


def _err(test, func, *args):
    try:
        func(*args)
    except ValueError as e:
        return str(e)
    test.fail("no ValueError")


class Keyed(unittest.TestCase):
    def setUp(self):
        _wipe()
        self.clock = Clock()
        self.k = KeyedStore(_DIR, now=self.clock)

    def tearDown(self):
        _wipe()

    def test_add_noop_update_delete(self):
        self.assertEqual(self.k.put(_mem(trigger_count=1, created_at=T0, updated_at=T0, last_triggered=T0))["result"],
                         "ADDED")
        self.assertEqual(self.k.put(_mem(trigger_count=1, created_at=T0, updated_at=T0, last_triggered=T0))["result"],
                         "NOOP")
        self.assertEqual(self.k.put(_mem(payload="prefers light theme"))["result"], "UPDATED")
        self.assertEqual(self.k.get("mem_001")["payload"], "prefers light theme")
        self.assertEqual(self.k.delete("mem_001")["result"], "DELETED")
        self.assertEqual(self.k.delete("mem_001")["result"], "NOOP")
        self.assertIsNone(self.k.get("mem_001"))

    def test_program_fields_default_as_seed_000_says(self):
        self.k.put(_mem())
        r = self.k.get("mem_001")
        self.assertEqual((r["trigger_count"], r["created_at"], r["updated_at"], r["last_triggered"]), (1, T0, T0, T0))
        self.clock.t += 500
        self.k.put(_mem(payload="changed"))
        r = self.k.get("mem_001")
        self.assertEqual((r["trigger_count"], r["created_at"], r["updated_at"]), (2, T0, T0 + 500))

    def test_sixty_four_and_more_survive_a_reopen(self):
        for i in range(70):
            self.k.put(_mem("mem_%03d" % i, payload="记忆 %d " % i + "内容" * 30, category="c%d" % (i % 3)))
        again = KeyedStore(_DIR, now=self.clock)
        self.assertEqual(again.count(), 70)
        self.assertEqual(len(again.list(category="c1")), 23)
        self.assertEqual(len(again.list(limit=5)), 5)
        self.assertEqual(again.get("mem_069")["category"], "c0")

    def test_payload_cut_and_reported(self):
        out = self.k.put(_mem(payload="长" * 100, tags=["标签标签标签标签"]))
        self.assertEqual(out["truncated"], ["payload", "tags"])
        r = self.k.get("mem_001")
        self.assertEqual((r["payload"], r["tags"]), ("长" * 66, ["标签标签标"]))

    def test_bad_input(self):
        self.assertIn("key must be mem_", _err(self, self.k.put, _mem("note_1")))
        self.assertIn("key must be mem_ plus 1-12", _err(self, self.k.put, _mem("mem_" + "a" * 13)))
        self.assertIn("a-z, 0-9", _err(self, self.k.put, _mem("mem_A-1")))
        self.assertIn("importance must be 1-10, got 11", _err(self, self.k.put, _mem(importance=11)))
        self.assertIn("source must be one of", _err(self, self.k.put, _mem(source="robot")))
        self.assertIn("tags may hold at most 4", _err(self, self.k.put, _mem(tags=["a", "b", "c", "d", "e"])))
        self.assertIn("payload must be a non-empty string", _err(self, self.k.put, _mem(payload=5)))
        self.assertEqual(self.k.count(), 0)

    def test_seed_source_words_accepted(self):
        self.k.put(_mem(source="用户输入"))
        self.assertEqual(self.k.get("mem_001")["source"], "user")

    def test_capacity(self):
        small = KeyedStore(_DIR, capacity=2, now=self.clock)
        small.put(_mem("mem_a"))
        small.put(_mem("mem_b"))
        self.assertIn("full (2", _err(self, small.put, _mem("mem_c")))
        self.assertEqual(small.put(_mem("mem_b", payload="x"))["result"], "UPDATED")

    def test_cut_between_write_and_rename_keeps_old_record(self):
        self.k.put(_mem(payload="old"))
        # A power cut after the new file was written but before the rename leaves a .tmp behind.
        with open(_DIR + "/mem_001.tmp", "w") as f:
            f.write('{"key": "mem_001", "payl')
        again = KeyedStore(_DIR, now=self.clock)
        self.assertEqual(again.get("mem_001")["payload"], "old")
        self.assertEqual(sorted(os.listdir(_DIR)), ["mem_001.json"])
