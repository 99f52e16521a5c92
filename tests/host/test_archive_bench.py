"""bench/archive.py runs end to end on a small archive and reports what recall read."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_smoke_small_archive():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "archive.py"), "--facts", "300", "--moments", "150",
         "--image-bytes", str(4 * 1024 * 1024), "--no-micropython"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for fs_name in ("posix", "littlefs"):
        r = out[fs_name]["recall"]
        assert r["recent_10"]["items"] == 10
        assert r["keyword_nowhere"]["items"] == 0
        assert r["keyword_5_in_one_month"]["items"] == r["plain_full_scan_facts"]["matches"]
        assert r["keyword_nowhere"]["bytes_read"] < r["plain_full_scan_facts"]["bytes_read"]
    assert out["littlefs"]["stats"]["counts"] == {"fact": 300, "moment": 150, "event": 0}
