"""bench/gateway_links.py runs end to end with a tiny count and prints its JSON figures."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_gateway_links_bench_prints_latency_and_reconnect_time():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "gateway_links.py"), "--n", "20", "--warmup", "2"],
                         capture_output=True, text=True, timeout=180, check=True).stdout
    figures = json.loads(out)
    for kind in ("endpoint", "xiaozhi"):
        f = figures[kind]
        assert f["errors"] == 0
        assert 0 < f["p50_ms"] <= f["p99_ms"] <= f["max_ms"]
        assert 0.9 <= f["reconnect_s"] < 3  # the first backoff delay is 1 s
