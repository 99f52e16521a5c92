# memory_sync's replay log: what each recent batch answered, in two JSONL files used in turn.
#
# Each entry is one appended line [batch_id, answer]. When the current file holds _PER_FILE lines
# the other one is emptied and becomes current, so the log keeps the last _PER_FILE to
# 2 x _PER_FILE batches, never grows past that and is never rewritten whole. RAM holds only the
# ids; an answer is read back from its file when its batch is sent again.

import json

from micropython import const

from memory import fs, statefile

_PER_FILE = const(32)
_MAX_ID = const(64)
LINE_ROOM = const(16384)  # what one append may take on flash: the line and a block or two of metadata


def _entry(line):
    """[batch_id, answer] from a line, or None when the line is not one."""
    try:
        value = json.loads(line)
    except ValueError:
        return None
    if not isinstance(value, list) or len(value) != 2:
        return None
    bid, answer = value
    if not isinstance(bid, str) or not 0 < len(bid) <= _MAX_ID or not isinstance(answer, dict):
        return None
    if isinstance(answer.get("results"), list) or statefile.is_int(answer.get("coins_before")):
        return value
    return None


class ReplayLog:
    """The log at "<base>.0.jsonl" and "<base>.1.jsonl"; room(bytes) may make space before an append."""

    def __init__(self, base, room=None):
        self.paths = (base + ".0.jsonl", base + ".1.jsonl")
        self._room = room
        self.ids = [self._load(0), self._load(1)]
        # Current: the file that is not full, the longer one when neither is (only before the first turn).
        a, b = len(self.ids[0]), len(self.ids[1])
        self.current = 1 if (a >= _PER_FILE and b < _PER_FILE) or (b < _PER_FILE and b > a) else 0

    def _load(self, i):
        """The batch ids in file i; a file with damaged lines is set aside and rebuilt from the good ones."""
        path = self.paths[i]
        if statefile.is_dir(path):
            statefile.set_aside(path, "a folder where the replay log belongs")
            return []
        ids, bad = self._scan(path, None)
        if bad:
            moved = statefile.set_aside(path, "%d damaged line(s) in the replay log" % bad)
            ids = []
            if moved:
                self._copy_good(moved, path, ids)
        return ids

    def _scan(self, path, want):
        """(ids, damaged lines) of a file; with `want`, (the last answer logged for that id, 0) instead."""
        ids = []
        bad = 0
        found = None
        try:
            f = fs.open(path)
        except OSError:
            return ids, 0
        try:
            while True:
                try:
                    line = f.readline()
                except (ValueError, MemoryError):  # bytes that are not UTF-8, a line too long for RAM
                    bad += 1
                    break
                if not line:
                    break
                entry = _entry(line)
                if entry is None:
                    bad += 1
                elif want is None:
                    ids.append(entry[0])
                elif entry[0] == want:
                    found = entry[1]
        finally:
            f.close()
        return (found, 0) if want is not None else (ids, bad)

    def _copy_good(self, src, dst, ids):
        try:
            with fs.open(src) as f, fs.open(dst, "w") as out:
                while True:
                    line = f.readline()
                    if not line:
                        break
                    entry = _entry(line)
                    if entry is not None and len(ids) < _PER_FILE:
                        out.write(line if line.endswith("\n") else line + "\n")
                        ids.append(entry[0])
        except (OSError, ValueError, MemoryError):
            pass  # what was copied stays; the rest is in the .bad file

    def get(self, batch_id):
        """The last answer logged for `batch_id`, or None."""
        older = 1 - self.current
        found = None
        for i in (older, self.current):
            if batch_id in self.ids[i]:
                found = self._scan(self.paths[i], batch_id)[0] or found
        return found

    def append(self, batch_id, answer):
        """Log `answer` for `batch_id`: on flash before this returns; OSError or MemoryFull if it cannot be."""
        line = json.dumps([batch_id, answer]) + "\n"
        if self._room is not None:
            self._room(len(line) + LINE_ROOM)
        i = self.current
        mode = "a"
        if len(self.ids[i]) >= _PER_FILE:
            i = 1 - i
            mode = "w"  # the older file's batches are the ones forgotten
            self.ids[i] = []
            self.current = i
        with fs.open(self.paths[i], mode) as f:
            f.write(line)
        self.ids[i].append(batch_id)

    def count(self):
        return len(self.ids[0]) + len(self.ids[1])
