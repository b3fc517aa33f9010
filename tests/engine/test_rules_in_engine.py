"""Rules the page used to compute in JavaScript, now answered through ``handle()``:
the main view in tokens (the planning panels' starting figures), which vocabulary a
request needs, and when the page's sweep leaves recall out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pyapp.errors import VocabularyMissing
from pyapp.facts import MAX_SWEEP_RECALL_WORK
from pyapp.planning.sweep import RECALL_LEFT_OUT
from pyapp.web.api import handle

ROOT = Path(__file__).resolve().parents[2]


def answer(request: dict[str, Any]) -> dict[str, Any]:
    return json.loads(handle(json.dumps(request)))


# ---------------------------------------------------------------------- in tokens
def test_the_view_in_tokens_rounds_the_exact_product_half_up() -> None:
    """25 words at 0.58 tokens each is 14.5 tokens: 15. A float product (the page's old
    rule) is 14.499999999999998, which rounded to 14."""
    assert 25 * 0.58 < 14.5
    result = answer(
        {"op": "chunk", "text": "w " * 30, "unit": "word", "size": "25", "overlap": "1",
         "tokens_per_unit": "0.58"}
    )["result"]  # fmt: skip
    assert result["in_tokens"] == {"tokens": 17, "size": 15, "overlap": 1, "exact": False}


def test_the_view_in_tokens_keeps_at_least_one_token_and_the_overlap_below_the_size() -> None:
    result = answer(
        {"op": "chunk", "text": "abc", "unit": "char", "size": "2", "overlap": "1",
         "tokens_per_unit": "0.1"}
    )["result"]  # fmt: skip
    assert result["in_tokens"] == {"tokens": 1, "size": 1, "overlap": 0, "exact": False}


def test_the_view_in_tokens_is_exact_in_token_mode() -> None:
    result = answer({"op": "chunk", "text": "one two three four", "unit": "token", "size": "3",
                     "overlap": "1"})["result"]  # fmt: skip
    assert result["in_tokens"] == {
        "tokens": result["summary"]["units"], "size": 3, "overlap": 1, "exact": True,
    }  # fmt: skip


# ---------------------------------------------------------------------- vocabularies
def test_a_missing_vocabulary_is_named_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from pyapp.core import tokenizers

    monkeypatch.setattr(tokenizers, "DATA_DIR", "_no_such_folder")
    with pytest.raises(VocabularyMissing) as raised:
        tokenizers.read_vocabulary("qwen2")
    assert raised.value.vocabulary == "qwen2" and raised.value.field == "encoding"


ABSENT = """
import json, sys
from pyapp.core import tokenizers
tokenizers.DATA_DIR = "_no_such_folder"  # as in the page before a vocabulary's wheel
from pyapp.web.api import handle
for request in json.loads(sys.argv[1]):
    print(handle(json.dumps(request)))
"""


def test_the_door_names_the_vocabulary_each_request_lacks_by_what_it_reads() -> None:
    """The worker installs what ``error.vocabulary`` names and asks again: a model
    preset's encoding, the lens model's, and each compared side's, each named by the
    engine (the page no longer works out which encodings a request needs)."""
    text = "one two three"
    settings = {"unit": "token", "encoding": "llama3", "size": "4", "overlap": "0"}
    requests = [
        {"op": "chunk", "text": text, "unit": "token", "encoding": "qwen2", "size": "4"},
        {"op": "chunk", "text": text, "unit": "token", "model": "gte-small", "size": "4"},
        {"op": "chunk", "text": text, "unit": "word", "encoding": "qwen2", "size": "4"},
        {"op": "compare", "text": text, "a": {"settings": {**settings, "encoding": "o200k_base"}},
         "b": {"settings": settings}},
        {"op": "warm", "encoding": "tekken"},
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", ABSENT, json.dumps(requests)],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    lacked = [a["error"].get("vocabulary") if not a["ok"] else None for a in answers]
    assert lacked == ["qwen2", "bert-base-uncased", None, "llama3", "tekken"]
    assert all(a["error"]["field"] == "encoding" for a in answers if not a["ok"])


# ---------------------------------------------------------------------- the sweep's recall
def sweep(text: str, questions: int) -> dict[str, Any]:
    evidence = [
        {
            "id": i,
            "start": 4 * i,
            "end": 4 * i + 3,
            **({"question": "one?"} if i < questions else {}),
        }  # noqa: E501
        for i in range(max(questions, 1))
    ]
    request = {"op": "sweep", "text": text, "unit": "word", "size": "8", "evidence": evidence}
    return answer(request)["result"]


def test_the_page_sweep_leaves_recall_out_past_its_work_limit_and_says_so() -> None:
    # 10 questions: (10 + 10) x code points; just under the limit, then just over it.
    under = "one " * (MAX_SWEEP_RECALL_WORK // 20 // 4)
    over = under + "one "
    assert len(under) * 20 <= MAX_SWEEP_RECALL_WORK < len(over) * 20
    kept, left = sweep(under, 10), sweep(over, 10)
    assert kept["evidence"]["questions"] == 10 and "note" not in kept["evidence"]
    assert all(row["recall_at_k"] is not None for row in kept["rows"])
    assert left["evidence"] == {**left["evidence"], "questions": 0, "note": RECALL_LEFT_OUT}
    assert all(row["recall_at_k"] is None for row in left["rows"])
    whole = [r["evidence_whole"] for r in kept["rows"]]
    assert [r["evidence_whole"] for r in left["rows"]] == whole


def test_the_command_lines_sweep_keeps_recall_at_any_length() -> None:
    from pyapp.planning.sweep import sweep_text

    text = "one " * (MAX_SWEEP_RECALL_WORK // 20 // 4 + 1)
    items = [{"id": i, "start": 4 * i, "end": 4 * i + 3, "question": "one?"} for i in range(10)]
    result = sweep_text(text, unit="word", size=8, evidence=items).to_json()
    assert result["evidence"]["questions"] == 10 and "note" not in result["evidence"]
