"""Run a MicroPython benchmark module (bench/mp_*.py) in the WebAssembly port and print its JSON."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "@@json "


def run_script(module):
    """Step `module`'s main() under the port (bench/mp_script.mjs); print its JSON. Returns an exit code."""
    cmd = [
        "node", str(ROOT / "bench" / "mp_script.mjs"),
        "--map", f"{ROOT / 'lib'}:/lib",
        "--map", f"{ROOT / 'firmware' / 'sim'}:/lib",
        "--map", f"{ROOT / 'tests' / 'device'}:/tests",
        "--map", f"{ROOT / 'bench'}:/bench",
        "--path", "/lib", "--path", "/tests", "--path", "/bench",
        "--module", module,
    ]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            print(json.dumps(json.loads(line[len(MARK):]), indent=2))
            return 0
    sys.stderr.write((proc.stdout + proc.stderr)[-3000:])
    return 1
