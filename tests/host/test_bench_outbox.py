"""bench/outbox.py runs and prints its figures as one JSON object."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_outbox_bench_smoke():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "outbox.py"), "--batches", "5", "--ops", "2"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    figures = json.loads(out)
    assert figures["batches"] == 5
    assert figures["drain_batches_per_s"] > 0 and figures["enqueue_ms_p50"] > 0
