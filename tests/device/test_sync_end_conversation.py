# memory.sync: the host's end_conversation op counts the interaction and leaves nothing unflushed.

import unittest

import esp32
from memory.store import Store
from memory.sync import Sync
from store_helpers import T0, TMP, Clock, fresh_nvs, remove

_NVS = TMP + "/sync_end_nvs.json"
_LOG = TMP + "/sync_end_log.json"


class _Memory:
    def __init__(self, store):
        self.store = store

    def write(self, kind, args):
        return self.store.write(kind, args)


def _boot(clock):
    esp32.configure_nvs(_NVS, reserve=200)
    memory = _Memory(Store(now=clock))
    return memory, Sync(memory, _LOG)


class EndConversation(unittest.TestCase):
    def setUp(self):
        fresh_nvs(_NVS, reserve=200)
        for n in (0, 1):
            remove("%s.%d.jsonl" % (_LOG, n))  # the replay log's two files

    def test_end_counts_one_interaction_and_survives_a_reboot(self):
        clock = Clock(T0 + 3600)
        memory, sync = _boot(clock)
        out = sync.apply("b1", [{"op": "write", "type": "like", "content": "football"},
                                {"op": "end_conversation"}])
        self.assertEqual([r["result"] for r in out["results"]], ["ADDED", "UPDATED"])
        self.assertFalse(memory.store.pending())
        memory, sync = _boot(clock)
        affection = memory.store.affection()
        self.assertEqual(affection["interactions"], 1)
        self.assertEqual(affection["last_interaction"], T0 + 3600)
        self.assertEqual([x["content"] for x in memory.store.read("like")], ["football"])

    def test_batches_without_it_count_nothing_and_a_replay_counts_nothing_more(self):
        memory, sync = _boot(Clock())
        sync.apply("b1", [{"op": "write", "type": "like", "content": "tea"}])
        self.assertEqual(memory.store.affection()["interactions"], 0)
        sync.apply("b2", [{"op": "end_conversation"}])
        self.assertTrue(sync.apply("b2", [{"op": "end_conversation"}])["replayed"])
        self.assertEqual(memory.store.affection()["interactions"], 1)


if __name__ == "__main__":
    unittest.main()
