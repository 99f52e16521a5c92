# memory.sync: a batch with coins, cut off by a power loss at any point and sent again, counts its coins once.

import unittest

import esp32
from memory.store import Store
from memory.sync import Sync
from store_helpers import TMP, Clock, fresh_nvs, remove

_NVS = TMP + "/sync_replay_nvs.json"
_LOG = TMP + "/sync_replay_log"
_BATCH = [{"op": "coins", "amount": 7}, {"op": "write", "type": "like", "content": "tea"},
          {"op": "coins", "amount": -2}]


class _Memory:
    """The part of the memory service Sync uses: the store and its writes."""

    def __init__(self, store):
        self.store = store

    def write(self, kind, args):
        return self.store.write(kind, args)


def _forget_log():
    for n in (0, 1):
        remove("%s.%d.jsonl" % (_LOG, n))


def _boot():
    """A device after power-on: NVS reloaded from its file, a store and the replay log read back."""
    esp32.configure_nvs(_NVS, reserve=200)
    memory = _Memory(Store(now=Clock()))
    return memory, Sync(memory, _LOG)


class CoinsOnce(unittest.TestCase):
    def setUp(self):
        fresh_nvs(_NVS, reserve=200)
        _forget_log()

    def test_plain_resend_is_a_replay(self):
        memory, sync = _boot()
        first = sync.apply("b1", _BATCH)
        again = sync.apply("b1", _BATCH)
        self.assertFalse(first["replayed"])
        self.assertTrue(again["replayed"])
        self.assertEqual(again["results"], first["results"])
        self.assertEqual(memory.store.affection()["total_coins_spent"], 5)

    def test_power_cut_at_each_nvs_write_then_resend(self):
        cut = 1
        while True:
            fresh_nvs(_NVS, reserve=200)
            _forget_log()
            memory, sync = _boot()
            memory.store.write("like", {"content": "before"})
            memory.store.add_coins(10)
            memory.store.flush()
            esp32.nvs_flash().cut_power_at(cut)
            try:
                sync.apply("b1", _BATCH)
                finished = True
            except esp32.PowerCut:
                finished = False
            memory, sync = _boot()
            out = sync.apply("b1", _BATCH)
            self.assertEqual(memory.store.affection()["total_coins_spent"], 15, "cut at NVS write %d" % cut)
            self.assertEqual([x["content"] for x in memory.store.read("like")], ["before", "tea"])
            self.assertEqual(out["replayed"], finished)
            if finished:
                break
            cut += 1
        self.assertTrue(cut > 1)

    def test_power_cut_after_the_flush_before_the_log_is_saved(self):
        memory, sync = _boot()
        saves = []
        real_append = sync.log.append

        def append_then_lose_power(batch_id, answer):
            if saves:
                raise esp32.PowerCut("power cut while saving the replay log")
            saves.append(1)
            real_append(batch_id, answer)

        sync.log.append = append_then_lose_power
        try:
            sync.apply("b1", _BATCH)
            self.fail("no power cut")
        except esp32.PowerCut:
            pass
        memory, sync = _boot()
        self.assertEqual(memory.store.affection()["total_coins_spent"], 5)  # applied and flushed
        out = sync.apply("b1", _BATCH)
        self.assertFalse(out["replayed"])
        self.assertEqual(memory.store.affection()["total_coins_spent"], 5)
        self.assertTrue(sync.apply("b1", _BATCH)["replayed"])
        self.assertEqual(memory.store.affection()["total_coins_spent"], 5)


if __name__ == "__main__":
    unittest.main()
