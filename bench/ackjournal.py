"""What keeping acknowledged changes costs: LittleFS writes per change, NVS per conversation, answer time, wear.

Prints one JSON object. Runs the real `memory` tool over the simulator's `memory` partition (a
3 MB LittleFS image through littlefs-python, MicroPython's VfsLfs2 settings) and simulated NVS:

- per acknowledged change: bytes programmed and blocks erased on the LittleFS partition by its
  journal record, averaged over 10-turn conversations of mixed changes, each ended by the one
  NVS flush that cuts the journal (its cost is shared out over the conversation's changes);
- the 10-turn conversation of bench/store_writes.py through the tool: NVS bytes and flushes;
- time a `write` answer takes with the journal and without it (the commit skipped), median;
- flash wear for `--per-day` changes a day over `--years` years on the 3 MB partition, assuming
  LittleFS spreads erases over its blocks (dynamic wear levelling, block_cycles 100), against
  `--rated-cycles` erase cycles (100,000: typical SPI NOR datasheet figure).
"""

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for sub in ("lib", "firmware/sim", "tests/device"):
    sys.path.insert(0, str(ROOT / sub))

import esp32  # noqa: E402
import vfs  # noqa: E402
from memory import mcp  # noqa: E402
from memory.ackjournal import AckJournal  # noqa: E402
from memory.mount import mount_data  # noqa: E402
from memory.schedule import Schedules  # noqa: E402
from memory.service import MemoryService  # noqa: E402
from memory.store import Event, Store  # noqa: E402
from memory.tools import MemoryTool  # noqa: E402
from store_helpers import T0, Clock  # noqa: E402

PARTITION_BYTES = 3 * 1024 * 1024
_LINK = mcp.Link("bench", trusted=True)

# The conversation of bench/store_writes.py, as memory tool calls, one list per turn.
TURNS = [
    [{"type": "name", "content": "王浩宇"}],
    [{"type": "like", "content": "打篮球"}],
    [{"type": "like", "content": "北京烤鸭"}, {"type": "family", "relation": "妈妈", "name": "李娟", "closeness": 5}],
    [{"type": "fact", "content": "主人在北京做软件工程师"}],
    [{"type": "like", "content": "科幻电影"}, {"type": "fact", "content": "主人养了一只叫豆豆的猫"}],
    [{"type": "family", "relation": "妹妹", "name": "王小雨", "closeness": 4}],
    [{"type": "schedule", "content": "团队会议 1", "datetime": "2026-01-02 10:00", "priority": 4},
     {"type": "fact", "content": "主人每周六上午去打球"}],
    [{"type": "moment", "topic": "升职", "content": "主人今天升职了，特别开心", "emotion": "happy", "intensity": 5,
      "importance": 5}],
    [{"type": "schedule", "content": "团队会议 2", "datetime": "2026-01-03 10:00", "priority": 4}],
    [{"type": "fact", "content": "主人下个月要去上海出差"}],
]


class Device:
    def __init__(self, folder, journal=True):
        esp32.configure_partition("memory", str(folder / "memory.lfs"), PARTITION_BYTES)
        self.partition = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
        mount_data(self.partition)
        self.nvs = esp32.configure_nvs(reserve=200)
        self.clock = Clock(T0)
        self.store = Store(now=self.clock, journal=AckJournal("/data/acked.jnl") if journal else None)
        if not journal:
            self.store.commit = lambda: None  # the answer as it was before the journal: nothing saved
        self.tool = MemoryTool(MemoryService(self.store, Schedules(self.store, Event)))

    def write(self, args):
        args = dict(args, action="write")
        out = self.tool.call(args, _LINK)
        if isinstance(out, dict) and out.get("result") not in ("ADDED", "UPDATED"):
            raise RuntimeError(f"{args} answered {out}")

    def close(self):
        vfs.umount("/data")


def conversation_costs(folder, conversations):
    dev = Device(folder)
    part, nvs = dev.partition, dev.nvs
    per_change = []
    flush = {"bytes": 0, "erases": 0}
    journal_peak = 0
    nvs_first = None
    changes = 0
    for c in range(conversations):
        for turn in TURNS:
            dev.clock.t += 45
            for args in turn:
                args = dict(args, content=f"{args.get('content') or ''}·{c}") if c else args
                if args["type"] == "family":
                    args["name"] = f"{args['name']}·{c}"
                before = (part.bytes_written, part.erases)
                dev.write(args)
                per_change.append((part.bytes_written - before[0], part.erases - before[1]))
                changes += 1
        journal_peak = max(journal_peak, dev.store.journal.size)
        before = (part.bytes_written, part.erases, nvs.bytes_written, nvs.writes)
        flushes = 1 if dev.store.end_conversation() else 0
        flush["bytes"] += part.bytes_written - before[0]
        flush["erases"] += part.erases - before[1]
        if nvs_first is None:
            nvs_first = {"nvs_bytes": nvs.bytes_written - before[2], "nvs_writes": nvs.writes - before[3],
                         "nvs_writes_during_turns": before[3], "flushes": flushes, "target_bytes": 4096}
        # room for the next conversation's records
        for kind in ("fact", "moment", "like"):
            for item in dev.store.read(kind):
                dev.store.delete(kind, {"content": item["content"]})
        for item in dev.store.read("family"):
            dev.store.delete("family", {"name": item["name"]})
        for ev in dev.store.events():
            dev.store.delete_event(ev)
        dev.store.flush()
    stats = dev.store.journal.stats()
    dev.close()
    record_bytes = [b for b, _ in per_change]
    erases = [e for _, e in per_change]
    return {
        "changes": changes,
        "conversations": conversations,
        "littlefs_bytes_per_change": round(statistics.mean(record_bytes), 1),
        "littlefs_bytes_per_change_max": max(record_bytes),
        "littlefs_blocks_erased_per_change": round(statistics.mean(erases), 3),
        "flush_cut_littlefs_bytes_per_conversation": round(flush["bytes"] / conversations, 1),
        "flush_cut_blocks_erased_per_conversation": round(flush["erases"] / conversations, 3),
        "blocks_erased_per_change_all_in": round((sum(erases) + flush["erases"]) / changes, 3),
        "journal_bytes_at_conversation_end_max": journal_peak,
        "journal_appends": stats["appends"],
    }, nvs_first


def answer_times(folder, rounds):
    """Median milliseconds of a memory write answer, with the journal and without."""
    out = {}
    for journal in (True, False):
        sub = folder / ("with" if journal else "without")
        sub.mkdir()
        dev = Device(sub, journal=journal)
        times = []
        for i in range(rounds):
            t = time.perf_counter()
            dev.write({"type": "fact", "content": f"第{i}件事：主人说今天天气很好"})
            times.append((time.perf_counter() - t) * 1000)
            if i % 15 == 14:
                for item in dev.store.read("fact"):
                    dev.store.delete("fact", {"content": item["content"]})
                dev.store.flush()
        dev.close()
        out["with_journal" if journal else "without_journal"] = round(statistics.median(times), 3)
    out["added_ms"] = round(out["with_journal"] - out["without_journal"], 3)
    return out


def wear(blocks_per_change, per_day, years, rated):
    blocks = PARTITION_BYTES // 4096
    changes = per_day * 365 * years
    erases = blocks_per_change * changes
    per_block = erases / blocks
    return {
        "changes_per_day": per_day,
        "years": years,
        "changes": changes,
        "block_erases": round(erases),
        "partition_blocks": blocks,
        "erases_per_block": round(per_block, 1),
        "rated_erase_cycles": rated,
        "rated_cycles_used_percent": round(100.0 * per_block / rated, 3),
        "assumes": "LittleFS spreads erases evenly over the partition's blocks; the archive's own writes are not counted",
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=60, help="write answers timed per variant")
    ap.add_argument("--per-day", type=int, default=50)
    ap.add_argument("--years", type=int, default=5)
    ap.add_argument("--rated-cycles", type=int, default=100000)
    args = ap.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="xzmem-ackj-"))
    try:
        (folder / "conv").mkdir()
        costs, nvs = conversation_costs(folder / "conv", args.conversations)
        times = answer_times(folder, args.rounds)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps({
        "per_acknowledged_change": costs,
        "ten_turn_conversation_nvs": nvs,
        "write_answer_ms": times,
        "flash_wear": wear(costs["blocks_erased_per_change_all_in"], args.per_day, args.years, args.rated_cycles),
    }, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
