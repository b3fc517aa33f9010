"""Analyses of a chunking given as code-point intervals of one text, in any order and
from any chunker: what each boundary between neighbours repeats or skips, the text no
chunk holds, and which spans (sentences, evidence passages) no single chunk holds whole.

>>> joins([(0, 5), (3, 9), (12, 14)], "abcdefghi   jk")
[Join(after=0, overlap=2, gap=0, gap_blank=True), Join(after=1, overlap=0, gap=3, gap_blank=True)]
>>> holders([(0, 5), (3, 9)], [(1, 4), (2, 8), (4, 9)])
[0, None, 1]
>>> uncovered([(0, 5), (3, 9)], 12)
3
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Join", "holders", "joins", "sorted_spans", "uncovered"]

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Join:
    """The boundary between chunk ``after`` and the next one in the text: ``overlap``
    code points both hold, or ``gap`` code points neither holds (``gap_blank``: only
    whitespace)."""

    after: int
    overlap: int
    gap: int
    gap_blank: bool


def sorted_spans(spans: Sequence[Span | None]) -> list[tuple[int, int, int]]:
    """``(start, end, index)`` of the placed spans, in text order (ties by index)."""
    return sorted((s[0], s[1], i) for i, s in enumerate(spans) if s is not None)


def joins(spans: Sequence[Span | None], text: str) -> list[Join]:
    """Each boundary between neighbours in text order (a span inside the one before it
    shares all of itself)."""
    ordered = sorted_spans(spans)
    out: list[Join] = []
    for (_, e0, i0), (s1, e1, _) in zip(ordered, ordered[1:], strict=False):
        overlap = max(0, min(e0, e1) - s1)
        gap = max(0, s1 - e0)
        out.append(Join(i0, overlap, gap, not text[e0:s1].strip()))
    return out


def uncovered(spans: Sequence[Span | None], length: int) -> int:
    """Code points of ``[0, length)`` no span holds."""
    covered = reach = 0
    for start, end, _ in sorted_spans(spans):
        covered += max(0, end - max(start, reach))
        reach = max(reach, end)
    return length - covered


def holders(spans: Sequence[Span | None], wanted: Sequence[Span]) -> list[int | None]:
    """For each wanted span, a chunk that holds it whole (of those starting at or before
    it, the one reaching furthest, the first in text order on a tie), else ``None``.

    Among the chunks starting at or before the span's start, one holds it when the
    largest end reaches the span's end: a prefix maximum over the sorted starts."""
    ordered = sorted_spans(spans)
    starts = [s for s, _, _ in ordered]
    best_end: list[int] = []
    best_index: list[int] = []
    for _, end, index in ordered:
        if best_end and best_end[-1] >= end:
            best_end.append(best_end[-1])
            best_index.append(best_index[-1])
        else:
            best_end.append(end)
            best_index.append(index)
    out: list[int | None] = []
    for start, end in wanted:
        k = bisect_right(starts, start) - 1
        if k < 0 or best_end[k] < end:
            out.append(None)
            continue
        out.append(best_index[k])
    return out
