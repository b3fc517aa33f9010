"""One model of a chunking: the fixed window's intervals give, through the generic
interval analyses, exactly what its closed forms give; its produced-overlap figures
are the arithmetic's; any intervals keep the offsets contract.

Set HYPOTHESIS_MAX_EXAMPLES to run more (or fewer) examples.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_properties import TEXTS

from pyapp.core.chunking import sentence_units
from pyapp.core.chunkings import Chunking, FixedWindows, chunking_of
from pyapp.core.coverage import item_units, touch_range, whole_range
from pyapp.core.overlap import boundaries_list, overlap_figures
from pyapp.core.params import parse_params
from pyapp.core.sentences import split_sentences
from pyapp.core.units import Chars


@st.composite
def fixed(draw: st.DrawFn) -> tuple[str, str, int, int]:
    unit = draw(st.sampled_from(["word", "char", "token"]))
    size = draw(st.integers(1, 12))
    return draw(TEXTS), unit, size, draw(st.integers(0, size - 1))


@given(fixed())
def test_the_fixed_windows_overlap_figures_are_the_arithmetics(
    case: tuple[str, str, int, int],
) -> None:
    text, unit, size, overlap = case
    chunking = chunking_of(text, parse_params(unit=unit, size=size, overlap=overlap))
    assert isinstance(chunking, FixedWindows)
    n = chunking.count
    figures = overlap_figures(chunking, requested=overlap, size=size)
    boundaries = max(0, n - 1)
    assert figures.boundaries == boundaries
    if boundaries:
        assert figures.produced_min == figures.produced_max == overlap
        assert figures.produced_median == overlap
    assert figures.no_overlap == (boundaries if overlap == 0 else 0)
    assert figures.short == 0 and figures.over_size == 0
    # Brute force over the intervals: the units both neighbours hold, and lengths.
    us, ue = chunking.unit_starts, chunking.unit_ends
    assert chunking.overlaps == [max(0, ue[k - 1] - us[k]) for k in range(1, n)]
    assert all(length <= size for length in chunking.lengths)
    assert sum(chunking.lengths) == chunking.processed
    assert figures.uncovered == 0 or n == 0 or unit == "word"
    if unit == "char":  # in code points the generic measure of the shared text agrees
        generic = Chunking(text, chunking.char_starts, chunking.char_ends)
        assert generic.overlaps == chunking.overlaps
        assert [b["overlap_chars"] for b in boundaries_list(chunking)] == chunking.overlaps
    if unit == "word":  # words are measured as str.split() counts them
        generic = Chunking(
            text, chunking.char_starts, chunking.char_ends, measure=lambda s: len(s.split())
        )
        assert generic.overlaps == chunking.overlaps


@given(fixed())
def test_the_sentence_check_from_intervals_equals_the_closed_form(
    case: tuple[str, str, int, int],
) -> None:
    text, unit, size, overlap = case
    params = parse_params(unit=unit, size=size, overlap=overlap)
    chunking = chunking_of(text, params)
    closed = sentence_units(text, params).cut(size=size, overlap=overlap)
    generic = Chunking(text, chunking.char_starts, chunking.char_ends)
    assert generic.cut(split_sentences(text)) == closed
    assert chunking.cut(split_sentences(text)) == closed


@given(
    text=st.text(alphabet="ab. c\n🦜", min_size=1, max_size=40),
    size=st.integers(1, 9),
    data=st.data(),
)
def test_which_chunks_hold_a_span_from_intervals_equals_the_closed_form_in_chars(
    text: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    params = parse_params(unit="char", size=size, overlap=overlap)
    chunking = chunking_of(text, params)
    units = item_units(text, Chars(text), [(start, end)])
    a, b = units.first[0], units.last[0]
    n = len(text)
    assert chunking.holding(start, end) == whole_range(a, b, units=n, size=size, overlap=overlap)
    assert chunking.touching(start, end) == touch_range(a, b, units=n, size=size, overlap=overlap)


@given(
    text=st.text(alphabet="ab c\n日🦜", max_size=30),
    cuts=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=6),
)
def test_any_intervals_keep_the_offsets_contract_and_a_brute_force_holding(
    text: str, cuts: list[tuple[int, int]]
) -> None:
    spans = sorted((min(a, b), max(a, b)) for a, b in cuts)
    spans = [(min(a, len(text)), min(b, len(text))) for a, b in spans]
    spans = [(a, b) for a, b in spans if a < b]
    chunking = Chunking(text, [a for a, _ in spans], [b for _, b in spans])
    data = text.encode()
    for w in chunking.windows():
        body = text[w.char_start : w.char_end]
        assert data[w.byte_start : w.byte_end] == body.encode()
        assert w.char_start <= w.split <= w.char_end
    for a in range(len(text)):
        for b in range(a + 1, len(text) + 1):
            held = [k for k, (s, e) in enumerate(spans) if s <= a and b <= e]
            got = chunking.holding(a, b)
            assert got == ((held[0], held[-1]) if held else None) or not chunking.in_order
            if got is not None:
                assert all(spans[k][0] <= a and b <= spans[k][1] for k in (got[0], got[1]))


def test_past_a_cap_the_recursive_splitters_download_size_is_exact_and_no_size_is_promised() -> (
    None
):
    import json

    from pyapp.web.api import handle

    request = {"text": "word " * 1200, "unit": "char", "size": 20, "overlap": 5}
    request["splitter"] = "recursive"
    view = json.loads(handle(json.dumps({"op": "chunk", **request})))["result"]
    assert view["capped"]["cap"] == "chunks"
    assert view["capped"]["remedies"] is None  # no closed form says which size would do
    export = json.loads(handle(json.dumps({"op": "export", "caps": False, **request})))
    assert view["capped"]["export_bytes"] == len(export["result"]["json"].encode())


def test_recursive_token_cards_break_only_inside_their_own_text() -> None:
    import json

    from pyapp.web.api import handle

    text = "Hello there world.  More words follow here, and more.\n\nNew para. 🦜🦜 end"
    request = {"op": "chunk", "text": text, "unit": "token", "size": 5, "overlap": 2}
    cards = json.loads(handle(json.dumps({**request, "splitter": "recursive"})))["result"]
    for card in cards["chunks"]:
        shown = card["repeated_prefix"] + card["fresh_text"]
        assert card["token_breaks"][0] == 0
        assert all(0 <= b < len(shown) for b in card["token_breaks"])
        assert card["repeated_units"] + card["fresh_units"] == card["tokens_alone"]
