"""The LoCoMo bench on a tiny synthetic conversation: it runs and its recall arithmetic is right."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import locomo_retrieval  # noqa: E402

TINY = [{
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey kitten called Pixel last week."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely! I am training for the Berlin marathon."},
        ],
        "session_2_date_time": "9:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ann", "dia_id": "D2:1", "text": "Pixel knocked my violin off the shelf.",
             "blip_caption": "a cat next to a violin"},
            {"speaker": "Bo", "dia_id": "D2:2", "text": "The marathon went well, I finished in four hours."},
        ],
    },
    "qa": [
        {"question": "What is the name of Ann's kitten?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {"question": "Which marathon did Bo train for?", "answer": "Berlin", "evidence": ["D1: 2"], "category": 4},
        {"question": "What did the cat break?", "answer": "violin", "evidence": ["D2:1; D9:9"], "category": 1},
        {"question": "Unanswerable", "answer": "", "evidence": ["D"], "category": 5},
    ],
}]


def test_evidence_ids_are_normalised():
    assert locomo_retrieval.normalise_evidence(["D8:6; D9:17", "D:11:26", "D 3 : 4", "D"]) == {"D8:6", "D9:17", "D11:26", "D3:4"}


def test_tiny_dataset(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps(TINY))
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "locomo_retrieval.py"), "--data", str(data),
                          "--decay-factor", "1.0"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["turns"] == 4 and result["questions"] == 3 and result["questions_skipped_no_evidence"] == 1
    assert result["retriever"]["recall@1"] == 1.0 and result["retriever"]["recall@5"] == 1.0
    assert set(result["bm25"]) >= {"recall@1", "recall@5", "recall@10"}
    assert result["retriever_default_decay"]["decay_factor"] == 0.95
    assert result["prompt_tokens"]["existing_memories"] == 50
    assert result["prompt_tokens"]["max_total"] <= 1500
    assert result["retrieval_ms"]["p50"] >= 0


def test_missing_data_is_one_clear_line(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "locomo_retrieval.py"), "--data", str(tmp_path / "x.json")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "LoCoMo data not found" in out.stderr
