# Schedules: repeats across month and year ends, conflicts, completion, reminders, cleanup, stages.

import unittest

from memory import affinity, clock, schedule


class Event:
    pass


class ListStore:
    """The store's event interface, in RAM: enough to test the schedule rules alone."""

    def __init__(self):
        self.items = []
        self.writes = 0
        self._next = 1

    def events(self):
        return sorted(self.items, key=lambda ev: ev.when)  # soonest first, as the NVS store lists them

    def add_event(self, ev):
        ev.id = self._next
        self._next += 1
        self.items.append(ev)
        self.writes += 1
        return "ADDED"

    def update_event(self, ev):
        self.writes += 1
        return "UPDATED"

    def delete_event(self, ev):
        self.items.remove(ev)
        self.writes += 1
        return "DELETED"


def at(text):
    return clock.parse_local_datetime(text)


class Repeats(unittest.TestCase):
    def test_monthly_keeps_the_day_and_clamps_to_month_end(self):
        t = at("2026-01-31 09:00")
        seen = []
        for _ in range(4):
            t = schedule.next_occurrence(t, 3, 31)
            seen.append(clock.format_local(t))
        self.assertEqual(seen, ["2026-02-28 09:00", "2026-03-31 09:00", "2026-04-30 09:00", "2026-05-31 09:00"])

    def test_monthly_in_a_leap_year_and_across_the_year_end(self):
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2028-01-30 08:00"), 3, 30)), "2028-02-29 08:00")
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2026-12-31 20:00"), 3, 31)), "2027-01-31 20:00")

    def test_daily_and_weekly_cross_month_and_year_ends(self):
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2026-12-31 23:30"), 1, 31)), "2027-01-01 23:30")
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2028-02-26 07:00"), 2, 26)), "2028-03-04 07:00")
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2028-02-28 07:00"), 1, 28)), "2028-02-29 07:00")


    def test_yearly_keeps_month_and_day_and_a_leap_day_falls_on_the_28th(self):
        t = at("2028-02-29 09:00")
        seen = []
        for _ in range(5):
            t = schedule.next_occurrence(t, schedule.YEARLY, 29)
            seen.append(clock.format_local(t))
        self.assertEqual(seen, ["2029-02-28 09:00", "2030-02-28 09:00", "2031-02-28 09:00", "2032-02-29 09:00",
                                "2033-02-28 09:00"])
        self.assertEqual(clock.format_local(schedule.next_occurrence(at("2026-12-31 20:00"), 4, 31)), "2027-12-31 20:00")


class Anniversaries(unittest.TestCase):
    # Seed 003: an event's date may be MM-DD, a date that comes back every year (birthdays, anniversaries).
    def setUp(self):
        self.store = ListStore()
        self.s = schedule.Schedules(self.store, Event)
        self.now = at("2026-02-05 08:00")

    def test_a_month_day_date_is_the_next_one_and_repeats_every_year(self):
        self.s.add("团队会议", "2026-03-15 09:00", now=self.now)
        r = self.s.add("妈妈生日", "03-15", now=self.now, fields={"event_type": "生日", "emotion": "happy",
                                                                   "intensity": 4, "significance": 5})
        self.assertEqual(r["result"], "ADDED")  # a day, not an appointment: no conflict with the meeting
        got = r["schedule"]
        self.assertEqual((got["datetime"], got["repeat"], got["event_type"], got["emotion"], got["intensity"],
                          got["significance"]), ("2026-03-15 09:00", "yearly", "生日", "happy", 4, 5))
        r = self.s.add("结婚纪念日", "01-10 19:30", now=self.now)  # passed this year: next year's
        self.assertEqual((r["schedule"]["datetime"], r["schedule"]["repeat"]), ("2027-01-10 19:30", "yearly"))
        self.assertEqual(self.s.add("妈妈生日", "03-15", now=self.now,
                                    fields={"event_type": "生日", "emotion": "happy", "intensity": 4,
                                            "significance": 5})["result"], "NOOP")
        self.assertEqual(self.s.add("妈妈生日", "03-15", now=self.now)["result"], "NOOP")  # names no detail
        r = self.s.add("妈妈生日", "03-15", now=self.now, fields={"significance": 4})
        self.assertEqual((r["result"], r["schedule"]["significance"], r["schedule"]["event_type"]), ("UPDATED", 4, "生日"))

    def test_reminded_on_the_day_each_year(self):
        self.s.add("妈妈生日", "03-15", now=self.now, fields={"event_type": "生日"})
        due = self.s.take_due(at("2026-03-15 08:10"))
        self.assertEqual([d["text"] for d in due], ["今天是「妈妈生日」。"])
        self.assertEqual(self.s.take_due(at("2026-03-15 08:20")), [])
        due = self.s.take_due(at("2027-03-15 08:30"))  # nobody completed it: it comes back next year
        self.assertEqual([(d["datetime"], d["missed"]) for d in due], [("2027-03-15 09:00", False)])
        r = self.s.complete("妈妈生日", now=at("2027-03-15 12:00"))
        self.assertEqual(r["next"]["datetime"], "2028-03-15 09:00")
        en = schedule.Schedules(self.store, Event, "en")
        self.assertEqual([d["text"] for d in en.take_due(at("2028-03-15 08:05"))], ["Today is 妈妈生日."])

    def test_bad_dates_and_fields_are_refused_and_store_nothing(self):
        for datetime_text, fields, repeat, field in (
            ("13-01", None, None, "datetime"),
            ("02-30", None, None, "datetime"),
            ("3-15 9:00", None, None, "datetime"),
            ("03-15 25:00", None, None, "datetime"),
            ("０３-15", None, None, "datetime"),
            ("03-15", None, "weekly", "repeat"),
            ("03-15", {"event_type": "纪念日纪念日纪念日"}, None, "event_type"),
            ("03-15", {"event_type": 7}, None, "event_type"),
            ("03-15", {"significance": 6}, None, "significance"),
            ("03-15", {"significance": 0}, None, "significance"),
            ("03-15", {"intensity": 9}, None, "intensity"),
            ("03-15", {"emotion": "angry"}, None, "emotion"),
        ):
            try:
                self.s.add("生日", datetime_text, repeat, now=self.now, fields=fields)
            except ValueError as e:
                self.assertEqual(e.field, field, str(e))
            else:
                self.fail("accepted %r %r" % (datetime_text, fields))
        self.assertEqual(self.store.items, [])


class Writes(unittest.TestCase):
    def setUp(self):
        self.store = ListStore()
        self.s = schedule.Schedules(self.store, Event)
        self.now = at("2026-02-05 08:00")

    def test_bad_input_names_the_field_and_stores_nothing(self):
        for kwargs, field in (
            ({"datetime_text": "2026-02-30 10:00"}, "datetime"),
            ({"datetime_text": "2026-02-05 25:00"}, "datetime"),
            ({"datetime_text": "2026-02-05 10:00", "repeat": "hourly"}, "repeat"),
            ({"datetime_text": "2026-02-05 10:00", "priority": 6}, "priority"),
            ({"datetime_text": "2026-02-05 10:00", "priority": 0}, "priority"),
        ):
            try:
                self.s.add("会议", now=self.now, **kwargs)
            except ValueError as e:
                self.assertTrue(field in str(e), str(e))
            else:
                self.fail("accepted %r" % (kwargs,))
        self.assertRaises(ValueError, self.s.add, "  ", "2026-02-05 10:00", now=self.now)
        self.assertEqual(self.store.items, [])

    def test_conflict_names_the_other_schedule_and_suggests_free_times(self):
        self.s.add("团队会议", "2026-02-05 14:00", now=self.now)
        self.s.add("看牙医", "2026-02-05 15:00", now=self.now)
        r = self.s.add("打电话给妈妈", "2026-02-05 14:30", now=self.now)
        self.assertEqual(r["result"], "CONFLICT")
        self.assertEqual([c["content"] for c in r["conflicts"]], ["团队会议", "看牙医"])
        # Nearest free hours around 14:30: 13:30 would still overlap the 14:00 meeting.
        self.assertEqual(r["suggested_times"], ["13:00", "16:00", "16:30"])
        self.assertEqual(len(self.store.items), 2)
        r = self.s.add("打电话给妈妈", "2026-02-05 14:30", force=True, now=self.now)
        self.assertEqual(r["result"], "ADDED")

    def test_same_schedule_twice_is_noop(self):
        self.assertEqual(self.s.add("团队会议", "2026-02-05 14:00", now=self.now)["result"], "ADDED")
        self.assertEqual(self.s.add("团队会议", "2026-02-05 14:00", now=self.now)["result"], "NOOP")

    def test_complete_by_substring_and_ambiguity(self):
        self.s.add("团队会议", "2026-02-05 14:00", now=self.now)
        self.s.add("家长会议", "2026-02-06 14:00", now=self.now)
        try:
            self.s.complete("会议", now=self.now)
        except ValueError as e:
            self.assertTrue("团队会议" in str(e) and "家长会议" in str(e), str(e))
        else:
            self.fail("ambiguous match accepted")
        r = self.s.complete("团队", now=self.now)
        self.assertEqual(r["completed"]["content"], "团队会议")
        self.assertRaises(ValueError, self.s.complete, "不存在", now=self.now)

    def test_completing_a_repeating_schedule_moves_it_to_the_next_occurrence(self):
        self.s.add("每天早餐提醒", "2026-02-05 08:00", repeat="daily", now=self.now)
        before = self.store.writes
        r = self.s.complete("每天早餐提醒", now=self.now)
        self.assertEqual(r["next"]["datetime"], "2026-02-06 08:00")
        self.assertEqual((r["next"]["reminded"], r["next"]["completed"]), (0, 0))
        self.assertEqual(len(self.store.items), 1)
        self.assertEqual(self.store.writes - before, 1)  # one record write: power-safe

    def test_three_completions_of_one_occurrence_move_it_once(self):
        self.s.add("吃药", "2026-02-05 08:00", repeat="daily", now=self.now)
        first = self.s.complete("吃药", now=at("2026-02-05 07:50"))
        self.assertEqual((first["result"], first["completed"]["datetime"], first["next"]["datetime"]),
                         ("UPDATED", "2026-02-05 08:00", "2026-02-06 08:00"))
        for t in ("2026-02-05 07:50", "2026-02-05 09:30", "2026-02-05 19:00"):
            again = self.s.complete("吃药", now=at(t))
            self.assertEqual((again["result"], again["completed"]["datetime"], again["next"]["datetime"]),
                             ("NOOP", "2026-02-05 08:00", "2026-02-06 08:00"), t)
        # The next morning it is the next occurrence that is done.
        r = self.s.complete("吃药", now=at("2026-02-06 07:40"))
        self.assertEqual((r["result"], r["completed"]["datetime"], r["next"]["datetime"]),
                         ("UPDATED", "2026-02-06 08:00", "2026-02-07 08:00"))

    def test_a_monthly_retry_skips_no_month(self):
        self.s.add("交房租", "2026-04-05 09:00", repeat="monthly", now=self.now)
        for _ in range(3):
            r = self.s.complete("交房租", now=at("2026-04-05 10:00"))
            self.assertEqual((r["completed"]["datetime"], r["next"]["datetime"]), ("2026-04-05 09:00", "2026-05-05 09:00"))
        self.assertEqual(self.s.upcoming()[0]["datetime"], "2026-05-05 09:00")

    def test_completing_late_names_the_occurrence_nearest_now(self):
        self.s.add("浇花", "2026-02-05 08:00", repeat="daily", now=self.now)
        r = self.s.complete("浇花", now=at("2026-02-08 09:00"))  # three days missed
        self.assertEqual((r["completed"]["datetime"], r["next"]["datetime"]), ("2026-02-08 08:00", "2026-02-09 08:00"))

    def test_a_one_off_completed_twice_answers_noop(self):
        self.s.add("看牙", "2026-02-05 14:00", now=self.now)
        self.assertEqual(self.s.complete("看牙", now=self.now)["result"], "UPDATED")
        r = self.s.complete("看牙", now=self.now)
        self.assertEqual((r["result"], r["completed"]["datetime"], r["completed"]["completed"]), ("NOOP", "2026-02-05 14:00", 1))
        self.assertRaises(ValueError, self.s.complete, "看", now=self.now)  # a fragment still needs an active match

    def test_delete_by_content(self):
        self.s.add("团队会议", "2026-02-05 14:00", now=self.now)
        self.assertEqual(self.s.delete("团队会议")["result"], "DELETED")
        self.assertEqual(self.store.items, [])


class Reminders(unittest.TestCase):
    def setUp(self):
        self.store = ListStore()
        self.s = schedule.Schedules(self.store, Event)
        self.s.add("紧急会议", "2026-02-05 14:00", priority=5, now=at("2026-02-05 08:00"))
        self.s.add("健身", "2026-02-05 20:00", priority=1, now=at("2026-02-05 08:00"))

    def test_announced_once_within_the_hour_with_urgency(self):
        self.assertEqual(self.s.take_due(at("2026-02-05 12:50")), [])
        due = self.s.take_due(at("2026-02-05 13:10"))
        self.assertEqual([(d["content"], d["urgency"], d["missed"]) for d in due], [("紧急会议", "urgent", False)])
        self.assertTrue("重要" in due[0]["text"])
        self.assertEqual(self.s.take_due(at("2026-02-05 13:20")), [])
        due = self.s.take_due(at("2026-02-05 19:10"))
        self.assertEqual([(d["content"], d["urgency"]) for d in due], [("健身", "light")])

    def test_missed_while_off_is_announced_as_missed_once(self):
        due = self.s.take_due(at("2026-02-05 21:00"))
        self.assertEqual([(d["content"], d["missed"]) for d in due], [("紧急会议", True), ("健身", True)])
        self.assertEqual(self.s.take_due(at("2026-02-05 21:10")), [])

    def test_no_reminders_before_the_clock_is_set(self):
        self.assertEqual(self.s.take_due(at("2000-01-01 13:30")), [])
        r = self.s.add("早会", "2026-02-06 09:00", now=at("2000-01-01 00:05"))
        self.assertTrue("clock" in r["warning"])

    def test_repeating_schedule_left_undone_comes_back(self):
        store = ListStore()
        s = schedule.Schedules(store, Event)
        s.add("吃药", "2026-02-05 08:00", repeat="daily", now=at("2026-02-05 07:00"))
        self.assertEqual(len(s.take_due(at("2026-02-05 07:30"))), 1)
        self.assertEqual(s.take_due(at("2026-02-05 12:00")), [])
        due = s.take_due(at("2026-02-06 07:20"))
        self.assertEqual([d["datetime"] for d in due], ["2026-02-06 08:00"])

    def test_completed_one_offs_are_cleaned_after_a_week(self):
        self.s.complete("健身", now=at("2026-02-05 21:00"))
        self.assertEqual(self.s.clean(at("2026-02-12 20:00")), 0)
        self.assertEqual(self.s.clean(at("2026-02-12 21:01")), 1)
        self.assertEqual([e.content for e in self.store.items], ["紧急会议"])


class Stages(unittest.TestCase):
    def test_boundaries(self):
        cases = ((0, "stranger"), (20, "stranger"), (21, "acquaintance"), (50, "acquaintance"), (51, "friend"),
                 (100, "friend"), (101, "close_friend"), (200, "close_friend"), (201, "soulmate"), (9999, "soulmate"))
        for coins, name in cases:
            self.assertEqual(affinity.stage(coins)[1], name, "coins %d" % coins)
        self.assertEqual(affinity.describe(35)["coins_to_next_stage"], 16)
        self.assertIsNone(affinity.describe(300)["coins_to_next_stage"])
        self.assertRaises(ValueError, affinity.stage, -1)

    def test_each_stage_has_a_style_line_in_both_languages(self):
        for coins, zh, en in ((0, "陌生期", "Stranger"), (21, "熟悉期", "Acquaintance"), (51, "亲密期", "Friend"),
                              (101, "深厚期", "Close friend"), (201, "灵魂伴侣", "Soulmate")):
            self.assertTrue(affinity.style(coins).startswith(zh), coins)
            self.assertTrue(affinity.style(coins, "en").startswith(en), coins)
        self.assertTrue("您" in affinity.style(0) and "您" in affinity.style(0, "en"))


class FlushingStore(ListStore):
    def __init__(self):
        ListStore.__init__(self)
        self.flushes = 0

    def flush(self):
        self.flushes += 1
        return 1


class Loop(unittest.TestCase):
    def setUp(self):
        from memory import reminder

        self.store = FlushingStore()
        self.s = schedule.Schedules(self.store, Event)
        self.s.add("团队会议", "2026-02-05 14:00", priority=4, now=at("2026-02-05 08:00"))
        self.announcer = reminder.Announcer()
        self.loop = reminder.ReminderLoop(self.s, self.store, self.announcer)

    def test_reminder_reaches_every_link_and_is_flushed(self):
        got_a, got_b = [], []
        self.announcer.add(got_a.append)
        self.announcer.add(got_b.append)
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual([i["content"] for i in got_a], ["团队会议"])
        self.assertEqual(got_a, got_b)
        self.assertEqual(self.store.flushes, 1)
        self.loop.check(at("2026-02-05 13:15"))
        self.assertEqual(len(got_a), 1)
        self.assertEqual(self.store.flushes, 1)

    def test_reminder_waits_for_a_link(self):
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual(self.announcer.undelivered(), 1)
        got = []
        self.announcer.add(got.append)
        self.assertEqual([i["content"] for i in got], ["团队会议"])
        self.assertEqual(self.announcer.undelivered(), 0)

    def test_a_failing_link_does_not_silence_the_others(self):
        def broken(item):
            raise OSError(104)

        got = []
        self.announcer.add(broken)
        self.announcer.add(got.append)
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual(len(got), 1)

    def test_a_reminder_no_user_saw_is_answered_by_the_next_read_once(self):
        got = []
        self.announcer.add(got.append)  # a relay or voice server: it may drop the notification
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual(len(got), 1)
        untold = self.s.take_untold(at("2026-02-05 13:10"))
        self.assertEqual([(i["content"], i["missed"], i["minutes"]) for i in untold], [("团队会议", False, 50)])
        self.assertTrue(untold[0]["text"].startswith("重要！14:00"), untold[0]["text"])
        self.assertEqual(self.s.take_untold(at("2026-02-05 13:20")), [])

    def test_a_link_that_reaches_the_user_leaves_nothing_for_the_read(self):
        got = []
        self.announcer.add(got.append, True)  # the host gateway
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual(len(got), 1)
        self.assertEqual(self.s.take_untold(at("2026-02-05 13:10")), [])

    def test_a_held_reminder_is_told_when_the_gateway_connects(self):
        self.loop.check(at("2026-02-05 13:05"))
        got = []
        self.announcer.add(got.append, True)
        self.assertEqual(len(got), 1)
        self.assertEqual(self.s.take_untold(at("2026-02-05 13:10")), [])

    def test_the_read_takes_what_the_loop_has_not_reached_and_the_loop_then_skips_it(self):
        got = []
        self.announcer.add(got.append)
        untold = self.s.take_untold(at("2026-02-05 13:30"))
        self.assertEqual([i["minutes"] for i in untold], [30])
        self.loop.check(at("2026-02-05 13:35"))
        self.assertEqual(got, [])

    def test_a_look_leaves_reminders_untold(self):
        self.loop.check(at("2026-02-05 13:05"))
        for _ in range(2):
            self.assertEqual(len(self.s.take_untold(at("2026-02-05 13:10"), tell=False)), 1)
        self.assertEqual(len(self.s.take_untold(at("2026-02-05 13:10"))), 1)
        self.assertEqual(self.s.take_untold(at("2026-02-05 13:10"), tell=False), [])

    def test_a_sink_with_nobody_to_take_it_leaves_the_reminder_held(self):
        self.announcer.add(lambda item: False)  # the MCP server with no client connected
        self.loop.check(at("2026-02-05 13:05"))
        self.assertEqual(self.announcer.undelivered(), 1)
        got = []
        self.announcer.add(got.append)
        self.assertEqual(len(got), 1)

    def test_reminder_sentences_follow_the_language(self):
        self.s.language = "en"
        untold = self.s.take_untold(at("2026-02-05 13:30"))
        self.assertEqual(untold[0]["text"], "Important! At 14:00: 团队会议. Don't forget.")
        item = dict(untold[0], missed=True)
        self.assertEqual(schedule.reminder_text(item, "en"), "You missed a plan: 团队会议 (it was at 2026-02-05 14:00).")
        self.assertEqual(schedule.reminder_text(dict(item, missed=False, urgency="light")), "顺便说一句，14:00 还有「团队会议」。")

    def test_missed_while_off_and_clock_unset(self):
        self.assertEqual(self.s.take_untold(0), [])
        untold = self.s.take_untold(at("2026-02-05 16:00"))
        self.assertEqual([i["missed"] for i in untold], [True])
        self.assertTrue(untold[0]["text"].startswith("你错过了"), untold[0]["text"])

    def test_reminders_beyond_what_the_announcer_holds_are_not_lost(self):
        for i in range(9):
            self.s.add("事%d" % i, "2026-02-06 0%d:00" % i, force=True, now=at("2026-02-05 08:00"))
        self.loop.check(at("2026-02-06 09:30"))  # no link at all: the announcer keeps only 8
        self.assertEqual(self.announcer.undelivered(), 8)
        self.assertEqual(len(self.s.take_untold(at("2026-02-06 09:40"))), 10)

    async def test_run_checks_at_once_then_sleeps(self):
        import asyncio

        got = []
        self.announcer.add(got.append)
        clock.simulate(at("2026-02-05 13:05"), speed=1)
        try:
            task = asyncio.create_task(self.loop.run(asyncio.Lock()))
            await asyncio.sleep(0.05)
            task.cancel()
        finally:
            clock.simulate(None)
        self.assertEqual([i["content"] for i in got], ["团队会议"])
