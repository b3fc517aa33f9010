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


def unchanged(key: str, answer: str) -> str:
    """The answer as the code before the change wrote it."""
    return answer


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_the_fixed_window_answers_exactly_as_before(key: str) -> None:
    golden = GOLDEN[key]
    assert unchanged(key, handle(json.dumps(golden["request"]))) == golden["answer"]
