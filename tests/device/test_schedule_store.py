# Schedules on the real NVS store: power cut while completing, reminders once across reboots.

import unittest

import esp32
from memory import clock, schedule
from memory.store import Event, Store
from store_helpers import TMP, fresh_nvs

PATH = TMP + "/nvs_schedule_test.json"


def at(text):
    return clock.parse_local_datetime(text)


def reboot():
    esp32.configure_nvs(PATH, reserve=200)
    store = Store(now=lambda: at("2026-02-05 08:00"))
    return store, schedule.Schedules(store, Event)


class PowerSafety(unittest.TestCase):
    def setUp(self):
        fresh_nvs(PATH)
        self.store, self.s = reboot()

    def test_cut_while_completing_a_repeating_schedule_leaves_exactly_one_occurrence(self):
        self.s.add("每天早餐提醒", "2026-02-05 08:00", repeat="daily", now=at("2026-02-05 07:00"))
        self.s.add("团队会议", "2026-02-05 14:00", now=at("2026-02-05 07:00"))
        self.store.flush()
        for cut in (1, 2):
            self.store, self.s = reboot()
            self.s.complete("每天早餐提醒", now=at("2026-02-05 08:30"))
            esp32.nvs_flash().cut_power_at(cut)
            try:
                self.store.flush()
            except esp32.PowerCut:
                pass
            store, _ = reboot()
            breakfasts = [ev for ev in store.events() if ev.content == "每天早餐提醒"]
            self.assertEqual(len(breakfasts), 1, "cut at write %d" % cut)
            self.assertTrue(clock.format_local(breakfasts[0].when) in ("2026-02-05 08:00", "2026-02-06 08:00"))
            self.assertEqual(len(store.events()), 2)

    def test_reminder_is_not_repeated_after_a_reboot(self):
        self.s.add("团队会议", "2026-02-05 14:00", priority=4, now=at("2026-02-05 07:00"))
        self.store.flush()
        self.assertEqual(len(self.s.take_due(at("2026-02-05 13:10"))), 1)
        self.store.flush()
        store, s = reboot()
        self.assertEqual(s.take_due(at("2026-02-05 13:20")), [])

    def test_sixteen_schedules_then_a_clear_capacity_error(self):
        for i in range(16):
            self.s.add("日程%d" % i, "2026-03-%02d 10:00" % (i + 1), now=at("2026-02-05 07:00"))
        try:
            self.s.add("第十七个", "2026-03-20 10:00", now=at("2026-02-05 07:00"))
        except ValueError as e:
            self.assertTrue("16" in str(e), str(e))
        else:
            self.fail("17th schedule accepted")
