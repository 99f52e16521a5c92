"""bench/chat_overhead.py runs against a real simulator and prints its figures as one JSON object."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_chat_overhead_bench_smoke():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "chat_overhead.py"), "--turns", "4"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    figures = json.loads(out)
    assert figures["turns"] == 4 and figures["left_in_outbox"] == 0
    assert 0 < figures["host_ms"]["p50"] <= figures["host_ms"]["max"]
    assert figures["with_drain_ms"]["p50"] > 0
