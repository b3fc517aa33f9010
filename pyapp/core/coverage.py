"""Which windows hold each evidence item whole, and the smallest overlap that keeps all of them.

**Units an item needs.** An item ``[start, end)`` of code points needs every unit
it *touches*, meaning every unit that shares at least one character with it:

* ``char``: the code points ``start .. end - 1``;
* ``word``: the words (``\\S+`` runs) that overlap the interval by at least one
  character, so a word cut by either end counts whole. Whitespace is no unit: an
  interval's whitespace before its first word, between its words and after its
  last word needs nothing more (an item of only whitespace is refused when it is
  read);
* ``token``: the tokens sharing at least one UTF-8 byte with the interval. A token
  holding part of a character the interval starts or ends in counts (char
  offsets of tokens are widened to whole characters, see
  :class:`~pyapp.core.units.Tokens`).

So an item needs units ``[a, b]`` (``first``, ``last``, inclusive), ``b - a + 1``
units long, never empty.

**Whole and split.** Window ``k`` is ``[kS, min(kS + C, U))`` (stride ``S = C - O``,
``N`` windows). It holds the item whole when it contains all of ``[a, b]``:
``kS <= a`` and ``b < kS + C``. So the windows holding it are the ``k`` with
``ceil((b - C + 1) / S) <= k <= floor(a / S)`` (and ``0 <= k < N``), the windows it
touches are ``ceil((a - C + 1) / S) <= k <= floor(b / S)``: both are runs of
consecutive windows, found in ``O(1)``. An item is *split* when no window holds it.

The last window changes nothing: if a window start ``mS`` past the last one lay in
``[b - C + 1, a]``, the last start ``(N - 1)S`` would too (it is at least
``U - C >= b - C + 1`` and below ``mS <= a``). Hence, with ``D = C - L``
(``L = b - a + 1``): **the item is whole exactly when** ``a mod S <= min(a, D)``
(never when ``L > C``).

**The smallest overlap** (:func:`min_overlap`) that keeps every item whole is
found exactly from that rule. An item with ``a <= D`` is whole at every
overlap. For another, the strides that keep it whole are, for each quotient
``q = floor(a / S)``, the top of that block: ``ceil((a - D) / q) <= S <= floor(a / q)``.
Starting at ``S = C`` and only ever moving down, each item in turn lowers ``S``
to its largest good stride at or below ``S``, which skips only strides that item
cannot use; a heap on the bottom of each item's current good range says which
items must move again. It stops when every item is whole, at the largest such
stride, so the smallest overlap. Each item crosses at most ``O(sqrt(a))``
blocks, so a thousand items over a megabyte take milliseconds. A larger overlap
does not necessarily keep them whole too: the windows move.

>>> from .units import Chars
>>> text = "abcdefghijklmnopqrst"  # 20 units, reference 002's sequence
>>> units = item_units(text, Chars(text), [(5, 9), (6, 12)])
>>> [whole_range(a, b, units=20, size=8, overlap=2) for a, b in units.spans]
[None, (1, 1)]
>>> [touch_range(a, b, units=20, size=8, overlap=2) for a, b in units.spans]
[(0, 1), (0, 1)]
>>> min_overlap(units.first[:1], units.last[:1], size=8)
3
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from .unit_ranges import unit_ranges
from .units import Segmentation
from .windows import window_count

__all__ = [
    "ItemUnits",
    "count_whole",
    "is_whole",
    "item_units",
    "min_overlap",
    "touch_range",
    "whole_range",
]


@dataclass(frozen=True, slots=True)
class ItemUnits:
    """The units each item needs: ``first[i] .. last[i]`` inclusive, of ``units`` in all."""

    first: list[int]
    last: list[int]
    units: int

    @property
    def spans(self) -> list[tuple[int, int]]:
        return list(zip(self.first, self.last, strict=True))


def item_units(text: str, seg: Segmentation, intervals: Sequence[tuple[int, int]]) -> ItemUnits:
    """Map code-point intervals ``[start, end)`` (non-empty, inside ``text``, not only
    whitespace) to the units they touch, by the rule in the module docstring."""
    first, last = unit_ranges(text, seg, intervals, rule="touched")
    return ItemUnits(first, last, seg.count)


def whole_range(a: int, b: int, *, units: int, size: int, overlap: int) -> tuple[int, int] | None:
    """The first and last window (inclusive) holding units ``[a, b]`` whole, or ``None``."""
    stride = size - overlap
    n = window_count(units, size=size, overlap=overlap)
    lo = max(0, -((size - 1 - b) // stride))  # ceil((b - C + 1) / S)
    hi = min(n - 1, a // stride)
    return (lo, hi) if lo <= hi else None


def touch_range(a: int, b: int, *, units: int, size: int, overlap: int) -> tuple[int, int]:
    """The first and last window (inclusive) sharing a unit with ``[a, b]``."""
    stride = size - overlap
    n = window_count(units, size=size, overlap=overlap)
    lo = max(0, -((size - 1 - a) // stride))  # ceil((a - C + 1) / S)
    return lo, min(n - 1, b // stride)


def is_whole(a: int, b: int, *, size: int, overlap: int) -> bool:
    """Whether some window holds ``[a, b]`` whole: ``a mod S <= min(a, C - L)``.

    >>> is_whole(5, 8, size=8, overlap=2), is_whole(5, 8, size=8, overlap=3)
    (False, True)
    """
    return a - a % (size - overlap) >= b - size + 1


def count_whole(first: Sequence[int], last: Sequence[int], *, size: int, overlap: int) -> int:
    """How many of the items are whole (``O(items)``, no window built)."""
    stride = size - overlap
    reach = size - 1
    return sum(a - a % stride >= b - reach for a, b in zip(first, last, strict=True))


def _largest_good(a: int, slack: int, stride: int) -> int:
    """The largest stride ``<= stride`` with ``a mod stride <= slack`` (``0 <= slack < a``).

    A bad stride lies below the good top of its block ``q = a // stride``, so the
    next candidate is the top of the next block, ``a // (q + 1)``; every stride up
    to ``slack + 1`` is good, so this ends.
    """
    while a % stride > slack:
        stride = a // (a // stride + 1)
    return stride


def _good_floor(a: int, slack: int, stride: int) -> int:
    """The smallest stride of the good run holding ``stride`` (a good one):
    ``ceil((a - slack) / q)`` with ``q = a // stride``."""
    return -(-(a - slack) // (a // stride))


def min_overlap(first: Sequence[int], last: Sequence[int], *, size: int) -> int | None:
    """The smallest overlap below ``size`` at which every item ``[first[i], last[i]]``
    is whole, or ``None`` when an item is longer than ``size`` (see the module
    docstring for the method).

    >>> min_overlap([5], [8], size=8), min_overlap([5], [13], size=8)
    (3, None)
    >>> min_overlap([0, 3], [7, 4], size=8)
    0
    """
    stride = size
    pending: list[tuple[int, int]] = []  # (a, slack) of the items not whole at every stride
    for a, b in zip(first, last, strict=True):
        slack = size - (b - a + 1)
        if slack < 0:
            return None
        if a > slack:
            pending.append((a, slack))
    heap: list[tuple[int, int]] = []  # (-bottom of the item's good run, item)
    for index, (a, slack) in enumerate(pending):
        stride = _largest_good(a, slack, stride)
        heap.append((-_good_floor(a, slack, stride), index))
    heapq.heapify(heap)
    while heap and -heap[0][0] > stride:
        _, index = heapq.heappop(heap)
        a, slack = pending[index]
        stride = _largest_good(a, slack, stride)
        heapq.heappush(heap, (-_good_floor(a, slack, stride), index))
    return size - stride
