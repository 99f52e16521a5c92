"""`query_memory` of the xiaozhi-esp32-server provider against a real `xzmem sim` on 127.0.0.1.

One conversation is saved first (LLM off: the fast channel writes a name, likes, family members,
facts and a schedule), then `query_memory` is called `--calls` times with rotating questions, as
the server calls it before each LLM turn: each call opens a WebSocket MCP session, reads the
overview, recalls from the host's SQLite state and builds the text. Then the device is stopped and
the same is measured from the host-side cache. Prints one JSON object: latency p50/p99/max in ms
and the answer's size in tokens (the project's estimate) against the 600-token budget.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "host"))

from simdevice import TOKEN, SimDevice  # noqa: E402
from xzmem.config import Config  # noqa: E402
from xzmem.integrations.xiaozhi_server import XiaozhiMemory  # noqa: E402
from xzmem.pipelines.tokens import estimate_tokens  # noqa: E402

ROLE = "aa:bb:cc:dd:ee:01"
CONVERSATION = [
    "我叫李雷，我喜欢踢足球", "我妈妈叫韩梅梅", "我爸爸叫李明", "我还喜欢画画和游泳", "我不喜欢吃香菜",
    "我今年9岁", "我住在杭州", "明天下午3点提醒我去上钢琴课", "我最好的朋友是小明", "我养了一只小猫叫咪咪",
]
QUESTIONS = ["我喜欢什么？", "我妈妈叫什么？", "明天有什么安排？", "你还记得我的猫吗？", "我住在哪里？"]


def figures(values: list[float]) -> dict:
    ordered = sorted(values)

    def pick(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": pick(0.5), "p99": pick(0.99), "max": round(ordered[-1], 2)}


async def run_queries(memory: XiaozhiMemory, calls: int) -> tuple[list[float], list[int], str]:
    times, tokens, answer = [], [], ""
    for i in range(calls):
        start = time.perf_counter()
        answer = await memory.query(ROLE, QUESTIONS[i % len(QUESTIONS)])
        times.append((time.perf_counter() - start) * 1000)
        tokens.append(estimate_tokens(answer))
    return times, tokens, answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = Config()
        base.host.data_dir = str(tmp / "host")
        with SimDevice(tmp / "device") as device:
            memory = XiaozhiMemory({"type": "xzmem", "device": device.url.split("?")[0], "token": TOKEN}, base)
            memory.warming.join()  # the server builds the provider at start-up, long before a query
            msgs = []
            for text in CONVERSATION:
                msgs += [SimpleNamespace(role="user", content=text), SimpleNamespace(role="assistant", content="好的！")]
            saved = anyio.run(memory.save, ROLE, msgs)
            online, tokens, answer = anyio.run(run_queries, memory, args.calls)
        cached, cached_tokens, cached_answer = anyio.run(run_queries, memory, max(1, args.calls // 4))
    print(json.dumps({
        "calls": args.calls,
        "saved": {"exchanges": saved.exchanges, "batches_sent": saved.sent, "pending": saved.pending},
        "query_ms": figures(online),
        "tokens": {"max": max(tokens), "last": tokens[-1], "budget": memory.settings.budget_tokens},
        "device_away_query_ms": figures(cached),
        "device_away_tokens_max": max(cached_tokens),
        "answers_from_cache": "暂时连不上" in cached_answer,
        "sample_answer": answer,
    }, ensure_ascii=False))


if __name__ == "__main__":
    main()
