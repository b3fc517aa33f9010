"""Units: words are str.split()'s words, chars are code points, offsets map exactly."""

from __future__ import annotations

import doctest
import importlib
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.units import WORD, Chars, Tokens, Words, word_count


def test_word_regex_and_str_isspace_agree_on_every_code_point() -> None:
    everything = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000)
    by_regex = "".join(WORD.sub("", everything))  # what \S+ leaves: the \s characters
    by_isspace = "".join(ch for ch in everything if ch.isspace())
    assert by_regex == by_isspace
    assert len(by_isspace) > 20  # Unicode whitespace, not just ASCII


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "one",
        " lead and trail ",
        "a\u00a0b\u2003c\u3000d\x1ce\x85f",
        "tab\tnew\nline\r\n",
    ],
)
def test_words_are_exactly_str_split(text: str) -> None:
    words = Words(text)
    assert words.count == len(text.split())
    starts, ends = words.bounds(words.count)
    assert [text[a:b] for a, b in zip(starts, ends, strict=True)] == text.split()


def test_char_byte_offsets_count_utf8_bytes_forwards_and_backwards() -> None:
    chars = Chars("a€😀b")
    assert chars.edges(2, 4) == (2, 4, 4, 9)
    assert chars.edges(0, 2) == (0, 2, 0, 4)
    assert chars.edges(1, 3) == (1, 3, 1, 8)


def test_token_char_offsets_round_down_at_the_start_and_up_at_the_end() -> None:
    tokens = Tokens("x🦜y", encoding="o200k_base")
    spans = [tokens.edges(i, i + 1) for i in range(tokens.count)]
    assert spans[0][2] == 0 and spans[-1][3] == len("x🦜y".encode())
    for char_start, char_end, byte_start, byte_end in spans:
        prefix_start = len("x🦜y"[:char_start].encode())
        prefix_end = len("x🦜y"[:char_end].encode())
        assert prefix_start <= byte_start < byte_end <= prefix_end


MODULES = [
    "pyapp.core.tokenizers._bpe",
    "pyapp.core.tokenizers._normalize",
    "pyapp.core.tokenizers._pretokenize",
    "pyapp.core.tokenizers._tables",
    "pyapp.core.tokenizers.wordpiece",
    "pyapp.models",
    "pyapp.vocabularies",
    "pyapp.web.api",
    "pyapp.cli",
    "pyapp.core.summary",
    "pyapp.errors",
    "pyapp.core.export",
    "pyapp.core.params",
    "pyapp.planning.remedies",
    "pyapp.core.chunking",
    "pyapp.core.tokenizers",
    "pyapp.core.units",
    "pyapp.core.windows",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_word_count_of_ascii_text_is_what_str_split_counts(text: str) -> None:
    """The ASCII path counts words without splitting: the same count as str.split()."""
    assert word_count(text) == len(text.split())
