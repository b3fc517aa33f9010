"""A long whitespace run is counted, never a crash: the native backend merges the
pieces tiktoken's regex overflows on by themselves, cut where the pattern cuts
anyway, and gives tiktoken's own ids and the pure backend's."""

from __future__ import annotations

import functools

import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.tokenizers import PAT_STR, get_tokenizer, load_ranks
from pyapp.core.tokenizers._pretokenize import pieces
from pyapp.core.tokenizers._runs import LONGEST_RUN, bounded_count, bounded_encode, long_pieces

BPE = ["o200k_base", "cl100k_base", "llama3", "qwen2", "tekken"]


@functools.cache
def plain_tiktoken(name: str) -> tiktoken.Encoding:
    """tiktoken with the encoding's pattern and ranks, nothing in front of it (tekken's
    ids are ranks here, and qwen2 gets no NFC: both sides see the same raw text)."""
    return tiktoken.Encoding(
        f"{name}-plain", pat_str=PAT_STR[name], mergeable_ranks=load_ranks(name), special_tokens={}
    )


def pure_pieces_merged_natively(name: str, text: str) -> list[int]:
    """The pure pre-tokenizer's pieces, each merged by tiktoken's own merge."""
    merge = plain_tiktoken(name)._encode_single_piece
    return [i for piece in pieces(name, text) for i in merge(piece.encode())]


# Whitespace of every kind the patterns treat apart (line breaks, spaces, a tab,
# Unicode spaces), the characters that take a space or a line break into their
# piece (letters, a mark, punctuation, '/' in o200k_base's and tekken's tail),
# and digits.
_ATOMS = [" ", "\t", "\n", "\r", "\x0b", "\xa0", "\u3000", "\x85", "\u2028"]
_ATOMS += ["a", "Z", "é", "\u0301", "!", "/", "'", "s", "7", "中"]
_runs = st.lists(
    st.tuples(st.sampled_from(_ATOMS), st.integers(min_value=1, max_value=9)), max_size=14
)


@given(_runs)
def test_cut_at_a_few_characters_every_encoding_gives_tiktokens_ids_and_the_pure_ones(
    runs: list[tuple[str, int]],
) -> None:
    """With the bound lowered to 2, short texts hold many "long" runs, and tiktoken
    can still run them whole: the cut path must give exactly its ids."""
    text = "".join(char * count for char, count in runs)
    for name in BPE:
        whole = plain_tiktoken(name).encode_ordinary(text)
        assert bounded_encode(plain_tiktoken(name), name, longest_run=2)(text) == whole, name
        assert bounded_count(plain_tiktoken(name), name, longest_run=2)(text) == len(whole)
        assert pure_pieces_merged_natively(name, text) == whole, name


@pytest.mark.parametrize("name", BPE)
def test_the_long_pieces_are_exactly_pieces_of_the_pure_pre_tokenizer(name: str) -> None:
    text = "x " + " " * 12 + "!\n\n" + "\t" * 12 + "\n" + " \t" * 8 + "y\n" + " " * 20
    bounds = set()
    at = 0
    for piece in pieces(name, text):
        bounds.add((at, at + len(piece)))
        at += len(piece)
    found = list(long_pieces(name, text, longest_run=4))
    assert found and set(found) <= bounds


def _shapes(size: int) -> dict[str, str]:
    return {
        "spaces_then_a_word": " " * size + "word",
        "spaces_alone": " " * size,
        "tabs_after_a_word_then_punctuation": "a" + "\t" * size + "!",
        "line_break_then_spaces_then_a_word": "end.\n" + " " * size + "x",
        "mixed_with_line_breaks_then_text": "a"
        + "\n \t" * (size // 6)
        + " \t\u3000" * (size // 6)
        + "b",
        "punctuation_line_breaks_then_spaces": "!" + "\n" * 3 + "\xa0" * size,
        "line_breaks_alone_after_a_word": "x" + "\r\n" * (size // 2),
    }


@pytest.mark.parametrize("name", BPE)
def test_runs_of_a_hundred_thousand_give_tiktokens_ids_on_the_native_backend(name: str) -> None:
    """At 10^5 tiktoken still runs whole texts; the native backend (which takes
    every run over :data:`LONGEST_RUN` out of the regex) must agree with it and
    with the pure pre-tokenizer's pieces."""
    native = get_tokenizer(name, backend="tiktoken")
    raw = plain_tiktoken(name)
    offset = 1000 if name == "tekken" else 0
    for label, text in _shapes(100_000).items():
        whole = [i + offset for i in raw.encode_ordinary(text)]
        assert native.encode(text) == whole, label
        assert native.count(text) == len(whole), label
        assert [i + offset for i in pure_pieces_merged_natively(name, text)] == whole, label


@pytest.mark.parametrize("name", BPE)
def test_the_native_and_pure_backends_agree_on_runs_past_the_bound(name: str) -> None:
    """The whole pure backend (its own merge, too) on runs a little past the bound."""
    native = get_tokenizer(name, backend="tiktoken")
    pure = get_tokenizer(name, backend="pure")
    for label, text in _shapes(LONGEST_RUN + 300).items():
        assert native.encode(text) == pure.encode(text), label


@pytest.mark.parametrize("name", BPE)
@pytest.mark.parametrize(
    "text",
    [" " * 10**6 + "x", "x\n" + " \t" * (10**6 // 2)],
    ids=["a_million_spaces_then_a_letter", "a_million_spaces_and_tabs_to_the_end"],
)
def test_a_million_whitespace_characters_are_counted_as_the_pure_pieces_say(
    name: str, text: str
) -> None:
    """tiktoken's own regex panics here (PanicException: StackOverflow); the native
    backend counts it, with the pure pre-tokenizer's pieces."""
    offset = 1000 if name == "tekken" else 0
    expected = [i + offset for i in pure_pieces_merged_natively(name, text)]
    assert get_tokenizer(name, backend="tiktoken").encode(text) == expected
    if text.endswith("x"):  # the hazard is real: tiktoken alone panics on it
        with pytest.raises(BaseException, match="StackOverflow"):
            plain_tiktoken(name).encode_ordinary(text)


@given(_runs, st.integers(min_value=1, max_value=6))
def test_long_runs_are_found_from_samples_as_a_full_scan_finds_them(
    runs: list[tuple[str, int]], longest_run: int
) -> None:
    """The scan looks at every (longest_run + 1)-th character first; the reference
    scans every character."""
    import re

    from pyapp.core.tokenizers._runs import _long_runs, _whitespace_class

    text = "".join(char * count for char, count in runs)
    full = re.finditer(f"{_whitespace_class()}{{{longest_run + 1},}}", text)
    assert list(_long_runs(text, longest_run)) == [m.span() for m in full]
