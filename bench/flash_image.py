"""Benchmark: time to build `xzmem image` flash files, and how much of each partition the code and table use.

Uses a stand-in firmware of stock size (an app of --app-bytes), so no download is needed.
Prints one JSON object.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "host"))

from esp_images import merged_firmware, project  # noqa: E402
from xzmem.board import devconfig, fsimage  # noqa: E402
from xzmem.board import plans as board  # noqa: E402
from xzmem.board.firmware import load_firmware  # noqa: E402
from xzmem.board.partitions import FACTORY_SIZE, load_layout  # noqa: E402


def measure(size: str, app_bytes: int, mpy: bool, tmp: Path) -> dict:
    root = project(tmp / f"{size}-{mpy}")
    fw = merged_firmware(tmp / f"fw-{size}.bin", app_payload=app_bytes)
    out = tmp / f"flash-{size}.bin"
    start = time.perf_counter()
    plan = board.image_plan(fw, size, out, devconfig.device_config(token="bench-token"), mpy=mpy, root=root)
    checked = time.perf_counter()
    board.run_plan(plan, dry_run=False, show=lambda *a: None, note=lambda m: None)
    done = time.perf_counter()
    layout = load_layout(size)
    vfs = layout["vfs"]
    data = out.read_bytes()
    fs = fsimage.open_image(data[vfs.offset : vfs.end])
    code = fsimage.read_files(fs)
    return {
        "flash_size": size,
        "mpy": mpy,
        "check_seconds": round(checked - start, 3),
        "build_seconds": round(done - checked, 3),
        "image_bytes": len(data),
        "code_files": len(code),
        "code_bytes": sum(len(v) for v in code.values()),
        "vfs_blocks_used": fs.used_block_count,
        "vfs_blocks": fs.block_count,
        "memory_bytes": layout["memory"].size,
        "factory_free_bytes": FACTORY_SIZE - load_firmware(fw).app_size,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4MB,8MB,16MB")
    parser.add_argument("--app-bytes", type=int, default=1_700_000, help="stand-in app size (stock ESP32 is ~1.7 MB)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [measure(s, args.app_bytes, mpy, Path(tmp)) for s in args.sizes.split(",") for mpy in (False, True)]
    print(json.dumps({"bench": "flash_image", "app_bytes": args.app_bytes, "runs": runs}))


if __name__ == "__main__":
    main()
