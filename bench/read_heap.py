"""Heap the `memory` read overview takes under real MicroPython (the WebAssembly port), every type full.

Prints one JSON object. `allocated_while_answering_bytes` is everything gc.mem_alloc() saw allocated
while the dispatcher answered one tools/call read (no collection in between, so it bounds the peak;
target 16 KB). The reply message is the largest single string built (target under 8 KB).
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
        "--module", "mp_read_heap",
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
