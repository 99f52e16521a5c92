"""bench/ackjournal.py runs and its figures meet the issue's targets (one NVS flush of at most 4 KB a conversation)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_journal_bench_small_run():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "ackjournal.py"), "--conversations", "2",
                          "--rounds", "5"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    r = json.loads(out.stdout)
    nvs = r["ten_turn_conversation_nvs"]
    assert nvs["nvs_writes_during_turns"] == 0 and nvs["flushes"] == 1 and nvs["nvs_bytes"] <= 4096
    per = r["per_acknowledged_change"]
    assert per["changes"] == 26 and per["journal_appends"] >= per["changes"]
    assert 0 < per["littlefs_bytes_per_change"] < 8192
    assert r["write_answer_ms"]["with_journal"] > r["write_answer_ms"]["without_journal"]
    wear = r["flash_wear"]
    assert wear["changes"] == 50 * 365 * 5 and wear["partition_blocks"] == 768
    assert wear["rated_cycles_used_percent"] < 1
