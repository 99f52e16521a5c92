# Hostile input and a full partition: a full /data still boots and serves every stored memory, state
# that parses but is wrong inside is set aside alone, numbers are range-checked before they are
# stored, odd JSON escapes are answered, and a device without /data writes nothing outside it.

import binascii
import json
import struct
import unittest

import esp32
from archive_testkit import scratch, wipe
from memory import app, clock, config, fs, mcp, statefile

_FULL = 4096  # bytes free on a partition that cannot take one more record


def call(device, tool, args):
    out = json.loads(device.call_tool(tool, json.dumps(args)))
    return out["isError"], out["content"][0]["text"]


def over_the_wire(device, text):
    """What a link sends back for one incoming message, as the UTF-8 bytes that go on the wire."""
    out = device.dispatcher.handle(text, mcp.Link("fuzz", trusted=True))
    if out is not None and not isinstance(out, str):
        out = "".join(out)
    return None if out is None else out.encode()


def apply(device, batch_id, ops):
    return call(device, "memory_sync", {"action": "apply", "batch_id": batch_id, "ops": ops})


def keyed_ops(first, n):
    return [{"op": "put_mem", "key": "mem_k%d" % i, "category": "fact", "payload": "记住的第%d件事" % i,
             "importance": 3, "source": "user"} for i in range(first, first + n)]


def looks_like_a_python_error(text):
    for mark in ("Error", "Traceback", "object has no attribute", "codec", "unhashable", "NoneType",
                 "argument", "overflow", "struct"):
        if mark in text:
            return True
    return False


class Base:
    """setUp and tearDown shared by the cases below (the collector wants TestCase named in each class)."""

    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.data = scratch("hostile")
        del statefile.moved[:]
        self._free_bytes = fs.free_bytes

    def tearDown(self):
        fs.free_bytes = self._free_bytes
        wipe(self.data)
        clock.set_utc_offset(0)

    def boot(self, data=None, language="zh"):
        return app.Device(config.validate({"language": language}), data=data or self.data)


class FullPartition(Base, unittest.TestCase):
    def test_a_full_partition_boots_serves_everything_and_recovers_once_room_is_freed(self):
        device = self.boot()
        for i in range(0, 56, 28):
            err, text = apply(device, "k%d" % i, keyed_ops(i, 28))
            self.assertFalse(err, text)
        for i in range(15):
            err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "事实%d" % i})
            self.assertFalse(err, text)
        # No flush: the facts are acknowledged and only the journal holds them. Then the partition fills.
        fs.free_bytes = lambda path: _FULL
        device = self.boot()
        self.assertEqual(len(device.store.read("fact")), 15)
        err, text = call(device, "memory", {"action": "read", "type": "fact"})
        self.assertFalse(err, text)
        self.assertTrue("事实14" in text, text)
        err, text = call(device, "memory", {"action": "search", "keyword": "第55件事"})
        self.assertFalse(err, text)
        self.assertTrue("mem_k55" in text, text)
        self.assertEqual(device.keyed.count(), 56)
        # The hot store is NVS: a fact still goes in (flushed at once, the journal has no room).
        err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "满了也能记"})
        self.assertFalse(err, text)
        # A keyed memory needs the partition: refused in words, nothing changed.
        err, text = apply(device, "k-full", keyed_ops(56, 1))
        self.assertFalse(err, text)
        result = json.loads(text)["results"][0]
        self.assertEqual(result["result"], "REFUSED", result)
        self.assertTrue("full" in result["detail"], result)
        self.assertEqual(device.keyed.count(), 56)
        fs.free_bytes = self._free_bytes  # room is freed (by the user, or by a cleanup elsewhere)
        err, text = apply(device, "k-after", keyed_ops(56, 1))
        self.assertFalse(err, text)
        self.assertEqual(json.loads(text)["results"][0]["result"], "ADDED", text)
        device.store.flush()
        device = self.boot()
        self.assertEqual(len(device.store.read("fact")), 16)
        self.assertEqual(device.keyed.count(), 57)


def journal_record(payload):
    return struct.pack("<2sHI", b"XJ", len(payload), binascii.crc32(payload)) + payload


def key_image(key, data):
    return struct.pack("<B", len(key)) + key + struct.pack("<H", len(data)) + data


class WrongInside(Base, unittest.TestCase):
    def test_journal_records_that_pass_their_checksum_but_are_wrong_are_set_aside(self):
        device = self.boot()
        err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "之前的事实"})
        self.assertFalse(err, text)
        facts = device.store._notes["fact"].table
        fact_block = facts.size * facts.per_key
        bad = [
            struct.pack("<I", 5) + b"\x20fa",  # a key longer than the record
            struct.pack("<I", 5) + key_image(b"f\xffa0", bytes(fact_block)),  # a key that is not UTF-8
            struct.pack("<I", 0xFFFFFFF0),  # an id counter no NVS i32 can hold
            struct.pack("<I", 5) + key_image(b"fas1", b"\xf0\xff\xff\xff" + bytes(fact_block - 4)),  # a record id past 2^31
            struct.pack("<I", 5) + b"\x03fa2\x10",  # a length cut short
        ]
        with open(self.data + "/acked.jnl", "ab") as f:
            for payload in bad:
                f.write(journal_record(payload))
        device = self.boot()
        err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "之后的事实"})
        self.assertFalse(err, text)
        facts = [f["content"] for f in device.store.read("fact")]
        self.assertEqual(facts, ["之前的事实", "之后的事实"])
        journal = device.store.stats()["journal"]
        self.assertEqual(journal["bad_records"], len(bad))
        device.store.flush()
        device = self.boot()  # the id counter was saved, so this boots too
        self.assertEqual([f["content"] for f in device.store.read("fact")], ["之前的事实", "之后的事实"])

    def test_a_keyed_file_with_a_name_no_key_has_is_set_aside(self):
        device = self.boot()
        err, text = apply(device, "k", keyed_ops(0, 3))
        self.assertFalse(err, text)
        with open(self.data + "/keyed/mem_UPPER.json", "w") as f:
            f.write('{"key": "mem_UPPER"}')
        device = self.boot()
        self.assertTrue(device.archive is not None and device.store.journal is not None)
        self.assertEqual(device.keyed.count(), 3)
        self.assertTrue([n for n in statefile.moved if "mem_UPPER" in n], statefile.moved)
        err, text = call(device, "memory", {"action": "search", "keyword": "第2件事"})
        self.assertFalse(err, text)
        self.assertTrue("mem_k2" in text, text)

    def test_a_stored_record_with_a_byte_that_is_not_utf8_costs_only_that_text(self):
        device = self.boot()
        for content in ("第一条", "第二条", "第三条"):
            self.assertFalse(call(device, "memory", {"action": "write", "type": "fact", "content": content})[0])
        table = device.store._notes["fact"].table
        at = bytes(table.buf).find("第二条".encode())
        table.buf[at + 1] = 0xFF  # a bit flipped inside the character 第
        table.dirty[0] = table.dirty[1] = table.dirty[2] = 1
        device.store.flush()
        device = self.boot()
        err, text = call(device, "memory", {"action": "read", "type": "fact"})
        self.assertFalse(err, text)
        self.assertTrue("第一条" in text and "第三条" in text and "二条" in text, text)
        err, text = call(device, "memory_sync", {"action": "export"})
        self.assertFalse(err, text)
        self.assertTrue("第三条" in text, text)
        err, text = call(device, "memory", {"action": "read"})
        self.assertFalse(err, text)
        self.assertTrue(device.store.stats()["damaged_text"], device.store.stats())


class Numbers(Base, unittest.TestCase):
    def test_an_archive_record_with_an_id_past_2_31_is_refused_and_the_device_still_boots(self):
        device = self.boot()
        records = [{"type": "archive", "record": {"type": "fact", "id": 2 ** 31, "learned_at": 1767225600,
                                                  "content": "一个很大的编号"}},
                   {"type": "archive", "record": {"type": "fact", "id": "f1", "learned_at": 2 ** 40,
                                                  "content": "远得离谱的时间"}},
                   {"type": "fact", "content": "很久以后", "learned_at": 2 ** 33},
                   {"type": "archive", "record": {"type": "fact", "id": 7, "learned_at": 1767225600,
                                                  "content": "正常的一条"}}]
        err, text = call(device, "memory_sync", {"action": "import", "batch_id": "imp", "records": records})
        self.assertFalse(err, text)
        results = [r["result"] for r in json.loads(text)["results"]]
        self.assertEqual(results, ["REFUSED", "REFUSED", "REFUSED", "ADDED"])
        for r in json.loads(text)["results"][:3]:
            self.assertFalse(looks_like_a_python_error(r["detail"]), r)
        device.store.flush()
        device = self.boot()
        err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "重启以后"})
        self.assertFalse(err, text)
        device.store.flush()
        self.boot()


class Escapes(Base, unittest.TestCase):
    def test_lone_surrogate_escapes_are_answered_and_stored_text_stays_utf8(self):
        device = self.boot()
        for text in ('{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
                     '{"jsonrpc":"2.0","id":"\\udc00x","method":"ping"}',
                     '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory","arguments":'
                     '{"action":"write","type":"fact","content":"坏\\ud800字"}}}',
                     '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory","arguments":'
                     '{"action":"write","type":"like","content":"\\ud83d\\ude00 and \\\\ud800"}}}'):
            wire = over_the_wire(device, text)
            answer = json.loads(wire.decode())
            self.assertTrue("result" in answer or "error" in answer, answer)
        stored = [f["content"] for f in device.store.read("fact")] + [x["content"] for x in device.store.read("like")]
        for content in stored:
            content.encode().decode()  # valid UTF-8 both ways
        self.assertTrue("\U0001f600 and \\ud800" in stored, stored)

    def test_refusals_name_the_problem_without_python_error_text(self):
        device = self.boot(language="en")
        odd = [{"action": "write", "type": "fact", "content": {"a": 1}},
               {"action": "recall", "type": "fact", "limit": 10 ** 30},
               {"action": "write", "type": "schedule", "content": "x", "datetime": "2026-02-30 25:61"},
               {"action": "write", "type": "coins", "amount": 10 ** 30},
               {"action": "write", "type": "age", "content": 10 ** 30},
               {"action": "recall", "type": "fact", "start_date": "9999-99-99"},
               {"action": "delete", "type": "fact", "id": 2 ** 64}]
        for args in odd:
            err, text = call(device, "memory", args)
            self.assertTrue(err, (args, text))
            self.assertFalse(looks_like_a_python_error(text), (args, text))


class NoData(Base, unittest.TestCase):
    def test_a_device_without_data_writes_nothing_outside_it_and_never_claims_a_replay(self):
        missing = self.data + "/not-mounted"
        outside = ("/sync.0.jsonl", "/sync.1.jsonl")  # where the log went without /data (the port's root)
        before = [root_file(p) for p in outside]  # other programs on this computer may have left some there
        ops = [{"op": "coins", "amount": 2}]
        first = self.boot(missing)
        err, text = apply(first, "b1", ops)
        self.assertFalse(err, text)
        self.assertFalse(json.loads(text)["replayed"])
        second = self.boot(self.data + "/another-unmounted-device")
        err, text = apply(second, "b1", ops)
        self.assertFalse(err, text)
        self.assertFalse(json.loads(text)["replayed"], text)
        self.assertEqual([root_file(p) for p in outside], before, "the replay log was written outside /data")


def root_file(path):
    """(size, modification time) of a file, None when there is none."""
    try:
        st = fs.stat(path)
    except OSError:
        return None
    return st[6], st[8]
