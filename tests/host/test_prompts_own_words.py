"""The prompts are written in our own words: no run of 8 Chinese characters is taken from a seed."""

import re
from pathlib import Path

import pytest

PROMPTS = sorted((Path(__file__).resolve().parents[2] / "host/xzmem/pipelines/prompts").glob("*.md"))
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
RUN = 8


def runs(text: str) -> set[str]:
    found = set()
    for segment in re.findall(r"[\u4e00-\u9fff]+", text):
        found.update(segment[i:i + RUN] for i in range(len(segment) - RUN + 1))
    return found


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seeds live in ../shared/seeds beside the checkout")
@pytest.mark.parametrize("prompt", PROMPTS, ids=lambda p: p.name)
def test_no_prompt_copies_a_seed_sentence(prompt):
    seeds = set().union(*(runs(s.read_text(encoding="utf-8")) for s in SEEDS.glob("0*.txt")))
    assert sorted(runs(prompt.read_text(encoding="utf-8")) & seeds) == []
