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
    [("ab cd", 2, 2), ("ab  cd", None, None), ("a1 cd", None, None), ("x ab cd y", 1, 7)],
)
def test_safe_places_are_spaces_between_two_ascii_letters(
    text: str, after: int | None, before: int | None
) -> None:
    assert safe_after(text, 0, len(text), "o200k_base") == after
    assert safe_before(text, 0, len(text), "o200k_base") == before
