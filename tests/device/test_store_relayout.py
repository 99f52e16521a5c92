# A hot store written by the old layout (one record per NVS key, 96-byte events, counter "nid")
# opens under the new one (several records per key, 104-byte events, counter "ids") with every
# record kept: at the first boot, after a power cut at any NVS write of that boot, and with an ack
# journal that still holds images of old keys.

import binascii
import os
import struct
import unittest

import esp32
from memory.ackjournal import AckJournal
from memory.store import Store
from store_helpers import TMP, Clock, FakeArchive, fill_every_type, fresh_nvs, remove

_TAG = str(os.getpid()) if hasattr(os, "getpid") else "mp"
_JOURNAL = "%s/relayout_%s.jnl" % (TMP, _TAG)
# (table, new key prefix, old key prefix)
_MOVED = (("family", "fms", "fm"), ("fact", "fas", "fa"), ("trait", "trs", "tr"), ("habit", "hbs", "hb"),
          ("moment", "mos", "mo"), ("schedule", "evs", "ev"))
_OLD_PREFIXES = ("fm", "fa", "tr", "hb", "mo", "ev")
_OLD_EVENT = "<4I64s12s4B"
_KINDS = ("profile", "like", "dislike", "family", "fact", "trait", "habit", "goal", "moment", "chat", "schedule",
          "affection")


def _old_event(record):
    """A 104-byte event as the old layout's 96 bytes (event_type cut to 12, no emotion or significance)."""
    f = struct.unpack("<4I64s16s8B", record)
    return struct.pack(_OLD_EVENT, f[0], f[1], f[2], f[3], f[4], f[5][:12], f[6], f[7], f[8], f[9])


def _snapshot(store):
    return dict((kind, store.read(kind)) for kind in _KINDS)


def _old_layout():
    """(NVS items of a full store in the old layout, what it holds, the highest id handed out)."""
    fresh_nvs()
    store = Store(archiver=FakeArchive(), now=Clock())
    fill_every_type(store)
    store.flush()
    want = _snapshot(store)
    nvs = esp32.NVS("xzmem")
    for t in store._nv.tables:
        for name, new, old in _MOVED:
            if t.name != name:
                continue
            for s in t.slots():
                record = bytes(t.buf[s * t.size : (s + 1) * t.size])
                nvs.set_blob(old + str(s), _old_event(record) if name == "schedule" else record)
            for k in range(t.keys()):
                nvs.erase_key(new + str(k))
    top = nvs.get_i32("ids")
    nvs.set_i32("nid", top)
    nvs.erase_key("ids")
    return [list(i) for i in esp32.nvs_flash().items], want, top


def _power_on(items, journal=None):
    """A fresh partition object holding `items` (a reboot), and the store opened over it."""
    flash = esp32.configure_nvs(None, reserve=200)
    flash.items = [list(i) for i in items]
    return flash, lambda: Store(archiver=FakeArchive(), now=Clock(), journal=AckJournal(_JOURNAL) if journal else None)


def _cut_at_each_write(items, journal=None, journal_payload=None):
    """Boots cut at NVS write 1, 2, ... until one finishes; after each, the power comes back:
    yields (cut, flash, boot) of that next power-on. `journal_payload` is written before each boot."""
    cut = 1
    while True:
        if journal_payload is not None:
            _write_journal(journal_payload)
        flash, boot = _power_on(items, journal=journal)
        flash.cut_power_at(cut)
        try:
            boot()
            finished = True
        except esp32.PowerCut:
            finished = False
        flash, boot = _power_on(flash.items, journal=journal)
        yield cut, flash, boot
        if finished:
            return
        cut += 1


def _keys(flash):
    return sorted(i[1] for i in flash.items if i[0] == "xzmem")


def _old_keys(flash):
    return [k for k in _keys(flash) if k == "nid" or k[:2] in _OLD_PREFIXES and k[2:].isdigit()]


def _key_image(key, data):
    return struct.pack("<B", len(key)) + key + struct.pack("<H", len(data)) + data


def _write_journal(payload):
    with open(_JOURNAL, "wb") as f:
        f.write(struct.pack("<2sHI", b"XJ", len(payload), binascii.crc32(payload)) + payload)


class Relayout(unittest.TestCase):
    def tearDown(self):
        remove(_JOURNAL)
        esp32.configure_nvs(None)

    def test_an_old_layout_store_opens_with_every_record_and_under_thirty_percent(self):
        items, want, top = _old_layout()
        flash, boot = _power_on(items)
        self.assertTrue(flash.namespace_entries("xzmem") > 530)  # the old layout: about 35 % of 1,536
        store = boot()
        self.assertEqual(_snapshot(store), want)
        self.assertEqual(_old_keys(flash), [])
        self.assertIn("ids", _keys(flash))
        self.assertTrue(flash.namespace_entries("xzmem") < 460, flash.namespace_entries("xzmem"))
        ev = store.events()[0]
        self.assertEqual((ev.event_type, ev.emotion, ev.intensity, ev.significance), ("meeting", 0, 3, 3))
        writes = flash.writes
        store = boot()  # moved once: the next boot writes nothing
        self.assertEqual(flash.writes, writes)
        self.assertEqual(_snapshot(store), want)
        store.delete("fact", {"id": store.read("fact")[0]["id"]})
        self.assertTrue(store.write("fact", {"content": "new"})["id"] > top)

    def test_power_cut_at_every_write_of_the_move_loses_nothing(self):
        items, want, top = _old_layout()
        for cut, flash, boot in _cut_at_each_write(items):
            store = boot()
            self.assertEqual(_snapshot(store), want, "cut at NVS write %d" % cut)
            self.assertEqual(_old_keys(flash), [], "cut at NVS write %d" % cut)
            self.assertEqual(store.stats()["corrupt_keys"], [])
            self.assertTrue(store._nv.next_id > top, "cut at NVS write %d: ids would repeat" % cut)
        self.assertTrue(cut > 80, cut)  # 16 new keys, 74 old keys and the counter

    def test_journal_images_of_old_keys_land_in_the_new_layout(self):
        items, want, top = _old_layout()
        fact = want["fact"][3]
        trait = want["trait"][2]
        event = [e for e in want["schedule"] if e["content"].startswith("e5 ")][0]
        flash, _ = _power_on(items)
        nvs = esp32.NVS("xzmem")
        facts = [i for i in items if i[1] in ["fa%d" % s for s in range(20)]]
        slot = [i[1] for i in facts if struct.unpack_from("<I", i[3])[0] == fact["id"]][0]
        trait_slot = [i[1] for i in items if i[1][:2] == "tr" and struct.unpack_from("<I", i[3])[0] == trait["id"]][0]
        ev_key = [i[1] for i in items if i[1][:2] == "ev" and struct.unpack_from("<I", i[3])[0] == event["id"]][0]
        old_fact = bytearray(128)
        nvs.get_blob(slot, old_fact)
        struct.pack_into("<120s", old_fact, 8, "改过的事实".encode())
        old_ev = bytearray(96)
        nvs.get_blob(ev_key, old_ev)
        struct.pack_into("<64s", old_ev, 16, "改过的日程".encode())
        # What the old firmware acknowledged and journalled, but never flushed: the power went first.
        payload = (struct.pack("<I", top) + _key_image(slot.encode(), bytes(old_fact))
                   + struct.pack("<B", len(trait_slot)) + trait_slot.encode() + b"\xff\xff"
                   + _key_image(ev_key.encode(), bytes(old_ev)))
        want["fact"][3]["content"] = "改过的事实"
        want["trait"].pop(2)
        want["schedule"][want["schedule"].index(event)]["content"] = "改过的日程"
        for cut, flash, boot in _cut_at_each_write(items, journal=True, journal_payload=payload):
            store = boot()
            self.assertEqual(_snapshot(store), want, "cut at NVS write %d" % cut)
            self.assertEqual(_old_keys(flash), [], "cut at NVS write %d" % cut)
            flash, boot = _power_on(flash.items, journal=True)  # and once more, the journal cut by now
            self.assertEqual(_snapshot(boot()), want, "cut at NVS write %d" % cut)

    def test_an_old_image_with_an_id_past_the_limit_is_set_aside_and_counted(self):
        items, want, top = _old_layout()
        _power_on(items)
        slot = [i[1] for i in items if i[1][:2] == "fa" and i[1][2:].isdigit()][0]
        image = bytearray(128)
        esp32.NVS("xzmem").get_blob(slot, image)
        struct.pack_into("<I", image, 0, 2 ** 31)
        struct.pack_into("<120s", image, 8, "坏的事实".encode())
        _write_journal(struct.pack("<I", top) + _key_image(slot.encode(), bytes(image)))
        flash, boot = _power_on(items, journal=True)
        store = boot()
        self.assertEqual(_snapshot(store), want)
        self.assertEqual(store.stats()["journal"]["bad_records"], 1)
        self.assertEqual(_old_keys(flash), [])

    def test_a_partition_too_full_for_the_move_keeps_every_record_and_moves_later(self):
        # New keys are written before old ones are erased, so the move needs room for a table's worth.
        items, want, top = _old_layout()
        for room in (5, 25, 60):
            flash, boot = _power_on(items)
            flash.usable_entries = flash.entries_used() + room
            store = boot()
            self.assertEqual(_snapshot(store), want, "room for %d entries" % room)
            try:
                store.flush()  # what the move could not write waits for a flush that finds room
            except OSError as e:
                self.assertEqual(e.args[0], -4357)
            self.assertTrue("nid" in _keys(flash), "room for %d entries" % room)  # not done yet
            flash, boot = _power_on(flash.items)
            flash.usable_entries = flash.entries_used() + room
            self.assertEqual(_snapshot(boot()), want, "room for %d entries, rebooted" % room)
            flash, boot = _power_on(flash.items)  # room again
            store = boot()
            self.assertEqual(_snapshot(store), want, "room for %d entries, then room" % room)
            self.assertEqual(_old_keys(flash), [])
            self.assertTrue(store._nv.next_id > top)

    def test_a_damaged_new_key_does_not_hide_the_old_keys_it_was_made_from(self):
        items, want, top = _old_layout()
        flash, boot = _power_on(items + [["xzmem", "fas0", "blob", b"short"]])
        store = boot()
        self.assertEqual(_snapshot(store), want)
        self.assertEqual(store.stats()["corrupt_keys"], ["fas0"])
        self.assertEqual(_old_keys(flash), [])
