"""bench/xiaozhi_query.py runs the provider against a real simulator and prints its figures as one JSON object."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_xiaozhi_query_bench_smoke():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "xiaozhi_query.py"), "--calls", "4"],
                         capture_output=True, text=True, check=True, timeout=180).stdout
    figures = json.loads(out)
    assert figures["calls"] == 4 and figures["saved"]["pending"] == 0
    assert 0 < figures["query_ms"]["p50"] <= figures["query_ms"]["max"]
    assert 0 < figures["tokens"]["max"] <= figures["tokens"]["budget"] == 600
    assert figures["answers_from_cache"] and "李雷" in figures["sample_answer"]
