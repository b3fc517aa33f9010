"""The one interval-to-unit mapping (``pyapp.core.unit_ranges``), which the evidence
check and the sentence check share, against the slow obvious units of
``references.reference_units``: "touched" is every unit sharing a byte with the
interval, "held" the units a window must reach to hold it by char offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from references import reference_units

from pyapp.core import coverage, sentences
from pyapp.core.unit_ranges import unit_ranges
from pyapp.core.units import Chars, Tokens, Words

PIECES = ["ab", "c", " ", "  ", "\n", "🦜", "中文", "é", "x.", "🦜🦜", "the"]
TEXTS = st.lists(st.sampled_from(PIECES), min_size=1, max_size=25).map("".join)


def segmentation(text: str, unit: str) -> Chars | Words | Tokens:
    if unit == "char":
        return Chars(text)
    if unit == "word":
        return Words(text)
    return Tokens(text, encoding="o200k_base", backend="tiktoken")


def byte(text: str, char: int) -> int:
    return len(text[:char].encode())


@pytest.mark.parametrize("unit", ["char", "word", "token"])
@given(text=TEXTS, data=st.data())
def test_touched_units_are_those_sharing_a_byte_with_the_interval(
    unit: str, text: str, data: st.DataObject
) -> None:
    units = reference_units(text, unit)
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    touching = [k for k, u in enumerate(units) if u[2] < byte(text, b) and u[3] > byte(text, a)]
    if not touching:  # only whitespace, for words: no unit (evidence refuses such items)
        return
    first, last = unit_ranges(text, segmentation(text, unit), [(a, b)], rule="touched")
    assert (first[0], last[0]) == (touching[0], touching[-1])


@pytest.mark.parametrize("unit", ["char", "word", "token"])
@given(text=TEXTS, data=st.data())
def test_held_units_are_the_reach_of_a_window_holding_the_interval(
    unit: str, text: str, data: st.DataObject
) -> None:
    visible = [i for i, char in enumerate(text) if not char.isspace()]
    if not visible:
        return
    a = data.draw(st.sampled_from(visible))
    b = data.draw(st.sampled_from([i + 1 for i in visible if i >= a]))
    units = reference_units(text, unit)
    first = max(k for k, u in enumerate(units) if u[0] <= a)
    last = min(k for k, u in enumerate(units) if u[1] >= b)
    got = unit_ranges(text, segmentation(text, unit), [(a, b)], rule="held")
    assert got == ([first], [last])
    if unit != "token":  # the two rules agree but where a token splits a character
        assert unit_ranges(text, segmentation(text, unit), [(a, b)], rule="touched") == got


def test_the_evidence_and_sentence_checks_share_the_mapping() -> None:
    """Neither module keeps a copy of its own (the duplicate this module replaced)."""
    for module in (coverage, sentences):
        source = open(module.__file__, encoding="utf-8").read()  # noqa: SIM115
        assert "unit_ranges(" in source
        assert "bisect_right(token_ends" not in source and "byte_of[" not in source
