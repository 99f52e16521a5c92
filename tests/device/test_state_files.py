# Damaged state files and paths of the wrong kind: set aside as *.bad, reported, and the device boots
# and serves from what remains. The replay log stays bounded and is only ever appended to.

import json
import unittest

import esp32
from archive_testkit import scratch, wipe
from memory import app, clock, config, fs, statefile
from memory.replaylog import ReplayLog

# Syntax right, shape wrong, and plain garbage: what flash without data checksums can hand back.
_DAMAGE = ('{"dropped_segments": "many"}', "[1, 2, 3]", '"text"', "{", "", "\xff\xfe", "null",
           '[["fact", "/etc", 0, 0]]', '{"dropped_segments": 0, "dropped_records": 0, "dropping": ["/", 1]}')
_FILES = ("archive/journal.json", "archive/stats.json", "keyed/mem_a.json", "sync.0.jsonl", "sync.1.jsonl")


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)


def call(device, tool, args):
    out = json.loads(device.call_tool(tool, json.dumps(args)))
    return out["isError"], out["content"][0]["text"]


class DamagedState(unittest.TestCase):
    def setUp(self):
        esp32.configure_nvs(None, reserve=200)
        self.data = scratch("state")
        del statefile.moved[:]

    def tearDown(self):
        wipe(self.data)
        clock.set_utc_offset(0)  # the device set the configured offset; other tests expect UTC

    def boot(self):
        return app.Device(config.validate({}), data=self.data)

    def serves(self, device):
        err, text = call(device, "memory", {"action": "write", "type": "fact", "content": "还能记住"})
        self.assertFalse(err, text)
        err, text = call(device, "memory", {"action": "read"})
        self.assertFalse(err, text)
        err, text = call(device, "memory_sync", {"action": "apply", "batch_id": "b-after", "ops": [
            {"op": "put_mem", "key": "mem_b", "category": "c", "payload": "p", "importance": 3, "source": "user"}]})
        self.assertFalse(err, text)
        self.assertTrue(json.loads(text)["results"][0]["result"] in ("ADDED", "UPDATED"), text)

    def test_each_damaged_state_file_is_set_aside_and_the_device_serves(self):
        self.boot()  # the folders exist now
        for name in _FILES:
            for text in _DAMAGE:
                if text == "" and name.endswith(".jsonl"):
                    continue  # an empty log is a log with nothing in it yet
                path = self.data + "/" + name
                write(path, text)
                del statefile.moved[:]
                device = self.boot()
                self.serves(device)  # the replay log is read when the host first syncs
                self.assertFalse(fs.exists(path) and name.endswith(".json"), (name, text))
                self.assertTrue(statefile.moved and name in statefile.moved[0], (name, text, statefile.moved))
                self.assertTrue(fs.exists(path + ".bad"), (name, text))
                stats = json.loads(call(device, "memory_sync", {"action": "stats"})[1])
                self.assertEqual(stats["state_files_set_aside"], statefile.moved)
                wipe(path + ".bad")

    def test_folders_turned_into_files_are_renamed_aside(self):
        for name in ("archive", "keyed", "archive/fact", "sync.0.jsonl"):
            wipe(self.data + "/" + name)
            if name == "sync.0.jsonl":
                fs.mkdir(self.data + "/" + name)
            else:
                write(self.data + "/" + name, "not a folder")
            device = self.boot()
            self.serves(device)
            self.assertTrue(fs.exists(self.data + "/" + name + ".bad"), name)
            wipe(self.data + "/" + name + ".bad")

    def test_good_lines_of_a_damaged_replay_log_are_kept(self):
        device = self.boot()
        ops = [{"op": "coins", "amount": 3}]
        first = json.loads(call(device, "memory_sync", {"action": "apply", "batch_id": "b1", "ops": ops})[1])
        with open(self.data + "/sync.0.jsonl", "a") as f:
            f.write('["b2", "not an answer"]\n{"torn')
        device = self.boot()
        again = json.loads(call(device, "memory_sync", {"action": "apply", "batch_id": "b1", "ops": ops})[1])
        self.assertTrue(fs.exists(self.data + "/sync.0.jsonl.bad"))
        self.assertTrue(again["replayed"])
        self.assertEqual(again["results"], first["results"])
        self.assertEqual(device.store.affection()["total_coins_spent"], 3)


class Ring(unittest.TestCase):
    def setUp(self):
        self.dir = scratch("ring")

    def tearDown(self):
        wipe(self.dir)

    def test_the_log_keeps_the_last_batches_in_two_bounded_files(self):
        log = ReplayLog(self.dir + "/sync")
        for i in range(100):
            log.append("b%d" % i, {"batch_id": "b%d" % i, "results": [{"op": "write", "result": "ADDED"}]})
        sizes = [fs.stat(p)[6] for p in log.paths]
        self.assertTrue(max(sizes) < 32 * 80, sizes)
        log = ReplayLog(self.dir + "/sync")  # after a reboot
        self.assertEqual(log.count(), 36)  # 32 in the full file, 4 in the current one
        self.assertEqual(log.get("b99")["batch_id"], "b99")
        self.assertEqual(log.get("b64")["batch_id"], "b64")
        self.assertEqual(log.get("b63"), None)
        log.append("b100", {"batch_id": "b100", "results": []})
        self.assertEqual(log.get("b100")["batch_id"], "b100")
