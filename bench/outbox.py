"""Outbox figures: durable enqueue latency (SQLite, fsync) and drain rate to an MCP server on 127.0.0.1.

The server is the test suite's stand-in device (the mcp SDK's own server over WebSocket), so the
drain figure measures the host side: outbox bookkeeping, JSON-RPC, the WebSocket round trip.
Prints one JSON object.
"""

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "host"))

from fake_device import DeviceState, FakeDevice  # noqa: E402
from xzmem.device.client import DeviceClient  # noqa: E402
from xzmem.device.outbox import Outbox  # noqa: E402


def batch(i, ops_per_batch):
    return [{"op": "write", "type": "fact", "content": f"fact {i}.{k}: 用户喜欢在周末去公园散步"} for k in range(ops_per_batch)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=500)
    parser.add_argument("--ops", type=int, default=8, help="ops per batch")
    args = parser.parse_args()

    device = FakeDevice(DeviceState()).start()
    try:
        with tempfile.TemporaryDirectory() as tmp, Outbox(Path(tmp) / "outbox.sqlite3") as outbox:
            latencies = []
            for i in range(args.batches):
                start = time.perf_counter()
                outbox.enqueue("fake-esp32-01", batch(i, args.ops))
                latencies.append((time.perf_counter() - start) * 1000)

            async def drain():
                async with DeviceClient(device.url, "secret") as client:
                    start = time.perf_counter()
                    report = await outbox.drain(client)
                    return report, time.perf_counter() - start

            report, seconds = anyio.run(drain)
            assert report.error is None and len(report.acked) == args.batches
            file_bytes = (Path(tmp) / "outbox.sqlite3").stat().st_size
    finally:
        device.stop()

    latencies.sort()
    print(json.dumps({
        "batches": args.batches,
        "ops_per_batch": args.ops,
        "enqueue_ms_p50": round(statistics.median(latencies), 3),
        "enqueue_ms_p95": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))], 3),
        "drain_batches_per_s": round(args.batches / seconds, 1),
        "drain_ms_per_batch": round(seconds * 1000 / args.batches, 3),
        "outbox_file_bytes": file_bytes,
    }))


if __name__ == "__main__":
    main()
