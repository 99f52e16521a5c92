"""tools/call round trips over a loopback WebSocket: latency p50/p99 in milliseconds, as one JSON object.

    python bench/link_roundtrip.py                         # our server in-process, a trivial tool
    python bench/link_roundtrip.py --url ws://127.0.0.1:8765/mcp --token T --tool memory \
        --arguments '{"action": "read"}'                   # a running device or `xzmem sim`

Without --url the device server (memory.server + memory.mcp) runs on its own event loop in a
thread of this process; the client is the `websockets` library, one request at a time.
"""

import argparse
import asyncio
import json
import math
import platform
import secrets
import statistics
import sys
import threading
import time
from pathlib import Path

from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "lib"), str(ROOT / "firmware" / "sim")]

from memory import mcp, server  # noqa: E402


class Read(mcp.Tool):
    name = "read"
    description = "Returns a small fixed memory snapshot (benchmark stand-in for the memory tool)."
    input_schema = {"type": "object", "properties": {"type": {"type": "string"}}}

    def call(self, arguments, link):
        return {"profile": {"name": "小明", "birthday": "2015-06-01"}, "facts": ["likes dinosaurs", "has a cat"]}


def start_local_server():
    """Our server on 127.0.0.1 with a free port, in a daemon thread; returns (url, token)."""
    token = secrets.token_urlsafe(16)
    d = mcp.Dispatcher()
    d.add(Read())
    s = server.Server(d, token, host="127.0.0.1", port=0, log=lambda msg: None)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(s.start())
        ready.set()
        loop.run_forever()

    threading.Thread(target=run, daemon=True).start()
    ready.wait(10)
    return s.url, token


def percentile(sorted_values, p):
    return sorted_values[max(0, math.ceil(p * len(sorted_values)) - 1)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="round trips to time")
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--url", help="ws://HOST:PORT/mcp of a running server (default: start one here)")
    ap.add_argument("--token", default="")
    ap.add_argument("--tool", default="read")
    ap.add_argument("--arguments", default="{}", help="JSON object of tool arguments")
    args = ap.parse_args(argv)

    url, token = (args.url, args.token) if args.url else start_local_server()
    arguments = json.loads(args.arguments)
    times = []
    errors = 0
    with connect(url, subprotocols=["mcp"], additional_headers={"Authorization": "Bearer " + token}, compression=None) as c:
        c.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}))
        c.recv()
        c.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for i in range(1, args.warmup + args.n + 1):
            msg = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": args.tool, "arguments": arguments}})
            t0 = time.perf_counter()
            c.send(msg)
            reply = json.loads(c.recv())
            elapsed = time.perf_counter() - t0
            if reply.get("id") != i or "error" in reply or reply["result"].get("isError"):
                errors += 1
            if i > args.warmup:
                times.append(elapsed * 1000)
    times.sort()
    print(
        json.dumps(
            {
                "bench": "link_roundtrip",
                "server": args.url or "in-process (memory.server in a thread)",
                "tool": args.tool,
                "n": len(times),
                "errors": errors,
                "p50_ms": round(percentile(times, 0.50), 3),
                "p99_ms": round(percentile(times, 0.99), 3),
                "mean_ms": round(statistics.fmean(times), 3),
                "max_ms": round(times[-1], 3),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
