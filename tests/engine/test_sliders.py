"""The size and overlap sliders' ranges: every value a slider reaches is accepted by
the engine with the other setting as it is, and one step past either end is not
(or is past the text's length, where nothing changes)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pyapp.core.params import parse_overlap, parse_params
from pyapp.errors import InputError
from pyapp.facts import SLIDER_SIZE_MAX
from pyapp.web.api import handle
from pyapp.web.sliders import largest_percent_below, slider_ranges, smallest_size_for_percent


def accepted(size: int, overlap: object, mode: str = "units") -> bool:
    try:
        parse_overlap(overlap, size=size, mode=mode)
    except InputError:
        return False
    return True


@pytest.mark.parametrize(
    "percent",
    [Fraction(p) for p in (0, 1, 15, 49, 50, 66, 90, 99)] + [Fraction(999, 10), Fraction(25, 2)],
)
def test_the_smallest_size_for_a_percentage_is_the_first_one_the_engine_accepts(
    percent: Fraction,
) -> None:
    low = smallest_size_for_percent(percent)
    assert accepted(low, str(float(percent)), "percent")
    assert low == 1 or not accepted(low - 1, str(float(percent)), "percent")


@pytest.mark.parametrize("size", [1, 2, 3, 7, 40, 199, 512, 1000, 8191])
def test_the_largest_percentage_is_the_last_whole_one_the_engine_accepts(size: int) -> None:
    high = largest_percent_below(size)
    assert accepted(size, str(high), "percent")
    assert not accepted(size, str(high + 1), "percent")


def test_in_units_the_overlap_reaches_size_minus_one_and_the_size_overlap_plus_one() -> None:
    ranges = slider_ranges(117, parse_params(unit="word", size=40, overlap=8))
    assert ranges["overlap"] == {"low": 0, "high": 39, "value": 8, "percent": False}
    assert ranges["size"] == {"low": 9, "high": 117, "value": 40}
    assert accepted(9, 8) and not accepted(8, 8)


def test_the_size_slider_reaches_the_text_but_no_further_than_the_cap_and_always_the_size() -> None:
    assert slider_ranges(20, parse_params(unit="word", size=40, overlap=0))["size"]["high"] == 40
    assert slider_ranges(0, parse_params(unit="word", size=4, overlap=1))["size"] == {
        "low": 2,
        "high": 4,
        "value": 4,
    }
    huge = slider_ranges(10**6, parse_params(unit="char", size=100, overlap=0))
    assert huge["size"]["high"] == SLIDER_SIZE_MAX
    beyond = slider_ranges(10**6, parse_params(unit="char", size=20_000, overlap=0))
    assert beyond["size"]["high"] == 20_000


def test_the_chunk_answer_carries_the_ranges_for_its_own_settings() -> None:
    request = {"op": "chunk", "text": "one two three four five six seven", "unit": "word"}
    answer = json.loads(
        handle(json.dumps({**request, "size": 4, "overlap": "50", "overlap_mode": "percent"}))
    )
    assert answer["ok"], answer
    assert answer["result"]["sliders"] == {
        "size": {"low": 2, "high": 7, "value": 4},
        "overlap": {"low": 0, "high": 87, "value": 50, "percent": True},
    }
