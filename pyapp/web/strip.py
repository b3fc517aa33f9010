"""The overview strip: the whole text as one bar per pixel of the strip.

The page says how many pixels wide the strip is (``columns``); the text's code
points are shared out over that many columns, in order, and each column answers
what its bar shows:

- ``from`` / ``to``: the code points ``[from, to)`` it stands for. Column ``c``
  starts at ``c * total // columns``; it ends where the next begins, and always
  holds at least one code point (a text shorter than the strip gives several
  columns the same code point, so every pixel still has a bar);
- ``chunk``: the chunk the bar leads to (a click, or Enter): of the chunks holding
  the column's middle code point, the one that starts last (the chunk whose card
  begins nearest that point), else the first chunk touching the column, else -1
  (text no chunk holds, as whitespace between word chunks);
- ``first`` / ``count``: the chunks that touch the column are ``first .. first +
  count - 1`` (many, when chunks are narrower than a pixel; of nested imported
  chunks, the run from the first to the last that touch it);
- ``shared``: how many of its code points two or more chunks hold (the overlap),
  exactly, which the bar shows as the overlap's share of its height.

Every step is bisection or a ``map`` over the chunking's lists, so a hundred
thousand chunks cost milliseconds, and what the page draws is the strip's width,
never the chunk count.

>>> from ..core.chunkings import Chunking
>>> spans = Chunking("x" * 10, [0, 3, 6], [4, 7, 10])  # chars, size 4, overlap 1
>>> bars = strip(spans, 5)
>>> bars["from"], bars["to"], bars["chunk"], bars["shared"]
([0, 2, 4, 6, 8], [2, 4, 6, 8, 10], [0, 0, 1, 2, 2], [0, 1, 0, 1, 0])
>>> bars["first"], bars["count"]
([0, 0, 1, 1, 2], [1, 2, 1, 2, 1])
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate, repeat
from typing import Any
from weakref import WeakKeyDictionary

from ..core.chunkings import Chunking, FixedWindows

__all__ = ["ordered_chunking", "shared_before", "strip"]

JSON = dict[str, Any]


def ordered_chunking(chunking: Chunking) -> bool:
    """Whether starts and ends never decrease (a fixed window's always do)."""
    return isinstance(chunking, FixedWindows) or chunking.in_order


#: The last few chunkings' overlap pieces (a resized strip asks again for the same one).
_pieces: WeakKeyDictionary[Chunking, tuple[list[int], list[int], list[int]]] = WeakKeyDictionary()


def _overlap_pieces(chunking: Chunking) -> tuple[list[int], list[int], list[int]]:
    """The code points two or more chunks hold, as disjoint sorted pieces ``[L[i], R[i])``
    (some empty) and the running total of their lengths before each.

    In order (starts and ends never decrease), a code point is held by two chunks
    exactly when it lies in ``[cs[k], ce[k - 1])`` for some ``k``; those intervals'
    starts and ends never decrease either, so the part of each not covered by the
    next is ``[cs[k], min(ce[k - 1], cs[k + 1]))``, and these pieces are disjoint.
    Out of order (an imported chunks file), a sweep over every start and end.
    """
    known = _pieces.get(chunking)
    if known is not None:
        return known
    cs, ce = chunking.char_starts, chunking.char_ends
    if len(cs) < 2:
        left, right = [], []
    elif ordered_chunking(chunking):
        left = cs[1:]
        right = [e if e < s else s for e, s in zip(ce, [*cs[2:], ce[-2]], strict=False)]
    else:
        left, right = _swept(cs, ce)
    lengths = [b - a if b > a else 0 for a, b in zip(left, right, strict=True)]
    _pieces[chunking] = out = (left, right, list(accumulate(lengths, initial=0)))
    return out


def _swept(cs: list[int], ce: list[int]) -> tuple[list[int], list[int]]:
    """Where two or more of the spans ``[cs[k], ce[k])`` overlap, as sorted pieces."""
    events = sorted([(a, 1) for a in cs] + [(b, -1) for b in ce])
    left: list[int] = []
    right: list[int] = []
    depth = 0
    for at, step in events:
        if depth >= 2 and depth + step < 2:
            right.append(at)
        elif depth < 2 <= depth + step:
            left.append(at)
        depth += step
    return left, right


def shared_before(pieces: tuple[list[int], list[int], list[int]], x: int) -> int:
    """How many code points before ``x`` two or more chunks hold.

    >>> pieces = _overlap_pieces(Chunking("x" * 10, [0, 3, 6], [4, 7, 10]))
    >>> [shared_before(pieces, x) for x in (0, 3, 4, 6, 7, 10)]
    [0, 0, 1, 1, 2, 2]
    """
    left, right, before = pieces
    j = bisect_right(left, x) - 1
    if j < 0:
        return 0
    return before[j] + max(0, min(x, right[j]) - left[j])


def strip(chunking: Chunking, columns: int) -> JSON:
    """The strip's ``columns`` bars over ``chunking``'s text (see the module's docstring);
    ``total_chars`` is the text's length. No text, no bars.

    >>> strip(Chunking("ab", [0], [2]), 4)["from"]  # a short text: a code point a bar or more
    [0, 0, 1, 1]
    >>> strip(Chunking("", [], []), 4)["from"]
    []
    """
    total = len(chunking.text)
    cs, ce = chunking.char_starts, chunking.char_ends
    if total == 0 or columns < 1:
        empty: list[int] = []
        return {"total_chars": total, "columns": 0, "from": empty, "to": [], "chunk": [],
                "first": [], "count": [], "shared": []}  # fmt: skip
    starts = [c * total // columns for c in range(columns)]
    ends = [max(a + 1, b) for a, b in zip(starts, [*starts[1:], total], strict=True)]
    middles = [(a + b - 1) // 2 for a, b in zip(starts, ends, strict=True)]
    if ordered_chunking(chunking):
        lo = list(map(bisect_right, repeat(ce), starts))  # the first chunk ending after `from`
        hi = list(map(bisect_left, repeat(cs), ends))  # past the last starting before `to`
        held_lo = map(bisect_right, repeat(ce), middles)
        held_hi = map(bisect_right, repeat(cs), middles)  # the last holder starts latest
        chunk = [
            h - 1 if g < h else (a if a < b else -1)
            for a, b, g, h in zip(lo, hi, held_lo, held_hi, strict=True)
        ]
    else:
        lo, hi, chunk = _unordered(cs, ce, starts, ends, middles)
    pieces = _overlap_pieces(chunking)
    return {
        "total_chars": total,
        "columns": columns,
        "from": starts,
        "to": ends,
        "chunk": chunk,
        "first": [a if a < b else -1 for a, b in zip(lo, hi, strict=True)],
        "count": [max(0, b - a) for a, b in zip(lo, hi, strict=True)],
        "shared": [
            shared_before(pieces, b) - shared_before(pieces, a)
            for a, b in zip(starts, ends, strict=True)
        ],
    }


def _unordered(
    cs: list[int], ce: list[int], starts: list[int], ends: list[int], middles: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """:func:`strip`'s ``first``, its stop and ``chunk`` for chunks out of order (an
    imported file whose chunks nest): each column looks at every chunk."""
    lo: list[int] = []
    hi: list[int] = []
    chunk: list[int] = []
    n = len(cs)
    for a, b, m in zip(starts, ends, middles, strict=True):
        touch = [k for k in range(n) if cs[k] < b and a < ce[k]]
        held = [k for k in range(n) if cs[k] <= m < ce[k]]
        lo.append(touch[0] if touch else n)
        hi.append(touch[-1] + 1 if touch else n)
        if held:
            chunk.append(max(held, key=lambda k: (cs[k], k)))
        else:
            chunk.append(touch[0] if touch else -1)
    return lo, hi, chunk
