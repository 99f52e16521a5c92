"""Precision and recall of the fast channel (no LLM) on the table of everyday lines, per category and
language, as JSON.

A write counts as right when it equals one the table expects for that line (type and exact value);
precision = right writes / all writes, recall = right writes / expected writes. Small talk expects
nothing, so it only ever costs precision (its wrong writes are counted as false_writes).

    .venv/bin/python bench/fast_channel.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from fast_channel_lines import LINES, NOW, write_key  # noqa: E402
from xzmem.pipelines.fast_channel import fast_channel  # noqa: E402


def _score(tally: Counter) -> dict:
    written, expected, right = tally["written"], tally["expected"], tally["right"]
    return {
        "lines": tally["lines"],
        "expected": expected,
        "written": written,
        "right": right,
        "false_writes": written - right,
        "precision": round(right / written, 3) if written else 1.0,
        "recall": round(right / expected, 3) if expected else 1.0,
    }


def main() -> None:
    per_category: dict[str, dict[str, Counter]] = {}
    per_language: dict[str, Counter] = {}
    misses = []
    for lang, category, line, expected in LINES:
        _, writes = fast_channel(line, NOW)
        got = [write_key(op) for op in writes]
        left = list(expected)
        right = 0
        for key in got:
            if key in left:
                left.remove(key)
                right += 1
        for tally in (per_category.setdefault(lang, {}).setdefault(category, Counter()),
                      per_language.setdefault(lang, Counter())):
            tally.update(lines=1, expected=len(expected), written=len(got), right=right)
        if got != expected:
            misses.append({"line": line, "expected": [list(k) for k in expected], "written": [list(k) for k in got]})
    report = {
        "bench": "fast_channel",
        "lines": len(LINES),
        "languages": {lang: _score(t) for lang, t in per_language.items()},
        "categories": {lang: {c: _score(t) for c, t in cats.items()} for lang, cats in per_category.items()},
        "mismatched_lines": misses,
    }
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
