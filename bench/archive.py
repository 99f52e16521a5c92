"""Archive benchmark: a 3-year archive (12,000 facts, 6,000 moments, about 6 MB), and what each
kind of recall reads from it next to a plain full scan; peak heap of keyword recalls under real
MicroPython (WebAssembly port). Prints one JSON object.

    .venv/bin/python bench/archive.py [--facts 12000] [--moments 6000] [--no-littlefs] [--no-micropython]

The archive is built through memory.archive.Archive in batches of 5, the way the store archives,
twice: on the posix filesystem (fast, and what the MicroPython run copies in) and inside a LittleFS
image through the simulator's volume (littlefs-python), as on the board.
"""

import argparse
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "lib", ROOT / "firmware" / "sim"):
    sys.path.insert(0, str(p))

import esp32  # noqa: E402
import vfs  # noqa: E402
from memory import clock, fs  # noqa: E402
from memory.archive import Archive  # noqa: E402
from memory.lines import LineReader  # noqa: E402
from memory.mount import mount_data  # noqa: E402

DAY = 86400
START = 1672531200  # 2023-01-01 UTC
YEARS = 3
RARE = "滑翔伞"  # in 5 facts, all in RARE_MONTH
RARE_MONTH = (2024, 5)
NOWHERE = "潜水艇"  # in no record
SPREAD = "篮球"  # in every 100th record
ENGLISH = ["coffee", "Python", "weekend", "meeting", "Beijing", "piano", "hiking", "movie", "birthday", "train"]
EMOTIONS = ["生日聚会", "项目成功", "家庭旅行", "第一次", "毕业典礼", "新工作", "搬家", "看演唱会"]


def vocabulary(limit=20000):
    """The most frequent Chinese words of jieba's dictionary (nouns, verbs, adjectives, places)."""
    import jieba

    words, weights = [], []
    with open(Path(jieba.__file__).parent / "dict.txt", encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[2][0] in "nvad" and all("\u4e00" <= c <= "\u9fff" for c in parts[0]):
                words.append(parts[0])
                weights.append(int(parts[1]))
    ranked = sorted(zip(weights, words, strict=True), reverse=True)[:limit]
    return [w for _, w in ranked], [c for c, _ in ranked]


class Text:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.words, weights = vocabulary()
        self.cum_weights = list(itertools.accumulate(weights))

    def sentence(self, lo, hi):
        target = self.rng.randint(lo, hi)
        while True:
            out = "主人"
            while len(out) < target:
                if self.rng.random() < 0.06:
                    out += f" {self.rng.choice(ENGLISH)} "
                else:
                    out += self.rng.choices(self.words, cum_weights=self.cum_weights)[0]
            if RARE not in out and NOWHERE not in out and SPREAD not in out:
                return out

    def insert(self, text, word):
        i = self.rng.randint(2, len(text))
        return text[:i] + word + text[i:]


def generate(n_facts, n_moments, seed=3):
    """Records of both kinds, learned at random times over three years, oldest first."""
    text = Text(seed)
    rng = text.rng
    span = YEARS * 365 * DAY
    facts = sorted(START + rng.randrange(span) for _ in range(n_facts))
    moments = sorted(START + rng.randrange(span) for _ in range(n_moments))
    rare_from = clock.days_from_civil(RARE_MONTH[0], RARE_MONTH[1], 1) * DAY
    rare_idx = [i for i, t in enumerate(facts) if rare_from <= t < rare_from + 28 * DAY]
    rare_idx = set(rng.sample(rare_idx, min(5, len(rare_idx))))
    out = []
    for i, t in enumerate(facts):
        content = text.sentence(65, 100)
        if i in rare_idx:
            content = text.insert(content, RARE)
        if i % 100 == 50:
            content = text.insert(content, SPREAD)
        out.append(("fact", {"id": f"f{i:05d}", "type": "fact", "learned_at": t, "content": content}))
    for i, t in enumerate(moments):
        content = text.sentence(55, 85)
        if i % 100 == 50:
            content = text.insert(content, SPREAD)
        out.append(("moment", {"id": f"m{i:05d}", "type": "moment", "learned_at": t,
                               "topic": rng.choice(EMOTIONS), "content": content,
                               "emotion_type": rng.randint(0, 5), "emotion_intensity": rng.randint(1, 5),
                               "importance": rng.randint(1, 5)}))
    out.sort(key=lambda r: r[1]["learned_at"])
    return out


def build(archive, records, batch=5):
    """Archive as the store would: each kind in batches of `batch`, some days after learning."""
    pending = {"fact": [], "moment": []}
    for kind, rec in records:
        pending[kind].append(rec)
        if len(pending[kind]) == batch:
            clock.simulate(rec["learned_at"] + 3 * DAY)
            archive.append(kind, pending[kind])
            pending[kind] = []
    for kind, recs in pending.items():
        if recs:
            archive.append(kind, recs)
    clock.simulate(None)


def sizes(root):
    """Bytes of the JSONL parts and of the sidecars under `root`, and the part count."""
    jsonl = idx = parts = 0
    for top, _dirs, names in walk(root):
        for name in names:
            size = fs.stat(top + "/" + name)[6]
            if name.endswith(".jsonl"):
                jsonl += size
                parts += 1
            elif name.endswith(".idx"):
                idx += size
    return jsonl, idx, parts


def walk(top):
    dirs, files = [], []
    for name in sorted(fs.listdir(top)):
        (dirs if fs.stat(top + "/" + name)[0] & 0x4000 else files).append(name)
    yield top, dirs, files
    for d in dirs:
        yield from walk(top + "/" + d)


def plain_scan(root, kind, keyword):
    """The whole kind read line by line and every line parsed: what one flat file would cost."""
    reader = LineReader()
    found = 0
    for top, _dirs, names in walk(root + "/" + kind):
        for name in names:
            if name.endswith(".jsonl"):
                for mv in reader.lines(top + "/" + name):
                    rec = json.loads(bytes(mv))
                    if keyword in rec["content"].lower():
                        found += 1
    return {"bytes_read": reader.bytes_read, "lines_parsed": reader.lines_read, "matches": found}


def queries(archive, root, total):
    y, m = RARE_MONTH
    month_dir = f"{root}/fact/{y:04d}{m:02d}"
    month_bytes = sum(fs.stat(month_dir + "/" + n)[6] for n in fs.listdir(month_dir) if n.endswith(".jsonl"))
    last_day = clock.days_in_month(y, m)
    runs = {
        "recent_10": dict(kind="fact"),
        "month_by_date": dict(kind="fact", start_date=f"{y:04d}-{m:02d}-01",
                              end_date=f"{y:04d}-{m:02d}-{last_day:02d}", limit=50),
        "keyword_5_in_one_month": dict(kind="fact", keyword=RARE),
        "keyword_nowhere": dict(kind="fact", keyword=NOWHERE),
        "keyword_1pct_limit_10": dict(kind="fact", keyword=SPREAD),
        "keyword_1pct_moments_limit_10": dict(kind="moment", keyword=SPREAD),
    }
    out = {}
    for name, kw in runs.items():
        t0 = time.perf_counter()
        r = archive.recall(**kw)
        ms = (time.perf_counter() - t0) * 1000
        last = archive.last
        out[name] = {
            "items": r["count"],
            "bytes_read": last["bytes_read"],
            "index_bytes_read": last["index_bytes"],
            "lines_read": last["lines_read"],
            "lines_parsed": last["lines_parsed"],
            "segments_read": last["segments_read"],
            "fraction_of_archive": round(last["bytes_read"] / total, 4),
            "ms_cpython": round(ms, 1),
        }
    out["month_by_date"]["month_bytes"] = month_bytes
    out["month_by_date"]["ratio_to_month_bytes"] = round(out["month_by_date"]["bytes_read"] / month_bytes, 3)
    t0 = time.perf_counter()
    scan = plain_scan(root, "fact", RARE)
    scan["ms_cpython"] = round((time.perf_counter() - t0) * 1000, 1)
    scan["fraction_of_archive"] = round(scan["bytes_read"] / total, 4)
    out["plain_full_scan_facts"] = scan
    return out


def on_posix(records, work):
    root = str(work / "archive")
    a = Archive(root)
    t0 = time.perf_counter()
    build(a, records)
    build_s = time.perf_counter() - t0
    jsonl, idx, parts = sizes(root)
    return root, {
        "filesystem": "posix (host directory)",
        "build_seconds": round(build_s, 1),
        "archive_bytes": jsonl,
        "sidecar_bytes": idx,
        "segments": parts,
        "counts": {k: a.count(k) for k in ("fact", "moment", "event")},
        "recall": queries(a, root, jsonl),
    }


def on_littlefs(records, work, size):
    image = work / "memory.bin"
    esp32.configure_partition("memory", str(image), size)
    part = esp32.Partition.find(esp32.Partition.TYPE_DATA, label="memory")[0]
    status = mount_data(part)
    try:
        a = Archive("/data/archive")
        t0 = time.perf_counter()
        build(a, records)
        build_s = time.perf_counter() - t0
        jsonl, idx, parts = sizes("/data/archive")
        stats = a.stats()
        return {
            "filesystem": f"LittleFS image {size} bytes (littlefs-python, MicroPython VfsLfs2 settings)",
            "mount": status,
            "build_seconds": round(build_s, 1),
            "archive_bytes": jsonl,
            "sidecar_bytes": idx,
            "segments": parts,
            "stats": stats,
            "recall": queries(a, "/data/archive", jsonl),
        }
    finally:
        vfs.umount("/data")


def on_micropython(root):
    qs = [
        ["keyword_5_in_one_month", "fact", RARE, 10],
        ["keyword_nowhere", "fact", NOWHERE, 10],
        ["keyword_1pct_limit_10", "fact", SPREAD, 10],
        ["keyword_1pct_moments_limit_10", "moment", SPREAD, 10],
        ["keyword_ascii_limit_10", "fact", "python", 10],
        ["keyword_1pct_limit_50", "fact", SPREAD, 50],
        ["keyword_every_fact_limit_50", "fact", "主人", 50],
    ]
    cmd = ["node", str(ROOT / "bench" / "mp_run.mjs"),
           "--map", "%s:/lib" % (ROOT / "lib"), "--map", "%s:/lib" % (ROOT / "firmware" / "sim"),
           "--map", f"{root}:/bench/archive",
           "--script", str(ROOT / "bench" / "archive_heap_mp.py"),
           "--arg", "/bench/archive", "--arg", json.dumps(qs, ensure_ascii=False)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode or not lines:
        return {"error": (proc.stdout + proc.stderr)[-2000:]}
    return json.loads(lines[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--facts", type=int, default=12000)
    ap.add_argument("--moments", type=int, default=6000)
    ap.add_argument("--image-bytes", type=int, default=10 * 1024 * 1024)
    ap.add_argument("--no-littlefs", action="store_true")
    ap.add_argument("--no-micropython", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="xzmem-archive-bench-"))
    try:
        records = generate(args.facts, args.moments)
        out = {"records": {"fact": args.facts, "moment": args.moments}, "years": YEARS,
               "keywords": {"rare_5_in_one_month": RARE, "nowhere": NOWHERE, "spread_1pct": SPREAD}}
        root, out["posix"] = on_posix(records, work)
        if not args.no_littlefs:
            out["littlefs"] = on_littlefs(records, work, args.image_bytes)
        if not args.no_micropython:
            out["micropython_heap"] = on_micropython(root)
        print(json.dumps(out, ensure_ascii=False, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(work):
            print(f"could not remove {work}", file=sys.stderr)


if __name__ == "__main__":
    main()
