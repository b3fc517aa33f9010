"""Code-point intervals as runs of units: the one mapping the evidence check and the
sentence check share.

An interval ``[start, end)`` of code points maps to units ``first .. last``
(inclusive) by one of two rules:

* ``"touched"`` (evidence items, :mod:`.coverage`): every unit that shares a
  character with the interval (for tokens, a UTF-8 byte: a token holding part of a
  character the interval starts or ends in counts). ``first`` is the first unit
  ending after ``start``, ``last`` the last unit starting before ``end``.
* ``"held"`` (sentences, :mod:`.sentences`): the units a window must reach for its
  code-point range to hold the interval, with char offsets of tokens widened to
  whole characters (:class:`~pyapp.core.units.Tokens`). ``first`` is the last unit
  starting at or before ``start``, ``last`` the first unit ending at or after
  ``end``. Intervals must begin and end with a visible character (sentences do).

The two agree for chars, and for words when the interval begins and ends with a
visible character; for tokens they differ only where a token boundary falls inside
the interval's first or last character.

>>> from .units import Tokens, Words
>>> text = "ab cd ef"
>>> unit_ranges(text, Words(text), [(1, 4), (3, 8)], rule="touched")
([0, 1], [1, 2])
>>> text = "a 🦜🦜 b"  # 8 tokens: "a", then 🦜🦜 in bytes over tokens 1 to 6, " b"
>>> tokens = Tokens(text, encoding="o200k_base", backend="tiktoken")
>>> [unit_ranges(text, tokens, [(2, 4)], rule=rule) for rule in ("touched", "held")]
[([1], [6]), ([3], [4])]

(Every token with a byte of the two parrots, against tokens 3 and 4: token 3 is
the last to start within the first parrot, token 4 the first to reach the second.)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Literal

from .units import Chars, Segmentation, Tokens, Words, byte_offsets

__all__ = ["Rule", "unit_ranges"]

Rule = Literal["touched", "held"]


def unit_ranges(
    text: str, seg: Segmentation, intervals: Sequence[tuple[int, int]], *, rule: Rule
) -> tuple[list[int], list[int]]:
    """``(first, last)``: the units of each non-empty interval ``[start, end)`` of
    ``text`` by ``rule`` (see the module docstring)."""
    held = rule == "held"
    if isinstance(seg, Chars):
        return [a for a, _ in intervals], [b - 1 for _, b in intervals]
    if isinstance(seg, Tokens):
        # In bytes: a token starts at or before char a when its first byte is before
        # char a + 1, and reaches char b - 1 when it holds that char's first byte.
        edges = sorted({a + held for a, _ in intervals} | {b - held for _, b in intervals})
        byte_of = dict(zip(edges, byte_offsets(text, edges), strict=True))
        starts = seg.byte_starts()
        if held:
            first = [bisect_left(starts, byte_of[a + 1]) - 1 for a, _ in intervals]
            return first, [bisect_right(starts, byte_of[b - 1]) - 1 for _, b in intervals]
        ends = seg.byte_ends()
        first = [bisect_right(ends, byte_of[a]) for a, _ in intervals]
        return first, [bisect_left(starts, byte_of[b]) - 1 for _, b in intervals]
    if isinstance(seg, Words) and held:
        # Visible edges, each inside a word: that word's index is the number of words
        # starting at or before the edge, minus one (counted without locating words).
        edges = sorted({a for a, _ in intervals} | {b - 1 for _, b in intervals})
        index_of = dict(zip(edges, _word_indexes(text, edges), strict=True))
        return [index_of[a] for a, _ in intervals], [index_of[b - 1] for _, b in intervals]
    if isinstance(seg, Words):
        unit_starts, unit_ends = seg.bounds(seg.count)
    else:  # any other segmentation: from each unit's code points
        spans = [seg.char_span(i, i + 1) for i in range(seg.count)]
        unit_starts, unit_ends = [s for s, _ in spans], [e for _, e in spans]
    if held:
        first = [bisect_right(unit_starts, a) - 1 for a, _ in intervals]
        return first, [bisect_left(unit_ends, b) for _, b in intervals]
    first = [bisect_right(unit_ends, a) for a, _ in intervals]
    return first, [bisect_left(unit_starts, b) - 1 for _, b in intervals]


def _word_indexes(text: str, edges: Sequence[int]) -> list[int]:
    """For sorted offsets of visible characters: the index of the word holding each.

    Counts the words starting in each gap ``(previous, edge]`` with ``str.split``;
    ``text[previous]`` is visible, so the first piece of the gap continues a word
    already counted.

    >>> _word_indexes("ab cd  ef", [0, 1, 3, 8])
    [0, 0, 1, 2]
    """
    out: list[int] = []
    words = 0
    previous = -1
    for edge in edges:
        piece = text[previous + 1 : edge + 1] if previous < 0 else text[previous : edge + 1]
        words += len(piece.split()) - (0 if previous < 0 else 1)
        out.append(words - 1)
        previous = edge
    return out
