# Refusals a voice can read (memory.spoken), the wire's one JSON encoder (memory.jsontext) on both
# interpreters, and the answer to a message that was too big (Dispatcher.too_big).

import json
import unittest

import esp32
from memory import config, jsontext, mcp, tool_schema, tool_text, ws
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.space import MemoryFull
from memory.store import Event, Store
from memory.tools import MemoryTool, SyncTool
from store_helpers import Clock, FakeArchive

CJK_FROM = 0x4E00


def memory_dispatcher(language="zh"):
    esp32.configure_nvs(None, reserve=200)
    store = Store(now=Clock())
    memory = MemoryService(store, Schedules(store, Event))
    d = mcp.Dispatcher(language=language)
    d.add(MemoryTool(memory))
    d.add(SyncTool(memory, None))
    return d


def call(d, args, name="memory"):
    msg = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
    reply = d.handle(msg, mcp.Link("t", trusted=True))
    return json.loads(reply if isinstance(reply, str) else "".join(reply))["result"]


def refusal(d, args):
    result = call(d, args)
    if not result["isError"]:
        raise AssertionError("not refused: %r" % (args,))
    return result["content"][0]["text"]


def full_memory_dispatcher(language, dropped):
    """A memory tool whose archive refuses every handover as a full partition does."""
    esp32.configure_nvs(None, reserve=200)
    archive = FakeArchive()
    archive.fail = MemoryFull("the memory is full: 20480 bytes are needed and 0 are free; nothing was stored", dropped)
    store = Store(archiver=archive, now=Clock())
    for i in range(20):
        store.write("fact", {"content": "fact %d" % i})
    memory = MemoryService(store, Schedules(store, Event))
    d = mcp.Dispatcher(language=language)
    d.add(MemoryTool(memory))
    return d, store


class SpokenRefusals(unittest.TestCase):
    def test_memory_full_is_one_sentence_in_the_device_language_and_nothing_changed(self):
        for language, dropped, said in (
                ("zh", 0, "记忆空间已经满了，这条没有存下来。"),
                ("zh", 12, "记忆空间已经满了，删掉最早的 12 条旧记忆也腾不出地方，这条没有存下来。"),
                ("en", 0, "The memory is full, so this was not saved."),
                ("en", 12, "The memory is full: even after dropping the 12 oldest archived memories there was no room, "
                           "so this was not saved.")):
            d, store = full_memory_dispatcher(language, dropped)
            result = call(d, {"action": "write", "type": "fact", "content": "one more"})
            self.assertEqual(result, {"content": [{"type": "text", "text": said}], "isError": True})
            self.assertEqual([f["content"] for f in store.read("fact")], ["fact %d" % i for i in range(20)])

    def test_an_unknown_type_is_said_in_chinese_words_and_nothing_else(self):
        result = call(memory_dispatcher(), {"action": "write", "type": "nosuch"})
        self.assertEqual(sorted(result), ["content", "isError"])
        self.assertEqual(result["isError"], True)
        self.assertEqual(len(result["content"]), 1)
        self.assertEqual(result["content"][0]["type"], "text")
        text = result["content"][0]["text"]
        self.assertTrue(text.startswith("没有这个类型：nosuch。可以用：名字、年龄、性别"), text)
        self.assertTrue("喜欢、不喜欢、家人、事实" in text, text)
        self.assertTrue("{" not in text and "'" not in text, text)
        self.assertTrue([c for c in text if ord(c) >= CJK_FROM], text)

    def test_english_when_configured(self):
        text = refusal(memory_dispatcher("en"), {"action": "write", "type": "nosuch"})
        self.assertTrue(text.startswith("There is no type called nosuch. You can use: name, age, gender"), text)

    def test_each_kind_of_refusal_names_the_field_and_what_is_allowed(self):
        zh = memory_dispatcher()
        en = memory_dispatcher("en")
        cases = (
            ({"action": "fly"}, "没有这个操作：fly。可以用：读取、写入、删除、完成日程、回忆、搜索。",
             "There is no action called fly. You can use: read, write, delete, complete schedule, recall, search."),
            ({"action": "write"}, "缺少类型。", "The type is missing."),
            ({"action": "search", "keyword": "x", "limit": 99}, "条数要在这个范围：1 到 50，收到的是99。",
             "The limit should be from 1 to 50, not 99."),
            ({"action": "write", "type": "schedule", "content": "看牙", "datetime": "明天"},
             "时间的格式不对：明天。要像 2026-05-01 14:00 这样。",
             "The datetime should look like 2026-05-01 14:00, not 明天."),
            ({"action": "complete_schedule", "content": "游泳"}, "没有找到这个日程：游泳。", "I found no schedule matching 游泳."),
            ({"action": "write", "type": "gender", "content": "robot"}, "没有这个性别：robot。可以用：男、女、其他。",
             "There is no gender called robot. You can use: male, female, other."),
            ({"action": "write", "type": "coins", "content": "很多"}, "金币数要是整数，收到的是很多。",
             "The amount should be a whole number, not 很多."),
            ({"action": "write", "type": "name", "content": {"a": 1}}, "内容要是文字，收到的是对象。",
             "The content should be text, not an object."),
        )
        for args, said_zh, said_en in cases:
            self.assertEqual(refusal(zh, args), said_zh, args)
            self.assertEqual(refusal(en, args), said_en, args)

    def test_integers_sent_as_strings_are_still_taken(self):
        d = memory_dispatcher()
        out = json.loads(call(d, {"action": "write", "type": "schedule", "content": "开会", "datetime": "2030-01-02 09:00",
                                  "priority": "4"})["content"][0]["text"])
        self.assertEqual((out["result"], out["schedule"]["priority"]), ("ADDED", 4))
        self.assertTrue(refusal(d, {"action": "search", "keyword": "x", "limit": "１0"}).startswith("条数要是整数"))
        self.assertEqual(json.loads(call(d, {"action": "write", "type": "age", "content": 30})["content"][0]["text"])["result"], "ADDED")
        self.assertEqual(json.loads(call(d, {"action": "read", "type": "age"})["content"][0]["text"])["items"][0]["content"], 30)

    def test_the_host_tool_keeps_its_technical_english(self):
        result = call(memory_dispatcher(), {"action": "nope"}, "memory_sync")
        self.assertEqual(result, {"content": [{"type": "text", "text": "action must be one of apply, export, import, stats, set_clock, recall, config, got 'nope'"}], "isError": True})

    def test_language_is_a_device_setting(self):
        self.assertEqual(config.validate({})["language"], "zh")
        self.assertEqual(config.validate({"language": "en"})["language"], "en")
        try:
            config.validate({"language": "fr"})
        except ValueError as e:
            self.assertTrue("language" in str(e) and "zh, en" in str(e), str(e))
        else:
            self.fail("language fr was accepted")


def _walk(node, seen):
    if isinstance(node, dict):
        for key in node:
            seen.append((key, node[key]))
            _walk(node[key], seen)
    elif isinstance(node, list):
        for item in node:
            _walk(item, seen)


class Schemas(unittest.TestCase):
    def test_one_type_per_property_and_nothing_gemini_refuses(self):
        for schema in (tool_schema.MEMORY_SCHEMA, tool_schema.SYNC_SCHEMA):
            seen = []
            _walk(schema, seen)
            for key, value in seen:
                self.assertTrue(key not in ("anyOf", "oneOf", "allOf", "const"), key)
                if key == "type" and not isinstance(value, dict):
                    self.assertTrue(isinstance(value, str), value)
                if key == "enum":
                    self.assertEqual([v for v in value if not isinstance(v, str)], [])


class Description(unittest.TestCase):
    def test_the_description_teaches_reminders_first_and_speaking_by_stage(self):
        text = "".join(tool_text.MEMORY_DESCRIPTION)
        for word in ("reminders", "style", "陌生期", "您", "熟悉期", "亲密期", "深厚期", "灵魂伴侣",
                     "stranger polite", "soulmate"):
            self.assertTrue(word in text, word)

    def test_no_sentence_of_it_is_near_a_kilobyte(self):
        # Loaded and listed a sentence at a time (memory.mcplist): no block of the whole text is needed.
        self.assertTrue(max(len(part.encode()) for part in tool_text.MEMORY_DESCRIPTION) < 512)


class Wire(unittest.TestCase):
    # The expected bytes are literal: this module runs on CPython and on MicroPython, so both
    # interpreters must write exactly them.
    VALUE = {"name": "王浩宇", "n": [1, -2, None, True], "q": 'a"b\\c\n\t/'}
    TEXT = '{"name":"王浩宇","n":[1,-2,null,true],"q":"a\\"b\\\\c\\n\\t/"}'

    def test_dumps_writes_utf8_compactly(self):
        self.assertEqual(jsontext.dumps(self.VALUE), self.TEXT)
        self.assertEqual(jsontext.string("王浩宇"), '"王浩宇"')
        self.assertEqual(len(jsontext.dumps("王浩宇").encode()), 11)

    def test_a_tool_answer_is_the_same_bytes_plain_and_streamed(self):
        class Plain(mcp.Tool):
            name = "plain"

            def call(self, arguments, link):
                return Wire.TEXT  # a str goes out as it is (a dict's member order is the interpreter's)

        class Pieces(mcp.Tool):
            name = "pieces"

            def call(self, arguments, link):
                return mcp.Streamed(lambda: iter([Wire.TEXT[:9], Wire.TEXT[9:]]))

        d = mcp.Dispatcher()
        d.add(Plain())
        d.add(Pieces())
        expected = ('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":'
                    '"{\\"name\\":\\"王浩宇\\",\\"n\\":[1,-2,null,true],\\"q\\":\\"a\\\\\\"b\\\\\\\\c\\\\n\\\\t/\\"}"}],"isError":false}}')
        for name in ("plain", "pieces"):
            reply = d.handle('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"%s"}}' % name, mcp.Link("t"))
            reply = reply if isinstance(reply, str) else "".join(reply)
            self.assertEqual(reply, expected, name)
            self.assertEqual(len(reply.encode()), len(expected.encode()))


class TooBig(unittest.TestCase):
    def answer(self, head, language="en"):
        return json.loads(mcp.Dispatcher(language=language).too_big(ws.MessageTooBig(20000, 16384, head)))

    def test_the_answer_names_the_limit_and_carries_the_id(self):
        a = self.answer(b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"memory","arg')
        self.assertEqual((a["id"], a["error"]["code"]), (42, -32600))
        self.assertTrue("20000" in a["error"]["message"] and "16384" in a["error"]["message"], a)
        self.assertTrue(a["error"]["message"].startswith("That message is too long"), a)
        self.assertTrue(self.answer(b'{"id":1,', "zh")["error"]["message"].startswith("这条消息太长了"))

    def test_the_id_is_found_where_it_is_whole(self):
        heads = (
            (b'{"session_id":"s-1","type":"mcp","payload":{"jsonrpc":"2.0","id":"r-9","method"', "r-9"),
            (b'{ "method":"tools/call", "id" : 7 ,"params"', 7),
            (b'{"jsonrpc":"2.0","method":"tools/call","params":{"text":"', None),
            (b'{"jsonrpc":"2.0","id":123', None),  # the number may go on past the head
            (b'{"jsonrpc":"2.0","id":"cut', None),
            (b'{"type":"id","x":1}', None),
        )
        for head, rid in heads:
            self.assertEqual(self.answer(head)["id"], rid, head)
