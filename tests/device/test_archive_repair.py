# memory.archive after power cuts and damaged lines: nothing archived is lost or counted twice.

import unittest

from archive_testkit import CutPower, at, fact, files, scratch, wipe
from esp32 import PowerCut
from memory import archivewrite, fs
from memory.archive import Archive


def _batch(first, n, day="2025-03-01"):
    return [fact(i, at(day) + i * 600, "remembered thing %d" % i) for i in range(first, first + n)]


class PowerLoss(unittest.TestCase):
    def setUp(self):
        self.root = scratch("repair")
        self.cut = CutPower()
        self.a = Archive(self.root, part_bytes=4096)
        self.a.append("fact", _batch(0, 20))

    def tearDown(self):
        self.cut.undo()
        wipe(self.root)

    def _part(self):
        return files(self.root + "/fact", ".jsonl")[-1]

    def test_torn_append_is_rolled_back_at_boot_and_retried(self):
        self.cut.during_append_write(keep=25)
        try:
            self.a.append("fact", _batch(20, 3))
            self.fail("the power cut did not happen")
        except PowerCut:
            pass
        self.cut.undo()
        f = fs.open(self._part(), "rb")
        self.assertFalse(f.read().endswith(b"\n"))  # the torn line is on flash
        f.close()
        a = Archive(self.root, part_bytes=4096)  # next boot
        f = fs.open(self._part(), "rb")
        data = f.read()
        f.close()
        self.assertTrue(data.endswith(b"\n"))
        self.assertEqual(a.count("fact"), 20)
        self.assertFalse(fs.exists(self.root + "/journal.json"))
        # The store still holds the three records (append never returned) and archives them again.
        self.assertEqual(a.append("fact", _batch(20, 3)), 3)
        self.assertEqual(a.count("fact"), 23)
        self.assertEqual(a.recall("fact", limit=1)["items"][0]["id"], "f22")

    def test_cut_after_data_and_sidecar_but_before_journal_removal(self):
        self.cut.at_remove("journal.json")
        try:
            self.a.append("fact", _batch(20, 3))
            self.fail("the power cut did not happen")
        except PowerCut:
            pass
        self.cut.undo()
        a = Archive(self.root, part_bytes=4096)
        self.assertEqual(a.count("fact"), 20)
        self.assertEqual(a.append("fact", _batch(20, 3)), 3)
        self.assertEqual(a.count("fact"), 23)

    def test_cut_between_archive_and_nvs_delete_does_not_double_count(self):
        # append returned, then the power failed before the store deleted the records from NVS:
        # after the reboot the store archives the same records again.
        self.a.append("fact", _batch(20, 3))
        a = Archive(self.root, part_bytes=4096)
        self.assertEqual(a.append("fact", _batch(20, 3)), 0)
        self.assertEqual(a.count("fact"), 23)
        ids = [it["id"] for it in a.recall("fact", limit=50)["items"]]
        self.assertEqual(len(ids), 23)
        self.assertEqual(len(set(ids)), 23)

    def test_cut_during_segment_drop_counts_the_drop_once(self):
        a = Archive(self.root, part_bytes=1024)
        a.append("fact", _batch(100, 30, day="2025-04-01"))
        parts = len(files(self.root, ".jsonl"))
        before = a.count("fact")
        oldest = files(self.root + "/fact", ".jsonl")[0]
        self.cut.at_remove(".jsonl")
        try:
            archivewrite._drop(a, *archivewrite._oldest(a, []))
            self.fail("the power cut did not happen")
        except PowerCut:
            pass
        self.cut.undo()
        a = Archive(self.root, part_bytes=1024)
        self.assertFalse(fs.exists(oldest))
        self.assertEqual(len(files(self.root, ".jsonl")), parts - 1)
        s = a.stats()
        self.assertEqual(s["dropped_segments"], 1)
        self.assertEqual(a.count("fact") + s["dropped_records"], before)


class DamagedLines(unittest.TestCase):
    def setUp(self):
        self.root = scratch("damaged")
        self.a = Archive(self.root)
        self.a.append("fact", _batch(0, 10))
        self.part = files(self.root + "/fact", ".jsonl")[0]

    def tearDown(self):
        wipe(self.root)

    def _add_raw(self, data):
        f = fs.open(self.part, "ab")
        f.write(data)
        f.close()

    def test_garbage_and_wrong_shape_lines_are_skipped_and_counted(self):
        self._add_raw(b"not json at all\n")
        self._add_raw(b'{"id": "f99", "type": "fact", "learned_at": "soon"}\n')
        self._add_raw(b'["a", "list"]\n')
        self.a.append("fact", _batch(10, 2))
        r = self.a.recall("fact", limit=50)
        self.assertEqual(r["count"], 12)
        self.assertEqual(self.a.last["skipped"], 3)
        self.assertEqual(self.a.count("fact"), 12)
        self.assertEqual(self.a.stats()["bad_lines"], 3)

    def test_torn_last_line_without_journal_is_cut_off_on_use(self):
        self._add_raw(b'{"id":"f10","type":"fact","learned_at":17409')
        self.assertEqual(self.a.count("fact"), 10)
        f = fs.open(self.part, "rb")
        self.assertTrue(f.read().endswith(b"\n"))
        f.close()
        self.assertEqual(self.a.append("fact", _batch(10, 1)), 1)
        self.assertEqual(self.a.recall("fact", limit=50)["count"], 11)
        self.assertEqual(self.a.stats()["bad_lines"], 0)
