# memory.store: what each write and delete answers, validation, capacities and the archive hook.

import unittest

from memory.records import cut
from memory.store import Event, Store
from store_helpers import DAY, T0, Clock, FakeArchive, fresh_nvs, new_store


def _errmsg(test, func, *args):
    try:
        func(*args)
    except ValueError as e:
        return str(e)
    test.fail("no ValueError from %r" % (args,))


class Profile(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.clock = Clock()
        self.s = new_store(self.clock)

    def test_set_same_change_delete(self):
        self.assertEqual(self.s.write("name", {"content": "王浩宇"})["result"], "ADDED")
        self.assertEqual(self.s.write("name", {"content": "王浩宇"})["result"], "NOOP")
        self.clock.t += 60
        self.assertEqual(self.s.write("name", {"content": "浩宇"})["result"], "UPDATED")
        self.assertEqual(self.s.read("name"), [{"content": "浩宇", "learned_at": T0 + 60}])
        self.assertEqual(self.s.delete("name")["result"], "DELETED")
        self.assertEqual(self.s.delete("name")["result"], "NOOP")
        self.assertEqual(self.s.read("name"), [])

    def test_each_field_keeps_its_own_learned_time(self):
        self.s.write("name", {"content": "Ann"})
        self.clock.t += 100
        self.s.write("age", {"content": "25"})
        p = self.s.read("profile")[0]
        self.assertEqual((p["name_learned_at"], p["age_learned_at"], p["age"]), (T0, T0 + 100, 25))

    def test_age_gender_birthday_validation(self):
        self.assertIn("age must be 0-150, got 151", _errmsg(self, self.s.write, "age", {"content": 151}))
        self.assertIn("age must be an integer", _errmsg(self, self.s.write, "age", {"content": "old"}))
        self.assertIn("gender must be one of", _errmsg(self, self.s.write, "gender", {"content": "robot"}))
        for bad in ("2026-02-30", "13-01", "1990/01/01", "02-30", "0315"):
            self.assertIn("birthday", _errmsg(self, self.s.write, "birthday", {"content": bad}))
        for good in ("1990-03-15", "02-29", "12-31"):
            self.s.write("birthday", {"content": good})
            self.assertEqual(self.s.read("birthday")[0]["content"], good)
        self.assertEqual(self.s.write("gender", {"content": "女"})["result"], "ADDED")
        self.assertEqual(self.s.read("gender")[0]["content"], "female")
        self.assertEqual(self.s.write("age", {"content": 0})["result"], "ADDED")

    def test_overlong_name_cut_on_character_boundary(self):
        out = self.s.write("name", {"content": "名" * 20})  # 60 bytes into 32
        self.assertEqual(out["truncated"], ["name"])
        self.assertEqual(self.s.read("name")[0]["content"], "名" * 10)


class Preferences(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.s = new_store()

    def test_same_like_twice_is_noop(self):
        self.assertEqual(self.s.write("like", {"content": "篮球"})["result"], "ADDED")
        self.assertEqual(self.s.write("like", {"content": " 篮球 "})["result"], "NOOP")
        self.assertEqual([x["content"] for x in self.s.read("like")], ["篮球"])

    def test_dislike_of_a_like_moves_it(self):
        self.s.write("like", {"content": "coffee"})
        out = self.s.write("dislike", {"content": "coffee"})
        self.assertEqual((out["result"], out["moved_from"]), ("UPDATED", "like"))
        self.assertEqual(self.s.read("like"), [])
        self.assertEqual([x["content"] for x in self.s.read("dislike")], ["coffee"])

    def test_eight_of_each_then_clear_error(self):
        for i in range(8):
            self.s.write("like", {"content": "l%d" % i})
            self.s.write("dislike", {"content": "d%d" % i})
        self.assertIn("likes are full (8", _errmsg(self, self.s.write, "like", {"content": "more"}))
        self.assertIn("dislikes are full", _errmsg(self, self.s.write, "dislike", {"content": "l0"}))
        self.assertEqual(self.s.delete("like", {"content": "l3"})["result"], "DELETED")
        self.assertEqual(self.s.delete("like", {"content": "l3"})["result"], "NOOP")
        self.assertEqual(self.s.write("like", {"content": "more"})["result"], "ADDED")


class Family(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.s = new_store()

    def test_match_by_relation_and_name(self):
        self.assertEqual(self.s.write("family", {"relation": "妈妈", "name": "李娟", "closeness": 5})["result"], "ADDED")
        self.assertEqual(self.s.write("family", {"relation": "妈妈", "name": "李娟", "closeness": 5})["result"], "NOOP")
        self.assertEqual(self.s.write("family", {"relation": "妈妈", "name": "李娟", "closeness": 4})["result"],
                         "UPDATED")
        self.assertEqual(self.s.write("family", {"relation": "姐姐", "name": "李娟"})["result"], "ADDED")
        fam = self.s.read("family")
        self.assertEqual([(m["relation"], m["closeness"]) for m in fam], [("妈妈", 4), ("姐姐", 3)])
        self.assertEqual(self.s.delete("family", {"relation": "姐姐", "name": "李娟"})["result"], "DELETED")
        self.assertEqual(len(self.s.read("family")), 1)

    def test_closeness_and_required_fields(self):
        self.assertIn("closeness must be 1-5, got 6",
                      _errmsg(self, self.s.write, "family", {"relation": "dad", "name": "Bo", "closeness": 6}))
        self.assertIn("relation is required", _errmsg(self, self.s.write, "family", {"name": "Bo"}))

    def test_ninth_member_refused(self):
        for i in range(8):
            self.s.write("family", {"relation": "cousin", "name": "c%d" % i})
        self.assertIn("family is full (8", _errmsg(self, self.s.write, "family", {"relation": "x", "name": "y"}))


class NotesAndArchive(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.clock = Clock()
        self.archive = FakeArchive()
        self.s = new_store(self.clock, self.archive)

    def _facts(self, n, start=0):
        for i in range(start, start + n):
            self.clock.t += 1
            self.s.write("fact", {"content": "fact %d" % i})

    def test_twenty_first_fact_archives_oldest_five(self):
        self._facts(20)
        self.assertEqual(self.archive.calls, [])
        out = self.s.write("fact", {"content": "fact 20"})
        self.assertEqual((out["result"], out["archived"]), ("ADDED", 5))
        self.assertEqual(self.archive.calls, [("fact", 5)])
        self.assertEqual([i["content"] for i in self.archive.items], ["fact %d" % i for i in range(5)])
        first = self.archive.items[0]
        self.assertEqual((first["type"], first["learned_at"]), ("fact", T0 + 1))
        self.assertEqual([x["content"] for x in self.s.read("fact")], ["fact %d" % i for i in range(5, 21)])
        self.assertEqual(len({i["id"] for i in self.archive.items}), 5)

    def test_archive_failure_keeps_records_and_refuses_the_write(self):
        self._facts(20)
        self.archive.fail = OSError(28)
        try:
            self.s.write("fact", {"content": "one too many"})
        except OSError as e:
            self.assertIn("archiving the oldest 5 failed", str(e))
        else:
            self.fail("write went through with a broken archive")
        self.assertEqual(len(self.s.read("fact")), 20)
        self.assertEqual(self.s.read("fact")[0]["content"], "fact 0")

    def test_moments_archive_oldest_three(self):
        for i in range(11):
            self.clock.t += 1
            self.s.write("moment", {"topic": "t%d" % i, "content": "m%d" % i, "emotion": 1, "intensity": 4,
                                    "importance": 5})
        self.assertEqual(self.archive.calls, [("moment", 3)])
        item = self.archive.items[0]
        self.assertEqual((item["type"], item["topic"], item["emotion_type"], item["emotion_intensity"],
                          item["importance"]), ("moment", "t0", 1, 4, 5))
        self.assertEqual(len(self.s.read("moment")), 8)

    def test_moment_update_and_bad_emotion(self):
        self.s.write("moment", {"topic": "生日", "content": "聚会", "emotion": "happy"})
        self.assertEqual(self.s.write("moment", {"topic": "生日", "content": "聚会", "emotion": "happy"})["result"],
                         "NOOP")
        self.assertEqual(self.s.write("moment", {"topic": "生日", "content": "聚会", "emotion": "touched"})["result"],
                         "UPDATED")
        self.assertEqual(self.s.read("moment")[0]["emotion"], "touched")
        self.assertIn("emotion must be one of", _errmsg(self, self.s.write, "moment", {"content": "x", "emotion": "meh"}))

    def test_traits_full_is_an_error_not_an_archive(self):
        for i in range(10):
            self.s.write("trait", {"content": "trait %d" % i})
        self.assertIn("traits are full (10", _errmsg(self, self.s.write, "trait", {"content": "more"}))
        self.assertEqual(self.archive.calls, [])

    def test_delete_by_id_exact_and_unique_fragment(self):
        a = self.s.write("fact", {"content": "likes green tea"})["id"]
        self.s.write("fact", {"content": "works in Beijing"})
        self.s.write("fact", {"content": "lives in Beijing"})
        self.assertEqual(self.s.delete("fact", {"content": "Beijing"})["result"], "NOOP")  # two match
        self.assertEqual(self.s.delete("fact", {"content": "works in"})["result"], "DELETED")
        self.assertEqual(self.s.delete("fact", {"id": a})["result"], "DELETED")
        self.assertEqual([x["content"] for x in self.s.read("fact")], ["lives in Beijing"])

    def test_archive_aged_facts_moments_and_past_one_off_events(self):
        self.s.write("fact", {"content": "old fact"})
        self.s.write("moment", {"content": "old moment"})
        self.s.add_event(Event("dentist", T0 + 3600, "看牙", emotion=4, intensity=2, significance=4))
        self.s.add_event(Event("daily walk", T0 + 3600, repeat=1))
        self.s.add_event(Event("mum's birthday", T0 + 3600, "生日", repeat=4))  # yearly: never past
        self.clock.t = T0 + 20 * DAY
        self.s.write("fact", {"content": "new fact"})
        self.s.add_event(Event("future", T0 + 40 * DAY))
        out = self.s.archive_aged(T0 + 31 * DAY)
        self.assertEqual((out["fact"], out["moment"], out["event"]), (1, 1, 1))
        self.assertEqual([x["content"] for x in self.s.read("fact")], ["new fact"])
        self.assertEqual(sorted(e.content for e in self.s.events()), ["daily walk", "future", "mum's birthday"])
        ev = [i for i in self.archive.items if i["type"] == "event"][0]
        self.assertEqual((ev["content"], ev["when"], ev["repeat"]), ("dentist", T0 + 3600, 0))
        self.assertEqual((ev["event_type"], ev["emotion"], ev["intensity"], ev["significance"]), ("看牙", 4, 2, 4))
        self.assertEqual(self.s.pending(), 0)

    def test_archive_aged_does_nothing_without_a_clock(self):
        self.s.write("fact", {"content": "x"})
        out = self.s.archive_aged(1000)
        self.assertEqual(out["fact"], 0)
        self.assertIn("clock", out["skipped"])


class Events(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.s = new_store()

    def test_add_update_delete_and_fields_survive(self):
        ev = Event("团队会议", T0 + 3600, "meeting", repeat=3, anchor_day=31, priority=4)
        self.assertEqual(self.s.add_event(ev), "ADDED")
        self.assertTrue(ev.id > 0)
        self.assertEqual(ev.learned_at, T0)
        ev.reminded = True
        self.assertEqual(self.s.update_event(ev), "UPDATED")
        ev.reminded = 1
        self.assertEqual(self.s.update_event(ev), "NOOP")
        self.s.flush()
        got = Store(now=Clock()).events()[0]
        self.assertEqual(got.to_dict(), ev.to_dict())
        self.assertEqual((got.anchor_day, got.repeat, got.priority, got.reminded), (31, 3, 4, 1))
        self.assertEqual(self.s.delete_event(ev), "DELETED")
        self.assertEqual(self.s.delete_event(ev), "NOOP")

    def test_capacity_and_validation(self):
        for i in range(16):
            self.s.add_event(Event("e%d" % i, T0 + i))
        self.assertIn("capacity is 16", _errmsg(self, self.s.add_event, Event("x", T0)))
        self.s.delete_event(self.s.events()[0])
        self.assertIn("priority must be 1-5", _errmsg(self, self.s.add_event, Event("x", T0, priority=9)))
        self.assertIn("repeat must be 0-4", _errmsg(self, self.s.add_event, Event("x", T0, repeat=5)))
        self.assertIn("no event with id", _errmsg(self, self.s.update_event, Event("x", T0, id=999)))

    def test_long_content_cut_and_reported_on_the_event(self):
        ev = Event("会" * 30, T0)
        self.s.add_event(ev)
        self.assertEqual(ev.content, "会" * 21)
        self.assertEqual(self.s.events()[0].content, "会" * 21)

    def test_events_sorted_by_time(self):
        self.s.add_event(Event("late", T0 + 500))
        self.s.add_event(Event("early", T0 + 100))
        self.assertEqual([e.content for e in self.s.events()], ["early", "late"])
        self.assertEqual(self.s.read("schedule")[0]["content"], "early")


class AffectionAndChat(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.s = new_store()

    def test_affection_fields(self):
        self.assertEqual(self.s.affection()["total_coins_spent"], 0)
        self.assertEqual(self.s.add_coins(35)["result"], "ADDED")
        self.assertEqual(self.s.set_affection({"mood": "happy", "soul_state_code": "0110"})["result"], "UPDATED")
        self.assertEqual(self.s.set_affection({"mood": "happy"})["result"], "NOOP")
        a = self.s.affection()
        self.assertEqual((a["total_coins_spent"], a["mood"], a["soul_state_code"]), (35, "happy", 6))
        self.assertIn("soul_state_code must be 0-15", _errmsg(self, self.s.set_affection, {"soul_state_code": 16}))
        self.assertIn("unknown affection field", _errmsg(self, self.s.set_affection, {"coins": 1}))
        self.s.add_coins(-100)
        self.assertEqual(self.s.affection()["total_coins_spent"], 0)

    def test_chat_ring_keeps_last_thirty_in_order(self):
        for i in range(45):
            self.s.write("chat", {"role": "user" if i % 2 == 0 else "assistant", "content": "msg %d" % i})
        self.s.flush()
        msgs = Store(now=Clock()).read("chat")
        self.assertEqual([m["content"] for m in msgs], ["msg %d" % i for i in range(15, 45)])
        self.assertEqual(msgs[0]["role"], "assistant")
        self.assertIn("role must be user or assistant", _errmsg(self, self.s.write, "chat", {"role": "x", "content": "y"}))


class BadInput(unittest.TestCase):
    def setUp(self):
        fresh_nvs()
        self.s = new_store()

    def test_unknown_type_wrong_types_empty(self):
        self.assertIn("unknown memory type 'pet'", _errmsg(self, self.s.write, "pet", {"content": "cat"}))
        self.assertIn("unknown memory type", _errmsg(self, self.s.read, "pet"))
        self.assertIn("unknown memory type", _errmsg(self, self.s.delete, "pet", {}))
        self.assertIn("content must be a string, got int", _errmsg(self, self.s.write, "fact", {"content": 5}))
        self.assertIn("content must not be empty", _errmsg(self, self.s.write, "like", {"content": "  "}))
        self.assertIn("fields must be an object", _errmsg(self, self.s.write, "fact", ["x"]))
        self.assertIn("importance must be 1-5", _errmsg(self, self.s.write, "moment", {"content": "x", "importance": 0}))
        self.assertIn("must not contain NUL", _errmsg(self, self.s.write, "fact", {"content": "a\0b"}))
        self.assertIn("namespace must be 1-15 characters", _errmsg(self, Store, "n" * 16))
        self.assertEqual(self.s.pending(), 0)

    def test_cut_never_splits_a_character(self):
        for text in ("a" * 10, "é" * 10, "记" * 10, "😀" * 10, "a记😀é" * 5):
            for limit in range(0, 42):
                data, was_cut = cut(text, limit)
                self.assertTrue(len(data) <= limit)
                self.assertEqual(was_cut, len(text.encode()) > limit)
                self.assertTrue(text.startswith(data.decode()))
                self.assertTrue(len(text.encode()) <= limit or len(data) > limit - 4)

    def test_overview_shape(self):
        self.s.write("name", {"content": "Ann"})
        self.s.write("like", {"content": "tea"})
        self.s.add_event(Event("meeting", T0 + 3600, priority=4))
        o = self.s.overview()
        self.assertEqual(o["profile"], {"name": "Ann"})
        self.assertEqual(o["preferences"], {"likes": ["tea"], "dislikes": []})
        self.assertEqual(o["schedules"][0]["datetime"], "2026-01-01 01:00")
        self.assertEqual(o["affection"]["total_coins_spent"], 0)


class Restore(unittest.TestCase):
    """An exported record keeps the time it was learned when it is written into another device."""

    def test_restore_keeps_learned_at_and_stamps_new_writes_with_now(self):
        fresh_nvs()
        store = Store(archiver=FakeArchive(), now=Clock(T0))
        store.restore("fact", {"content": "养了一只猫"}, T0 - 40 * DAY)
        store.restore("family", {"relation": "妈妈", "name": "李娟"}, T0 - 2 * DAY)
        store.write("fact", {"content": "喜欢下雨天"})
        facts = {f["content"]: f["learned_at"] for f in store.read("fact")}
        self.assertEqual(facts, {"养了一只猫": T0 - 40 * DAY, "喜欢下雨天": T0})
        self.assertEqual(store.read("family")[0]["learned_at"], T0 - 2 * DAY)
        self.assertRaises(ValueError, store.restore, "fact", {"content": "x"}, "yesterday")
