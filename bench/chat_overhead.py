"""Per-turn host overhead of `xzmem chat` with the LLM off (the LLM's own time is not the host's).

`host_ms`: the rule reply, the pipelines on the exchange (fast channel, sieve, change detection,
working memory, extraction log) and the durable outbox enqueue; no network. `with_drain_ms`: a
whole `Chat.turn`, which also drains the outbox to a real `xzmem sim` on 127.0.0.1 (WebSocket
round trip, the device applying and flushing the batch). Target: host under 20 ms per turn.
Prints one JSON object.
"""

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "host"))

from simdevice import SimDevice  # noqa: E402
from xzmem.chat.loop import Chat, acknowledge  # noqa: E402
from xzmem.config import Config  # noqa: E402
from xzmem.db import open_db  # noqa: E402
from xzmem.device.client import DeviceClient  # noqa: E402
from xzmem.device.outbox import Outbox  # noqa: E402
from xzmem.llm import LLMClient  # noqa: E402
from xzmem.pipelines.fast_channel import fast_channel  # noqa: E402
from xzmem.pipelines.runner import Pipelines  # noqa: E402

MESSAGES = [
    "我叫王浩宇{i}。", "我喜欢打篮球{i}，还喜欢画画。", "我妈妈叫李娟{i}。", "明天下午3点提醒我去开会{i}。",
    "今天好累啊，作业写了一晚上。", "我不喜欢下雨天{i}。", "我住在杭州{i}。", "别忘了周五交报告{i}。",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def figures(values: list[float]) -> dict:
    return {"p50": percentile(values, 0.5), "p99": percentile(values, 0.99), "max": round(max(values), 2)}


async def host_only(tmp: Path, turns: int) -> list[float]:
    cfg = Config()
    cfg.host.data_dir = str(tmp / "host-only")
    pipelines = Pipelines(cfg, open_db(cfg.data_path), LLMClient(cfg.llm))
    times = []
    with Outbox(cfg.data_path / "outbox.sqlite3") as outbox:
        for i in range(turns):
            user = MESSAGES[i % len(MESSAGES)].format(i=i)
            start = time.perf_counter()
            now = time.time()
            _, writes = fast_channel(user, datetime.fromtimestamp(now))
            reply = acknowledge(writes) if writes else "嗯，我在听。"
            outcome = await pipelines.exchange(user, reply, now)
            for batch in outcome.batches:
                outbox.enqueue("bench-device", batch.ops)
            times.append((time.perf_counter() - start) * 1000)
    return times


async def with_drain(tmp: Path, url: str, turns: int) -> tuple[list[float], int]:
    cfg = Config()
    cfg.host.data_dir = str(tmp / "with-drain")
    times = []
    with Outbox(cfg.data_path / "outbox.sqlite3") as outbox:
        chat = Chat(cfg, Pipelines(cfg, open_db(cfg.data_path), LLMClient(cfg.llm)), outbox, lambda _: None)
        async with DeviceClient(url) as client:
            await chat.start(client)
            for i in range(turns):
                user = MESSAGES[i % len(MESSAGES)].format(i=i)
                start = time.perf_counter()
                await chat.turn(user)
                times.append((time.perf_counter() - start) * 1000)
            pending = len(outbox.pending(chat.device_id))
    return times, pending


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        host = anyio.run(host_only, tmp, args.turns)
        with SimDevice(tmp / "device") as device:
            drained, pending = anyio.run(with_drain, tmp, device.url, args.turns)
    print(json.dumps({
        "turns": args.turns,
        "host_ms": figures(host),
        "with_drain_ms": figures(drained),
        "left_in_outbox": pending,
        "target_ms": 20,
        "host_p99_under_target": percentile(host, 0.99) < 20,
    }))


if __name__ == "__main__":
    main()
