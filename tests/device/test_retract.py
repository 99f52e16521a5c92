# memory_sync's retract op takes back an earlier write only while what it wrote is still there.
#
# For every type: the child says one thing, then corrects it; retracting the first write leaves the
# correction and answers CHANGED. Retracting a write that is still current deletes it (or, with
# `replace`, changes its text) and nothing else.

import os
import unittest

import esp32
from memory.archive import Archive
from memory.keyed import KeyedStore
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.sync import Sync
from store_helpers import TMP, Clock, remove
from test_backup import _wipe

_TAG = str(os.getpid()) if hasattr(os, "getpid") else "mp"


class Retract(unittest.TestCase):
    def setUp(self):
        self.root = "%s/retract_%s" % (TMP, _TAG)
        _wipe(self.root)
        os.mkdir(self.root)
        esp32.configure_nvs(self.root + "/nvs.json", reserve=200)
        self.clock = Clock()
        archive = Archive(self.root + "/archive", capacity=1024 * 1024)
        keyed = KeyedStore(self.root + "/keyed", now=self.clock)
        store = Store(archiver=archive, now=self.clock, keyed=keyed)
        self.memory = MemoryService(store, Schedules(store, Event), archive, keyed)
        self.sync = Sync(self.memory, self.root + "/sync")
        self.n = 0

    def tearDown(self):
        for n in (0, 1):
            remove("%s/sync.%d.jsonl" % (self.root, n))
        _wipe(self.root)

    def apply(self, *ops):
        self.n += 1
        return [r for r in self.sync.apply("b%d" % self.n, list(ops))["results"]]

    def read(self, kind):
        return self.memory.store.read(kind)

    def test_a_corrected_name_survives_the_retract_of_the_old_one(self):
        self.apply({"op": "write", "type": "name", "content": "小米粒"})
        self.apply({"op": "write", "type": "name", "content": "陈小米"})
        [out] = self.apply({"op": "retract", "type": "name", "content": "小米粒"})
        self.assertEqual(out["result"], "CHANGED")
        self.assertEqual(out["now"], ["陈小米"])
        self.assertEqual([r["content"] for r in self.read("name")], ["陈小米"])
        [out] = self.apply({"op": "retract", "type": "name", "content": "陈小米"})
        self.assertEqual(out["result"], "DELETED")
        self.assertEqual(self.read("name"), [])

    def test_age_and_replace(self):
        self.apply({"op": "write", "type": "age", "content": 8})
        [out] = self.apply({"op": "retract", "type": "age", "content": 7, "replace": "9"})
        self.assertEqual(out["result"], "CHANGED")
        [out] = self.apply({"op": "retract", "type": "age", "content": 8, "replace": "9"})
        self.assertEqual(out["result"], "UPDATED")
        self.assertEqual([str(r["content"]) for r in self.read("age")], ["9"])

    def test_likes_facts_and_moments_only_their_own_text(self):
        self.apply({"op": "write", "type": "like", "content": "画画"},
                   {"op": "write", "type": "like", "content": "足球"},
                   {"op": "write", "type": "fact", "content": "养了一只猫"},
                   {"op": "write", "type": "moment", "topic": "海边", "content": "第一次看海"})
        self.apply({"op": "delete", "type": "like", "content": "画画"})
        [out] = self.apply({"op": "retract", "type": "like", "content": "画画"})
        self.assertEqual(out["result"], "CHANGED")
        self.assertEqual([r["content"] for r in self.read("like")], ["足球"])
        [out] = self.apply({"op": "retract", "type": "fact", "content": "养了一只狗"})
        self.assertEqual(out["result"], "CHANGED")
        [out] = self.apply({"op": "retract", "type": "fact", "content": "养了一只猫", "replace": "养了两只猫"})
        self.assertEqual(out["result"], "ADDED")
        self.assertEqual([r["content"] for r in self.read("fact")], ["养了两只猫"])
        [out] = self.apply({"op": "retract", "type": "moment", "topic": "海边", "content": "第一次看海"})
        self.assertEqual(out["result"], "DELETED")
        self.assertEqual(self.read("moment"), [])

    def test_family_keeps_a_renamed_member(self):
        self.apply({"op": "write", "type": "family", "relation": "妈妈", "name": "李华"})
        self.apply({"op": "delete", "type": "family", "relation": "妈妈", "name": "李华"},
                   {"op": "write", "type": "family", "relation": "妈妈", "name": "李芳"})
        [out] = self.apply({"op": "retract", "type": "family", "relation": "妈妈", "name": "李华"})
        self.assertEqual(out["result"], "CHANGED")
        self.assertEqual([r["name"] for r in self.read("family")], ["李芳"])

    def test_schedules_by_text_and_time(self):
        self.apply({"op": "write", "type": "schedule", "content": "钢琴课", "datetime": "2026-01-10 16:00"},
                   {"op": "write", "type": "schedule", "content": "钢琴课", "datetime": "2026-01-12 16:00"})
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "钢琴课", "datetime": "2026-01-11 16:00"})
        self.assertEqual(out["result"], "CHANGED")
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "钢琴课", "datetime": "2026-01-10 16:00"})
        self.assertEqual(out["result"], "DELETED")
        self.assertEqual([ev.content for ev in self.memory.store.events()], ["钢琴课"])

    def test_a_yearly_schedule_by_its_month_and_day(self):
        self.apply({"op": "write", "type": "schedule", "content": "妈妈生日", "datetime": "03-15"},
                   {"op": "write", "type": "schedule", "content": "结婚纪念日", "datetime": "10-01 19:30"})
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "妈妈生日", "datetime": "03-16"})
        self.assertEqual(out["result"], "CHANGED")
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "结婚纪念日", "datetime": "10-01 09:00"})
        self.assertEqual(out["result"], "CHANGED")
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "妈妈生日", "datetime": "03-15",
                            "replace": "妈妈的生日"})
        self.assertEqual(out["result"], "UPDATED")
        [out] = self.apply({"op": "retract", "type": "schedule", "content": "结婚纪念日", "datetime": "10-01 19:30"})
        self.assertEqual(out["result"], "DELETED")
        self.assertEqual([ev.content for ev in self.memory.store.events()], ["妈妈的生日"])

    def test_keyed_only_while_the_payload_is_the_same(self):
        put = {"op": "put_mem", "key": "mem_a1", "category": "preference", "payload": "喜欢恐龙", "importance": 5,
               "source": "sieve"}
        self.apply(put)
        self.apply(dict(put, payload="喜欢霸王龙"))
        [out] = self.apply({"op": "retract", "type": "keyed", "key": "mem_a1", "payload": "喜欢恐龙"})
        self.assertEqual(out["result"], "CHANGED")
        self.assertEqual(self.memory.keyed.get("mem_a1")["payload"], "喜欢霸王龙")
        [out] = self.apply({"op": "retract", "type": "keyed", "key": "mem_a1", "payload": "喜欢霸王龙"})
        self.assertEqual(out["result"], "DELETED")
        self.assertIsNone(self.memory.keyed.get("mem_a1"))

    def test_bad_retracts_are_refused_and_change_nothing(self):
        self.apply({"op": "write", "type": "name", "content": "小米"})
        for op in ({"op": "retract", "type": "name"}, {"op": "retract", "type": "coins", "content": "1"},
                   {"op": "retract", "type": "name", "content": "小米", "replace": " "}):
            [out] = self.apply(op)
            self.assertEqual(out["result"], "REFUSED", op)
        self.assertEqual([r["content"] for r in self.read("name")], ["小米"])


if __name__ == "__main__":
    unittest.main()
