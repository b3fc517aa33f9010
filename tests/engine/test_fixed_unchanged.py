"""The fixed window's every answer, byte for byte as it was before chunkings became
interval lists: the export, the page's view, checks, cards, text view, evidence and
sweep, on twelve settings over every unit and encoding (``golden/fixed/``, written by
``golden/fixed/capture.py`` from the code before the change)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pyapp.core.chunkings import chunking_of
from pyapp.core.fingerprint import text_facts
from pyapp.facts import STRIP_COLUMNS_DEFAULT
from pyapp.web import api as _api
from pyapp.web.api import handle
from pyapp.web.segments import blocks

ANSWERS = Path(__file__).parent / "golden" / "fixed" / "main_answers.json"
GOLDEN: dict[str, dict[str, Any]] = json.loads(ANSWERS.read_text("utf-8"))


#: What the chunk export gained with its fifth version (the splitter, the overlap each
#: boundary produced): without them a fixed-window export is the third version's. The
#: view gained ``in_tokens`` since (the main view in tokens, for the planning panels).
ADDED = ("splitter", "overlap", "chunk_boundaries", "in_tokens")
#: What the evidence document's summary gained since, on purpose, within its version:
#: the overlap that keeps any passage up to the longest item's length whole, and its cost.
ANY_PLACEMENT = (
    "longest_item_units", "overlap_for_any_placement", "any_placement_guaranteed",
    "any_placement_reason", "chunks_at_any_placement", "processed_units_at_any_placement",
    "extra_volume_at_any_placement",
)  # fmt: skip


def _without_text(doc: dict[str, Any]) -> dict[str, Any]:
    """An export or evidence document without the ``text`` that names its text (added
    since: ``pyapp.chunks/4``, ``pyapp.evidence/2``; the dense check, ``/3``) and
    without what the fifth chunk export added (the fixed window named as the splitter,
    the overlap figures and each boundary's), under its earlier schema."""
    earlier = {"pyapp.chunks/5": "pyapp.chunks/3", "pyapp.evidence/3": "pyapp.evidence/1"}
    if doc["schema"] == "pyapp.chunks/5":
        assert doc["splitter"] == {"name": "fixed"}
    if doc["schema"] == "pyapp.evidence/3":
        doc = _without_dense(doc)
    out = {k: v for k, v in doc.items() if k != "text" and k not in ADDED}
    for part in ("summary", "derivation"):  # the page's view derives the figures too
        if part in out:
            out[part] = {k: v for k, v in out[part].items() if k not in ANY_PLACEMENT}
    out["schema"] = earlier.get(out["schema"], out["schema"])
    return out


def _without_dense(doc: dict[str, Any]) -> dict[str, Any]:
    """A ``pyapp.evidence/3`` document of the BM25 check without what the dense check
    added (``pyapp.evidence/3``): the retriever, the dense figures and the range
    metrics, nothing else."""
    assert doc.pop("retriever") == "bm25" and doc.pop("dense_retrieval") is None
    doc["retrieval"].pop("range_metrics")
    for item in doc["evidence"]:
        assert item.pop("dense_retrieval") is None
    return doc


def _dumped(doc: dict[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def _text_bytes(request: dict[str, Any]) -> int:
    """The UTF-8 bytes the ``text`` member adds to an export of the request's text."""
    text = request["text"].removeprefix("\ufeff")
    named = text_facts(text).to_json()
    plain = {"a": 0, "b": 0}
    return len(_dumped({"a": 0, "text": named, "b": 0}).encode()) - len(_dumped(plain).encode())


def _fewer_export_bytes(value: Any, fewer: int) -> Any:
    if isinstance(value, dict):
        return {
            k: v - fewer
            if k == "export_bytes" and isinstance(v, int)
            else _fewer_export_bytes(v, fewer)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_fewer_export_bytes(v, fewer) for v in value]
    return value


def unchanged(request: dict[str, Any], answer: str) -> str:
    """The answer as the code before the change wrote it, once what was added on
    purpose since is taken out again: the ``text`` naming the text in the export and
    the evidence document (and their schema versions), the evidence list's last line
    naming it, the bytes that member adds to the download's estimated size, and the
    encoding a token-mode download's name now carries in place of ``token``."""
    body = json.loads(answer)
    result = body.get("result")
    if body.get("ok") and isinstance(result, dict):
        op = request["op"]
        if isinstance(result.get("filename"), str):
            result["filename"] = re.sub(
                r"^(chunks|evidence)-.+-(\d+)-(\d+)\.json$",
                rf"\1-{request.get('unit', 'word')}-\2-\3.json",
                result["filename"],
            )
        if op == "export" or (op == "evidence" and request.get("export")):
            result["json"] = _dumped(_without_text(json.loads(result["json"])))
        if op == "evidence" and request.get("export"):
            lines = result["jsonl"].splitlines(keepends=True)
            assert "text" in json.loads(lines[-1])
            result["jsonl"] = "".join(lines[:-1])
        elif op == "evidence":
            body["result"] = _without_text(result)
        if op == "chunk":  # the view names the splitter and what the boundaries got
            for name in ADDED:
                result.pop(name)
            result["overview"] = _old_overview(request, result["overview"])
        if op in ("chunk", "cards"):  # each card names the tail the next one repeats
            for card in result["chunks"]:
                _check_carried(request, card)
        if op == "segments" and "blocks" in result:  # added: a whole text's blocks
            assert result.pop("blocks") == blocks(
                request["text"].removeprefix("\ufeff"), result["segments"]["bounds"]
            )
        if op == "segments":  # a fixed window's boundaries all get what was asked
            assert result.pop("short_boundaries") == {"at": [], "overlap": []}
            if request.get("model"):  # added: the chosen model's dropped tails (none here)
                dropped = result.pop("model_dropped")
                assert dropped["at"] == dropped["end"] == dropped["chunk"] == [], dropped
        body = _fewer_export_bytes(body, _text_bytes(request))
    return json.dumps(body, ensure_ascii=False)


def _old_overview(request: dict[str, Any], strip: dict[str, Any]) -> dict[str, Any]:
    """The strip as it was (the first 2,000 windows' spans), from the bars it is now: the
    windows are the ones the bars were drawn from, and the bars tile the text."""
    chunking = chunking_of(request["text"].removeprefix("\ufeff"), _api._params(request))
    windows = [list(span) for span in chunking.spans()[:2_000]]
    assert strip["from"][0] == 0 and strip["to"][-1] == strip["total_chars"]
    assert all(a < b for a, b in zip(strip["from"], strip["to"], strict=True))
    assert strip["columns"] == len(strip["from"]) == STRIP_COLUMNS_DEFAULT
    return {"total_chars": strip["total_chars"], "windows": windows}


def _check_carried(request: dict[str, Any], card: dict[str, Any]) -> None:
    """Takes out the card's ``carried`` (added since), having checked it in the exact
    units: the shown text's tail that starts where the next chunk does."""
    carried = card.pop("carried")
    if request.get("unit", "word") == "word" or not carried:
        return
    chunking = chunking_of(request["text"].removeprefix("\ufeff"), _api._params(request))
    k = card["index"]
    assert carried == [[chunking.char_starts[k + 1] - card["char_start"],
                        card["char_end"] - card["char_start"]]]  # fmt: skip


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_the_fixed_window_answers_exactly_as_before(key: str) -> None:
    golden = GOLDEN[key]
    # Captured when an empty price meant $1 per million; now it means no price and no
    # cost (on purpose), so the requests name the price those answers were made with.
    request = {"price_per_million": "1", **golden["request"]}
    assert unchanged(request, handle(json.dumps(request))) == golden["answer"]
