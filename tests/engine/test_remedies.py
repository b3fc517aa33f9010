"""The cap notice's figures: what would bring a capped configuration under the caps."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pyapp.core.windows import processed_units, window_count
from pyapp.facts import MAX_CHUNKS, MAX_PROCESSED_UNITS
from pyapp.planning.remedies import remedies
from pyapp.web.api import handle


def fits(units: int, size: int, overlap: int) -> bool:
    """Deliberately simple: the two caps as the summary states them."""
    n = window_count(units, size=size, overlap=overlap)
    return n <= MAX_CHUNKS and processed_units(units, size=size, overlap=overlap) <= (
        MAX_PROCESSED_UNITS
    )


def view(**request: Any) -> dict[str, Any]:
    answer = json.loads(handle(json.dumps({"op": "chunk", **request})))
    assert answer["ok"], answer
    result: dict[str, Any] = answer["result"]
    return result


def test_300_words_at_size_1_need_size_2_or_a_256_word_text() -> None:
    capped = view(text="w " * 300, size=1, overlap=0)["capped"]
    # what lifting the caps costs: tests/engine/test_text_view_segments.py
    del capped["export_bytes"]
    assert capped == {
        "cap": "chunks",
        "value": 300,
        "limit": 256,
        "over": ["chunks"],
        "remedies": {"size": 2, "overlap_zero": None, "max_units": 256},
    }
    assert view(text="w " * 300, size=2, overlap=0)["capped"] is None
    assert view(text="w " * 256, size=1, overlap=0)["capped"] is None


def test_with_overlap_it_says_whether_overlap_0_alone_would_do() -> None:
    assert remedies(1200, size=8, overlap=4) == {"size": 9, "overlap_zero": True, "max_units": 1028}
    assert remedies(3000, size=8, overlap=4)["overlap_zero"] is False  # 375 chunks at overlap 0


def test_no_size_brings_more_than_200000_units_under_the_processed_cap() -> None:
    capped = view(text="x" * 250_000, unit="char", size=5000, overlap=0)["capped"]
    assert capped["cap"] == "processed_units"
    assert capped["remedies"] == {"size": None, "overlap_zero": None, "max_units": 200_000}


def test_the_export_document_carries_no_remedies() -> None:
    answer = json.loads(handle(json.dumps({"op": "export", "text": "w " * 300, "size": 1})))
    assert json.loads(answer["result"]["json"])["capped"] == {
        "cap": "chunks",
        "value": 300,
        "limit": 256,
    }


@pytest.mark.parametrize("overlap", [0, 1, 3])
@pytest.mark.parametrize("size", [4, 5, 9])
@pytest.mark.parametrize("units", [1030, 1300, 2400])
def test_each_figure_is_the_extreme_a_slow_search_finds(
    units: int, size: int, overlap: int
) -> None:
    got = remedies(units, size=size, overlap=overlap)
    smallest = next(c for c in range(size, units + overlap + 2) if fits(units, c, overlap))
    assert got["size"] == smallest
    assert got["overlap_zero"] == (fits(units, size, 0) if overlap else None)
    longest = max(u for u in range(0, size + 300 * size) if fits(u, size, overlap))
    assert got["max_units"] == longest
    assert fits(got["max_units"], size, overlap) and not fits(got["max_units"] + 1, size, overlap)


def test_a_text_over_both_caps_names_both_though_the_export_names_the_first() -> None:
    """Over 200,000 units at a small size: the export's ``cap`` is the chunk cap, but
    the notice's "no chunk size is enough" is about the processed-units cap, so the
    view says the result is over both."""
    capped = view(text="x" * 200_001, unit="char", size=500, overlap=0)["capped"]
    assert capped["cap"] == "chunks"
    assert capped["over"] == ["chunks", "processed_units"]
    assert capped["remedies"]["size"] is None
