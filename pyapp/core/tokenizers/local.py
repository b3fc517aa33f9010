"""Encoding by local work: where a tokenizer's pieces must break, whatever came before.

Every encoding here splits the text into pieces before it merges (a regex
pre-tokenizer for the BPE encodings, whitespace and punctuation for WordPiece),
and a piece is encoded on its own. Some places are a piece boundary in *every*
scan that reaches them, whatever the text before or after them (a *safe place*
``p``: the boundary is before ``text[p]``):

* **BPE** (o200k_base, cl100k_base, llama3, qwen2, tekken), two rules:

  1. *After a letter*: ``text[p - 1]`` is a letter of a plain script (ASCII, CJK
     ideographs, kana, hangul syllables) and ``text[p]`` is not a letter, mark or
     apostrophe: an ASCII digit, space, punctuation or line break, or CJK
     punctuation (``，。、「」``...). The piece holding the letter is a letter piece
     (letters and marks after at most one other character, then maybe a
     contraction that begins with ``'``) or a contraction, and it cannot take
     ``text[p]``.
  2. *After a line break*: ``text[p - 1]`` is ``\n`` and what follows is spaces or
     tabs and then anything but whitespace, or at once a plain character (ASCII
     but ``/``, CJK, kana, hangul). No piece holds a line break followed by such a
     character: a letter piece never holds a line break, a punctuation piece only
     ends with line breaks (o200k_base and tekken also take ``/``), and a
     whitespace piece that holds the line break ends at it, or at a later line
     break of the same run of whitespace, and these runs have none.

  None of these patterns looks behind, so the text after a safe place is split
  exactly as if it began there; and the text before it is split as if it ended
  there (the place's characters decide every match that could reach it, the same
  way at the end of the text). Every character a rule reads is ASCII or from a
  block NFC never changes nor joins to the one before, so qwen2's NFC never works
  across a safe place either.
* **WordPiece** (bert-base-uncased): an ASCII space or line break, which only
  separates words, or a CJK ideograph, which is a word of its own.

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

#: Kana, CJK ideographs and hangul syllables: letters (every pattern's \p{L}) that NFC
#: never changes nor joins to the character before.
_CJK: Final = r"\u3041-\u3096\u30a1-\u30fa\u4e00-\u9fa5\uac00-\ud7a3"
_LETTER: Final = "A-Za-z" + _CJK
#: What no letter piece takes after a letter: ASCII but letters and the apostrophe,
#: CJK and full-width punctuation (neither letters nor marks; NFC leaves them alone).
_AFTER_LETTER: Final = (
    r"\x00-\x26\x28-\x40\x5b-\x60\x7b-\x7f"
    r"\u3001-\u3003\u3008-\u3011\uff01-\uff06\uff08-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
)
#: A plain character to begin a line with: ASCII but whitespace and ``/``, CJK.
_LINE_START: Final = r"!-.0-~\u3001-\u3003\u3008-\u3011" + _CJK
#: BPE safe places (the match begins at the place; it holds every character the
#: rule reads after it, so a search that ends at ``hi`` reads nothing from ``hi`` on).
_BPE_SAFE: Final = re.compile(
    rf"(?<=[{_LETTER}])[{_AFTER_LETTER}]"  # 1. after a letter
    rf"|(?<=\n)(?:[ \t]+\S|[{_LINE_START}])"  # 2. after a line break
)
#: WordPiece safe places: an ASCII space or line break, a CJK ideograph.
_WORDPIECE_SAFE: Final = re.compile(r"[ \n\u4e00-\u9fa5]")

#: ``(ids, starts, ends)``: token ids and each token's UTF-8 byte range in the text.
Spans = tuple[list[int], list[int], list[int]]


def _pattern(encoding: str) -> re.Pattern[str]:
    return _WORDPIECE_SAFE if encoding == "bert-base-uncased" else _BPE_SAFE


def safe_after(text: str, lo: int, hi: int, encoding: str) -> int | None:
    """The first safe place ``p`` with ``lo < p`` whose rule reads only characters of
    ``[lo, hi)``, or ``None``."""
    if hi - lo <= 2:
        return None
    # From lo + 1, the lookbehind sees text[lo]; a search up to hi reads nothing from hi.
    match = _pattern(encoding).search(text, lo + 1, hi)
    return match.start() if match is not None else None


def safe_before(text: str, lo: int, hi: int, encoding: str) -> int | None:
    """The last safe place ``p`` with ``lo < p`` whose rule reads only characters of
    ``[lo, hi)``, or ``None``.

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
    byte_left = left if old.isascii() else len(old[:left].encode("utf-8"))
    middle = new[left:right_new]
    middle_bytes = len(middle) if middle.isascii() else len(middle.encode("utf-8"))
    replaced = old[left:right_old]
    replaced_bytes = len(replaced) if replaced.isascii() else len(replaced.encode("utf-8"))
    keep_head = bisect_left(starts, byte_left)
    keep_tail = bisect_left(starts, byte_left + replaced_bytes)
    mid_ids, mid_starts, mid_ends = encode_spans(middle)
    moved = middle_bytes - replaced_bytes
    return (
        ids[:keep_head] + mid_ids + ids[keep_tail:],
        _joined(starts, keep_head, mid_starts, byte_left, keep_tail, moved),
        _joined(ends, keep_head, mid_ends, byte_left, keep_tail, moved),
    )


def _joined(
    old: list[int], head: int, middle: list[int], at: int, tail: int, moved: int
) -> list[int]:
    """``old[:head]``, then ``middle`` shifted by ``at``, then ``old[tail:]`` shifted by
    ``moved`` (the shifts in C loops: a megabyte has some 200,000 tokens)."""
    out = old[:head]
    out.extend(map(at.__add__, middle))
    out.extend(map(moved.__add__, old[tail:]) if moved else old[tail:])
    return out


_BLOCK: Final = 4096


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
