"""The recursive splitter against LangChain's own ``RecursiveCharacterTextSplitter``
(``langchain-text-splitters``, pinned in the test extra), chunk list for chunk list,
on a varied corpus, in every length unit, at random sizes and overlaps.

Each parity property runs PARITY_EXAMPLES examples (default 30, to keep the suite
quick: each example runs both splitters, LangChain's with a reference tokenizer); set
it higher to run them harder (the branch was checked at 400).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import Language, RecursiveCharacterTextSplitter
from references import reference

from pyapp.core.chunking import chunk_text
from pyapp.core.chunkings import Chunking, chunking_of
from pyapp.core.params import Params, parse_params
from pyapp.core.recursive import RecursiveSettings, split
from pyapp.core.tokenizers import PAT_STR, load_ranks
from pyapp.errors import InputError
from pyapp.facts import ENCODINGS, SEPARATOR_PRESETS

UNITS = ["char", *ENCODINGS]  # characters, and tokens of each of the six encodings
LANGUAGES = {
    "markdown": Language.MARKDOWN,
    "python": Language.PYTHON,
    "js": Language.JS,
    "html": Language.HTML,
    "latex": Language.LATEX,
}
KEEP: dict[str, Any] = {"start": True, "end": "end", "none": False}

# Pieces of prose, Markdown, code, HTML, LaTeX, CJK without spaces, emoji (ZWJ
# sequences too), CRLF, and long runs with no separator at all.
PIECES = [
    "The", " ", "quick", "brown", "fox.", "\n", "\n\n", "\r\n", "\r\n\r\n", "  ", "\t",
    "# Title", "\n## Part", "```\n", "\n---\n", "\n***\n", "- item", "**bold**",
    "\nclass A:", "\ndef f(x):", "\n\tdef g():", "return x", "\nfunction h() {", "\nconst y = 1;",
    "\nif (x) {", "}", "<div>", "<p>", "</p>", "<br/>", "<li>", "\\section{Intro}",
    "\n\\section{Two}", "$x^2$", "$$", "日本語のテキストです。", "中文没有空格", "🦜", "👩\u200d👧",
    "e\u0301", "Zwölf", "x" * 30, "漢" * 25, "no-separators-at-all-here",
]  # fmt: skip
TEXTS = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)
#: Examples per parity property.
PARITY = settings(max_examples=int(os.environ.get("PARITY_EXAMPLES", "30")), deadline=None)


@functools.cache
def _tiktoken(name: str) -> tiktoken.Encoding:
    """The real encoding, special tokens included, from the pinned ranks (offline)."""
    specials = {
        "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "cl100k_base": {
            "<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
        },
    }[name]  # fmt: skip
    return tiktoken.Encoding(
        name, pat_str=PAT_STR[name], mergeable_ranks=load_ranks(name), special_tokens=specials
    )


@functools.cache
def _length(unit: str) -> Callable[[str], int] | None:
    """The length function a LangChain user passes: ``len``, or the reference
    tokenizer without special tokens (the Hugging Face way for the newer encodings)."""
    if unit == "char":
        return None
    encode = reference(unit)
    return lambda text: len(encode(text))


def langchain(text: str, unit: str, size: int, overlap: int, **options: Any) -> list[str]:
    length = _length(unit)
    extra = {} if length is None else {"length_function": length}
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, **extra, **options
    )
    return splitter.split_text(text)


def recursive_params(unit: str, size: int, overlap: int, **options: Any) -> Params:
    """The recursive splitter's settings, ``unit`` being ``char`` or an encoding."""
    return parse_params(
        splitter="recursive",
        unit="char" if unit == "char" else "token",
        encoding=None if unit == "char" else unit,
        size=size,
        overlap=overlap,
        **options,
    )


def ours(text: str, unit: str, size: int, overlap: int, **options: Any) -> list[str]:
    params = recursive_params(unit, size, overlap, caps=False, **options)
    report = chunk_text(text, params, boundaries=False)
    for c in report.chunks:  # the offsets contract, by construction
        assert text[c.char_start : c.char_end] == c.text
        assert text.encode()[c.byte_start : c.byte_end] == c.text.encode()
    return [c.text for c in report.chunks]


@st.composite
def settings_(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(1, 60))
    overlap = draw(st.one_of(st.just(0), st.just(size - 1), st.integers(0, size - 1)))
    return size, overlap


@pytest.mark.parametrize("unit", UNITS)
@PARITY
@given(text=TEXTS, setting=settings_(), keep=st.sampled_from(["start", "end"]), strip=st.booleans())
def test_chunks_equal_langchains_in_every_unit_with_the_default_separators(
    unit: str, text: str, setting: tuple[int, int], keep: str, strip: bool
) -> None:
    size, overlap = setting
    expected = langchain(
        text, unit, size, overlap, keep_separator=KEEP[keep], strip_whitespace=strip
    )
    assert ours(text, unit, size, overlap, keep_separator=keep, strip=strip) == expected


@pytest.mark.parametrize("preset", sorted(LANGUAGES))
@PARITY
@given(
    text=TEXTS,
    setting=settings_(),
    unit=st.sampled_from(["char", "o200k_base", "llama3"]),
    keep=st.sampled_from(["start", "end"]),
)
def test_chunks_equal_from_languages_for_every_preset(
    preset: str, text: str, setting: tuple[int, int], unit: str, keep: str
) -> None:
    size, overlap = setting
    length = _length(unit)
    splitter = RecursiveCharacterTextSplitter.from_language(
        LANGUAGES[preset],
        chunk_size=size,
        chunk_overlap=overlap,
        keep_separator=KEEP[keep],
        **({} if length is None else {"length_function": length}),
    )
    expected = splitter.split_text(text)
    got = ours(text, unit, size, overlap, separators_preset=preset, keep_separator=keep)
    assert got == expected


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@PARITY
@given(text=TEXTS, setting=settings_())
def test_chunks_equal_from_tiktoken_encoders(
    encoding: str, text: str, setting: tuple[int, int], monkeypatch_encoding: None
) -> None:
    size, overlap = setting
    splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
        encoding_name=encoding, chunk_size=size, chunk_overlap=overlap
    )
    assert ours(text, encoding, size, overlap) == splitter.split_text(text)


@pytest.fixture(scope="module")
def monkeypatch_encoding() -> Iterator[None]:
    """``tiktoken.get_encoding`` from the pinned ranks: the machine is offline."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tiktoken, "get_encoding", _tiktoken)
        yield


WORDS = st.lists(
    st.tuples(
        st.sampled_from(["ab", "c", "日本", "🦜x", "d.e", "fgh", "Zwölf"]),
        st.sampled_from(["\n\n", "\n", " "]),
    ),
    max_size=30,
).map(lambda pairs: "".join(w + s for w, s in pairs))


@pytest.mark.parametrize("unit", ["char", "o200k_base", "bert-base-uncased"])
@PARITY
@given(text=WORDS, setting=settings_(), strip=st.booleans())
def test_with_the_separator_dropped_chunks_equal_langchains_where_no_separators_run_together(
    unit: str, text: str, setting: tuple[int, int], strip: bool
) -> None:
    size, overlap = setting
    expected = langchain(text, unit, size, overlap, keep_separator=False, strip_whitespace=strip)
    assert ours(text, unit, size, overlap, keep_separator="none", strip=strip) == expected


def test_with_the_separator_dropped_a_run_of_separators_stays_as_the_source_has_it() -> None:
    text = "aa\n\n\n\nbb\n\ncc"
    # LangChain joins "aa" and "bb" with one "\n\n": a text that is not in the source.
    assert langchain(text, "char", 9, 0, keep_separator=False) == ["aa\n\nbb", "cc"]
    assert ours(text, "char", 9, 0, keep_separator="none") == ["aa\n\n\n\nbb", "cc"]


def test_a_regex_separator_with_a_capturing_group_is_refused_with_the_fix() -> None:
    with pytest.raises(InputError, match=r"capturing group: write \(\?:\.\.\.\) instead"):
        parse_params(
            splitter="recursive", unit="char", size=5, separators='["(a|b)"]', separator_regex=True
        )


def test_word_mode_is_refused_for_the_recursive_splitter_with_the_reason() -> None:
    with pytest.raises(InputError, match="words are none of its length functions"):
        parse_params(splitter="recursive", unit="word", size=5)


def test_presets_are_langchains_separator_lists() -> None:
    for name, language in LANGUAGES.items():
        expected = RecursiveCharacterTextSplitter.get_separators_for_language(language)
        assert list(SEPARATOR_PRESETS[name]) == expected
    assert list(SEPARATOR_PRESETS["default"]) == ["\n\n", "\n", " ", ""]


def test_hand_checked_chunks_and_their_offsets() -> None:
    text = "One two three four. Five six seven."
    spans = split(text, size=16, overlap=8)
    assert [text[a:b] for a, b in spans] == [
        "One two three", "three four.", "four. Five six", "six seven.",
    ]  # fmt: skip
    assert spans == [(0, 13), (8, 19), (14, 28), (25, 35)]
    # Repeated text: each chunk keeps its own place (add_start_index would find the first).
    text = "ab ab ab ab"
    assert split(text, size=4, overlap=0) == [(0, 2), (3, 5), (6, 8), (9, 11)]
    assert langchain(text, "char", 4, 0) == ["ab"] * 4


def test_strip_whitespace_off_keeps_the_separators_in_the_chunks() -> None:
    text = "aaa bbb ccc"
    settings = RecursiveSettings(strip_whitespace=False)
    assert [text[a:b] for a, b in split(text, size=4, overlap=0, settings=settings)] == [
        "aaa", " bbb", " ccc",
    ]  # fmt: skip


def brute_overlap(chunking: Chunking, k: int, measure: Callable[[str], int]) -> int:
    """The text chunks k - 1 and k both hold, found code point by code point."""
    held = [
        p
        for p in range(len(chunking.text))
        if chunking.char_starts[k - 1] <= p < chunking.char_ends[k - 1]
        and chunking.char_starts[k] <= p < chunking.char_ends[k]
    ]
    return measure(chunking.text[held[0] : held[-1] + 1]) if held else 0


@PARITY
@given(text=TEXTS, setting=settings_(), unit=st.sampled_from(["char", "o200k_base"]))
def test_produced_overlaps_and_gaps_equal_a_brute_force_over_the_intervals(
    text: str, setting: tuple[int, int], unit: str
) -> None:
    size, overlap = setting
    params = recursive_params(unit, size, overlap, keep_separator="none")
    chunking = chunking_of(text, params)
    measure = len if unit == "char" else (lambda piece: len(reference(unit)(piece)))
    cs, ce = chunking.char_starts, chunking.char_ends
    assert cs == sorted(cs) and ce == sorted(ce)
    for k in range(1, chunking.count):
        assert chunking.overlaps[k - 1] == brute_overlap(chunking, k, measure)
        between = text[ce[k - 1] : cs[k]] if cs[k] > ce[k - 1] else ""
        assert chunking.gaps[k - 1] == sum(1 for ch in between if not ch.isspace())
    held = {p for a, b in zip(cs, ce, strict=True) for p in range(a, b)}
    assert chunking.uncovered() == sum(
        1 for p, ch in enumerate(text) if p not in held and not ch.isspace()
    )
