"""What would bring a capped configuration under the caps, in figures.

The page lays out at most :data:`~pyapp.facts.MAX_CHUNKS` chunks and
:data:`~pyapp.facts.MAX_PROCESSED_UNITS` processed units. When a configuration is
over either cap, the view's ``capped`` carries ``remedies`` (view only, never in
the export document):

- ``size``: the smallest chunk size at the same overlap (in units) that is under
  both caps, or ``None`` when no size is (more than 200,000 units of text:
  every size processes at least the whole text);
- ``overlap_zero``: whether overlap 0 at the same size is under both caps, or
  ``None`` when the overlap is already 0;
- ``max_units``: the longest text, in units, under both caps at this size and
  overlap.

Both the chunk count and the processed units fall as the size grows (at a fixed
overlap) and grow with the text, so each figure is found by bisection.

>>> remedies(300, size=1, overlap=0)
{'size': 2, 'overlap_zero': None, 'max_units': 256}
>>> remedies(1200, size=8, overlap=4)
{'size': 9, 'overlap_zero': True, 'max_units': 1028}
>>> remedies(250_000, size=5000, overlap=0)["size"] is None
True
"""

from __future__ import annotations

from typing import Any

from ..core.params import Params
from ..core.windows import processed_units, window_count
from ..facts import MAX_CHUNKS, MAX_PROCESSED_UNITS

__all__ = ["caps_over", "remedies", "with_remedies"]


def _fits(units: int, *, size: int, overlap: int) -> bool:
    return (
        window_count(units, size=size, overlap=overlap) <= MAX_CHUNKS
        and processed_units(units, size=size, overlap=overlap) <= MAX_PROCESSED_UNITS
    )


def _smallest_size(units: int, *, size: int, overlap: int) -> int | None:
    if units > MAX_PROCESSED_UNITS:
        return None  # at any size at least the whole text is processed
    low, high = size, max(units, overlap + 1)  # at size >= units: one chunk of `units`
    if _fits(units, size=low, overlap=overlap):
        return low
    while high - low > 1:  # _fits(low) is false, _fits(high) is true
        mid = (low + high) // 2
        if _fits(units, size=mid, overlap=overlap):
            high = mid
        else:
            low = mid
    return high


def _max_units(*, size: int, overlap: int) -> int:
    low, high = 0, size + MAX_CHUNKS * (size - overlap)  # 257 chunks at `high`
    while high - low > 1:  # _fits(low) is true, _fits(high) is false
        mid = (low + high) // 2
        if _fits(mid, size=size, overlap=overlap):
            low = mid
        else:
            high = mid
    return low


def remedies(units: int, *, size: int, overlap: int) -> dict[str, Any]:
    """The figures that would bring ``units`` at ``size``/``overlap`` under the caps."""
    return {
        "size": _smallest_size(units, size=size, overlap=overlap),
        "overlap_zero": _fits(units, size=size, overlap=0) if overlap else None,
        "max_units": _max_units(size=size, overlap=overlap),
    }


def caps_over(units: int, *, size: int, overlap: int) -> list[str]:
    """Every cap ``units`` at ``size``/``overlap`` is over, in the order the export
    names the first (``cap``): a text over 200,000 units is over the processed-units
    cap at any size, and at a small size over the chunk cap as well.

    >>> caps_over(300, size=1, overlap=0), caps_over(200_001, size=500, overlap=0)
    (['chunks'], ['chunks', 'processed_units'])
    """
    return [
        name
        for name, over in (
            ("chunks", window_count(units, size=size, overlap=overlap) > MAX_CHUNKS),
            (
                "processed_units",
                processed_units(units, size=size, overlap=overlap) > MAX_PROCESSED_UNITS,
            ),
        )
        if over
    ]


def with_remedies(
    capped: dict[str, Any] | None, units: int, params: Params
) -> dict[str, Any] | None:
    """The view's ``capped``: the export's, plus ``over`` (every cap hit, for the
    notice's title) and ``remedies`` when a cap was hit (``None`` for a splitter
    without closed forms: what size would do is not arithmetic there, and the page
    then names the general ways out)."""
    if capped is None:
        return None
    size, overlap = params.size, params.overlap
    if params.splitter != "fixed":
        return {**capped, "over": [capped["cap"]], "remedies": None}
    return {
        **capped,
        "over": caps_over(units, size=size, overlap=overlap),
        "remedies": remedies(units, size=size, overlap=overlap),
    }
