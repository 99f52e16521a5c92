# memory_sync export/import is a full backup: export -> import into an empty device -> export gives the same records.
#
# Device A holds every kind of memory: profile, likes, family, facts, traits, habits, goals, moments,
# the chat ring, schedules in every state (upcoming, completed one-off, repeating after a
# completion, reminded), coins, mood and soul state, keyed memories with their program fields, and
# archived facts. Its export (with the archive) is imported into an empty device B in chunks of
# 25, as `xzmem import` sends them; B's export must equal A's. Importing again changes nothing.

import json
import os
import unittest

import esp32
from memory import mcp
from memory.ackjournal import AckJournal
from memory.archive import Archive
from memory.keyed import KeyedStore
from memory.schedule import Schedules
from memory.service import MemoryService
from memory.store import Event, Store
from memory.sync import Sync
from memory.tools import MemoryTool, SyncTool
from store_helpers import TMP, Clock

_TAG = str(os.getpid()) if hasattr(os, "getpid") else "mp"  # two checkouts testing at once share /tmp
_LINK = mcp.Link("test", trusted=True)
T0 = 1767225600  # 2026-01-01 00:00 UTC


def _wipe(path):
    try:
        names = os.listdir(path)
    except OSError:
        try:
            os.remove(path)
        except OSError:
            pass
        return
    for n in names:
        _wipe(path + "/" + n)
    os.rmdir(path)


class Device:
    def __init__(self, name):
        root = "%s/backup_%s_%s" % (TMP, _TAG, name)
        _wipe(root)
        os.mkdir(root)
        esp32.configure_nvs(root + "/nvs.json", reserve=200)
        self.clock = Clock(T0)
        self.archive = Archive(root + "/archive", capacity=4 * 1024 * 1024)
        keyed = KeyedStore(root + "/keyed", now=self.clock)
        self.store = Store(archiver=self.archive, now=self.clock, keyed=keyed, journal=AckJournal(root + "/j"))
        memory = MemoryService(self.store, Schedules(self.store, Event), self.archive, keyed)
        self.memory = MemoryTool(memory)
        self.sync = SyncTool(memory, Sync(memory, root + "/sync.json"))
        self.root = root

    def ask(self, **args):
        return self.memory.call(args, _LINK)

    def export(self, archive=True, limit=30):
        records = []
        cursor = None
        while True:
            args = {"action": "export", "limit": limit, "archive": archive}
            if cursor:
                args["cursor"] = cursor
            page = json.loads(self.sync.call(args, _LINK).text())  # an export page is streamed
            records.extend(page["records"])
            cursor = page["next_cursor"]
            if not cursor:
                return records

    def import_(self, records, tag="imp"):
        answers = []
        for n in range(0, len(records), 25):
            answers.append(self.sync.call({"action": "import", "batch_id": "%s-%d" % (tag, n),
                                           "records": records[n : n + 25]}, _LINK))
        return answers

    def close(self):
        _wipe(self.root)


def fill(dev):
    """Every kind of memory, at different times, through the tools as a client would."""
    c = dev.clock
    for kind, content in (("name", "小明"), ("age", 9), ("gender", "male"), ("location", "杭州"),
                          ("birthday", "2016-05-01")):
        c.t += 600
        dev.ask(action="write", type=kind, content=content)
    for i in range(3):
        c.t += 600
        dev.ask(action="write", type="like", content="喜欢%d" % i)
    dev.ask(action="write", type="dislike", content="香菜")
    dev.ask(action="write", type="family", relation="妈妈", name="李华", closeness=5)
    for i in range(24):  # 20 fit; the oldest 5 go to the archive at the 21st
        c.t += 3600
        dev.ask(action="write", type="fact", content="第%d件事" % i)
    for kind in ("trait", "habit", "goal"):
        dev.ask(action="write", type=kind, content="%s一" % kind)
    dev.ask(action="write", type="moment", topic="海边", content="第一次看海", emotion="happy", intensity=4,
            importance=5)
    for i in range(33):  # the ring keeps 30
        c.t += 60
        dev.ask(action="write", type="chat", role="user" if i % 2 else "assistant", content="消息%d" % i)
    dev.ask(action="write", type="schedule", content="钢琴课", datetime="2026-01-10 16:00", repeat="weekly")
    dev.ask(action="write", type="schedule", content="看牙医", datetime="2026-01-09 10:00", priority=5)
    dev.ask(action="write", type="schedule", content="交作业", datetime="2026-01-11 09:00")
    dev.ask(action="write", type="schedule", content="妈妈生日", datetime="03-15", event_type="生日", emotion="touched",
            intensity=5, significance=5)  # seed 003's event fields and a yearly date
    dev.ask(action="complete_schedule", content="钢琴课")  # a repeating one moves to its next time
    dev.ask(action="complete_schedule", content="交作业")  # a one-off one stays, completed
    ev = dev.store.events()[0]
    ev.reminded = 1
    dev.store.update_event(ev)
    dev.ask(action="write", type="coins", content=42)
    dev.ask(action="write", type="mood", content="开心")
    dev.store.set_affection({"soul_state_code": "0110", "interactions": 7, "last_interaction": c.t})
    dev.sync.call({"action": "apply", "batch_id": "k1", "ops": [
        {"op": "put_mem", "key": "mem_001", "category": "preference", "payload": "喜欢安静", "importance": 7,
         "source": "user", "tags": ["安静"], "trigger_count": 3, "created_at": T0, "updated_at": T0 + 5,
         "last_triggered": T0 + 9}]}, _LINK)
    dev.store.flush()


def _kinds(records):
    out = {}
    for r in records:
        out[r["type"]] = out.get(r["type"], 0) + 1
    return out


class Backup(unittest.TestCase):
    def setUp(self):
        self.a = Device("a")
        fill(self.a)

    def tearDown(self):
        self.a.close()
        esp32.configure_nvs(None)

    def test_export_import_export_gives_the_same_records(self):
        first = self.a.export()
        kinds = _kinds(first)
        self.assertEqual(kinds["archive"], 5)
        self.assertEqual(kinds["chat"], 30)
        self.assertEqual(kinds["schedule"], 4)
        self.assertEqual(kinds["fact"], 19)  # 24 written, the oldest 5 archived at the 21st
        self.assertEqual(kinds["keyed"], 1)
        b = Device("b")
        try:
            answers = b.import_(first)
            refused = [r for a in answers for r in a["results"] if r["result"] == "REFUSED"]
            self.assertEqual(refused, [])
            second = b.export()
            self.assertEqual(second, first)
            again = b.import_(first, tag="again")  # other batch ids: every record is already there
            results = [r["result"] for a in again for r in a["results"]]
            self.assertEqual([r for r in results if r != "NOOP"], [])
            self.assertEqual(b.export(), first)
            # new records on B get ids past every archived one
            b.ask(action="write", type="fact", content="新的一件事")
            top = max(r["record"]["id"] for r in first if r["type"] == "archive")
            self.assertTrue(b.store.read("fact")[-1]["id"] > top)
        finally:
            b.close()

    def test_what_the_export_keeps(self):
        records = self.a.export(archive=False)
        self.assertEqual(_kinds(records).get("archive"), None)
        by_kind = {}
        for r in records:
            by_kind.setdefault(r["type"], []).append(r)
        schedules = {s["content"]: s for s in by_kind["schedule"]}
        self.assertEqual(schedules["交作业"]["completed"], 1)
        self.assertEqual(schedules["钢琴课"]["completed"], 0)
        self.assertEqual(schedules["钢琴课"]["repeat"], 2)
        self.assertEqual(schedules["看牙医"]["reminded"], 1)
        birthday = schedules["妈妈生日"]
        self.assertEqual((birthday["repeat"], birthday["event_type"], birthday["emotion"], birthday["intensity"],
                          birthday["significance"]), (4, "生日", "touched", 5, 5))
        affection = by_kind["affection"][0]
        self.assertEqual((affection["total_coins_spent"], affection["mood"], affection["soul_state_code"],
                          affection["interactions"]), (42, "开心", 6, 7))
        self.assertEqual(by_kind["keyed"][0]["trigger_count"], 3)
        self.assertEqual(by_kind["chat"][0]["content"], "消息3")
        self.assertEqual(by_kind["name"][0]["learned_at"], T0 + 600)
        for r in records:
            self.assertTrue("id" not in r and "seq" not in r, r)

    def test_refused_records_are_listed_with_their_reasons(self):
        b = Device("b")
        try:
            answer = b.import_([{"type": "fact", "content": "好的", "learned_at": T0},
                                {"type": "fact", "content": "没有时间"},
                                {"type": "wish", "content": "?"},
                                {"type": "schedule", "content": "坏", "when": "tomorrow"}])[0]
            results = [(r["result"], r.get("detail", "")) for r in answer["results"]]
            self.assertEqual(results[0], ("ADDED", ""))
            self.assertEqual(results[1][0], "REFUSED")
            self.assertTrue("learned_at" in results[1][1], results[1])
            self.assertEqual(results[2][0], "REFUSED")
            self.assertTrue("type must be one of" in results[2][1], results[2])
            self.assertEqual(results[3][0], "REFUSED")
            self.assertTrue("when" in results[3][1], results[3])
            self.assertEqual([x["content"] for x in b.store.read("fact")], ["好的"])
        finally:
            b.close()

    def test_schedules_of_an_older_export_are_restored(self):
        # Exports written before this format listed upcoming schedules by local date-time and repeat name.
        b = Device("b")
        try:
            answer = b.import_([{"type": "schedule", "id": 4, "content": "钢琴课", "datetime": "2026-01-10 16:00",
                                 "repeat": "weekly", "priority": 3, "reminded": 0, "completed": 0}])[0]
            self.assertEqual(answer["results"][0]["result"], "ADDED")
            ev = b.store.events()[0]
            self.assertEqual((ev.content, ev.repeat, ev.when), ("钢琴课", 2, T0 + 9 * 86400 + 16 * 3600))
        finally:
            b.close()

    def test_a_bad_cursor_is_refused(self):
        for cursor in ("fact", "archive:fact:x:0:0", "nothing:3"):
            try:
                self.a.sync.call({"action": "export", "cursor": cursor}, _LINK)
                self.fail("no ValueError for %r" % cursor)
            except ValueError as e:
                self.assertTrue("cursor" in str(e), str(e))


if __name__ == "__main__":
    unittest.main()
