"""Run a MicroPython unittest module in the WebAssembly port (node) and collect its results."""

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARK = "@@xzmem-test "
TIMEOUT = 600


def micropython_command(module, test_dir, lib_dir=ROOT / "lib"):
    """The node command that runs `module` (a file in `test_dir`) with `lib_dir` as /lib."""
    return [
        "node", str(ROOT / "tests" / "mp" / "run.mjs"),
        "--map", f"{lib_dir}:/lib",
        "--map", f"{ROOT / 'firmware' / 'sim'}:/lib",
        "--map", f"{ROOT / 'tests' / 'mp'}:/runner",
        "--map", f"{test_dir}:/tests",
        "--path", "/runner", "--path", "/tests",
        "--module", module,
    ]


def run_micropython(module, test_dir, lib_dir=ROOT / "lib"):
    """Run a test module under MicroPython; return ({(class, test): result}, raw output)."""
    proc = subprocess.run(
        micropython_command(module, test_dir, lib_dir),
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
    )
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            r = json.loads(line[len(MARK):])
            results[(r["class"], r["test"])] = r
    return results, proc.stdout + proc.stderr
