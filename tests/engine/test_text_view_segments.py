"""The text view's segments, the cards by range, and lifting the caps.

A segment is a maximal run of code points held by the same chunks. The reference
here is deliberately slow: for every code point, the chunks of the export whose
``[char_start, char_end)`` holds it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import ALPHABET

from pyapp.core.chunking import chunk_text
from pyapp.core.chunkings import chunking_of
from pyapp.core.export import dumps
from pyapp.core.params import parse_params
from pyapp.facts import CARDS_PER_CALL, MAX_CHUNKS, TEXT_VIEW_PAGE, TEXT_VIEW_WHOLE
from pyapp.web.api import handle
from pyapp.web.export_size import export_size
from pyapp.web.segments import pages, segments, segments_view, window_spans
from pyapp.web.view import cards_view, chunk_view, view_chunks

TEXTS = st.lists(ALPHABET, max_size=50).map("".join)


def call(**request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(handle(json.dumps(request)))
    return answer


def reference_segments(text: str, **settings: Any) -> list[tuple[int, int, list[int]]]:
    """Code point by code point: which export chunks hold it; runs of equal sets."""
    chunks = chunk_text(text, parse_params(caps=False, **settings)).chunks
    held = [[c.index for c in chunks if c.char_start <= p < c.char_end] for p in range(len(text))]
    out: list[tuple[int, int, list[int]]] = []
    for p, ks in enumerate(held):
        if out and out[-1][2] == ks:
            out[-1] = (out[-1][0], p + 1, ks)
        else:
            out.append((p, p + 1, ks))
    return out


def engine_segments(text: str, start: int, stop: int, **settings: Any) -> list[Any]:
    spans = window_spans(text, parse_params(**settings))
    return [(a, b, list(range(k, k + n))) for a, b, k, n in segments(spans, start, stop)]


# ---- hand-checkable cases ----------------------------------------------------------


def test_word_chunks_at_overlap_0_leave_the_whitespace_between_them_to_no_chunk() -> None:
    text = "one two  three\nfour"
    assert engine_segments(text, 0, len(text), unit="word", size=2, overlap=0) == [
        (0, 7, [0]),
        (7, 9, []),
        (9, 19, [1]),
    ]


def test_the_repeated_prefix_is_a_segment_of_two_chunks_in_char_mode() -> None:
    # "abcdefghij", size 4, overlap 1: [0, 4), [3, 7), [6, 10)
    assert engine_segments("abcdefghij", 0, 10, unit="char", size=4, overlap=1) == [
        (0, 3, [0]),
        (3, 4, [0, 1]),
        (4, 6, [1]),
        (6, 7, [1, 2]),
        (7, 10, [2]),
    ]


def test_a_character_split_between_two_token_chunks_is_held_by_both() -> None:
    # o200k_base encodes the parrot after "a" as three byte tokens; at size 1 each is
    # its own chunk, and each chunk's code points are widened to the whole character.
    text = "a🦜"
    assert engine_segments(text, 0, 2, unit="token", size=1, overlap=0) == [
        (0, 1, [0]),
        (1, 2, [1, 2, 3]),
    ]


def test_a_range_cuts_the_segments_at_its_edges() -> None:
    assert engine_segments("abcdefghij", 2, 8, unit="char", size=4, overlap=1) == [
        (2, 3, [0]),
        (3, 4, [0, 1]),
        (4, 6, [1]),
        (6, 7, [1, 2]),
        (7, 8, [2]),
    ]
    assert engine_segments("abcdefghij", 5, 5, unit="char", size=4, overlap=1) == []


def test_an_empty_text_has_no_segments_and_one_page_edge() -> None:
    view = call(op="segments", text="", unit="word", size=3)["result"]
    assert view["segments"] == {"bounds": [0], "first": [], "count": []}
    assert view["page_starts"] == [0] and view["pages"] == 0 and view["chunks"] == 0


# ---- properties against the slow reference -----------------------------------------


@st.composite
def settings(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.integers(1, 8))
    unit = draw(st.sampled_from(["word", "char", "token"]))
    return {"unit": unit, "size": size, "overlap": draw(st.integers(0, size - 1))}


@given(text=TEXTS, config=settings())
def test_segments_tile_the_text_and_each_names_the_chunks_that_hold_it(
    text: str, config: dict[str, Any]
) -> None:
    got = engine_segments(text, 0, len(text), **config)
    assert got == reference_segments(text, **config)
    # Tiling, in order, and maximal: two neighbours never have the same chunks.
    assert [a for a, _, _ in got] + [len(text)] == [0, *(b for _, b, _ in got)]
    assert all(x[2] != y[2] for x, y in zip(got, got[1:], strict=False))


@given(text=TEXTS, config=settings(), data=st.data())
def test_a_range_of_the_text_gives_the_whole_texts_segments_cut_to_it(
    text: str, config: dict[str, Any], data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    stop = data.draw(st.integers(start, len(text)))
    whole = engine_segments(text, 0, len(text), **config)
    cut = [(max(a, start), min(b, stop), ks) for a, b, ks in whole]
    cut = [(a, b, ks) for a, b, ks in cut if a < b]
    assert engine_segments(text, start, stop, **config) == cut


@given(text=st.lists(ALPHABET, max_size=2500).map("".join), config=settings(), data=st.data())
def test_the_views_pages_hold_the_segments_and_the_windows_of_the_export_that_touch_them(
    text: str, config: dict[str, Any], data: st.DataObject
) -> None:
    edges = pages(text)
    page = data.draw(st.integers(0, len(edges)))
    wanted = data.draw(st.integers(0, 3))
    view = segments_view(text, parse_params(**config), page=page, pages_wanted=wanted)
    start, stop = view["from"], view["to"]
    assert view["page_starts"] == edges
    assert (start, stop) == (edges[view["page"]], edges[view["page"] + view["pages"]])
    bounds, first, count = (view["segments"][key] for key in ("bounds", "first", "count"))
    pieces = zip(bounds[:-1], bounds[1:], first, count, strict=True)
    got = [(a, b, list(range(k, k + n))) for a, b, k, n in pieces]
    assert got == engine_segments(text, start, stop, **config)
    chunks = chunk_text(text, parse_params(caps=False, **config)).chunks
    touching = [c for c in chunks if c.char_end > start and c.char_start < stop]
    w = view["windows"]
    assert w["first"] == sum(1 for c in chunks if c.char_end <= start)
    assert list(zip(w["starts"], w["ends"], w["char_starts"], w["char_ends"], strict=True)) == [
        (c.start, c.end, c.char_start, c.char_end) for c in touching
    ]


@given(text=TEXTS, config=settings(), data=st.data())
def test_windows_from_any_index_are_the_tail_of_all_windows(
    text: str, config: dict[str, Any], data: st.DataObject
) -> None:
    params = parse_params(**config)
    every = list(chunking_of(text, params).windows())
    first = data.draw(st.integers(0, len(every)))
    stop = data.draw(st.integers(first, len(every) + 2))
    assert list(chunking_of(text, params).windows(first=first, stop=stop)) == every[first:stop]


# ---- pages ---------------------------------------------------------------------------


def test_pages_start_after_a_line_break_when_one_is_near_and_end_at_the_text_end() -> None:
    line = "x" * 99 + "\n"
    text = line * 100  # 10,000 code points, a line break every 100
    edges = pages(text)
    assert edges[0] == 0 and edges[-1] == len(text)
    assert all(b > a for a, b in zip(edges, edges[1:], strict=False))
    assert all(text[edge - 1] == "\n" for edge in edges[1:-1])
    assert all(
        TEXT_VIEW_PAGE <= b - a <= TEXT_VIEW_PAGE + 100
        for a, b in zip(edges, edges[1:-1], strict=False)
    )


def test_without_a_line_break_pages_end_after_whitespace_else_at_four_pages() -> None:
    page = TEXT_VIEW_PAGE
    line = "x" * (page * 2) + "\n"  # a line break two pages after the first page's length
    assert pages(line + "y" * 10)[1] == len(line)
    words = "word " * 2000
    edges = pages(words)
    assert all(words[edge - 1] == " " for edge in edges[1:-1])
    assert all(page <= b - a < page + 5 for a, b in zip(edges, edges[1:-1], strict=False))
    assert pages("y" * (page * 5 + 5)) == [0, 4 * page, page * 5 + 5]


def test_one_answer_covers_at_most_the_whole_view_limit_and_says_where_it_ended() -> None:
    text = "ab " * TEXT_VIEW_WHOLE  # 300,000 code points, no line breaks
    view = call(op="segments", text=text, unit="char", size=100, overlap=0, page=1)["result"]
    edges = pages(text)
    assert view["from"] == edges[1]
    assert view["to"] - view["from"] <= TEXT_VIEW_WHOLE
    assert edges[1 + view["pages"] + 1] - view["from"] > TEXT_VIEW_WHOLE  # one more would not fit
    assert view["segments"]["bounds"][-1] == view["to"] == edges[1 + view["pages"]]


def test_offsets_count_after_a_leading_byte_order_mark() -> None:
    view = call(op="segments", text="\ufeffab cd", unit="word", size=1)["result"]
    assert view["bom_removed"] is True and view["total_chars"] == 5
    assert view["segments"]["bounds"] == [0, 2, 3, 5]


# ---- cards by range, lifting the caps ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "unit", "size", "overlap"),
    [
        ("One. Two three. Four five six seven. " * 30, "word", 3, 1),
        ("日本語のテキスト。🦜🦜 naïve text. " * 20, "char", 7, 2),
        ("Tokens split 🦜 parrots. Sentences end here. " * 20, "token", 5, 2),
    ],
)
def test_cards_by_range_are_the_same_cards_as_all_at_once(
    text: str, unit: str, size: int, overlap: int
) -> None:
    params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
    report = chunk_text(text, params, chunks=False)
    assert report.boundaries is not None and report.boundaries.cut > 0
    alone = chunk_text(text, params).chunks
    every = view_chunks(
        text,
        params,
        cut_spans=report.boundaries.cut_spans,
        alone=tuple(c.tokens_alone or 0 for c in alone) if unit == "token" else None,
    )
    n = len(every)
    for first, stop in ((0, 3), (5, 9), (n - 2, n + 5), (n, n + 1)):
        got = cards_view(text, params, first=first, stop=stop)
        assert got["chunks"] == every[first:stop]
        assert (got["from"], got["to"], got["total"]) == (min(first, n), min(stop, n), n)


def test_one_cards_answer_holds_at_most_the_per_call_limit() -> None:
    params = parse_params(unit="word", size=1, caps=False)
    got = cards_view("a " * (CARDS_PER_CALL + 50), params, first=10, stop=10_000)
    assert got["to"] == 10 + CARDS_PER_CALL and len(got["chunks"]) == CARDS_PER_CALL


def test_past_a_cap_lifting_it_names_the_cap_withholds_inline_cards_and_exports_all() -> None:
    text = "a " * (MAX_CHUNKS + 44)
    capped = call(op="chunk", text=text, unit="word", size=1)["result"]
    assert capped["capped"]["cap"] == "chunks" and capped["lifted"] is None
    lifted = call(op="chunk", text=text, unit="word", size=1, caps=False)["result"]
    assert lifted["capped"] is None and lifted["chunks"] == []
    assert lifted["lifted"] == {
        "cap": "chunks",
        "value": MAX_CHUNKS + 44,
        "limit": MAX_CHUNKS,
        "export_bytes": capped["capped"]["export_bytes"],
    }
    exported = call(op="export", text=text, unit="word", size=1, caps=False)["result"]["json"]
    params = parse_params(unit="word", size=1, caps=False)
    assert exported == dumps(chunk_text(text, params))
    assert len(json.loads(exported)["chunks"]) == MAX_CHUNKS + 44
    # Under the caps, lifting them changes nothing.
    small = {"op": "chunk", "text": "a b c", "unit": "word", "size": 1}
    assert call(**small)["result"] == call(**small, caps=False)["result"]


def test_caps_and_ranges_that_are_not_what_they_say_are_refused_by_field() -> None:
    base = {"text": "a b", "unit": "word", "size": 1}
    assert call(op="chunk", caps="no", **base)["error"]["field"] == "caps"
    assert call(op="segments", **base, page=-1)["error"]["field"] == "page"
    assert call(op="segments", **base, pages="all")["error"]["field"] == "pages"
    assert call(op="cards", **base, **{"from": 0, "to": 1.5})["error"]["field"] == "to"


@pytest.mark.parametrize("unit", ["word", "char", "token"])
@pytest.mark.parametrize("size,overlap", [(2, 1), (50, 10)])
def test_the_download_size_said_before_lifting_is_within_two_percent(
    unit: str, size: int, overlap: int
) -> None:
    text = ('He said "stop".\tTab\\slash\n日本語のテキスト。🦜 naïve\r\n' + "plain words " * 9) * 60
    params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
    actual = len(dumps(chunk_text(text, params)).encode())
    estimate = export_size(text, chunk_text(text, params, chunks=False))
    assert abs(estimate - actual) <= 0.02 * actual, (estimate, actual)


def test_the_chunk_answer_past_a_cap_carries_the_download_size_with_the_remedies() -> None:
    view = chunk_view("a " * 300, parse_params(unit="word", size=1))
    assert set(view["capped"]) == {"cap", "value", "limit", "over", "remedies", "export_bytes"}


@pytest.mark.parametrize("unit", ["word", "char", "token"])
def test_one_chunk_call_carries_the_text_views_pages_as_the_segments_op_gives_them(
    unit: str,
) -> None:
    """A keystroke's one call (``text_view``) answers the figures and the pages in sight:
    the same pages the ``segments`` op gives, and the rest of the answer unchanged."""
    text = "\ufeff" + ("Chunk the text. " * 40 + "\n") * (TEXT_VIEW_WHOLE // 600)
    fields: dict[str, Any] = {"unit": unit, "size": 9, "overlap": 3, "checks": False}
    with_pages = call(op="chunk", text=text, text_view={"page": 3, "pages": 2}, **fields)
    assert with_pages["ok"], with_pages
    pages_in_sight = with_pages["result"].pop("text_view")
    assert pages_in_sight == call(op="segments", text=text, page=3, pages=2, **fields)["result"]
    assert (pages_in_sight["page"], pages_in_sight["pages"]) == (3, 2)
    assert with_pages["result"] == call(op="chunk", text=text, **fields)["result"]


def test_a_text_the_view_draws_whole_comes_whole_whatever_pages_are_asked() -> None:
    text = "One two three. Four five six.\n" * 200
    assert len(text) < TEXT_VIEW_WHOLE
    answer = call(op="chunk", text=text, size=4, text_view={"page": 7, "pages": 1})["result"]
    assert answer["text_view"] == call(op="segments", text=text, size=4)["result"]
    assert answer["text_view"]["page"] == 0 and answer["text_view"]["to"] == len(text)


@pytest.mark.parametrize(
    ("text_view", "field"), [(3, "text_view"), ([0, 1], "text_view"), ({"page": -1}, "page")]
)
def test_a_text_view_that_is_not_pages_is_refused_by_name(text_view: object, field: str) -> None:
    answer = call(op="chunk", text="a b c", size=2, text_view=text_view)
    assert answer["ok"] is False and answer["error"]["field"] == field


@pytest.mark.parametrize("unit", ["word", "char", "token"])
def test_past_a_lifted_cap_one_chunk_call_carries_the_cards_in_sight_as_the_cards_op_gives_them(
    unit: str,
) -> None:
    """With the caps lifted, the keystroke's one call also answers the cards in sight
    (``cards``): the cards op's answer for that range, and the rest unchanged; under
    the caps, or with the caps on past them, there are none to give (``null``)."""
    text = "\ufeff" + "Chunk the text. " * 400  # 1,200 words: far past the chunk cap at size 2
    fields: dict[str, Any] = {"unit": unit, "size": 2, "overlap": 1, "checks": False}
    lifted = call(op="chunk", text=text, caps=False, cards={"from": 700, "to": 720}, **fields)
    assert lifted["ok"], lifted
    cards = lifted["result"].pop("cards")
    assert (
        cards
        == call(op="cards", text=text, caps=False, **{"from": 700, "to": 720}, **fields)["result"]
    )
    assert (cards["from"], cards["to"], len(cards["chunks"])) == (700, 720, 20)
    assert cards["chunks"][0]["index"] == 700
    assert lifted["result"] == call(op="chunk", text=text, caps=False, **fields)["result"]
    capped = call(op="chunk", text=text, cards={"from": 0, "to": 5}, **fields)["result"]
    assert capped["capped"] is not None and capped["cards"] is None
    under = call(op="chunk", text="a b c", size=2, caps=False, cards={"from": 0, "to": 5})
    assert under["result"]["lifted"] is None and under["result"]["cards"] is None


@pytest.mark.parametrize(
    ("cards", "field"),
    [(3, "cards"), ([0, 1], "cards"), ({"from": -1}, "from"), ({"from": 5, "to": 2}, "to")],
)
def test_cards_in_sight_that_are_not_a_range_are_refused_by_name(cards: object, field: str) -> None:
    answer = call(op="chunk", text="a " * 600, size=1, caps=False, cards=cards)
    assert answer["ok"] is False and answer["error"]["field"] == field
