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


#: What the export gained with its fourth version; without them (and with the old
#: version string) a fixed-window export must be the third version's, byte for byte.
ADDED = ("splitter", "overlap", "chunk_boundaries")


def as_before(doc: dict[str, Any]) -> dict[str, Any]:
    """An export document without what its fourth version added."""
    assert doc["schema"] == "pyapp.chunks/4"
    assert doc["splitter"] == {"name": "fixed"}
    return {**{k: v for k, v in doc.items() if k not in ADDED}, "schema": "pyapp.chunks/3"}


def unchanged(key: str, answer: str) -> str:
    """The answer as the code before the change wrote it: the export's and the page's
    view's added fields taken out, every other byte as it is."""
    reply = json.loads(answer)
    result = reply["result"]
    op = reply["op"]
    if op == "export":
        doc = as_before(json.loads(result["json"]))
        result["json"] = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    elif op == "chunk":
        for name in ("splitter", "overlap", "chunk_boundaries"):
            result.pop(name)
    elif op == "segments":
        assert result.pop("short_boundaries") == {"at": [], "overlap": []}
    else:
        return answer
    return json.dumps(reply, ensure_ascii=False)


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_the_fixed_window_answers_exactly_as_before(key: str) -> None:
    golden = GOLDEN[key]
    assert unchanged(key, handle(json.dumps(golden["request"]))) == golden["answer"]
