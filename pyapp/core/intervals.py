"""Order-free questions about a chunking given as code-point intervals of one text, in
any order and from any chunker (an imported file need not list its chunks in text
order): the spans in text order, and which spans (sentences, evidence passages) no
single chunk holds whole.

>>> holders([(0, 5), (3, 9)], [(1, 4), (2, 8), (4, 9)])
[0, None, 1]
>>> sorted_spans([(3, 9), None, (0, 5)])
[(0, 5, 2), (3, 9, 0)]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["holders", "sorted_spans"]

Span = tuple[int, int]


def sorted_spans(spans: Sequence[Span | None]) -> list[tuple[int, int, int]]:
    """``(start, end, index)`` of the placed spans, in text order (ties by end, then index)."""
    return sorted((s[0], s[1], i) for i, s in enumerate(spans) if s is not None)


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
        out.append(best_index[k] if k >= 0 and best_end[k] >= end else None)
    return out
