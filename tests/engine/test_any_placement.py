"""Two overlap suggestions, each for what it guarantees: the smallest overlap that keeps
these passages whole (exact, where they are), and the overlap that keeps any passage up
to the longest one's length whole wherever it falls (longest - 1, capped below the
size), each with the extra volume it costs."""

from __future__ import annotations

import json
from typing import Any

from pyapp.core.coverage import whole_range
from pyapp.web.api import handle

# 3,000 characters of filler, and three passages of 21, 24 and 26 characters.
TEXT = "".join(chr(ord("a") + (i * 7) % 26) for i in range(3000))
PASSAGES = [(400, 421), (1200, 1224), (2100, 2126)]
SIZE = 256


def evidence(**fields: Any) -> dict[str, Any]:
    items = [{"id": str(i), "start": a, "end": b} for i, (a, b) in enumerate(PASSAGES)]
    request = {"op": "evidence", "text": TEXT, "unit": "char", "size": SIZE, "overlap": 0,
               "evidence": items, **fields}  # fmt: skip
    body = json.loads(handle(json.dumps(request)))
    assert body["ok"], body
    result: dict[str, Any] = body["result"]
    return result


def split_somewhere(length: int, *, overlap: int) -> bool:
    """Whether some run of ``length`` characters of TEXT no chunk holds whole."""
    units = len(TEXT)
    return any(
        whole_range(a, a + length - 1, units=units, size=SIZE, overlap=overlap) is None
        for a in range(units - length + 1)
    )


def test_the_smallest_overlap_fits_these_passages_and_the_other_fits_any_placement() -> None:
    summary = evidence()["summary"]
    least = summary["min_overlap_for_evidence"]
    anywhere = summary["overlap_for_any_placement"]
    assert summary["longest_item_units"] == 26
    assert anywhere == 25 and summary["any_placement_guaranteed"] is True
    assert summary["any_placement_reason"] is None
    assert least is not None and least < anywhere
    # The smallest keeps these three whole, but a passage of 26 elsewhere is cut ...
    at_least = evidence(overlap=least)["summary"]
    assert at_least["evidence_whole"] == 3
    assert split_somewhere(26, overlap=least)
    # ... while 25 keeps every run of 26 (or fewer) characters whole, wherever it falls.
    assert not split_somewhere(26, overlap=anywhere)
    assert not split_somewhere(21, overlap=anywhere)
    assert split_somewhere(27, overlap=anywhere)  # and no more than that


def test_each_suggestion_carries_its_extra_volume() -> None:
    result = evidence()
    summary = result["summary"]
    units = len(TEXT)
    at = evidence(overlap=summary["overlap_for_any_placement"])["summary"]
    assert summary["chunks_at_any_placement"] == at["chunks"]
    assert summary["processed_units_at_any_placement"] == at["processed_units"]
    assert summary["extra_volume_at_any_placement"] == at["extra_volume"]
    assert summary["extra_volume_at_any_placement"] == (at["processed_units"] - units) / units
    assert summary["extra_volume_at_any_placement"] > summary["extra_volume_at_min_overlap"]
    derived = result["derivation"]
    assert derived["overlap_for_any_placement"]["inputs"] == "min(26 - 1, 256 - 1)"
    assert derived["extra_volume_at_any_placement"]["value"] == at["extra_volume"]


def test_a_passage_longer_than_the_size_has_no_guarantee_and_says_why() -> None:
    items = [{"id": "long", "start": 100, "end": 400}]  # 300 characters, size 256
    request = {"op": "evidence", "text": TEXT, "unit": "char", "size": SIZE, "evidence": items}
    summary = json.loads(handle(json.dumps(request)))["result"]["summary"]
    assert summary["overlap_for_any_placement"] == SIZE - 1  # capped below the size
    assert summary["any_placement_guaranteed"] is False
    assert summary["any_placement_reason"] == (
        "the longest passage is 300 characters, longer than the size (256): no overlap keeps"
        " it whole; raise the size to at least 300"
    )


def test_the_recursive_splitter_gets_the_figure_without_a_guarantee() -> None:
    prose = " ".join(f"Word{i} sits in sentence {i // 9}." for i in range(400))
    items = [{"id": "a", "start": 50, "end": 80}, {"id": "b", "start": 900, "end": 940}]
    request = {"op": "evidence", "text": prose, "unit": "char", "size": 200, "overlap": 0,
               "splitter": "recursive", "evidence": items}  # fmt: skip
    summary = json.loads(handle(json.dumps(request)))["result"]["summary"]
    assert summary["longest_item_units"] == 40 and summary["overlap_for_any_placement"] == 39
    assert summary["any_placement_guaranteed"] is False
    assert "treats the overlap as a target" in summary["any_placement_reason"]
    at = json.loads(handle(json.dumps({**request, "op": "chunk", "overlap": 39})))["result"]
    assert summary["chunks_at_any_placement"] == at["summary"]["chunks"]
    assert summary["extra_volume_at_any_placement"] == at["summary"]["extra_volume"]


def test_the_report_download_carries_both_suggestions() -> None:
    items = [{"id": str(i), "start": a, "end": b} for i, (a, b) in enumerate(PASSAGES)]
    request = {"op": "evidence", "text": TEXT, "unit": "char", "size": SIZE, "evidence": items,
               "export": True}  # fmt: skip
    doc = json.loads(json.loads(handle(json.dumps(request)))["result"]["json"])
    summary = doc["summary"]
    assert summary["overlap_for_any_placement"] == 25
    assert summary["min_overlap_for_evidence"] < 25
