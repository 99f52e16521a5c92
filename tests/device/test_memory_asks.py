# What a user asks of the memory tool and must get: recall of events, one of two same-text
# schedules, deleting a completed one, forgetting a relative by relation, finding the profile.

import json
import unittest

import esp32
from memory import app, clock, config


def call(device, args):
    out = json.loads(device.call_tool("memory", json.dumps(args)))
    text = out["content"][0]["text"]
    return out["isError"], (text if out["isError"] else json.loads(text))


class Asks(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.device = app.Device(config.validate({}), data="/nonexistent-data")
        self.before = clock.now()
        clock.set_utc_offset(0)
        clock.set_now(clock.from_local(2030, 3, 1, 8, 0))

    def tearDown(self):
        clock.set_now(self.before)
        clock.set_utc_offset(0)

    def ok(self, args):
        err, out = call(self.device, args)
        self.assertFalse(err, out)
        return out

    def schedule(self, content, when):
        return self.ok({"action": "write", "type": "schedule", "content": content, "datetime": when, "force": True})

    def test_recall_of_events_answers_the_schedules(self):
        self.schedule("看牙医", "2030-03-02 10:00")
        self.schedule("交房租", "2030-03-05 09:00")
        out = self.ok({"action": "recall", "type": "event", "keyword": "牙医"})
        self.assertEqual([item["content"] for item in out["items"]], ["看牙医"])
        self.assertEqual(out["type"], "event")
        self.assertEqual(self.ok({"action": "recall", "type": "event"})["count"], 2)

    def test_event_is_a_recall_type_only(self):
        err, text = call(self.device, {"action": "write", "type": "event", "content": "x"})
        self.assertTrue(err)
        self.assertTrue("event" in text, text)

    def test_two_schedules_with_one_text_are_told_apart_by_datetime(self):
        self.schedule("吃药", "2030-03-01 09:00")
        self.schedule("吃药", "2030-03-01 21:00")
        err, text = call(self.device, {"action": "complete_schedule", "content": "吃药"})
        self.assertTrue(err)
        self.assertTrue("09:00" in text and "21:00" in text, text)
        out = self.ok({"action": "complete_schedule", "content": "吃药", "datetime": "2030-03-01 21:00"})
        self.assertEqual(out["completed"]["datetime"], "2030-03-01 21:00")
        left = self.ok({"action": "read", "type": "schedule"})["items"]
        self.assertEqual([(s["content"], s["datetime"]) for s in left], [("吃药", "2030-03-01 09:00")])
        err, text = call(self.device, {"action": "complete_schedule", "content": "吃药", "datetime": "2030-03-02 09:00"})
        self.assertTrue(err)

    def test_a_completed_one_off_can_be_deleted(self):
        self.schedule("看牙医", "2030-03-02 10:00")
        self.ok({"action": "complete_schedule", "content": "看牙医"})
        out = self.ok({"action": "delete", "type": "schedule", "content": "看牙医"})
        self.assertEqual(out["result"], "DELETED")
        self.assertEqual(self.ok({"action": "recall", "type": "event"})["count"], 0)

    def test_an_active_schedule_is_deleted_before_a_completed_one_of_the_same_text(self):
        self.schedule("倒垃圾", "2030-03-01 09:00")
        self.ok({"action": "complete_schedule", "content": "倒垃圾"})
        self.schedule("倒垃圾", "2030-03-08 09:00")
        out = self.ok({"action": "delete", "type": "schedule", "content": "倒垃圾"})
        self.assertEqual(out["schedule"]["datetime"], "2030-03-08 09:00")

    def test_a_relative_is_forgotten_by_relation_alone(self):
        self.ok({"action": "write", "type": "family", "relation": "妈妈", "name": "李华"})
        self.ok({"action": "write", "type": "family", "relation": "哥哥", "name": "王强"})
        self.assertEqual(self.ok({"action": "delete", "type": "family", "relation": "妈妈"})["result"], "DELETED")
        family = self.ok({"action": "read", "type": "family"})["items"]
        self.assertEqual([m["relation"] for m in family], ["哥哥"])
        err, text = call(self.device, {"action": "delete", "type": "family"})
        self.assertTrue(err)
        self.assertTrue("relation" in text, text)

    def test_search_finds_the_profile(self):
        self.ok({"action": "write", "type": "location", "content": "北京"})
        self.ok({"action": "write", "type": "fact", "content": "去过上海"})
        out = self.ok({"action": "search", "keyword": "北京"})
        self.assertEqual([(i["type"], i["content"]) for i in out["items"]], [("location", "北京")])


if __name__ == "__main__":
    unittest.main()
