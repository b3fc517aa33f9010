"""The overview strip's bars, the text view's find and its blocks: the rules the page
draws, each against a deliberately slow reference that looks at every code point.

Set HYPOTHESIS_MAX_EXAMPLES to run more (or fewer) examples.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import ALPHABET

from pyapp.core.chunkings import Chunking, chunking_of
from pyapp.core.params import parse_params
from pyapp.facts import FIND_MATCHES_PLACED, FIND_MAX_CHARS, STRIP_COLUMNS_MAX, TEXT_VIEW_PAGE
from pyapp.web.api import handle
from pyapp.web.find import find_matches
from pyapp.web.segments import blocks, segments_view
from pyapp.web.strip import strip

TEXTS = st.lists(ALPHABET, min_size=1, max_size=60).map("".join)
SETTINGS = st.fixed_dictionaries(
    {
        "unit": st.sampled_from(["word", "char"]),
        "size": st.integers(1, 6),
        "overlap": st.integers(0, 5),
    }
).filter(lambda s: s["overlap"] < s["size"])


def call(**request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(handle(json.dumps(request)))
    return answer


def holders(chunking: Chunking, point: int) -> list[int]:
    cs, ce = chunking.char_starts, chunking.char_ends
    return [k for k in range(chunking.count) if cs[k] <= point < ce[k]]


def reference_bars(chunking: Chunking, columns: int) -> list[tuple[int, int, int, int, int, int]]:
    """Column by column, code point by code point: (from, to, chunk, first, count, shared)."""
    total = len(chunking.text)
    cs, ce = chunking.char_starts, chunking.char_ends
    out = []
    for c in range(columns):
        a = c * total // columns
        b = max(a + 1, (c + 1) * total // columns)
        touching = [k for k in range(chunking.count) if cs[k] < b and a < ce[k]]
        middle = holders(chunking, (a + b - 1) // 2)
        # Of the middle's holders the one that starts last, else the first touching it.
        fallback = touching[0] if touching else -1
        chunk = max(middle, key=lambda k: (cs[k], k)) if middle else fallback
        shared = sum(1 for p in range(a, b) if len(holders(chunking, p)) >= 2)
        first = touching[0] if touching else -1
        run = touching[-1] - touching[0] + 1 if touching else 0  # all of them, in order
        out.append((a, b, chunk, first, run, shared))
    return out


def bars_of(answer: dict[str, Any]) -> list[tuple[int, ...]]:
    keys = ("from", "to", "chunk", "first", "count", "shared")
    return list(zip(*(answer[k] for k in keys), strict=True))


# ---- the strip ---------------------------------------------------------------------


def test_a_hand_checked_strip_of_five_bars_over_three_chunks() -> None:
    spans = Chunking("abcdefghij", [0, 3, 6], [4, 7, 10])  # chars, size 4, overlap 1
    assert bars_of(strip(spans, 5)) == [
        (0, 2, 0, 0, 1, 0),
        (2, 4, 0, 0, 2, 1),  # "d" is held by chunks 1 and 2: one shared code point
        (4, 6, 1, 1, 1, 0),
        (6, 8, 2, 1, 2, 1),
        (8, 10, 2, 2, 1, 0),
    ]


@given(text=TEXTS, settings=SETTINGS, columns=st.integers(1, 90))
def test_the_bars_tile_the_text_and_each_says_what_its_code_points_hold(
    text: str, settings: dict[str, Any], columns: int
) -> None:
    chunking = chunking_of(text, parse_params(**settings))
    answer = strip(chunking, columns)
    assert answer["columns"] == columns == len(answer["from"])
    assert answer["from"][0] == 0 and answer["to"][-1] == len(text)
    assert bars_of(answer) == reference_bars(chunking, columns)


def test_imported_chunks_out_of_order_get_the_same_rule() -> None:
    # Chunk 1 lies inside chunk 0 (an imported file may nest them): ends decrease.
    spans = Chunking("abcdefghij", [0, 2, 5], [8, 4, 10])
    assert not spans.in_order
    assert bars_of(strip(spans, 10)) == reference_bars(spans, 10)


def test_a_hundred_thousand_chunks_make_as_many_bars_as_asked_and_every_chunk_is_reached() -> None:
    text = "ab " * 100_000
    chunking = chunking_of(text, parse_params(unit="word", size=2, overlap=1))
    answer = strip(chunking, 1_280)
    assert chunking.count > 99_000 and len(answer["chunk"]) == 1_280
    # Every bar stands for its chunks: together they name each chunk once, in order.
    ranges = [(f, f + n) for f, n in zip(answer["first"], answer["count"], strict=True)]
    assert ranges[0][0] == 0 and ranges[-1][1] == chunking.count
    assert all(b[0] <= a[1] <= b[1] for a, b in zip(ranges, ranges[1:], strict=False))
    # Words of two with one repeated: every word is held twice, the spaces once.
    assert sum(answer["shared"]) == sum(len(w) for w in text.split()) - 2 * len("ab")


def test_the_chunk_answer_carries_the_strip_at_the_width_asked_and_refuses_a_wrong_width() -> None:
    text = "one two three four five six"
    answer = call(op="chunk", text=text, unit="word", size=2, overlap=1, columns=7)
    assert answer["ok"] and answer["result"]["overview"]["columns"] == 7
    alone = call(op="strip", text="\ufeff" + text, unit="word", size=2, overlap=1, columns=7)
    assert alone["result"] == answer["result"]["overview"]
    for wrong in (0, STRIP_COLUMNS_MAX + 1, 2.5, "300", True):
        refused = call(op="chunk", text=text, size=2, columns=wrong)
        assert not refused["ok"] and refused["error"]["field"] == "columns", wrong
        assert "the strip's width in pixels" in refused["error"]["message"]


# ---- find ---------------------------------------------------------------------------


@given(text=TEXTS, settings=SETTINGS, query=st.text(alphabet="abAB ._\n", min_size=1, max_size=3))
def test_find_names_every_match_and_exactly_the_chunks_holding_one_whole(
    text: str, settings: dict[str, Any], query: str
) -> None:
    chunking = chunking_of(text, parse_params(**settings))
    found = find_matches(chunking, query)
    # The matches, left to right, not overlapping, compared case-insensitively.
    expected = [m.span() for m in re.finditer(re.escape(query), text, re.IGNORECASE)]
    assert list(zip(found["starts"], found["ends"], strict=True)) == expected
    assert found["count"] == len(expected)
    cs, ce = chunking.char_starts, chunking.char_ends
    hold = [[k for k in range(chunking.count) if cs[k] <= a and b <= ce[k]] for a, b in expected]
    assert found["chunks"] == sorted({k for ks in hold for k in ks})
    assert found["chunk_count"] == len(found["chunks"])
    assert found["held"] == [ks[0] if ks else -1 for ks in hold]
    assert found["cut"] == sum(1 for ks in hold if not ks)


def test_find_places_at_most_its_limit_and_counts_the_rest() -> None:
    text = "x " * (FIND_MATCHES_PLACED + 10)
    found = find_matches(chunking_of(text, parse_params(unit="char", size=5)), "X")
    assert found["count"] == FIND_MATCHES_PLACED + 10
    assert len(found["starts"]) == len(found["held"]) == FIND_MATCHES_PLACED


def test_the_find_op_answers_in_code_points_after_a_mark_and_refuses_an_empty_or_long_search() -> (
    None
):
    answer = call(op="find", text="\ufeff🦜 a 🦜 b", unit="char", size=4, query="🦜")
    assert answer["ok"]
    assert (answer["result"]["starts"], answer["result"]["chunks"]) == ([0, 4], [0, 1])
    for query, says in (("", "the search is empty"), ("x" * (FIND_MAX_CHARS + 1), "at most")):
        refused = call(op="find", text="abc", size=2, query=query)
        assert refused["error"]["field"] == "query" and says in refused["error"]["message"]
    assert call(op="find", text="abc", size=2)["error"]["field"] == "query"


# ---- the whole text's blocks ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        (("A line of text.\n" * 900), 7),  # line breaks: blocks start lines
        ("word " * 3000, 3),  # no line break: after whitespace past three pages
        ("x" * 20_000, 50),  # neither: at four pages
    ],
)
def test_a_whole_texts_blocks_hold_whole_segments_and_end_as_the_rule_says(
    text: str, size: int
) -> None:
    view = segments_view(text, parse_params(unit="char", size=size, overlap=1))
    bounds = view["segments"]["bounds"]
    edges = view["blocks"]
    assert edges == blocks(text, bounds)
    assert edges[0] == 0 and edges[-1] == len(text)
    assert set(edges) <= set(bounds)  # whole segments only
    for a, b in zip(edges, edges[1:-1], strict=False):
        length = b - a
        assert length >= TEXT_VIEW_PAGE
        assert (
            text[b - 1] == "\n"
            or (length >= 3 * TEXT_VIEW_PAGE and text[b - 1].isspace())
            or length >= 4 * TEXT_VIEW_PAGE
        )
        # ...and at the first segment edge where it may end.
        inside = [e for e in bounds if a + TEXT_VIEW_PAGE <= e < b]
        assert all(
            text[e - 1] != "\n" and (e - a < 3 * TEXT_VIEW_PAGE or not text[e - 1].isspace())
            for e in inside
        )


def test_only_an_answer_covering_the_whole_text_carries_blocks() -> None:
    text = "A line of text.\n" * 900
    params = parse_params(unit="char", size=7)
    assert "blocks" in segments_view(text, params)
    assert "blocks" not in segments_view(text, params, page=1, pages_wanted=1)


# ---- go to chunk N --------------------------------------------------------------------


def test_go_to_chunk_n_gives_where_it_lies_and_refuses_what_is_not_a_chunk_of_the_text() -> None:
    text = "\ufeffone two three four five"
    answer = call(op="goto", text=text, unit="word", size=2, overlap=1, chunk=" 3 ")
    assert answer["result"] == {"index": 2, "char_start": 8, "char_end": 18}  # "three four"
    assert text[1:][8:18] == "three four"
    for typed, says in (
        ("5", "there is no chunk 5: type a chunk number from 1 to 4"),
        ("0", "there is no chunk 0: type a chunk number from 1 to 4"),
        ("two", "is not a chunk number: type a chunk number from 1 to 4"),
        ("-1", "is not a chunk number"),
        ("1.5", "is not a chunk number"),
        ("٣", "is not a chunk number"),  # an Arabic-Indic digit is not typed as a number here
        (None, "is not a chunk number"),
        (True, "is not a chunk number"),
    ):
        refused = call(op="goto", text=text, unit="word", size=2, overlap=1, chunk=typed)
        assert not refused["ok"] and refused["error"]["field"] == "chunk", typed
        assert says in refused["error"]["message"], (typed, refused["error"]["message"])
    assert call(op="goto", text="   ", size=2, chunk="1")["error"]["message"].endswith(
        "the text has no chunks"
    )
