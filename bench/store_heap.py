"""Heap the hot store takes under real MicroPython (the WebAssembly port) with every type full.

Prints one JSON object. `store_loaded_full_bytes` is gc.mem_alloc() growth from constructing a
Store over an NVS holding every type at capacity (target 24 KB). Module bytecode is reported
apart: on a board the modules are frozen into flash and cost no heap.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    cmd = [
        "node", str(ROOT / "bench" / "mp_script.mjs"),
        "--map", f"{ROOT / 'lib'}:/lib",
        "--map", f"{ROOT / 'firmware' / 'sim'}:/lib",
        "--map", f"{ROOT / 'tests' / 'device'}:/tests",
        "--map", f"{ROOT / 'bench'}:/bench",
        "--path", "/lib", "--path", "/tests", "--path", "/bench",
        "--module", "mp_store_heap",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith("@@json "):
            print(json.dumps(json.loads(line[7:]), indent=2))
            return 0
    sys.stderr.write((proc.stdout + proc.stderr)[-3000:])
    return 1


if __name__ == "__main__":
    sys.exit(main())
