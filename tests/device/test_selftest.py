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
