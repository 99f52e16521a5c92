# Arguments a device must refuse or report: an absurd clock, unknown arguments, non-ASCII digits,
# characters trimmed from text.

import json
import unittest

import esp32
from memory import app, clock, config


def call(device, tool, args):
    out = json.loads(device.call_tool(tool, json.dumps(args)))
    text = out["content"][0]["text"]
    return out["isError"], (text if out["isError"] else json.loads(text))


class Refusals(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.device = app.Device(config.validate({}), data="/nonexistent-data")
        self.before = clock.now()

    def tearDown(self):
        clock.set_now(self.before)
        clock.set_utc_offset(0)

    def test_set_clock_takes_only_2024_to_2105(self):
        for unix in (2**40, 4291747200, 1704067199, 0, -5):
            err, text = call(self.device, "memory_sync", {"action": "set_clock", "unix": unix})
            self.assertTrue(err, unix)
            self.assertTrue("2024-01-01" in text and "2105-12-31" in text, text)
            self.assertTrue(abs(clock.now() - self.before) < 5, "the clock moved for %d" % unix)
        self.assertTrue("year 36812" in call(self.device, "memory_sync", {"action": "set_clock", "unix": 2**40})[1])
        for unix in (1704067200, 4291747199):
            err, out = call(self.device, "memory_sync", {"action": "set_clock", "unix": unix, "utc_offset": 0})
            self.assertFalse(err, out)
        self.assertEqual(out["now"][:16], "2105-12-31T23:59")
        # Every record type still stores its times from the last accepted second on.
        err, out = call(self.device, "memory", {"action": "write", "type": "fact", "content": "到了 2105 年"})
        self.assertFalse(err, out)
        # the clock runs on from its last accepted second: the time stored is the write's own moment
        learned = self.device.store.read("fact")[0]["learned_at"]
        self.assertTrue(4291747199 <= learned <= clock.now(), learned)

    def test_unknown_memory_arguments_are_refused_with_the_known_ones(self):
        err, text = call(self.device, "memory", {"action": "write", "type": "schedule", "content": "看牙",
                                                 "datetime": "2030-03-01 10:00", "priorty": 5})
        self.assertTrue(err)
        self.assertTrue("priorty" in text and "priority" in text and "datetime" in text, text)
        self.assertEqual(self.device.store.read("schedule"), [])
        err, out = call(self.device, "memory", {"action": "write", "type": "chat", "role": "assistant", "content": "好的"})
        self.assertFalse(err, out)
        err, out = call(self.device, "memory", {"action": "write", "type": "fact", "content": "喜欢下雨天"})
        err, out = call(self.device, "memory", {"action": "delete", "type": "fact", "id": out["id"]})
        self.assertEqual(out["result"], "DELETED")

    def test_datetimes_take_ascii_digits_only(self):
        for text in ("２０３０-０３-０１ 10:00", "2030-03-01 １0:00", "2030-+3-01 10:00", "2030-03-01 1_:00",
                     "٢٠٣٠-03-01 10:00"):
            err, msg = call(self.device, "memory", {"action": "write", "type": "schedule", "content": "看牙",
                                                    "datetime": text})
            self.assertTrue(err, text)
            self.assertTrue(msg.startswith("时间的格式不对"), msg)  # the field, in the configured language
        err, msg = call(self.device, "memory", {"action": "recall", "type": "fact", "start_date": "２０２６-01-01"})
        self.assertTrue(err and msg.startswith("开始日期的格式不对"), msg)
        self.assertEqual(self.device.store.read("schedule"), [])

    def test_every_trimmed_character_is_reported(self):
        for content in ("喜欢猫\r\u2028\u2029", "\u3000喜欢狗", " 喜欢鱼 ", "喜欢鸟\ufeff"):
            err, out = call(self.device, "memory", {"action": "write", "type": "fact", "content": content})
            self.assertFalse(err, out)
            self.assertEqual(out.get("truncated"), ["content"], content)
        facts = [x["content"] for x in self.device.store.read("fact")]
        self.assertEqual(facts, ["喜欢猫", "喜欢狗", "喜欢鱼", "喜欢鸟"])
        err, out = call(self.device, "memory", {"action": "write", "type": "fact", "content": "喜欢猫"})
        self.assertEqual(out.get("truncated"), None)
        err, out = call(self.device, "memory", {"action": "write", "type": "schedule", "content": "看牙\u2029",
                                                "datetime": "2030-03-01 10:00"})
        self.assertFalse(err, out)
        self.assertEqual((out["schedule"]["content"], out.get("truncated")), ("看牙", ["content"]))

    def test_a_refusal_never_offers_a_word_it_refuses(self):
        err, out = call(self.device, "memory", {"action": "write", "type": "moment", "topic": "生日",
                                                "content": "收到了小狗", "emotion": "开心"})
        self.assertFalse(err, out)
        self.assertEqual(self.device.store.read("moment")[0]["emotion"], "happy")
        err, text = call(self.device, "memory", {"action": "write", "type": "moment", "topic": "生日",
                                                 "content": "吵架了", "emotion": "生气"})
        self.assertTrue(err)
        offered = text.split("可以用")[-1]
        self.assertTrue("开心" in offered and "生气" not in offered, text)
        # Every value a Chinese refusal offers as a word is taken as that word.
        clock.set_now(1767225600)
        err, out = call(self.device, "memory", {"action": "write", "type": "schedule", "content": "游泳课",
                                                "datetime": "2026-03-01 08:00", "repeat": "每周"})
        self.assertFalse(err, out)
        self.assertEqual(out["schedule"]["repeat"], "weekly")

    def test_two_schedules_of_one_name_ask_which_time(self):
        clock.set_now(1767225600)  # 2026-01-01 00:00 UTC
        for when in ("2026-03-01 08:00", "2026-03-01 20:00"):
            err, out = call(self.device, "memory", {"action": "write", "type": "schedule", "content": "吃药",
                                                    "datetime": when})
            self.assertFalse(err, out)
        err, text = call(self.device, "memory", {"action": "complete_schedule", "content": "吃药"})
        self.assertTrue(err)
        self.assertTrue("是哪个时间的" in text and "08:00" in text and "20:00" in text, text)
        err, out = call(self.device, "memory", {"action": "complete_schedule", "content": "吃药",
                                                "datetime": "2026-03-01 20:00"})
        self.assertFalse(err, out)
        err, out = call(self.device, "memory", {"action": "read", "type": "schedule"})
        self.assertEqual([e["datetime"] for e in out["items"]], ["2026-03-01 08:00"])


class LongScheduleText(unittest.TestCase):
    def tearDown(self):
        clock.set_utc_offset(0)

    def refusal(self, language, content):
        esp32.configure_nvs(None, reserve=200)
        device = app.Device(config.validate({"language": language}), data="/nonexistent-data")
        err, text = call(device, "memory", {"action": "write", "type": "schedule", "content": content,
                                            "datetime": "2099-03-01 08:00"})
        self.assertTrue(err)
        err, out = call(device, "memory", {"action": "read", "type": "schedule"})
        self.assertEqual(out["items"], [])
        return text

    def test_a_long_schedule_text_is_refused_in_the_devices_own_language(self):
        self.assertEqual(self.refusal("zh", "去" * 30), "内容太长了，最多能存 21 个汉字或 64 个字母。")
        text = self.refusal("en", "walk the dog " * 6)
        self.assertEqual(text, "The content is too long: it holds at most 21 Chinese characters or 64 letters.")


class EventFields(unittest.TestCase):
    # Seed 003's event: event_type of 16 bytes, emotion, significance, MM-DD anniversary dates.
    def setUp(self):
        self.before = clock.now()
        clock.set_now(1767225600)  # 2026-01-01 00:00 UTC

    def tearDown(self):
        clock.set_now(self.before)
        clock.set_utc_offset(0)

    def device(self, language):
        esp32.configure_nvs(None, reserve=200)
        return app.Device(config.validate({"language": language}), data="/nonexistent-data")

    def write(self, device, **fields):
        args = {"action": "write", "type": "schedule", "content": "妈妈生日", "datetime": "03-15"}
        args.update(fields)
        return call(device, "memory", args)

    def test_fields_are_written_and_read_back(self):
        device = self.device("zh")
        err, out = self.write(device, event_type="家人生日", emotion="开心", intensity=4, significance=5)
        self.assertFalse(err, out)
        err, out = call(device, "memory", {"action": "read", "type": "schedule"})
        got = out["items"][0]
        self.assertEqual((got["datetime"], got["repeat"], got["event_type"], got["emotion"], got["intensity"],
                          got["significance"]), ("2026-03-15 09:00", "yearly", "家人生日", "happy", 4, 5))

    def test_bad_values_are_refused_in_the_devices_language(self):
        cases = (
            ({"event_type": "生日" * 3}, "事件类型太长了，最多能存 5 个汉字或 16 个字母。",
             "The event type is too long: it holds at most 5 Chinese characters or 16 letters."),
            ({"significance": 9}, "重要性要在这个范围：1 到 5，收到的是9。",
             "The significance should be from 1 to 5, not 9."),
            ({"datetime": "02-30"}, "时间的格式不对：02-30。要像 03-15 这样。",
             "The datetime should look like 03-15, not 02-30."),
            ({"repeat": "weekly"}, "没有这个重复方式：weekly。可以用：不重复、每年。",
             "There is no repeat called weekly. You can use: none, yearly."),
        )
        for language in ("zh", "en"):
            device = self.device(language)
            for fields, zh, en in cases:
                err, text = self.write(device, **fields)
                self.assertTrue(err, fields)
                self.assertEqual(text, zh if language == "zh" else en)
            err, out = call(device, "memory", {"action": "read", "type": "schedule"})
            self.assertEqual(out["items"], [])
