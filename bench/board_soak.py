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
tool_errors (calls the firmware refused: none of the mix should be), fake_nvs_bytes, and on this
port loop_faults (times the port's event loop itself failed, short of heap in the middle of a turn;
see board_soak_mp._turns_end_when_low) and low_turns (step slices ended early so that the port
could collect, where a board would have collected in the middle of the step).

With --micropython PATH the device runs alone under that unix-port binary (build it 32-bit, with
MICROPY_FORCE_32BIT=1, for a board's object sizes; with lib/memory frozen in for the frozen form and
--frozen), serving on a real socket on 127.0.0.1, and the client runs in this CPython process
(bench/board_soak_client.py): nothing of the client is on the device's heap, and the sockets are the
operating system's, counted in /proc/PID/fd. The unix port has a fixed heap (-X heapsize) and
collects as a board does, whenever an allocation needs it; the heap given is --heap plus the fake
NVS's weight, measured in a first run. The device notes its live heap after a collection every
second and at the end: live_max less the fake NVS, firmware_live_max less everything on the heap
before app.main() started (the harness, the fakes, the fake NVS). There the JSON also has device_faults (lines of the device's log that name a
MemoryError or a traceback) and seconds; largest_alloc, loop_faults and low_turns are the
WebAssembly port's.

  python bench/board_soak.py --heap 196608 --calls 1000 [--seed 1]
  python bench/board_soak.py --heap 196608 --micropython ports/unix/build-standard/micropython [--frozen]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import firmware_heap  # noqa: E402
from xzmem.board import fsimage  # noqa: E402

MARK = "@@json "
MEMORY_BYTES = 1 << 20  # the unix run's memory partition (board_soak_mp.MEMORY_BYTES)


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


def soak_unix(binary, heap, calls, seed=1, frozen=False, timeout=1800):
    """The device alone under a unix-port binary, --heap plus the fake NVS's weight (a first run) as
    its heap, serving the client of board_soak_client over a real socket."""
    import board_soak_client

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        firmware_heap.build_data(work, links=False)
        port = board_soak_client.free_port()
        cfg = json.loads((work / "config.json").read_text(encoding="utf-8"))
        cfg.update(listen_host="127.0.0.1", listen_port=port)
        (work / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
        nvs_lines(work / "nvs.json", work / "nvs.lines")
        files = fsimage.files_from_source(work / "data")
        (work / "memory.img").write_bytes(fsimage.build_image(MEMORY_BYTES, files))
        paths = [str(ROOT / "firmware" / "sim"), str(ROOT / "bench"), str(ROOT / "tests" / "device")]
        if not frozen:
            paths.insert(0, str(firmware_heap.compile_mpy(work / "mpy", arch="x86")))
        script = work / "run.py"
        script.write_text(
            "import sys\n"
            f"sys.path[{2 if frozen else 0}:{2 if frozen else 0}] = {paths!r}\n"
            "import board_soak_mp\n"
            "if len(sys.argv) > 1:\n"
            f"    board_soak_mp.unix_weigh({str(work)!r})\n"
            "else:\n"
            f"    board_soak_mp.unix_device({str(work)!r})\n",
            encoding="utf-8")
        probe = subprocess.run([binary, "-X", "heapsize=8388608", str(script), "weigh"], cwd=work,
                               capture_output=True, text=True, timeout=timeout)
        nvs = next((int(line.split()[1]) for line in probe.stdout.splitlines() if line.startswith("@@nvs")), None)
        if nvs is None:
            raise SystemExit("board_soak: the unix port run failed:\n" + (probe.stdout + probe.stderr)[-4000:])
        (work / "memory.img").write_bytes(fsimage.build_image(MEMORY_BYTES, files))  # as before the probe
        start = time.monotonic()
        r, output = board_soak_client.drive([binary, "-X", f"heapsize={heap + nvs}", str(script)], work, port,
                                            calls, seed, timeout)
        seconds = round(time.monotonic() - start)
    device = next((json.loads(line[len(MARK):]) for line in output.splitlines() if line.startswith(MARK)), None)
    if r is None or device is None:
        raise SystemExit("board_soak: the device did not run under the unix port:\n" + output[-4000:])
    faults = [line for line in output.splitlines() if "MemoryError" in line or "Traceback" in line]
    return {"memory_errors": r["memory_errors"], "sessions_lost": r["sessions_lost"],
            "leaked_sockets": r["leaked_sockets"], "live_max": device["live_max"],
            "firmware_live_max": device["firmware_live_max"], "heap": heap, "calls": calls,
            "seed": seed, "answered": r["answered"], "tool_errors": r["errors"], "refused_full": r["full"],
            "reconnects": r["reconnects"], "sockets_opened": r["sockets_opened"],
            "device_faults": len(faults), "fake_nvs_bytes": device["fake_nvs_bytes"], "seconds": seconds,
            "port": binary, "form": "frozen" if frozen else "mpy",
            "first_problems": r["first_problems"] + faults[:5]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heap", type=int, required=True, help="the MicroPython heap in bytes")
    ap.add_argument("--calls", type=int, default=1000, help="mixed calls to make")
    ap.add_argument("--seed", type=int, default=1, help="seed of the call mix")
    ap.add_argument("--micropython", help="a unix-port binary to run under instead of the WebAssembly port")
    ap.add_argument("--frozen", action="store_true", help="with --micropython: lib/memory is frozen into it")
    args = ap.parse_args(argv)
    if args.micropython and not os.access(args.micropython, os.X_OK):
        ap.error(f"--micropython {args.micropython}: no such program (a unix-port micropython binary)")
    if args.micropython:
        print(json.dumps(soak_unix(args.micropython, args.heap, args.calls, args.seed, args.frozen)))
    else:
        print(json.dumps(soak(args.heap, args.calls, args.seed)))


if __name__ == "__main__":
    main()
