"""Heap the `memory` read overview takes under real MicroPython (the WebAssembly port), every type full.

Prints one JSON object. The answer is streamed (docs/streaming.md) and driven step by step: one
response piece per step (`reply_pieces_one_per_step`), or one WebSocket frame per step as the
server link (`streamed_server_link`) and the masked outbound links (`streamed_outbound_link_masked`)
send it. For each: `live_peak_bytes`, the most live heap at any step boundary (exact: garbage is
collected there; target 16 KB), and `peak_bound_bytes`, that plus the step's own allocation,
garbage included. No string or buffer of the answer is bigger than the frame buffer
(`frame_buffer_bytes`; target under 8 KB); `largest_*_piece_bytes` are the pieces.
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
