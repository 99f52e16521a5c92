"""The fast channel on a table of everyday lines (bench/fast_channel_lines.py): each line writes
exactly what the table says; the benchmark prints every part's figures and the table meets its targets."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from xzmem.pipelines.fast_channel import fast_channel

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from fast_channel_lines import LINES, NOW, write_key  # noqa: E402


def test_the_table_has_enough_lines_in_each_language():
    assert sum(1 for lang, *_ in LINES if lang == "zh") >= 60
    assert sum(1 for lang, *_ in LINES if lang == "en") >= 20
    assert {category for _, category, *_ in LINES} >= {
        "name", "age", "place", "like", "family", "job", "allergy", "decision", "reminder", "correction", "smalltalk"}


@pytest.mark.parametrize("lang, category, line, expected", LINES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(LINES)])
def test_line_writes_exactly_the_expected(lang, category, line, expected):
    _, writes = fast_channel(line, NOW)
    assert [write_key(op) for op in writes] == expected


def test_benchmark_reports_precision_and_recall_per_part_and_language():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "fast_channel.py")], capture_output=True, text=True,
                         check=True, timeout=120)
    report = json.loads(out.stdout)
    assert set(report["parts"]) == {"dev", "own", "test", "table"}
    for lang in ("zh", "en"):
        table = report["parts"]["table"][lang]
        assert table["precision"] >= 0.95 and table["recall"] >= 0.9, (lang, table)
        for part in ("dev", "own", "test"):
            figures = report["parts"][part]
            if "missing" not in figures:
                assert set(figures[lang]) >= {"lines", "expected", "written", "right", "precision", "recall"}


def test_benchmark_lists_misses_of_the_parts_tuned_on_and_never_the_test_lines():
    bench = ROOT / "bench"
    out = subprocess.run([sys.executable, str(bench / "fast_channel.py"), "--misses", "--parts", "dev,own,test"],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    report = json.loads(out)
    assert set(report["parts"]) == {"dev", "own", "test"} and set(report["misses"]) == {"dev", "own"}
    spec = importlib.util.spec_from_file_location("fast_channel_test", bench / "fast_channel_test.py")
    held_out = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(held_out)
    leaked = sum(json.dumps(line["text"], ensure_ascii=False)[1:-1] in out for line in held_out.LINES)
    assert leaked == 0  # a count, so that a failure prints no held-out line either
