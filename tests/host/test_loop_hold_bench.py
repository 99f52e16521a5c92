"""bench/loop_hold.py runs end to end on a small image: every heavy call answered, the loop measured."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_smoke_small_image():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "loop_hold.py"), "--facts", "200", "--keyed", "4",
         "--image-bytes", str(1024 * 1024)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["facts_archived"] == 200
    assert len(out["calls"]) == 9 and not [c for c in out["calls"].values() if c["refused"]], out["calls"]
    assert out["loop"]["ticks"] > 0 and out["loop"]["longest_work_ms"] > 0
