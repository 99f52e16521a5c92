"""Smoke test of bench/flash_image.py with a tiny app: it prints one JSON object with its figures."""

import json
import subprocess
import sys

from esp_images import ROOT


def test_bench_prints_one_json_object():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "flash_image.py"), "--sizes", "4MB", "--app-bytes", "4096"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    result = json.loads(out)
    assert [(r["flash_size"], r["mpy"]) for r in result["runs"]] == [("4MB", False), ("4MB", True)]
    plain, compiled = result["runs"]
    assert compiled["code_bytes"] < plain["code_bytes"]  # .mpy is smaller than source
    assert plain["image_bytes"] == 4 << 20 and plain["vfs_blocks_used"] <= plain["vfs_blocks"]
