"""How long single calls hold the device's event loop on a large store: `xzmem sim --loop-probe` on a
3 MB memory image with a long archive, each heavy call type made once while a second client pings.
Prints one JSON object.

    .venv/bin/python bench/loop_hold.py [--facts 10000] [--keyed 64] [--image-bytes 3145728]

The archive is written into the LittleFS image through memory.archive before the simulator starts
(about 45 s for 10,000 facts). For each call: its wall time and the slowest ping round trip of the
other client while it ran; then the probe's longest hold of the loop (wall and CPU work) with the
code that held it. Figures depend on the machine; on the simulator every LittleFS call is Python.
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import websockets
from xzmem.device.ops import split_runs

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "lib"), str(ROOT / "firmware" / "sim")]

TOKEN = "bench-token-1234"
READY = "xzmem device ready "


def build_image(path, size, facts):
    """A LittleFS image whose archive holds `facts` facts of 2025, appended 10 at a time."""
    import lfsvolume
    from memory.archive import Archive

    def fill(root):
        archive = Archive(root + "/archive")
        t = 1735689600 - 400 * 86400
        for n in range(facts // 10):
            archive.append("fact", [{"id": 100000 + n * 10 + i, "type": "fact", "learned_at": t + (n * 10 + i) * 3600,
                                     "content": f"旧事 {n * 10 + i} 喜欢 篮球 咖啡 {'x' * 150}"} for i in range(10)])

    return lfsvolume.build_image(path, size, fill)


def calls(keyed):
    """(label, tool, arguments) of the calls measured, heaviest kinds of each."""
    stamp = str(int(time.time()))
    puts = [{"op": "put_mem", "key": f"mem_b{i}", "category": "bench", "payload": f"负载 {i} {stamp} {'y' * 100}",
             "importance": 3, "source": "user"} for i in range(keyed)]
    facts = [{"op": "write", "type": "fact", "content": f"批量事实 {i} {stamp}"} for i in range(64)]
    # The biggest batches the host sends: as many ops as one message to the device holds (4 KB).
    puts, facts = split_runs(puts, 64)[0], split_runs(facts, 64)[0]
    return [
        ("stats", "memory_sync", {"action": "stats"}),
        ("recall, keyword found nowhere", "memory", {"action": "recall", "type": "fact", "keyword": "潜水艇", "limit": 50}),
        ("recall, common keyword, 50", "memory", {"action": "recall", "type": "fact", "keyword": "篮球", "limit": 50}),
        (f"apply {len(puts)} put_mem", "memory_sync", {"action": "apply", "batch_id": "p" + stamp, "ops": puts}),
        (f"apply {len(facts)} fact writes", "memory_sync", {"action": "apply", "batch_id": "f" + stamp, "ops": facts}),
        ("search", "memory", {"action": "search", "keyword": "负载", "limit": 50}),
        ("export page, hot and keyed, 200", "memory_sync", {"action": "export", "limit": 200}),
        ("export page, archive, 200", "memory_sync", {"action": "export", "archive": True, "limit": 200}),
        ("stats after", "memory_sync", {"action": "stats"}),
    ]


async def measure(url, keyed):
    async with websockets.connect(url, subprotocols=["mcp"], max_size=None) as worker, \
            websockets.connect(url, subprotocols=["mcp"]) as pinger:
        rid = [0]

        async def rpc(ws, method, params=None):
            rid[0] += 1
            # UTF-8, as the host's MCP client writes it (an escaped 汉字 takes 6 bytes of the 4 KB a message may have)
            await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid[0], "method": method, "params": params or {}},
                                     ensure_ascii=False))
            return json.loads(await ws.recv())

        for ws in (worker, pinger):
            await rpc(ws, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "bench"}})
        pings = []
        busy = asyncio.Event()

        async def ping_loop():
            while True:
                t0 = time.monotonic()
                await rpc(pinger, "ping")
                if busy.is_set():
                    pings.append(time.monotonic() - t0)
                await asyncio.sleep(0.01)

        task = asyncio.create_task(ping_loop())
        out = {}
        for label, tool, args in calls(keyed):
            pings.clear()
            busy.set()
            t0 = time.monotonic()
            reply = await rpc(worker, "tools/call", {"name": tool, "arguments": args})
            took = time.monotonic() - t0
            busy.clear()
            result = reply.get("result", {})
            out[label] = {"ms": round(took * 1000, 1), "pings": len(pings),
                          "slowest_ping_ms": round(max(pings) * 1000, 1) if pings else None,
                          "refused": bool(result.get("isError")) or "error" in reply}
            await asyncio.sleep(0.05)
        task.cancel()
        return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--facts", type=int, default=10000)
    ap.add_argument("--keyed", type=int, default=64)
    ap.add_argument("--image-bytes", type=int, default=3 * 1024 * 1024)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="xzmem-loop-hold-") as tmp:
        data = Path(tmp) / "dev"
        data.mkdir()
        t0 = time.monotonic()
        free = build_image(data / "memory.lfs", args.image_bytes, args.facts)
        built = time.monotonic() - t0
        probe = Path(tmp) / "probe.json"
        port = free_port()
        cmd = [sys.executable, "-m", "xzmem", "sim", "--data", str(data), "--token", TOKEN,
               "--listen", f"127.0.0.1:{port}", "--start-time", "2026-02-05T08:00", "--loop-probe", str(probe)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
        try:
            for line in proc.stdout:
                if line.startswith(READY):
                    break
            else:
                raise SystemExit("the simulator did not start")
            out = asyncio.run(measure(f"ws://127.0.0.1:{port}/mcp?token={TOKEN}", args.keyed))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
        report = json.loads(probe.read_text())
    worst = [{"held_ms": w["held_ms"], "work_ms": w["work_ms"],
              "in": [f for f in w["stack"] if f.startswith("memory/")][-3:]} for w in report["worst"][:5]]
    print(json.dumps({
        "facts_archived": args.facts, "image_bytes": args.image_bytes, "free_bytes_after_build": free,
        "build_s": round(built, 1), "calls": out,
        "loop": {k: report[k] for k in ("longest_hold_ms", "p99_hold_ms", "longest_work_ms", "p99_work_ms",
                                        "holds_over_threshold", "work_over_threshold", "ticks")},
        "longest_holds": worst,
    }, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
