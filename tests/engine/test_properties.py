"""Hypothesis properties: the engine against a deliberately simple reference.

Set HYPOTHESIS_MAX_EXAMPLES to run more (or fewer) examples.
"""

from __future__ import annotations

from typing import Any

from contracts import assert_contracts
from hypothesis import given
from hypothesis import strategies as st
from references import reference_units

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.core.tokenizers import get_tokenizer

# Text that stresses the edges: Unicode spaces, multi-byte and astral characters,
# combining marks, ZWJ emoji, CRLF.
ALPHABET = st.sampled_from(
    list("ab cd\t\n\r.,'")
    + ["\u00a0", "\u2003", "\u3000", "\x1c", "\x85", "é", "e\u0301", "日", "本", "😀", "🦜"]
    + ["\u200d", "👩\u200d👧", "ß", "ﬁ", "٣", "ع", "\r\n", "<|endoftext|>"]
)
TEXTS = st.lists(ALPHABET, max_size=60).map("".join)


@st.composite
def configs(draw: st.DrawFn) -> tuple[str, str, int, int]:
    unit = draw(st.sampled_from(["word", "char", "token"]))
    size = draw(st.integers(1, 12))
    overlap = draw(st.integers(0, size - 1))
    return draw(TEXTS), unit, size, overlap


def _reference_chunks(text: str, unit: str, size: int, overlap: int) -> list[dict[str, Any]]:
    units = reference_units(text, unit)
    chunks: list[dict[str, Any]] = []
    start = 0
    while start < len(units):
        end = min(start + size, len(units))
        char_start, byte_start = units[start][0], units[start][2]
        char_end, byte_end = units[end - 1][1], units[end - 1][3]
        chunks.append(
            {
                "start": start,
                "end": end,
                "char_start": char_start,
                "char_end": char_end,
                "byte_start": byte_start,
                "byte_end": byte_end,
                "text": text[char_start:char_end],
            }
        )
        if end == len(units):
            break
        start += size - overlap
    return chunks


@given(configs())
def test_chunks_match_the_simple_reference_and_keep_every_contract(
    config: tuple[str, str, int, int],
) -> None:
    text, unit, size, overlap = config
    report = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap))
    got = [
        {key: getattr(c, key) for key in ("start", "end", "char_start", "char_end")}
        | {"byte_start": c.byte_start, "byte_end": c.byte_end, "text": c.text}
        for c in report.chunks
    ]
    assert got == _reference_chunks(text, unit, size, overlap)
    assert_contracts(text, report)
    s = report.summary
    n = len(reference_units(text, unit))
    assert s.units == n
    assert s.chunks == (0 if n == 0 else 1 + -(-max(0, n - size) // (size - overlap)))
    assert s.processed_units == sum(c.end - c.start for c in report.chunks)


@given(configs())
def test_chunks_together_cover_every_unit_and_every_non_space_character(
    config: tuple[str, str, int, int],
) -> None:
    text, unit, size, overlap = config
    report = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap))
    covered_units = {i for c in report.chunks for i in range(c.start, c.end)}
    assert covered_units == set(range(report.summary.units))
    covered_chars = {i for c in report.chunks for i in range(c.char_start, c.char_end)}
    if unit == "word":
        assert covered_chars >= {i for i, ch in enumerate(text) if not ch.isspace()}
    else:
        assert covered_chars == set(range(len(text)))


@given(configs())
def test_repeated_prefix_is_what_the_previous_chunk_also_holds(
    config: tuple[str, str, int, int],
) -> None:
    text, unit, size, overlap = config
    report = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap))
    for prev, cur in zip(report.chunks, report.chunks[1:], strict=False):
        assert cur.repeated_prefix == text[cur.char_start : max(cur.char_start, prev.char_end)]
        assert prev.text.endswith(cur.repeated_prefix)
        if unit != "token":
            assert cur.repeated_prefix == text[cur.char_start : prev.char_end]


@given(TEXTS)
def test_pure_backend_gives_tiktokens_ids_on_random_text(text: str) -> None:
    for name in ("o200k_base", "cl100k_base"):
        pure = get_tokenizer(name, backend="pure").encode(text)
        assert pure == get_tokenizer(name, backend="tiktoken").encode(text)
