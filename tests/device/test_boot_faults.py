# Boot without a network: WiFi that will not join and NTP that fails give a status line, not a crash.

import time
import unittest

import machine
import network
import ntptime
from memory import clock, config, startup

# CPython has no ticks: the fake Timer then counts from 0
_ticks_add = getattr(time, "ticks_add", lambda t, d: t + d)
_ticks_diff = getattr(time, "ticks_diff", lambda a, b: a - b)


class Network(unittest.TestCase):
    def tearDown(self):
        network.fail_with = None
        ntptime.fail_with = None

    def test_wifi_that_will_not_join_is_reported_after_retries(self):
        network.fail_with = 202  # wrong password
        cfg = config.validate({"wifi_ssid": "家里的WiFi", "wifi_password": "nope"})
        line = startup.connect_wifi(cfg, wait_ms=0)
        self.assertTrue("could not join" in line and "家里的WiFi" in line, line)

    def test_wifi_that_joins(self):
        line = startup.connect_wifi(config.validate({"wifi_ssid": "home"}), wait_ms=0)
        self.assertTrue(line.startswith('wifi: connected to "home"'), line)

    def test_ntp_failure_says_whether_the_clock_is_set(self):
        ntptime.fail_with = OSError(110)
        line = startup.set_clock_by_ntp(config.validate({}))
        self.assertTrue("NTP failed" in line, line)
        self.assertTrue(("still set" in line) == clock.is_set(), line)


class Machine(unittest.TestCase):
    def test_timer_fires_one_shot_once_and_periodic_again(self):
        fired = []
        once = machine.Timer(-1)
        once.init(mode=machine.Timer.ONE_SHOT, period=10, callback=lambda t: fired.append("once"))
        every = machine.Timer(-1)
        every.init(mode=machine.Timer.PERIODIC, period=10, callback=lambda t: fired.append("every"))
        try:
            # the two were set a tick apart when the clock moved on in between: start from the later one
            first = once._deadline if _ticks_diff(every._deadline, once._deadline) < 0 else every._deadline
            machine.Timer.tick(first)
            machine.Timer.tick(_ticks_add(first, 10))
        finally:
            every.deinit()
        self.assertEqual(fired, ["once", "every", "every"])

    def test_reset_ends_the_program(self):
        try:
            machine.reset()
        except SystemExit:
            return
        self.fail("reset() returned")
