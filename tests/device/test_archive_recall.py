# memory.archive: what is stored, and recall by keyword, date range and recency.

import json
import unittest

from archive_testkit import DAY, at, event, fact, files, moment, scratch, wipe
from memory import clock, fs, steps
from memory.archive import Archive


class Stored(unittest.TestCase):
    def setUp(self):
        self.root = scratch("stored")
        self.a = Archive(self.root, part_bytes=2048)

    def tearDown(self):
        clock.simulate(None)
        wipe(self.root)

    def test_line_keeps_id_type_times_and_fields(self):
        clock.simulate(at("2026-03-01"))
        self.a.append("moment", [moment(1, at("2026-01-18", 20), "生日聚会", "主人和朋友们一起庆祝生日")])
        path = files(self.root + "/moment", ".jsonl")[0]
        f = fs.open(path, "rb")
        raw = f.read()
        f.close()
        self.assertTrue(raw.endswith(b"\n"))
        self.assertIn("生日聚会".encode(), raw)  # UTF-8 as it is, not \u escapes
        rec = json.loads(raw)
        self.assertEqual(rec["id"], "m1")
        self.assertEqual(rec["type"], "moment")
        self.assertEqual(rec["learned_at"], at("2026-01-18", 20))
        self.assertTrue(abs(rec["archived_at"] - at("2026-03-01")) < 5)
        for name, value in (("topic", "生日聚会"), ("emotion_type", 1), ("emotion_intensity", 4), ("importance", 3)):
            self.assertEqual(rec[name], value)

    def test_segments_split_by_month_and_size(self):
        items = [fact(i, at("2025-01-01") + i * 6 * 3600, "a rather long fact text number %d about things" % i)
                 for i in range(200)]
        self.assertEqual(self.a.append("fact", items), 200)
        months = fs.listdir(self.root + "/fact")
        self.assertIn("202501", months)
        self.assertIn("202502", months)
        jan = files(self.root + "/fact/202501", ".jsonl")
        self.assertTrue(len(jan) > 1)
        for p in jan:
            self.assertTrue(fs.stat(p)[6] < 2048 + 200)
        self.assertEqual(self.a.count("fact"), 200)

    def test_bad_record_is_refused_and_nothing_is_written(self):
        self.a.append("fact", [fact(1, at("2025-05-01"))])
        bad = fact(3, at("2025-05-02"))
        del bad["content"]
        with self.assertRaises(ValueError):
            self.a.append("fact", [fact(2, at("2025-05-02")), bad])
        with self.assertRaises(ValueError):
            self.a.append("fact", [{"id": "x", "learned_at": "yesterday", "content": "c"}])
        with self.assertRaises(ValueError):
            self.a.append("story", [fact(4, at("2025-05-02"))])
        self.assertEqual(self.a.count("fact"), 1)
        self.assertEqual(self.a.recall("fact")["count"], 1)

    def test_same_id_archived_twice_counts_once(self):
        items = [fact(i, at("2025-06-01") + i * 60) for i in range(5)]
        self.assertEqual(self.a.append("fact", items), 5)
        self.assertEqual(self.a.append("fact", items[2:] + [fact(9, at("2025-06-02"))]), 1)
        self.assertEqual(self.a.count("fact"), 6)
        ids = [it["id"] for it in self.a.recall("fact", limit=50)["items"]]
        self.assertEqual(len(ids), len(set(ids)))


class Recall(unittest.TestCase):
    def setUp(self):
        self.root = scratch("recall")
        self.a = Archive(self.root, part_bytes=2048)
        facts = [fact(i, at("2025-01-01") + i * DAY // 2, "filler note %d on weather and tea" % i) for i in range(300)]
        facts[10]["content"] = "主人喜欢吃北京烤鸭"
        facts[200]["content"] = "主人在北京工作, works in BEIJING"
        facts[250]["content"] = "Likes Python and beijing opera"
        self.a.append("fact", facts)
        self.a.append("moment", [moment(1, at("2025-03-15", 18), "生日庆祝", "主人25岁生日聚会"),
                                 moment(2, at("2025-07-01", 18), "项目成功", "完成了重要项目")])
        self.a.append("event", [event(1, at("2025-02-01"), "dentist")])

    def tearDown(self):
        clock.set_utc_offset(0)
        wipe(self.root)

    def test_keyword_chinese_substring_and_ascii_any_case(self):
        r = self.a.recall("fact", keyword="北京")
        self.assertEqual(r["type"], "fact")
        self.assertEqual([it["id"] for it in r["items"]], ["f200", "f10"])
        self.assertEqual(r["count"], 2)
        r = self.a.recall("fact", keyword="BeiJing")
        self.assertEqual([it["id"] for it in r["items"]], ["f250", "f200"])
        self.assertEqual(self.a.recall("fact", keyword="烤鸭")["items"][0]["content"], "主人喜欢吃北京烤鸭")
        self.assertEqual(self.a.recall("moment", keyword="生日")["items"][0]["topic"], "生日庆祝")

    def test_keyword_in_escaped_or_quoted_text_is_found(self):
        # A line from another writer, with \u escapes, and one whose text holds JSON-escaped quotes.
        path = files(self.root + "/fact", ".jsonl")[-1]
        f = fs.open(path, "ab")
        f.write(b'{"id":"x1","type":"fact","learned_at":1748736000,"archived_at":1748736000,'
                b'"content":"\\u53bb\\u4e0a\\u6d77 trip"}\n')
        f.close()
        self.a.append("fact", [fact(2000, at("2025-06-02"), 'she said "hi" at 上海')])
        self.assertEqual([it["id"] for it in self.a.recall("fact", keyword="上海")["items"]], ["f2000", "x1"])
        self.assertEqual([it["id"] for it in self.a.recall("fact", keyword='"hi"')["items"]], ["f2000"])

    def test_keyword_found_nowhere_reads_no_segment(self):
        r = self.a.recall("fact", keyword="滑雪")
        self.assertEqual(r, {"type": "fact", "count": 0, "items": []})
        self.assertEqual(self.a.last["segments_read"], 0)
        self.assertTrue(self.a.last["segments_probed"] > 10)

    def test_item_timestamp_is_local_iso_of_learned_time(self):
        clock.set_utc_offset(8 * 3600)
        it = self.a.recall("fact", keyword="烤鸭")["items"][0]
        self.assertEqual(it["timestamp"], clock.iso_local(it["learned_at"]))
        self.assertEqual(it["timestamp"], "2025-01-06T20:00:00")

    def test_date_range_is_inclusive_and_either_end_may_be_missing(self):
        r = self.a.recall("fact", start_date="2025-01-06", end_date="2025-01-07", limit=50)
        self.assertEqual(r["count"], 4)
        for it in r["items"]:
            self.assertIn(it["timestamp"][:10], ("2025-01-06", "2025-01-07"))
        r = self.a.recall("fact", end_date="2025-01-02", limit=50)
        self.assertEqual([it["id"] for it in r["items"]], ["f2", "f1", "f0"])
        r = self.a.recall("fact", start_date="2025-05-30", limit=50)
        self.assertEqual([it["id"] for it in r["items"]], ["f299", "f298", "f297"])
        r = self.a.recall("moment", start_date="2025-01-01", end_date="2025-12-31")
        self.assertEqual(r["count"], 2)

    def test_until_keeps_those_learned_then_or_before(self):
        # A host paging a day that holds more than one answer asks up to the last second it showed.
        r = self.a.recall("fact", until=at("2025-01-02"), limit=50)
        self.assertEqual([it["id"] for it in r["items"]], ["f2", "f1", "f0"])
        r = self.a.recall("fact", until=at("2025-01-02") - 1, end_date="2025-12-31", limit=2)
        self.assertEqual([it["id"] for it in r["items"]], ["f1", "f0"])
        with self.assertRaises(ValueError):
            self.a.recall("fact", until="yesterday")

    def test_date_range_follows_local_time(self):
        clock.set_utc_offset(8 * 3600)
        # Local 2025-01-03 runs from 01-02 16:00 to 01-03 16:00 UTC: f3 (01-03 00:00 UTC) and
        # f4 (01-03 12:00 UTC) are in it, f5 (01-04 00:00 UTC, 08:00 local on the 4th) is not.
        r = self.a.recall("fact", start_date="2025-01-03", end_date="2025-01-03", limit=50)
        self.assertEqual([it["id"] for it in r["items"]], ["f4", "f3"])

    def test_most_recent_newest_first_with_limits(self):
        r = self.a.recall("fact")
        self.assertEqual(r["count"], 10)
        self.assertEqual([it["id"] for it in r["items"]], ["f%d" % i for i in range(299, 289, -1)])
        self.assertEqual(self.a.recall("fact", limit=50)["count"], 50)
        self.assertEqual(self.a.recall("fact", limit=1)["items"][0]["id"], "f299")
        self.assertEqual(self.a.recall("event")["items"][0]["content"], "dentist")

    def test_recent_is_by_learned_time_even_when_archived_out_of_order(self):
        self.a.append("fact", [fact(1000, at("2025-06-01") + 1, "late archived but newest")])
        self.a.append("fact", [fact(1001, at("2025-05-30"), "old, archived last")])
        ids = [it["id"] for it in self.a.recall("fact", limit=3)["items"]]
        self.assertEqual(ids, ["f1000", "f299", "f298"])

    def test_recent_reads_only_the_newest_segments(self):
        self.a.recall("fact", limit=10)
        self.assertTrue(self.a.last["segments_read"] <= 2)
        self.assertTrue(self.a.last["lines_parsed"] < 40)

    async def test_recall_run_on_the_event_loop_gives_the_same_reply(self):
        for kwargs in ({"keyword": "beijing"}, {"limit": 50}, {"start_date": "2025-01-06", "end_date": "2025-02-01"}):
            found = await steps.run(self.a.recall_steps("fact", **kwargs))
            self.assertEqual(found, self.a.recall("fact", **kwargs))

    def test_recall_steps_yield_while_reading(self):
        steps = self.a.recall_steps("fact", limit=50)
        n = 0
        try:
            while True:
                next(steps)
                n += 1
        except StopIteration as done:
            reply = done.value
        self.assertEqual(reply["count"], 50)
        self.assertTrue(n >= self.a.last["lines_parsed"])

    def test_counts_per_type(self):
        self.assertEqual(self.a.count("fact"), 300)
        self.assertEqual(self.a.count("moment"), 2)
        self.assertEqual(self.a.count("event"), 1)
        self.assertEqual(self.a.stats()["counts"], {"fact": 300, "moment": 2, "event": 1})

    def test_arguments_are_checked(self):
        for kwargs in ({"limit": 0}, {"limit": 51}, {"limit": "5"}, {"start_date": "2025-13-01"},
                       {"end_date": "yesterday"}, {"start_date": "2025-02-01", "end_date": "2025-01-01"},
                       {"keyword": 5}):
            with self.assertRaises(ValueError):
                self.a.recall("fact", **kwargs)
        with self.assertRaises(ValueError):
            self.a.recall("habit")
        with self.assertRaises(ValueError):
            self.a.count("schedule")
