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
from xzmem.terms import terms
from xzmem.working import WorkingMemory

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
    store.retrieve("warm up the index", limit=1, now=0)
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="path to locomo10.json")
    parser.add_argument("--decay-factor", type=float, default=0.95, help="working-memory decay_factor (seed 002 formula)")
    parser.add_argument("--samples", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--no-prompt-budget", action="store_true", help="skip the prompt token measurement")
    args = parser.parse_args(argv)
    if not args.data.exists():
        sys.exit(f"LoCoMo data not found at {args.data} (use --data)")
    result = run(args.data, args.decay_factor, args.samples)
    print(json.dumps(result, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
