"""Boundary check: the sentence rule, and which sentences no chunk holds whole."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.chunking import chunk_text, segment
from pyapp.core.params import parse_params
from pyapp.core.sentences import SentenceUnits, split_sentences
from pyapp.core.windows import window_count

TERMINATORS = set(".!?。！？")
FULL_WIDTH = set("。！？")
#: Only catches a hang (the work takes milliseconds); speed is bench/bench_guards.py's.
HANG_S = 60.0


def sentences_of(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def naive_sentences(text: str) -> list[tuple[int, int]]:
    """The documented rule, one character at a time."""
    cuts: list[tuple[int, int]] = []  # (end of a piece, start of the next)
    i, n = 0, len(text)

    def line_break(at: int) -> int:
        """Length of the line break at ``at`` (0 if none)."""
        if text.startswith("\r\n", at):
            return 2
        return 1 if at < n and text[at] in "\r\n" else 0

    while i < n:
        if text[i] in TERMINATORS:
            j = i
            while j < n and text[j] in TERMINATORS:
                j += 1
            if j == n or text[j].isspace() or FULL_WIDTH & set(text[i:j]):
                cuts.append((j, j))
            i = j
        elif line_break(i):
            k = i + line_break(i)
            while k < n and text[k].isspace() and text[k] not in "\r\n":
                k += 1
            if line_break(k):
                cuts.append((i, k + line_break(k)))
                i = k + line_break(k)
            else:
                i += line_break(i)
        else:
            i += 1
    out, start = [], 0
    for end, after in [*cuts, (n, n)]:
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            out.append((start + lead, start + lead + len(piece.strip())))
        start = after
    return out


def cut_by_units(text: str, unit: str, *, size: int, overlap: int) -> list[tuple[int, int]]:
    """The engine's cut check of one configuration, from the units alone."""
    index = SentenceUnits.of(text, segment(text, parse_params(unit=unit, size=size)))
    return index.cut(size=size, overlap=overlap)


def brute_force_cut(text: str, unit: str, size: int, overlap: int) -> list[tuple[int, int]]:
    params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
    chunks = chunk_text(text, params).chunks
    return [
        (a, b)
        for a, b in split_sentences(text)
        if not any(c.char_start <= a and b <= c.char_end for c in chunks)
    ]


# ---------------------------------------------------------------- the rule


def test_full_stops_question_and_exclamation_marks_end_sentences_before_whitespace() -> None:
    assert sentences_of("One. Two? Three! Four") == ["One.", "Two?", "Three!", "Four"]


def test_a_run_of_terminators_is_one_terminator() -> None:
    assert sentences_of("Really?! Wait... Go.") == ["Really?!", "Wait...", "Go."]


def test_a_full_stop_inside_a_number_or_word_does_not_end_a_sentence() -> None:
    assert sentences_of("Pi is 3.14 and v1.2.3 is out. Yes") == [
        "Pi is 3.14 and v1.2.3 is out.",
        "Yes",
    ]


def test_full_width_terminators_end_a_sentence_without_a_space() -> None:
    assert sentences_of("第一句。第二句！第三句？第四") == [
        "第一句。",
        "第二句！",
        "第三句？",
        "第四",
    ]


def test_a_blank_line_ends_a_sentence_without_a_terminator() -> None:
    assert sentences_of("# Title\n\n- item one\n  \n- item two") == [
        "# Title",
        "- item one",
        "- item two",
    ]


def test_a_single_line_break_does_not_end_a_sentence() -> None:
    assert sentences_of("one line\nsame sentence.") == ["one line\nsame sentence."]
    assert sentences_of("one line\r\nsame sentence.") == ["one line\r\nsame sentence."]


def test_crlf_and_cr_blank_lines_end_sentences() -> None:
    assert sentences_of("a\r\n\r\nb\r\rc") == ["a", "b", "c"]


def test_sentence_spans_exclude_the_whitespace_around_them() -> None:
    text = "  \t Hello there.   \n\n  Bye  "
    assert split_sentences(text) == [(4, 16), (23, 26)]


def test_whitespace_only_and_empty_text_have_no_sentences() -> None:
    assert split_sentences("") == split_sentences(" \n\n\t ") == []


def test_a_quote_after_the_full_stop_keeps_the_sentence_going_as_documented() -> None:
    assert sentences_of('"Yes." He left.') == ['"Yes." He left.']


def test_a_long_run_of_dots_is_one_sentence_and_never_hangs() -> None:
    """How fast is a row of ``bench/bench_guards.py``; a quadratic split of these
    200,001 characters would take hours, which the bound catches."""
    text = "." * 200_000 + "x"
    began = time.perf_counter()
    assert split_sentences(text) == [(0, 200_001)]
    assert time.perf_counter() - began < HANG_S


TEXT = st.text(alphabet=st.sampled_from(list("ab c.!?。！？\n\r\t\u3000é🦜日")), max_size=80)


@given(TEXT)
def test_sentences_follow_the_documented_rule_character_by_character(text: str) -> None:
    assert split_sentences(text) == naive_sentences(text)


@given(TEXT)
def test_sentences_are_ordered_trimmed_and_cover_every_visible_character(text: str) -> None:
    spans = split_sentences(text)
    covered = set()
    for a, b in spans:
        assert a < b and not text[a].isspace() and not text[b - 1].isspace()
        covered |= set(range(a, b))
    assert all(b <= a for (_, b), (a, _) in itertools.pairwise(spans))
    assert {i for i, ch in enumerate(text) if not ch.isspace()} <= covered


# ---------------------------------------------------------------- the cut check


def test_a_sentence_held_whole_by_the_next_chunks_overlap_is_not_cut() -> None:
    text = "Aa bb. Cc dd ee. Ff."
    assert len(cut_by_units(text, "word", size=3, overlap=0)) == 1
    assert len(cut_by_units(text, "word", size=3, overlap=1)) == 0


def test_boundaries_report_counts_and_char_spans_of_cut_sentences() -> None:
    text = "One two three. Four five six. Seven eight nine ten."
    result = chunk_text(text, parse_params(unit="word", size=4, overlap=0)).boundaries
    assert result is not None
    assert result.to_json() == {
        "sentences": 3,
        "cut": 2,
        "cut_spans": [[15, 29], [30, 51]],
    }
    assert text[15:29] == "Four five six."


def test_a_sentence_longer_than_the_size_is_always_cut() -> None:
    text = "a b c d e."
    assert cut_by_units(text, "word", size=2, overlap=1) == [(0, 10)]


def test_empty_text_has_nothing_to_cut() -> None:
    assert cut_by_units("", "char", size=2, overlap=0) == []


@pytest.mark.parametrize("unit", ["word", "char", "token"])
@given(text=TEXT, size=st.integers(1, 12), data=st.data())
def test_cut_sentences_match_a_brute_force_check_over_the_real_chunks(
    unit: str, text: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    index = SentenceUnits.of(text, segment(text, parse_params(unit=unit, size=size)))
    expected = brute_force_cut(text, unit, size, overlap)
    assert index.cut(size=size, overlap=overlap) == expected
    assert index.cut_count(size=size, overlap=overlap) == len(expected)
    # cut() takes one of two walks by which is shorter; both must agree.
    windows = window_count(index.units, size=size, overlap=overlap)
    if windows:
        stride = size - overlap
        assert index._cut_each(size=size, stride=stride, windows=windows) == expected
        assert index._cut_by_window(size=size, stride=stride, windows=windows) == expected
        assert index._count_each(size=size, overlap=overlap) == len(expected)


def test_a_capped_result_still_reports_cut_sentences_over_every_window() -> None:
    text = "Short one. " * 400
    capped = chunk_text(text, parse_params(unit="word", size=3, overlap=0))
    lifted = chunk_text(text, parse_params(unit="word", size=3, overlap=0, caps=False))
    assert capped.capped is not None and capped.chunks == ()
    assert capped.boundaries == lifted.boundaries
    assert capped.boundaries.cut_spans == brute_force_cut(text, "word", 3, 0)
    assert capped.boundaries.cut == 133  # every third two-word sentence straddles a window edge


def test_the_export_and_the_chunk_op_carry_the_boundaries_section() -> None:
    import json

    from pyapp.core.export import document
    from pyapp.web.api import handle

    text = "One two three. Four five six. Seven eight nine ten."
    doc = document(chunk_text(text, parse_params(unit="word", size=4)))
    assert doc["schema"] == "pyapp.chunks/5"
    assert doc["boundaries"] == {"sentences": 3, "cut": 2, "cut_spans": [[15, 29], [30, 51]]}
    view = json.loads(handle(json.dumps({"op": "chunk", "text": text, "size": 4})))
    assert view["result"]["boundaries"] == doc["boundaries"]
