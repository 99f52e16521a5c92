"""Outbound links through `xzmem gateway`, in one process, as one JSON object.

    python bench/gateway_links.py [--n 500]

A device dispatcher with one small tool dials an in-process gateway over each link kind (MCP
endpoint, xiaozhi protocol). A host client calls the tool through /devices/<id>/mcp one request
at a time: latency p50/p99 in ms per link kind. Then the gateway drops the device's TCP
connection and the time until the device is registered again is measured (real backoff: 1 s).
"""

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import quote

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "lib"), str(ROOT / "firmware" / "sim"), str(ROOT / "host")]

from memory import endpoint, mcp, xiaozhi  # noqa: E402
from xzmem.gateway.server import Gateway, device_token  # noqa: E402

TOKEN = "bench-token"


class Read(mcp.Tool):
    name = "read"
    description = "Returns a small fixed memory snapshot (benchmark stand-in for the memory tool)."

    def call(self, arguments, link):
        return {"profile": {"name": "小明", "birthday": "2015-06-01"}, "facts": ["likes dinosaurs", "has a cat"]}


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def wait_for_device(gw, device_id, previous=None):
    while gw.devices.get(device_id) in (None, previous):
        await asyncio.sleep(0.005)
    return gw.devices[device_id]


async def measure(gw, link, device_id, n, warmup):
    task = asyncio.create_task(link.run())
    try:
        session = await wait_for_device(gw, device_id)
        url = f"{gw.url}/devices/{device_id}/mcp?token={quote(TOKEN)}"
        times, errors = [], 0
        async with websockets.connect(url) as c:
            for i in range(warmup + n):
                start = time.perf_counter()
                await c.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "read", "arguments": {}}}))
                reply = json.loads(await c.recv())
                if i >= warmup:
                    times.append((time.perf_counter() - start) * 1000)
                    errors += "result" not in reply or reply["result"]["isError"]
        start = time.perf_counter()
        session.ws.transport.abort()
        await wait_for_device(gw, device_id, session)
        reconnect = time.perf_counter() - start
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
    return {"p50_ms": round(statistics.median(times), 3), "p99_ms": round(percentile(times, 99), 3),
            "max_ms": round(max(times), 3), "errors": errors, "reconnect_s": round(reconnect, 3)}


async def main(n, warmup):
    d = mcp.Dispatcher()
    d.add(Read())
    quiet = {"log": lambda msg: None}
    async with Gateway(TOKEN, port=0) as gw:
        ep = endpoint.EndpointLink(gw.device_endpoint_url("bench-ep"), d, None, "bench-ep", trusted=True, **quiet)
        xz = xiaozhi.XiaozhiLink(f"{gw.url}/xiaozhi/v1/", device_token(TOKEN, "bench-xz"), "bench-xz", "00000000-0000-4000-8000-000000000000", d, trusted=True, **quiet)
        return {
            "n": n,
            "python": platform.python_version(),
            "endpoint": await measure(gw, ep, "bench-ep", n, warmup),
            "xiaozhi": await measure(gw, xz, "bench-xz", n, warmup),
        }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.n, args.warmup))))
