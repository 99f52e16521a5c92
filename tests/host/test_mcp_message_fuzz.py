"""10,000 seeded hostile MCP messages at the device's dispatcher, as a link hands them over: every
request is answered with text that can go on the wire (UTF-8, JSON), a refused call changes no stored
memory, and no refusal reads out a Python exception."""

import json
import os
import random
import re
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import esp32  # noqa: E402
from memory import app, clock, config, mcp, tool_schema, tools  # noqa: E402

pytestmark = pytest.mark.timeout(180)

MESSAGES = 10_000
SEED = 29
BUDGET_S = 60
# What a Python exception's text looks like when it leaks into a refusal.
EXCEPTION_TEXT = re.compile(
    r"(Error|Exception|Traceback|object has no attribute|object is not|codec can't|unhashable|NoneType|"
    r"not supported between|takes \d+ positional|unexpected keyword|invalid literal|can't convert|"
    r"argument must be|must be str, not|not subscriptable|not iterable|list index|string index|"
    r"out of range for|signed integer|too large to convert|format requires|bad operand)")

WORDS = ["王浩宇", "打篮球", "妈妈", "北京", "团队会议", "", " ", "\n", "x" * 300, "好" * 200, "\x00", "\u200b",
         "😀", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\\\ud800", "%s%d", "{}", "null", "mem_a", "mem_UPPER"]
NUMBERS = [0, 1, -1, 5, 50, 51, 2**31 - 1, 2**31, 2**32, 2**63, -(2**63), 10**30, 1.5, -0.0, 1e308, "4", "四"]


class Fuzzer:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def text(self):
        r = self.r
        if r.random() < 0.6:
            return r.choice(WORDS)
        return "".join(r.choice("ab 好\\\"\u00e9\t") for _ in range(r.randint(0, 12)))

    def value(self, depth=0):
        r = self.r
        k = r.randint(0, 9 if depth < 2 else 5)
        if k <= 2:
            return self.text()
        if k <= 4:
            return r.choice(NUMBERS)
        if k == 5:
            return r.choice([None, True, False])
        if k <= 7:
            return [self.value(depth + 1) for _ in range(r.randint(0, 3))]
        return {self.text(): self.value(depth + 1) for _ in range(r.randint(0, 3))}

    def memory_args(self):
        r = self.r
        args = {"action": r.choice(list(tool_schema.ACTIONS) + ["fly", ""]) if r.random() < 0.9 else self.value()}
        names = ["type", "content", "datetime", "repeat", "priority", "relation", "name", "closeness", "topic",
                 "emotion", "intensity", "importance", "keyword", "start_date", "end_date", "limit", "amount",
                 "id", "role", "force", "bogus"]
        for name in r.sample(names, r.randint(0, 5)):
            if name == "type" and r.random() < 0.8:
                args[name] = r.choice(list(tool_schema.MEMORY_TYPES) + ["pet", "event", "profile"])
            elif name == "datetime" and r.random() < 0.6:
                args[name] = (f"20{r.randint(0, 99):02d}-{r.randint(0, 13):02d}-{r.randint(0, 32):02d} "
                              f"{r.randint(0, 25):02d}:{r.randint(0, 61):02d}")
            else:
                args[name] = self.value()
        return args

    def sync_args(self):
        r = self.r
        action = r.choice(["apply", "import", "export", "stats", "set_clock", "apply", "import", "nope"])
        args = {"action": action}
        if action == "apply":
            args["batch_id"] = r.choice([f"b{r.randint(0, 40)}", self.value()])
            ops = []
            for _ in range(r.randint(0, 4)):
                op = {"op": r.choice(["write", "delete", "put_mem", "del_mem", "coins", "mood", "end_conversation",
                                      "restore", "x"])}
                for name in r.sample(["type", "content", "key", "category", "payload", "importance", "source",
                                      "tags", "amount", "mood", "soul_state_code", "learned_at", "trigger_count",
                                      "created_at"], r.randint(0, 6)):
                    op[name] = self.value() if r.random() < 0.7 else r.choice(NUMBERS)
                ops.append(op)
            args["ops"] = ops if r.random() < 0.9 else self.value()
        elif action == "import":
            args["batch_id"] = f"i{r.randint(0, 40)}"
            recs = []
            for _ in range(r.randint(1, 3)):
                inner = {"type": r.choice(["fact", "moment", "event", "x"]), "id": r.choice(NUMBERS + ["f1"]),
                         "learned_at": r.choice(NUMBERS), "content": self.text()}
                recs.append(r.choice([{"type": "archive", "record": inner},
                                      {"type": r.choice(["fact", "schedule", "keyed", "chat", "affection", "like"]),
                                       "content": self.text(), "learned_at": r.choice(NUMBERS),
                                       "when": r.choice(NUMBERS), "at": r.choice(NUMBERS), "role": self.value(),
                                       "key": r.choice(["mem_a", "mem_b", self.text()]), "category": self.text(),
                                       "payload": self.text(), "importance": r.choice(NUMBERS), "source": "user",
                                       "total_coins_spent": r.choice(NUMBERS)},
                                      self.value()]))
            args["records"] = recs
        elif action == "export":
            args.update({"cursor": self.value(), "limit": r.choice(NUMBERS), "archive": self.value()})
        elif action == "set_clock":
            args.update({"unix": r.choice(NUMBERS), "utc_offset": r.choice(NUMBERS)})
        return args

    def message(self, rid):
        """(the text sent, whether it must be answered, whether it is a tools/call)."""
        r = self.r
        k = r.random()
        if k < 0.55:
            tool = "memory"
            args = self.memory_args()
        elif k < 0.8:
            tool = "memory_sync"
            args = self.sync_args()
        else:
            msg = {"jsonrpc": r.choice(["2.0", "2.0", "1.0", 2]), "id": rid,
                   "method": r.choice(["ping", "initialize", "tools/list", "tools/call", "nope", ""]),
                   "params": self.value()}
            text = json.dumps(msg, ensure_ascii=r.random() < 0.5).replace("\\\\u", "\\u")
            return text, True, False
        msg = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": tool, "arguments": args}}
        # Half the messages escape every non-ASCII character, as json.dumps does by default; the text's
        # \\ud800 words become real escapes here, lone and paired.
        text = json.dumps(msg, ensure_ascii=r.random() < 0.5).replace("\\\\u", "\\u")
        return text, True, True


def snapshot(device):
    """Every stored byte a refusal could have touched: the NVS tables, the id counter, keyed files."""
    nv = device.store._nv
    parts = [bytes(t.buf) + bytes(t.used) for t in nv.tables]
    keyed = {}
    folder = device.keyed._directory
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            keyed[name] = f.read()
    return parts, nv.next_id, keyed, device.memory.archive.count("fact") if device.memory.archive else 0


def keep_definitions(monkeypatch):
    """The device unloads the tool definitions and the argument checker after each use (RAM on the
    board); importing them again costs CPython about 2 ms a call, most of this test's time. Kept
    loaded here, the calls take the same code paths."""
    import memory

    def forget(name):
        if name not in ("tool_schema", "tool_text", "schema", "mcplist"):
            memory.forget(name)

    monkeypatch.setattr(tools, "forget", forget)
    monkeypatch.setattr(mcp, "forget", forget)


def test_ten_thousand_hostile_messages(tmp_path, monkeypatch):
    keep_definitions(monkeypatch)
    esp32.configure_nvs(None, reserve=200)
    data = tmp_path / "data"
    data.mkdir()
    clock.simulate(clock.parse_local_datetime("2026-02-05 08:00"), 1)
    device = app.Device(config.validate({"token": "fuzz-token-1", "language": "zh"}), data=str(data))
    fuzz = Fuzzer(SEED)
    counts = {"answered": 0, "refused": 0, "accepted": 0, "protocol_errors": 0}
    problems = []
    start = time.monotonic()
    try:
        for n in range(MESSAGES):
            text, must_answer, is_call = fuzz.message(n)
            trusted = n % 3 != 0
            link = mcp.Link("fuzz", trusted=trusted)
            before = snapshot(device)
            out = device.dispatcher.handle(text, link)
            if out is not None and not isinstance(out, str):
                out = "".join(out)
            if out is None:
                if must_answer:
                    problems.append(("no answer", text))
                continue
            try:
                answer = json.loads(out.encode("utf-8").decode("utf-8"))  # what a link would send
            except (UnicodeError, ValueError) as e:
                problems.append((f"answer cannot be sent: {e}", text))
                continue
            counts["answered"] += 1
            refused = "error" in answer
            if refused:
                counts["protocol_errors"] += 1
                said = answer["error"]["message"]
            elif is_call:
                refused = answer["result"]["isError"]
                said = answer["result"]["content"][0]["text"]
            else:
                said = ""
            if is_call and not refused:
                counts["accepted"] += 1
            if refused:
                counts["refused"] += 1
                if EXCEPTION_TEXT.search(said):
                    problems.append(("refusal shows an exception: " + said, text))
                if snapshot(device) != before:
                    problems.append(("refused but changed memory: " + said, text))
            if n % 500 == 499:
                device.store.flush()
    finally:
        clock.simulate(None)
        clock.set_utc_offset(0)
    elapsed = time.monotonic() - start
    print(f"mcp fuzz: {MESSAGES} messages in {elapsed:.1f} s: {counts}; {len(problems)} problems")
    for p in problems[:20]:
        print(p)
    assert not problems, problems[:20]
    assert counts["answered"] == MESSAGES
    assert counts["accepted"] > 500 and counts["refused"] > 2000, counts
    assert elapsed < BUDGET_S, elapsed
