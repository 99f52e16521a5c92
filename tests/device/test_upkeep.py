# The nightly upkeep: aged facts go to the archive every night, past events only on Sunday nights
# (seed 003's archive table).

import json
import unittest

import esp32
from memory import app, clock, config
from store_helpers import FakeArchive


class Upkeep(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.before = clock.now()
        clock.set_utc_offset(0)
        clock.set_now(clock.from_local(2030, 1, 1, 8, 0))
        self.device = app.Device(config.validate({}), data="/nonexistent-data")
        self.archive = FakeArchive()
        self.device.store.archiver = self.archive
        self.call({"action": "write", "type": "fact", "content": "养了一只猫"})
        self.call({"action": "write", "type": "schedule", "content": "看牙医", "datetime": "2030-01-02 10:00"})

    def tearDown(self):
        clock.set_now(self.before)
        clock.set_utc_offset(0)

    def call(self, args):
        out = json.loads(self.device.call_tool("memory", json.dumps(args)))
        self.assertFalse(out["isError"], out)

    def archived(self):
        return sorted((item["type"], item["content"]) for item in self.archive.items)

    def test_a_past_event_waits_for_sunday_night_while_aged_facts_go_every_night(self):
        self.device.upkeep(clock.from_local(2030, 3, 2, 3, 30))  # Saturday
        self.assertEqual(self.archived(), [("fact", "养了一只猫")])
        self.device.upkeep(clock.from_local(2030, 3, 2, 23, 0))  # the same day: once only
        self.device.upkeep(clock.from_local(2030, 3, 3, 2, 0))  # Sunday, before the nightly hour
        self.assertEqual(self.archived(), [("fact", "养了一只猫")])
        self.device.upkeep(clock.from_local(2030, 3, 3, 3, 30))  # Sunday night
        self.assertEqual(self.archived(), [("event", "看牙医"), ("fact", "养了一只猫")])


if __name__ == "__main__":
    unittest.main()
