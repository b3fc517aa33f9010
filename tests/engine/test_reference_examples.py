"""The worked examples of the five reference texts (../shared/reference/), figure by figure."""

from __future__ import annotations

from fractions import Fraction

import pytest
from contracts import assert_contracts

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.core.windows import spans, window_count

TEN_WORDS = "one two three four five six seven eight nine ten"


def test_ten_words_size_four_overlap_one_gives_the_visualizers_figures() -> None:
    params = parse_params(unit="word", size=4, overlap=1, tokens_per_unit=1, price_per_million=1)
    report = chunk_text(TEN_WORDS, params)
    s = report.summary
    assert (s.units, s.chunks, s.processed_units, s.repeated_units) == (10, 3, 12, 2)
    assert s.extra_volume == Fraction(1, 5)
    assert s.estimated_cost == Fraction(12, 1_000_000)
    # Windows are words 1-4, 4-7 and 7-10 (one-based, inclusive).
    assert [(c.start + 1, c.end) for c in report.chunks] == [(1, 4), (4, 7), (7, 10)]
    assert [c.preview for c in report.chunks] == [
        "one two three four",
        "four five six seven",
        "seven eight nine ten",
    ]
    assert [c.repeated_prefix for c in report.chunks] == ["", "four", "seven"]
    assert_contracts(TEN_WORDS, report)


def test_ten_words_without_overlap_have_no_repeats_and_inflation_one() -> None:
    report = chunk_text(TEN_WORDS, parse_params(unit="word", size=4, overlap=0))
    s = report.summary
    assert (s.chunks, s.processed_units, s.repeated_units) == (3, 10, 0)
    assert s.inflation == 1
    assert_contracts(TEN_WORDS, report)


def test_english_presets_are_four_thirds_per_word_and_a_quarter_per_char() -> None:
    words = chunk_text(TEN_WORDS, parse_params(unit="word", size=4, overlap=1))
    chars = chunk_text(TEN_WORDS, parse_params(unit="char", size=48, overlap=0))
    assert words.summary.estimated_tokens == Fraction(12 * 4, 3)
    assert chars.summary.estimated_tokens == Fraction(48, 4)


@pytest.mark.parametrize("unit", ["char", "token"])
def test_fifteen_hundred_units_at_512_overlap_76_give_four_chunks(unit: str) -> None:
    # Reference 000: D=1500, C=512, O=76 -> 4 chunks, 1,728 stored, 228 duplicated.
    text = "x" * 1500 if unit == "char" else "a" + " a" * 1499
    report = chunk_text(text, parse_params(unit=unit, size=512, overlap=76))
    s = report.summary
    assert s.units == 1500
    assert (s.chunks, s.processed_units, s.repeated_units) == (4, 1728, 228)
    assert [c.end - c.start for c in report.chunks] == [512, 512, 512, 192]
    assert_contracts(text, report)


@pytest.mark.parametrize(("overlap", "size", "chunks"), [(0, 512, 3), (150, 512, 4), (38, 256, 7)])
def test_reference_000_variations_change_one_parameter_at_a_time(
    overlap: int, size: int, chunks: int
) -> None:
    assert window_count(1500, size=size, overlap=overlap) == chunks


def test_reference_002_spans_are_half_open_and_stop_at_the_end() -> None:
    assert spans(0, size=8, overlap=2) == []
    assert spans(8, size=8, overlap=2) == [(0, 8)]
    assert spans(20, size=8, overlap=2) == [(0, 8), (6, 14), (12, 20)]
    assert sum(b - a for a, b in spans(20, size=8, overlap=2)) == 24


def test_reference_002_long_document_inflation_is_c_over_c_minus_o() -> None:
    report = chunk_text("x" * 20, parse_params(unit="char", size=8, overlap=2))
    assert report.summary.limit_inflation == Fraction(8, 6)
    assert report.summary.processed_units == 24


def test_reference_004_worked_example_gives_23_chunks_and_we_also_report_actual_tokens() -> None:
    params = parse_params(unit="char", size=512, overlap="15%")
    assert (params.overlap, params.stride) == (77, 435)  # 0.15 x 512 = 76.8 -> 77
    report = chunk_text("x" * 10_000, params)
    assert report.summary.chunks == 23
    assert 23 * 512 == 11_776  # its nominal "total embedded tokens"
    assert report.summary.processed_units == 11_694  # the sum of the real chunk lengths
    assert_contracts("x" * 10_000, report)


def test_reference_004_ceil_d_over_stride_differs_from_the_exact_count_and_we_use_exact() -> None:
    # A 500-token document fits one 512-token chunk; ceil(500 / 435) would say 2.
    assert window_count(500, size=512, overlap=77) == 1
    assert -(-500 // 435) == 2


def test_overlap_as_fifteen_percent_of_512_rounds_half_up_to_77_units() -> None:
    assert parse_params(unit="char", size=512, overlap="15%").overlap == 77  # 76.8
    assert parse_params(unit="char", size=10, overlap="25%").overlap == 3  # 2.5 -> 3
    assert parse_params(unit="char", size=10, overlap=15, overlap_mode="percent").overlap == 2
