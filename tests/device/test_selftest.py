# The boot self-test passes on a healthy device and names a failing check.

import unittest

import esp32
from memory import app, clock, config, selftest


class SelfTest(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.device = app.Device(config.validate({}), data="/nonexistent-data")

    def tearDown(self):
        clock.set_utc_offset(0)  # the device set the configured offset; other tests expect UTC

    def test_healthy_device_passes_every_check(self):
        self.assertEqual(selftest.run(self.device), "xzmem self-test: 5 passed, 0 failed")

    def test_a_failing_check_is_named(self):
        self.device.store._nv.corrupt.append("fa3")
        self.assertEqual(selftest.run(self.device), "xzmem self-test: 4 passed, 1 failed (nvs)")


class SerialCalls(unittest.TestCase):
    """app.call_tool is what `xzmem --device PORT` runs on the board through mpremote."""

    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.device = app.Device(config.validate({}), data="/nonexistent-data")

    def tearDown(self):
        clock.set_utc_offset(0)

    def test_a_write_is_flushed_and_a_read_comes_back_joined(self):
        import json

        out = json.loads(self.device.call_tool("memory", '{"action":"write","type":"name","content":"小智"}'))
        self.assertFalse(out["isError"])
        self.assertEqual(self.device.store.pending(), 0)
        out = json.loads(self.device.call_tool("memory", '{"action":"read"}'))
        self.assertEqual(json.loads(out["content"][0]["text"])["profile"]["name"], "小智")
        out = json.loads(self.device.call_tool("memory_sync", '{"action":"stats"}'))  # serial is trusted
        self.assertFalse(out["isError"])
        self.assertTrue("device_id" in json.loads(out["content"][0]["text"]))

    def test_refusals_name_the_problem(self):
        import json

        for name, args, word in (("nope", "{}", "unknown tool"), ("memory", "{bad", "not JSON"),
                                 ("memory", '{"action":"fly"}', "没有这个操作：fly"), ("memory", "[1]", "object")):
            out = json.loads(self.device.call_tool(name, args))
            self.assertTrue(out["isError"], (name, args))
            self.assertTrue(word in out["content"][0]["text"], out["content"][0]["text"])
