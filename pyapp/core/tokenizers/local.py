"""Encoding by local work: where a tokenizer's pieces must break, whatever came before.

Every encoding here splits the text into pieces before it merges (a regex
pre-tokenizer for the BPE encodings, whitespace and punctuation for WordPiece),
and a piece is encoded on its own. Some places are a piece boundary in *every*
scan that reaches them, whatever the text before or after:

* **BPE** (o200k_base, cl100k_base, llama3, qwen2, tekken): a space between two
  ASCII letters, ``"a b"``, at the space. A letter belongs to a letter piece, and
  every pattern's letter piece is letters (and marks) after at most one other
  character; a space can only begin a piece, never continue one after a letter, and
  no contraction starts with a space. The letter before the space ends a piece at
  the space. None of these patterns looks behind, and qwen2's NFC never composes
  across a space, so the text after such a place is encoded exactly as if it began
  there.
* **WordPiece** (bert-base-uncased): any ASCII space, which only separates words.

Two uses (:func:`count_alone`, :func:`splice`), each exact, and proven against the
plain computation on random texts in the tests:

* how many tokens a window's text is **when encoded by itself** (``tokens_alone``)
  costs two short encodes, of its head up to the first such place and of its tail
  from the last, plus a count of the whole text's tokens in between;
* a **small edit** of a long text is re-encoded only between the nearest such
  places around it; the tokens before and after are the old ones.

>>> safe_after("one two", 0, 7, "o200k_base"), safe_before("one two", 0, 7, "o200k_base")
(3, 3)
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from typing import Final

__all__ = ["count_alone", "safe_after", "safe_before", "splice"]

#: A BPE piece boundary in every scan: a space between two ASCII letters (the match
#: is the space).
_BPE_SAFE: Final = re.compile(r"(?<=[A-Za-z]) (?=[A-Za-z])")
#: A WordPiece word boundary in every scan: an ASCII space.
_WORDPIECE_SAFE: Final = re.compile(r" ")

#: ``(ids, starts, ends)``: token ids and each token's UTF-8 byte range in the text.
Spans = tuple[list[int], list[int], list[int]]


def _pattern(encoding: str) -> re.Pattern[str]:
    return _WORDPIECE_SAFE if encoding == "bert-base-uncased" else _BPE_SAFE


def safe_after(text: str, lo: int, hi: int, encoding: str) -> int | None:
    """The first safe place ``p`` with ``lo < p`` and ``p + 1 < hi`` (so both of its
    neighbours lie in ``[lo, hi)``), or ``None``."""
    if hi - lo <= 2:
        return None
    # From lo + 1, the lookbehind sees text[lo]; up to hi, the lookahead sees text[hi - 1].
    match = _pattern(encoding).search(text, lo + 1, hi)
    return match.start() if match is not None else None


def safe_before(text: str, lo: int, hi: int, encoding: str) -> int | None:
    """The last safe place ``p`` with ``lo < p`` and ``p + 1 < hi``, or ``None``.

    Searched backwards in growing blocks, so it costs about the distance from ``hi``.
    """
    if hi - lo <= 2:
        return None
    search = _pattern(encoding).search
    block = 16
    while True:
        start = max(lo + 1, hi - block)
        found = None
        match = search(text, start, hi)
        while match is not None:  # the last one in [start, hi)
            found = match.start()
            match = search(text, found + 1, hi)
        if found is not None or start == lo + 1:
            return found
        block *= 4


def count_alone(
    text: str,
    char_start: int,
    char_end: int,
    *,
    encoding: str,
    starts: list[int],
    count: Callable[[str], int],
    byte_of: Callable[[int], int],
) -> int:
    """How many tokens ``text[char_start:char_end]`` is when encoded by itself.

    ``starts`` are the byte starts of the whole text's tokens (never decreasing);
    ``count`` counts the tokens of a text encoded by itself; ``byte_of`` turns a
    code-point offset of ``text`` into its UTF-8 byte offset.
    """
    head_end = safe_after(text, char_start, char_end, encoding)
    tail_start = (
        safe_before(text, head_end - 1, char_end, encoding) if head_end is not None else None
    )
    if head_end is None or tail_start is None:
        return count(text[char_start:char_end])
    byte_head = byte_of(head_end)
    byte_tail = byte_of(tail_start)
    middle = bisect_left(starts, byte_tail) - bisect_left(starts, byte_head)
    return count(text[char_start:head_end]) + middle + count(text[tail_start:char_end])


def splice(
    old: str,
    new: str,
    old_spans: Spans,
    *,
    encoding: str,
    encode_spans: Callable[[str], Spans],
) -> Spans | None:
    """The spans of ``new`` from those of ``old`` (a text it differs from in one
    stretch), re-encoding only between the safe places around the change; ``None``
    when the change leaves no safe place to keep (encode ``new`` whole instead).

    >>> import pyapp.core.tokenizers as t
    >>> encode = t.get_tokenizer("o200k_base").encode_spans
    >>> old, new = "one two three four", "one two thee four"
    >>> splice(old, new, encode(old), encoding="o200k_base", encode_spans=encode) == encode(new)
    True
    """
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, limit=min(len(old), len(new)) - prefix)
    # Safe places whose neighbours lie in the unchanged prefix, or suffix.
    left = safe_before(old, 0, prefix, encoding) if prefix > 2 else None
    right_old = safe_after(old, len(old) - suffix, len(old), encoding) if suffix > 2 else None
    if left is None and right_old is None:
        return None
    left = left if left is not None else 0
    right_old = right_old if right_old is not None else len(old)
    shift = len(new) - len(old)
    right_new = right_old + shift
    ids, starts, ends = old_spans
    ascii_old = old.isascii()
    ascii_new = new.isascii()
    byte_left = _byte_offset(old, left, ascii_text=ascii_old)
    byte_right_old = _byte_offset(old, right_old, ascii_text=ascii_old)
    byte_right_new = _byte_offset(new, right_new, ascii_text=ascii_new)
    keep_head = bisect_left(starts, byte_left)
    keep_tail = bisect_left(starts, byte_right_old)
    mid_ids, mid_starts, mid_ends = encode_spans(new[left:right_new])
    moved = byte_right_new - byte_right_old
    return (
        ids[:keep_head] + mid_ids + ids[keep_tail:],
        starts[:keep_head]
        + [s + byte_left for s in mid_starts]
        + [s + moved for s in starts[keep_tail:]],
        ends[:keep_head]
        + [e + byte_left for e in mid_ends]
        + [e + moved for e in ends[keep_tail:]],
    )


_BLOCK: Final = 4096


def _byte_offset(text: str, char: int, *, ascii_text: bool) -> int:
    return char if ascii_text else len(text[:char].encode("utf-8"))


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix, comparing blocks (string equality runs in C)."""
    n = min(len(a), len(b))
    i = 0
    while i + _BLOCK <= n and a[i : i + _BLOCK] == b[i : i + _BLOCK]:
        i += _BLOCK
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(a: str, b: str, *, limit: int) -> int:
    """Length of the common suffix, at most ``limit``."""
    la, lb = len(a), len(b)
    i = 0
    while i + _BLOCK <= limit and a[la - i - _BLOCK : la - i] == b[lb - i - _BLOCK : lb - i]:
        i += _BLOCK
    while i < limit and a[la - i - 1] == b[lb - i - 1]:
        i += 1
    return i
