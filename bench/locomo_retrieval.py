"""LoCoMo retrieval bench: every dialogue turn stored as a working memory with its session time; every
question asked; recall@1/5/10 of the evidence turns for the working-memory retriever and BM25.

Prints one JSON object. The data stays in ../shared/bench (licence CC BY-NC 4.0): never copied.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

from rank_bm25 import BM25Okapi
from xzmem.config import ChangesConfig
from xzmem.pipelines.changes import render_prompt, select_relevant
from xzmem.pipelines.profile import format_profile
from xzmem.pipelines.sieve import build_extraction_prompt
from xzmem.pipelines.state import KeyedMemory
from xzmem.pipelines.terms import terms
from xzmem.pipelines.tokens import estimate_tokens
from xzmem.pipelines.working import WorkingMemory

DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo10.json"
KS = (1, 5, 10)
_EVIDENCE = re.compile(r"D\s*(\d+)\s*:\s*(\d+)")


def normalise_evidence(raw: list[str]) -> set[str]:
    """`D<session>:<turn>` ids, repairing lists packed in one string, spaces and stray colons."""
    found = set()
    for entry in raw:
        for m in _EVIDENCE.finditer(entry.replace("D:", "D")):
            found.add(f"D{int(m.group(1))}:{int(m.group(2))}")
    return found


def session_time(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").timestamp()


def load_turns(sample: dict) -> list[tuple[str, str, float]]:
    """(dia_id, text, unix time of its session) for every turn of one conversation."""
    conv = sample["conversation"]
    turns = []
    n = 1
    while f"session_{n}" in conv:
        when = session_time(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            text = "{}: {}".format(turn["speaker"], turn["text"])
            if turn.get("blip_caption"):
                text += " [shared a photo of {}]".format(turn["blip_caption"])
            turns.append((turn["dia_id"].strip(), text, when))
        n += 1
    return turns


def hits(ranked: list[str], evidence: set[str]) -> dict[int, tuple[bool, float]]:
    return {k: (bool(evidence & set(ranked[:k])), len(evidence & set(ranked[:k])) / len(evidence)) for k in KS}


def summarise(rows: list[dict[int, tuple[bool, float]]]) -> dict:
    out = {}
    for k in KS:
        out[f"recall@{k}"] = round(sum(r[k][0] for r in rows) / len(rows), 4)
    for k in KS:
        out[f"evidence_recall@{k}"] = round(sum(r[k][1] for r in rows) / len(rows), 4)
    return out


def run(data_path: Path, decay_factor: float, limit_samples: int | None) -> dict:
    samples = json.loads(data_path.read_text(encoding="utf-8"))[:limit_samples]
    store = WorkingMemory(max_capacity=10**7, max_tokens=10**12, max_age_minutes=None, decay_factor=decay_factor)
    per_sample = {}
    for sample in samples:
        turns = load_turns(sample)
        for dia_id, text, when in turns:
            store.add(text, 0.5, timestamp=when, user_id=sample["sample_id"], metadata={"dia_id": dia_id})
        per_sample[sample["sample_id"]] = turns
    build_started = time.perf_counter()
    for sample in samples:
        store.retrieve("warm up the index", limit=1, user_id=sample["sample_id"], now=0)
    index_seconds = time.perf_counter() - build_started

    ours, bm25_rows, timings, by_category = [], [], [], {}
    skipped = 0
    for sample in samples:
        sid = sample["sample_id"]
        turns = per_sample[sid]
        ids = [t[0] for t in turns]
        now = max(t[2] for t in turns) + 3600
        bm25 = BM25Okapi([terms(t[1]) or ["_"] for t in turns])
        for qa in sample["qa"]:
            evidence = normalise_evidence(qa["evidence"]) & set(ids)
            if not evidence:
                skipped += 1
                continue
            started = time.perf_counter()
            found = store.retrieve(qa["question"], limit=max(KS), user_id=sid, now=now)
            timings.append((time.perf_counter() - started) * 1000)
            row = hits([item.metadata["dia_id"] for item, _ in found], evidence)
            ours.append(row)
            scores = bm25.get_scores(terms(qa["question"]) or ["_"])
            order = sorted(range(len(ids)), key=lambda i: -scores[i])[: max(KS)]
            bm25_rows.append(hits([ids[i] for i in order], evidence))
            by_category.setdefault(qa["category"], ([], []))
            by_category[qa["category"]][0].append(row)
            by_category[qa["category"]][1].append(bm25_rows[-1])
    timings.sort()
    return {
        "retriever": summarise(ours),
        "bm25": summarise(bm25_rows),
        "by_category": {
            str(c): {"questions": len(r[0]), "retriever_recall@5": summarise(r[0])["recall@5"], "bm25_recall@5": summarise(r[1])["recall@5"]}
            for c, r in sorted(by_category.items())
        },
        "questions": len(ours),
        "questions_skipped_no_evidence": skipped,
        "turns": len(store),
        "decay_factor": decay_factor,
        "retrieval_ms": {
            "p50": round(statistics.median(timings), 3),
            "p99": round(timings[min(len(timings) - 1, int(len(timings) * 0.99))], 3),
            "store_size": len(store),
        },
        "index_build_seconds": round(index_seconds, 2),
        "recall_definition": "recall@k: share of questions with at least one evidence turn in the top k; "
        "evidence_recall@k: share of evidence turns in the top k, averaged over questions",
    }


# Prompt budget inputs: 50 keyed memories of a companion's user, a synthesized profile, and
# exchanges of the length a voice companion sees (written for this bench).
_TOPICS = [
    ("identity", "用户叫林小雨，在杭州一家医院做护士"), ("preference", "用户喜欢喝乌龙茶，晚上不喝咖啡"),
    ("relationship", "用户的女儿叫朵朵，今年六岁，在上幼儿园大班"), ("skill", "用户会弹尤克里里，正在学指弹"),
    ("project_state", "用户在准备主管护师考试，考试在明年四月"), ("decision", "用户决定周末带朵朵去西湖边骑车"),
    ("fact", "用户家的猫叫年糕，是一只三岁的橘猫"), ("todo", "用户要在月底前续办医院的停车证"),
    ("insight", "用户觉得夜班之后最需要的是安静地睡一觉"), ("preference", "用户不喜欢香菜，吃火锅只点清汤锅"),
]
EXCHANGES = [
    ("今天夜班好累，下班路上想起来朵朵下周三要交手工作业，是做一个纸盒子小房子，我还没准备材料。",
     "夜班辛苦了！手工作业可以用快递纸盒、彩纸和胶棒来做，今晚先睡够，明天下午陪朵朵一起剪门窗，大概一个小时就能完成。"),
    ("我想给年糕换一种猫粮，它最近有点软便，之前吃的是鸡肉味的。",
     "软便可能和换粮太快或者肠胃敏感有关。建议选择单一蛋白的猫粮，比如鱼肉配方，用七天时间新旧粮按比例逐步替换，如果持续三天以上软便最好带它去看兽医。"),
    ("主管护师考试的内科护理那部分我总是记不住，有什么好办法吗？",
     "可以按系统整理：呼吸、循环、消化、泌尿各做一张思维导图，把常见病的护理诊断和措施对照记；每天下班后刷二十道真题，错题写进本子，周末集中复习。"),
]
PROFILE_SAMPLE = {
    "summary": "林小雨是杭州的一名护士，女儿朵朵六岁，家里有一只橘猫年糕。她正在准备主管护师考试，作息受夜班影响。",
    "domains": ["护理工作与考试", "亲子教育", "养猫"],
    "high_value_signals": ["排班和考试进度", "女儿的学校安排", "猫的健康状况"],
    "low_value_signals": ["天气闲聊", "一次性的简单查询"],
    "language_preferences": "中文口语，喜欢简短直接的回答",
    "active_projects": ["主管护师考试备考"],
}


def prompt_budget(now: float) -> dict:
    """Estimated prompt tokens of the sieve's extraction prompt plus the change-detection prompt."""
    memories = []
    for i in range(50):
        category, payload = _TOPICS[i % len(_TOPICS)]
        suffix = "" if i < len(_TOPICS) else f"（第{i // len(_TOPICS) + 1}次提到）"
        memories.append(KeyedMemory(f"mem_{i:03d}", category, payload + suffix, 6, "user", [category], 2,
                                    int(now) - 86400 * 10, int(now) - 86400 * 10, int(now) - 86400))
    cfg = ChangesConfig()
    rows = []
    for user, assistant in EXCHANGES:
        s_system, s_user = build_extraction_prompt(user, assistant, format_profile(PROFILE_SAMPLE))
        shown = select_relevant(memories, user + "\n" + assistant, cfg.relevant_limit)
        c_system, c_user = render_prompt(user, assistant, shown, now)
        sieve_tokens = estimate_tokens(s_system) + estimate_tokens(s_user)
        change_tokens = estimate_tokens(c_system) + estimate_tokens(c_user)
        rows.append({"sieve": sieve_tokens, "changes": change_tokens, "total": sieve_tokens + change_tokens,
                     "memories_shown": len(shown)})
    return {
        "existing_memories": len(memories),
        "per_exchange": rows,
        "max_total": max(r["total"] for r in rows),
        "target": 1500,
        "estimate": "CJK characters count 1 token, other characters 1 per 4 (xzmem.pipelines.tokens)",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="path to locomo10.json")
    parser.add_argument(
        "--decay-factor", type=float, default=1.0,
        help="decay_factor for the main figures (1.0: relevance only, since LoCoMo questions carry no time of asking); "
        "the default 0.95 is measured too, asked an hour after the last session",
    )
    parser.add_argument("--samples", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--no-prompt-budget", action="store_true", help="skip the prompt token measurement")
    args = parser.parse_args(argv)
    if not args.data.exists():
        sys.exit(f"LoCoMo data not found at {args.data} (use --data)")
    result = run(args.data, args.decay_factor, args.samples)
    if args.decay_factor != 0.95:
        default = run(args.data, 0.95, args.samples)
        result["retriever_default_decay"] = dict(default["retriever"], decay_factor=0.95)
    if not args.no_prompt_budget:
        result["prompt_tokens"] = prompt_budget(time.time())
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
