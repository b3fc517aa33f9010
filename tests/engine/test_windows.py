"""Reference 002's coverage sweep, run through the whole engine in every unit."""

from __future__ import annotations

import pytest
from contracts import assert_contracts

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.core.units import Tokens
from pyapp.core.windows import spans, window_count


def _reference_spans(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Reference 002's teaching function, verbatim in behaviour."""
    result = []
    start = 0
    while start < length:
        end = min(start + size, length)
        result.append((start, end))
        if end == length:
            break
        start += size - overlap
    return result


def _text_of(unit: str, n: int) -> str:
    """A text of exactly ``n`` units, with multi-byte characters in it."""
    if unit == "word":
        return " ".join(["wörd", "\u00a0x", "日本"][i % 3].strip() for i in range(n))
    if unit == "char":
        return "".join("aé日😀"[i % 4] for i in range(n))
    return "a" + " a" * (n - 1) if n else ""


def test_a_text_of_n_tokens_really_has_n_tokens() -> None:
    for n in range(40):
        assert Tokens(_text_of("token", n), encoding="o200k_base").count == n


@pytest.mark.parametrize("unit", ["word", "char", "token"])
def test_every_length_size_and_overlap_covers_the_text_exactly_once_in_order(unit: str) -> None:
    for n in range(40):
        text = _text_of(unit, n)
        for size in range(1, 12):
            for overlap in range(size):
                expected = _reference_spans(n, size, overlap)
                assert spans(n, size=size, overlap=overlap) == expected
                report = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap))
                got = [(c.start, c.end) for c in report.chunks]
                assert got == expected
                covered = {i for a, b in got for i in range(a, b)}
                assert covered == set(range(n))
                assert all(0 < b - a <= size for a, b in got)
                expected_count = 0 if n == 0 else 1 + -(-max(0, n - size) // (size - overlap))
                assert (
                    report.summary.chunks
                    == expected_count
                    == window_count(n, size=size, overlap=overlap)
                )
                assert_contracts(text, report)
