"""The hot-store benchmarks run and meet the issue's targets (heap, bytes per conversation, free entries)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(name):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / name)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout)


def test_ten_turn_conversation_is_one_flush_under_4k():
    r = _bench("store_writes.py")
    for case in ("conversation_on_empty_store", "conversation_on_full_store"):
        c = r[case]
        assert c["nvs_writes_during_turns"] == 0, case
        assert c["flushes"] == 1, case
        assert c["bytes_written"] <= 4096, case
    assert r["budget"]["entries_ours_all_full"] + 200 <= 1386 * 0.7
    assert r["budget"]["free_percent"] >= 30


def test_store_heap_under_micropython_within_24k():
    r = _bench("store_heap.py")
    assert r["interpreter"] == "micropython-webassembly"
    assert 8 * 1024 < r["store_loaded_full_bytes"] <= 24 * 1024
    assert r["records"]["fact"] == 20 and r["records"]["chat"] == 30
