"""bench/link_roundtrip.py runs end to end with a tiny count and prints its JSON figures."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_link_roundtrip_bench_prints_percentiles():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "link_roundtrip.py"), "--n", "30", "--warmup", "2"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    figures = json.loads(out)
    assert figures["n"] == 30
    assert figures["errors"] == 0
    assert 0 < figures["p50_ms"] <= figures["p99_ms"] <= figures["max_ms"]
