# The simulated esp32.NVS: ESP-IDF's entry accounting, its errors, and power cuts.

import os
import unittest

import esp32
from store_helpers import TMP as _TMP


def _blob_cost(size):
    flash = esp32.configure_nvs()
    esp32.NVS("m").set_blob("k", b"x" * size)
    return flash.entries_used()


class EntryAccounting(unittest.TestCase):
    def test_blob_costs_include_the_namespace_entry(self):
        for size, entries in ((1, 4), (32, 4), (33, 5), (100, 7), (1000, 35), (4000, 129)):
            self.assertEqual(_blob_cost(size), entries, "blob of %d bytes" % size)

    def test_48k_partition_has_1386_usable_entries(self):
        flash = esp32.configure_nvs(size=48 * 1024)
        self.assertEqual(flash.usable_entries, 1386)
        self.assertEqual(flash.entries_free(), 1386)

    def test_reserve_counts_as_used(self):
        flash = esp32.configure_nvs(reserve=200)
        self.assertEqual(flash.entries_free(), 1186)
        esp32.NVS("m").set_i32("a", 1)
        self.assertEqual(flash.entries_free(), 1184)  # namespace entry + the value

    def test_unchanged_value_writes_nothing(self):
        flash = esp32.configure_nvs()
        nvs = esp32.NVS("m")
        nvs.set_blob("k", b"hello")
        written = (flash.writes, flash.entries_written, flash.bytes_written)
        nvs.set_blob("k", b"hello")
        self.assertEqual((flash.writes, flash.entries_written, flash.bytes_written), written)
        nvs.set_blob("k", b"hellO")
        self.assertEqual(flash.writes, written[0] + 1)
        self.assertEqual(flash.bytes_written, written[2] + 3 * 32)


class Errors(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs()
        self.nvs = esp32.NVS("m")

    def _errno(self, func, *args):
        try:
            func(*args)
        except OSError as e:
            return e.args[0]
        self.fail("no OSError")

    def test_missing_key_is_not_found(self):
        self.assertEqual(self._errno(self.nvs.get_i32, "nope"), -4354)
        self.assertEqual(self._errno(self.nvs.get_blob, "nope", bytearray(4)), -4354)
        self.assertEqual(self._errno(self.nvs.erase_key, "nope"), -4354)

    def test_key_longer_than_15_chars(self):
        self.assertEqual(self._errno(self.nvs.set_i32, "k" * 16, 1), -4361)
        self.nvs.set_i32("k" * 15, 1)
        self.assertEqual(self.nvs.get_i32("k" * 15), 1)

    def test_buffer_too_small(self):
        self.nvs.set_blob("b", b"12345678")
        self.assertEqual(self._errno(self.nvs.get_blob, "b", bytearray(7)), -4364)
        buf = bytearray(10)
        self.assertEqual(self.nvs.get_blob("b", buf), 8)
        self.assertEqual(bytes(buf[:8]), b"12345678")

    def test_full_partition_keeps_old_value(self):
        self.nvs.set_blob("keep", b"old")
        n = 0
        try:
            while True:
                self.nvs.set_blob("fill%d" % n, b"z" * 3000)
                n += 1
        except OSError as e:
            self.assertEqual(e.args[0], -4357)
        # 96 entries each (a chunk header, 94 data entries, the index), split across pages:
        # 14 fit in the 1386 usable entries next to the namespace entry and "keep".
        self.assertEqual(n, 14)
        buf = bytearray(8)
        self.assertEqual(self.nvs.get_blob("keep", buf), 3)
        self.assertEqual(bytes(buf[:3]), b"old")


class PowerCut(unittest.TestCase):
    def setUp(self):
        self.path = _TMP + "/nvs_cut_test.json"
        try:
            os.remove(self.path)
        except OSError:
            pass

    def tearDown(self):
        for p in (self.path, self.path + ".tmp"):
            try:
                os.remove(p)
            except OSError:
                pass

    def test_a_write_interrupted_while_saving_is_not_done(self):
        # xzmem sim stops on SIGTERM by raising KeyboardInterrupt wherever it is; the shutdown flush
        # that follows must write the key again, not skip it as unchanged.
        flash = esp32.configure_nvs(self.path)
        nvs = esp32.NVS("m")
        nvs.set_i32("a", 1)
        real_save = flash._save

        def interrupted(items):
            raise KeyboardInterrupt

        flash._save = interrupted
        try:
            nvs.set_i32("a", 2)
            self.fail("no interruption")
        except KeyboardInterrupt:
            pass
        flash._save = real_save
        self.assertEqual(nvs.get_i32("a"), 1)
        nvs.set_i32("a", 2)
        esp32.configure_nvs(self.path)
        self.assertEqual(esp32.NVS("m").get_i32("a"), 2)

    def test_cut_at_write_k_keeps_old_value_and_stops_later_writes(self):
        flash = esp32.configure_nvs(self.path)
        nvs = esp32.NVS("m")
        nvs.set_i32("a", 1)
        nvs.set_i32("b", 1)
        flash.cut_power_at(2)
        nvs.set_i32("a", 2)  # write 1 after arming: lands
        # MicroPython's assertRaises only catches Exception; PowerCut is a BaseException.
        for key, value in (("b", 2), ("c", 3)):
            try:
                nvs.set_i32(key, value)
            except esp32.PowerCut:
                pass
            else:
                self.fail("write of %s went through after the cut" % key)
        # Reboot: a new partition object over the same file.
        esp32.configure_nvs(self.path)
        nvs = esp32.NVS("m")
        self.assertEqual(nvs.get_i32("a"), 2)
        self.assertEqual(nvs.get_i32("b"), 1)
        self.assertRaises(OSError, nvs.get_i32, "c")

    def test_data_survives_reboot(self):
        esp32.configure_nvs(self.path)
        esp32.NVS("m").set_blob("k", b"\x00\xffdata")
        esp32.configure_nvs(self.path)
        buf = bytearray(16)
        n = esp32.NVS("m").get_blob("k", buf)
        self.assertEqual(bytes(buf[:n]), b"\x00\xffdata")


class DamagedFile(unittest.TestCase):
    """A damaged nvs.json: the simulator keeps what parses, sets the file aside and says what was lost."""

    path = _TMP + "/nvs_damaged.json"

    def setUp(self):
        for p in (self.path, self.path + ".bad", self.path + ".tmp"):
            try:
                os.remove(p)
            except OSError:
                pass
        esp32.configure_nvs(self.path)
        nvs = esp32.NVS("xzmem")
        for i in range(6):
            nvs.set_blob("fa%d" % i, bytes([i]) * 40)
        nvs.set_i32("nid", 6)
        with open(self.path) as f:
            self.text = f.read()

    def reload(self, text):
        with open(self.path, "w") as f:
            f.write(text)
        return esp32.configure_nvs(self.path)

    def kept(self, flash):
        return [key for ns, key, kind, value in flash.items]

    def test_a_file_cut_short_keeps_the_entries_before_the_cut(self):
        flash = self.reload(self.text[: len(self.text) * 2 // 3])
        kept = self.kept(flash)
        self.assertTrue(0 < len(kept) < 7, kept)
        self.assertEqual(kept, ["fa%d" % i for i in range(len(kept))])
        self.assertTrue("kept %d entries" % len(kept) in flash.damage, flash.damage)
        self.assertTrue(os.stat(self.path + ".bad")[6] > 0)
        self.assertEqual(self.kept(esp32.configure_nvs(self.path)), kept)  # rewritten whole, nothing more lost
        self.assertEqual(esp32.nvs_flash().damage, None)

    def test_flipped_bits_lose_only_the_entries_they_hit(self):
        i = self.text.index('"fa2"')
        flash = self.reload(self.text[:i] + '"fa2", "blob", 5' + self.text[self.text.index("]", i):])
        self.assertEqual(self.kept(flash), ["fa0", "fa1", "fa3", "fa4", "fa5", "nid"])
        self.assertTrue("xzmem/fa2" in flash.damage, flash.damage)
        flash = self.reload(self.text.replace("0202", "0g02", 1))  # not hex any more
        self.assertEqual(self.kept(flash), ["fa0", "fa1", "fa3", "fa4", "fa5", "nid"])
        flash = self.reload(self.text.replace('"items"', '"it\xe9ms"', 1).replace(", [", ",\x80[", 1))
        self.assertTrue(len(self.kept(flash)) >= 5, flash.damage)

    def test_an_empty_file_starts_empty_and_says_so(self):
        flash = self.reload("")
        self.assertEqual(flash.items, [])
        self.assertTrue("empty" in flash.damage, flash.damage)
        esp32.NVS("xzmem").set_i32("nid", 1)  # and it works
