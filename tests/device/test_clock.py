# memory.clock: Unix seconds whatever the epoch, calendar maths, local time, parsing.

import unittest

from memory import clock


class Calendar(unittest.TestCase):
    def tearDown(self):
        clock.set_utc_offset(0)

    def test_days_round_trip_across_leap_years(self):
        for days in range(-800, 25000, 7):
            self.assertEqual(clock.days_from_civil(*clock.civil_from_days(days)), days)
        self.assertEqual(clock.days_from_civil(2000, 1, 1) * 86400, 946684800)
        self.assertEqual(clock.civil_from_days(clock.days_from_civil(2028, 2, 29)), (2028, 2, 29))

    def test_days_in_month(self):
        self.assertEqual(clock.days_in_month(2024, 2), 29)
        self.assertEqual(clock.days_in_month(2100, 2), 28)
        self.assertEqual(clock.days_in_month(2000, 2), 29)
        self.assertEqual(clock.days_in_month(2026, 4), 30)

    def test_local_offset_moves_wall_clock_not_stored_time(self):
        clock.set_utc_offset(8 * 3600)
        t = clock.parse_local_datetime("2026-02-05 14:00")
        self.assertEqual(clock.format_local(t), "2026-02-05 14:00")
        self.assertEqual(clock.parts(t)[3], 6)  # 06:00 UTC
        self.assertEqual(clock.iso_local(t), "2026-02-05T14:00:00")

    def test_bad_datetimes_name_the_problem(self):
        for bad in ("2026-02-30 10:00", "2026-13-01 10:00", "2026-01-01 25:00", "2026-01-01 10:60", "tomorrow", 5):
            try:
                clock.parse_local_datetime(bad)
            except ValueError as e:
                self.assertTrue("datetime" in str(e), str(e))
            else:
                self.fail("accepted %r" % (bad,))

    def test_weekday(self):
        self.assertEqual(clock.parts(clock.from_local(2026, 11, 22))[6], 6)  # a Sunday


class Now(unittest.TestCase):
    def test_now_is_unix_seconds(self):
        self.assertTrue(clock.now() > 1700000000)
        self.assertTrue(clock.is_set())
        self.assertFalse(clock.is_set(clock.from_local(2023, 12, 31)))

    def test_set_now_and_simulated_speed(self):
        target = clock.from_local(2026, 2, 5, 13, 0)
        clock.set_now(target)
        self.assertTrue(abs(clock.now() - target) <= 1)
        clock.simulate(target, speed=3600)
        try:
            self.assertTrue(clock.now() - target < 3600 * 5)
        finally:
            clock.simulate(None)
