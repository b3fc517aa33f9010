"""The fixed window's every answer, byte for byte as it was before chunkings became
interval lists: the export, the page's view, checks, cards, text view, evidence and
sweep, on twelve settings over every unit and encoding (``golden/fixed/``, written by
``golden/fixed/capture.py`` from the code before the change)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pyapp.web.api import handle

ANSWERS = Path(__file__).parent / "golden" / "fixed" / "main_answers.json"
GOLDEN: dict[str, dict[str, Any]] = json.loads(ANSWERS.read_text("utf-8"))


def _as_evidence_1(doc: dict[str, Any]) -> dict[str, Any]:
    """A ``pyapp.evidence/2`` document of the BM25 check as ``pyapp.evidence/1`` wrote
    it: the dense retriever's fields and the range metrics left out, nothing else."""
    doc["schema"] = "pyapp.evidence/1"
    assert doc.pop("retriever") == "bm25" and doc.pop("dense_retrieval") is None
    doc["retrieval"].pop("range_metrics")
    for item in doc["evidence"]:
        assert item.pop("dense_retrieval") is None
    return doc


def unchanged(key: str, answer: str) -> str:
    """The answer as the code before the change wrote it (the evidence document has
    gained the dense check and the range metrics since: ``pyapp.evidence/2``)."""
    if ":evidence:" not in key:
        return answer
    body = json.loads(answer)
    result = body["result"]
    if "json" in result:
        old = _as_evidence_1(json.loads(result["json"]))
        result["json"] = json.dumps(old, ensure_ascii=False, indent=2) + "\n"
    else:
        _as_evidence_1(result)
    return json.dumps(body, ensure_ascii=False)


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_the_fixed_window_answers_exactly_as_before(key: str) -> None:
    golden = GOLDEN[key]
    assert unchanged(key, handle(json.dumps(golden["request"]))) == golden["answer"]
