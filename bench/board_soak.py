"""A soak of the whole device program on a board-sized heap, under real MicroPython (the WebAssembly port).

The firmware starts as on a board (app.main(): config, the hot store full, the archive, the MCP
server and its loops) from lib/memory compiled to .mpy, on a heap fixed at --heap bytes (see
bench/board_soak.mjs for how). One client with the owner's token, on in-memory streams shaped like
MicroPython's (firmware/sim/mpstream, which counts the device's sockets), makes --calls mixed calls:
memory read, write of every type, recall with limit 50, search, schedules added and completed,
20-op memory_sync apply batches, and abrupt disconnects followed by a new connection.

What shares the heap with the device: the client (its state and each reply it parses) and the
streams' receive buffers, which a board keeps in lwIP. The fake NVS's contents are weighed first
and added to the port's heap, since a board keeps them in flash. This port collects garbage only
between the loop's turns (when every task waits), not in the middle of a call as a board does, so
a heap that passes here passes on a board with room to spare.

Prints one JSON object: memory_errors (calls refused for lack of memory, or MemoryError in the
client), sessions_lost (calls whose connection ended under them), leaked_sockets (sockets the device
still holds after the last client left), live_max (the most gc.mem_alloc() after a collection, every
10 calls, less the fake NVS), largest_alloc (the biggest block a call added to the heap, from
micropython.mem_info(1)'s block map before and after it), heap, calls, seconds (the soak alone),
tool_errors (calls the firmware refused: none of the mix should be) and fake_nvs_bytes.

  python bench/board_soak.py --heap 196608 --calls 1000 [--seed 1]
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import firmware_heap  # noqa: E402

MARK = "@@json "


def nvs_lines(src, dst):
    """The NVS file as one tab-separated line per entry, for the port to load an entry per call."""
    items = json.loads(src.read_text(encoding="utf-8"))["items"]
    dst.write_text("".join("\t".join(str(v) for v in item) + "\n" for item in items), encoding="utf-8")


def soak(heap, calls, seed=1, timeout=1800):
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        firmware_heap.build_data(work, links=False)
        nvs_lines(work / "nvs.json", work / "nvs.lines")
        lib = firmware_heap.compile_mpy(work / "mpy")
        cmd = ["node", str(ROOT / "bench" / "board_soak.mjs"),
               "--map", f"{lib}:/lib", "--map", f"{ROOT / 'firmware' / 'sim'}:/lib", "--map", f"{work}:/bench",
               "--map", f"{ROOT / 'bench'}:/benchcode", "--map", f"{ROOT / 'tests' / 'device'}:/helpers",
               "--map", f"{work / 'data'}:/data",
               "--path", "/lib", "--path", "/benchcode", "--path", "/helpers",
               "--heap", str(heap), "--calls", str(calls), "--seed", str(seed)]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            result = json.loads(line[len(MARK):])
            if "error" in result:
                raise SystemExit("board_soak: " + result["error"])
            return result
    raise SystemExit("board_soak: the port run failed:\n" + (proc.stdout + proc.stderr)[-4000:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heap", type=int, required=True, help="the MicroPython heap in bytes")
    ap.add_argument("--calls", type=int, default=1000, help="mixed calls to make")
    ap.add_argument("--seed", type=int, default=1, help="seed of the call mix")
    args = ap.parse_args(argv)
    print(json.dumps(soak(args.heap, args.calls, args.seed)))


if __name__ == "__main__":
    main()
