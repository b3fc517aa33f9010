"""Local re-encoding is exact: a window's ``tokens_alone`` from its head and tail, and a
small edit re-encoded between safe places, equal encoding the whole thing, for every
encoding, on texts built to break them (contractions, digits, marks, CJK, emoji,
special-token text, runs of spaces and line breaks around the safe places)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.tokenizers import get_tokenizer
from pyapp.core.tokenizers.local import count_alone, safe_after, safe_before, splice
from pyapp.core.units import CharToByte
from pyapp.facts import ENCODINGS

PIECES = [
    "the", "The", "cat", "a", "b", "Z", "ok", " ", "  ", " \t", "\n", "\n\n", "\r\n",
    "'s", "'T", "don't", "we'll", "123", "4567", "3.14", ".", ",", "!?", "...", "é",
    "e\u0301", "Ǆ", "ß", "ﬁ", "日本語", "한국어", "🦜", "👩‍👩‍👧", "\U0001fae8", "\t", "ℌ",
    "[CLS]", "<|endoftext|>", "##ing", "Hello", "WORLD", "camelCase", "x/y", "—", "\u00a0",
    # Around the safe places after a letter and after a line break: CJK letters and
    # punctuation, kana with a combining sound mark, a jamo that joins a syllable,
    # characters NFC changes, "/" (o200k_base and tekken end a punctuation piece with
    # it), full-width and curly apostrophes, indentation, line breaks in a row.
    "中文", "系统", "。", "，", "、", "「", "」", "（", "？", "か", "\u3099", "ア", "ー",
    "가", "\u11a8", "\u037e", "\u2000", "\u212b", "/", "\n/", "\n ", "\n  ", "\n\t", " \n",
    "\uff07", "\u2019", "'", "\r", "\x0b", "\u2028", "1", "x", "é", "\u0301",
]  # fmt: skip

TEXTS = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


def plain_count(encoding: str, text: str) -> int:
    return len(get_tokenizer(encoding).encode(text))


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@given(text=TEXTS, data=st.data())
def test_tokens_alone_from_head_and_tail_equals_encoding_the_window(
    encoding: str, text: str, data: st.DataObject
) -> None:
    tokenizer = get_tokenizer(encoding)
    _, starts, _ = tokenizer.encode_spans(text)
    char_start = data.draw(st.integers(0, len(text)))
    char_end = data.draw(st.integers(char_start, len(text)))
    got = count_alone(
        text,
        char_start,
        char_end,
        encoding=encoding,
        starts=starts,
        count=tokenizer.count,
        byte_of=CharToByte(text),
    )
    assert got == plain_count(encoding, text[char_start:char_end])


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@given(before=TEXTS, after=TEXTS, data=st.data())
def test_a_small_edit_re_encoded_locally_equals_encoding_the_new_text(
    encoding: str, before: str, after: str, data: st.DataObject
) -> None:
    old = before + after
    cut = data.draw(st.integers(0, len(old)))
    removed = data.draw(st.integers(0, len(old) - cut))
    inserted = data.draw(st.lists(st.sampled_from(PIECES), max_size=3).map("".join))
    new = old[:cut] + inserted + old[cut + removed :]
    encode = get_tokenizer(encoding).encode_spans
    spliced = splice(old, new, encode(old), encoding=encoding, encode_spans=encode)
    if spliced is not None:
        assert spliced == encode(new)


def test_a_typed_character_in_a_long_text_keeps_all_but_a_few_tokens() -> None:
    encode = get_tokenizer("o200k_base").encode_spans
    old = "one two three four five six seven eight nine ten " * 2000
    new = old[:50_000] + "x" + old[50_000:]
    re_encoded: list[str] = []

    def spy(text: str) -> tuple[list[int], list[int], list[int]]:
        re_encoded.append(text)
        return encode(text)

    assert splice(old, new, encode(old), encoding="o200k_base", encode_spans=spy) == encode(new)
    assert len(re_encoded) == 1 and len(re_encoded[0]) < 20


@pytest.mark.parametrize(
    ("text", "after", "before"),
    [
        ("ab cd", 2, 2),  # after a letter: before the space
        ("ab  cd", 2, 2),
        ("a1 cd", 1, 1),  # before the digit; not after it
        ("12 34", None, None),  # no letter, no line break
        ("x ab cd y", 1, 7),
        ("it's", None, None),  # an apostrophe may begin a contraction
        ("中文，日本", 2, 2),  # CJK punctuation after a CJK letter
        ("。。。", None, None),
        ("line\n  next", 4, 5),  # before the line break, then after it (indented)
        ("-\n/x", None, None),  # "/" may end a punctuation piece after a line break
        ("-\n\n x", 3, 3),  # not between two line breaks of one run
        ("-\n日本", 2, 2),
    ],
)
def test_safe_places_follow_a_letter_or_a_line_break(
    text: str, after: int | None, before: int | None
) -> None:
    assert safe_after(text, 0, len(text), "o200k_base") == after
    assert safe_before(text, 0, len(text), "o200k_base") == before


def test_a_safe_place_never_reads_past_the_end_of_its_search() -> None:
    """The rule after a line break reads the indentation and the character after it:
    all of them must lie before ``hi`` (the edit), or the place may not hold."""
    text = "-\n   x"
    assert safe_before(text, 0, len(text), "o200k_base") == 2
    assert safe_before(text, 0, len(text) - 1, "o200k_base") is None


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_a_typed_character_in_long_chinese_re_encodes_one_line(encoding: str) -> None:
    """Chinese has no spaces between letters: the safe places come from its
    punctuation and its line breaks. A spy counts what is encoded again."""
    encode = get_tokenizer(encoding).encode_spans
    line = "    系统设置，用户可以修改配置文件。然后重新启动服务。\n"
    old = line * 2000
    at = len(line) * 1000 + 10
    new = old[:at] + "新" + old[at:]
    re_encoded: list[str] = []

    def spy(text: str) -> tuple[list[int], list[int], list[int]]:
        re_encoded.append(text)
        return encode(text)

    assert splice(old, new, encode(old), encoding=encoding, encode_spans=spy) == encode(new)
    assert len(re_encoded) == 1 and len(re_encoded[0]) <= len(line), re_encoded
