"""Precision and recall of the fast channel (no LLM), per language, as JSON.

Three parts are scored:
- `dev`   bench/fast_channel_dev.py, lines people say to a toy (children and parents, ASR text without
          punctuation), written apart from the patterns; the channel was tuned on it;
- `test`  bench/fast_channel_test.py, written the same way and never tuned on: its figures are the
          headline, and the bench never prints its lines;
- `own`   bench/fast_channel_own.py, more lines of the same kind written by the channel's engineer
          before the code changes they led to; tuned on;
- `table` bench/fast_channel_lines.py, the older table of everyday lines written alongside the patterns.

Scoring (the evaluation format shared with the data's writer): per language, precision = right writes
/ all writes, recall = right writes / expected writes; a write matches at most one expected item.
Expected values may list alternatives joined by "|"; a fact or a schedule's content matches when it
holds every keyword; a third-party fact may also be met by a family write whose text holds every
keyword. The table's lines expect exact writes.

    .venv/bin/python bench/fast_channel.py            # figures of every part
    .venv/bin/python bench/fast_channel.py --misses   # and the dev, own and table lines that went wrong
    .venv/bin/python bench/fast_channel.py --parts dev,own --misses   # only these parts

A miss whose line holds a test line's words is counted (`misses_withheld`), never printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parents[0] / "host"))

from xzmem.pipelines.fast_channel import fast_channel  # noqa: E402

NOW = datetime(2026, 11, 22, 10, 0)  # a Sunday morning, as the evaluation format says
PARTS = {"dev": "fast_channel_dev.py", "own": "fast_channel_own.py", "test": "fast_channel_test.py"}


def _load(name: str):
    path = BENCH / name
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _alternatives(value: str) -> set[str]:
    return {v.strip().lower() for v in value.split("|")}


def _same(value: str, expected: str) -> bool:
    return value.strip().lower() in _alternatives(expected)


def _holds(text: str, keywords: list[str]) -> bool:
    return all(k.lower() in text.lower() for k in keywords)


def matches(op: dict, expected: list) -> bool:
    """Whether one write meets one expected item of the evaluation format."""
    kind = expected[0]
    if kind == "family":
        return (op["type"] == "family" and _same(op.get("relation", ""), expected[1])
                and _same(op.get("name", ""), expected[2]))
    if kind == "fact":
        if op["type"] == "fact":
            return _holds(op["content"], expected[1])
        return op["type"] == "family" and _holds(op["content"], expected[1])
    if kind == "schedule":
        return (op["type"] == "schedule" and _holds(op["content"], expected[1])
                and op.get("datetime") == expected[2] and op.get("repeat", "none") == expected[3])
    return op["type"] == kind and _same(op["content"], expected[1])


def right_writes(writes: list[dict], expected: list[list]) -> int:
    """The most writes that can each be paired with a different expected item (augmenting paths)."""
    paired: dict[int, int] = {}  # expected index -> write index

    def pair(w: int, seen: set[int]) -> bool:
        for e, item in enumerate(expected):
            if e not in seen and matches(writes[w], item):
                seen.add(e)
                if e not in paired or pair(paired[e], seen):
                    paired[e] = w
                    return True
        return False

    return sum(pair(w, set()) for w in range(len(writes)))


def _figures(tally: Counter) -> dict:
    written, expected, right = tally["written"], tally["expected"], tally["right"]
    return {
        "lines": tally["lines"], "expected": expected, "written": written, "right": right,
        "false_writes": written - right,
        "precision": round(right / written, 3) if written else 1.0,
        "recall": round(right / expected, 3) if expected else 1.0,
    }


def score_part(lines: list[dict], misses: list | None = None) -> dict:
    """Per-language figures of a part in the evaluation format; with `misses`, lines that went wrong."""
    per_language: dict[str, Counter] = {}
    for line in lines:
        _, writes = fast_channel(line["text"], NOW)
        right = right_writes(writes, line["expect"])
        per_language.setdefault(line["lang"], Counter()).update(
            lines=1, expected=len(line["expect"]), written=len(writes), right=right)
        if misses is not None and (right < len(writes) or right < len(line["expect"])):
            misses.append({"kind": line["kind"], "text": line["text"], "expected": line["expect"],
                           "written": [_short(op) for op in writes]})
    return {lang: _figures(t) for lang, t in sorted(per_language.items())}


def _short(op: dict) -> list:
    if op["type"] == "family":
        return ["family", op["relation"], op["name"]]
    if op["type"] == "schedule":
        return ["schedule", op["content"], op["datetime"], op["repeat"]]
    return [op["type"], op["content"]]


def score_table(misses: list | None = None) -> dict:
    """The older table: each line's writes must equal its expected writes exactly."""
    table = _load("fast_channel_lines.py")
    per_language: dict[str, Counter] = {}
    for lang, _category, line, expected in table.LINES:
        _, writes = fast_channel(line, table.NOW)
        got = [table.write_key(op) for op in writes]
        left, right = list(expected), 0
        for key in got:
            if key in left:
                left.remove(key)
                right += 1
        per_language.setdefault(lang, Counter()).update(lines=1, expected=len(expected), written=len(got), right=right)
        if misses is not None and got != expected:
            misses.append({"text": line, "expected": [list(k) for k in expected], "written": [list(k) for k in got]})
    return {lang: _figures(t) for lang, t in sorted(per_language.items())}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="also list the dev, own and table lines that went wrong")
    parser.add_argument("--parts", default=",".join([*PARTS, "table"]),
                        help="comma-separated parts to score (default: all of dev, own, test, table)")
    args = parser.parse_args(argv)
    wanted = set(args.parts.split(","))
    report: dict = {"bench": "fast_channel", "now": NOW.isoformat(sep=" ", timespec="minutes"), "parts": {}}
    missed: dict[str, list] = {}
    for part, file in PARTS.items():
        if part not in wanted:
            continue
        module = _load(file)
        if module is None:
            report["parts"][part] = {"missing": f"bench/{file}"}
            continue
        # The test part's lines are never listed: only its figures leave this function.
        misses = missed.setdefault(part, []) if args.misses and part != "test" else None
        report["parts"][part] = score_part(module.LINES, misses)
    if "table" in wanted:
        report["parts"]["table"] = score_table(missed.setdefault("table", []) if args.misses else None)
    if args.misses:
        # a tuned-on line may read like a held-out one, or hold it ("you're my best friend"): such a miss
        # is counted, never printed, so that no held-out line leaves this script
        test = _load(PARTS["test"])
        held_out = [json.dumps(line["text"], ensure_ascii=False)[1:-1] for line in test.LINES] if test is not None else []
        withheld = 0
        for part, misses in missed.items():
            kept = [m for m in misses if not any(t in json.dumps(m, ensure_ascii=False) for t in held_out)]
            withheld += len(misses) - len(kept)
            missed[part] = kept
        report["misses"] = missed
        report["misses_withheld"] = withheld
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return report


if __name__ == "__main__":
    main()
