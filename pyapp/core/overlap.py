"""The overlap each boundary of a chunking really got, and its summary.

A *boundary* lies between two neighbouring chunks ``k - 1`` and ``k``. It got:

* ``overlap``: the text both chunks hold, measured in the chunking's unit (0 when
  they merely touch, or when a gap lies between them);
* ``overlap_chars``: the same in code points;
* ``gap``: the code points between them that no chunk holds, whitespace not
  counted (a splitter strips whitespace at chunk edges; a dropped separator that
  is not whitespace is a gap).

The summary: the overlap asked for, the produced overlap's minimum, median and
maximum, how many boundaries got none, how many got less than asked, how many
chunks are longer than the size, and the code points (not whitespace) that no
chunk holds. For the fixed window every boundary gets exactly the overlap asked
for, no chunk is longer than the size and nothing is left out: the closed forms
below, held to a brute force over the intervals by the tests.

>>> from .chunkings import Chunking
>>> figures = overlap_figures(Chunking("abcdefghij", [0, 3, 7], [5, 7, 10]), requested=2, size=5)
>>> figures.produced_min, figures.produced_median, figures.produced_max, figures.no_overlap
(0, Fraction(1, 1), 2, 1)
>>> figures.short, figures.over_size, figures.uncovered
(1, 0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..figures import number
from .chunkings import Chunking, FixedWindows

__all__ = ["OverlapFigures", "boundaries_list", "overlap_figures"]


@dataclass(frozen=True, slots=True, kw_only=True)
class OverlapFigures:
    requested: int
    size: int
    boundaries: int
    #: ``None`` when there is no boundary (one chunk or none).
    produced_min: int | None
    produced_median: Fraction | None
    produced_max: int | None
    no_overlap: int
    #: Boundaries that got less than the overlap asked for.
    short: int
    #: Chunks longer than the size (LangChain's "Created a chunk of size ..." case).
    over_size: int
    #: Code points, not whitespace, that no chunk holds.
    uncovered: int

    def to_json(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "boundaries": self.boundaries,
            "produced_min": self.produced_min,
            "produced_median": number(self.produced_median),
            "produced_max": self.produced_max,
            "no_overlap": self.no_overlap,
            "short": self.short,
            "over_size": self.over_size,
            "uncovered": self.uncovered,
        }


def _median(values: list[int]) -> Fraction | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return Fraction(ordered[mid])
    return Fraction(ordered[mid - 1] + ordered[mid], 2)


def overlap_figures(chunking: Chunking, *, requested: int, size: int) -> OverlapFigures:
    """The summary of what every boundary of ``chunking`` got."""
    if isinstance(chunking, FixedWindows):
        boundaries = max(0, chunking.count - 1)
        some = boundaries > 0
        return OverlapFigures(
            requested=requested,
            size=size,
            boundaries=boundaries,
            produced_min=chunking.params.overlap if some else None,
            produced_median=Fraction(chunking.params.overlap) if some else None,
            produced_max=chunking.params.overlap if some else None,
            no_overlap=boundaries if chunking.params.overlap == 0 else 0,
            short=boundaries if chunking.params.overlap < requested else 0,
            over_size=0,
            uncovered=chunking.uncovered(),
        )
    overlaps = chunking.overlaps
    return OverlapFigures(
        requested=requested,
        size=size,
        boundaries=len(overlaps),
        produced_min=min(overlaps, default=None),
        produced_median=_median(overlaps),
        produced_max=max(overlaps, default=None),
        no_overlap=sum(1 for n in overlaps if n == 0),
        short=sum(1 for n in overlaps if n < requested),
        over_size=sum(1 for n in chunking.lengths if n > size),
        uncovered=chunking.uncovered(),
    )


def boundaries_list(chunking: Chunking) -> list[dict[str, int]]:
    """Every boundary: ``{"after", "overlap", "overlap_chars", "gap"}`` (``after``: the
    index of the chunk before it)."""
    cs, ce = chunking.char_starts, chunking.char_ends
    overlaps, gaps = chunking.overlaps, chunking.gaps
    return [
        {
            "after": k - 1,
            "overlap": overlaps[k - 1],
            "overlap_chars": max(0, min(ce[k - 1], ce[k]) - max(cs[k - 1], cs[k])),
            "gap": gaps[k - 1],
        }
        for k in range(1, len(cs))
    ]
