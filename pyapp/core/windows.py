"""Fixed windows over a sequence of ``U`` units: half-open, stride ``S = C - O``.

The first window starts at 0 and each next one starts ``S`` later; the walk
stops as soon as a window reaches the end, so no tail window is pure overlap.

>>> spans(20, size=8, overlap=2)
[(0, 8), (6, 14), (12, 20)]
>>> spans(0, size=8, overlap=2), spans(8, size=8, overlap=2)
([], [(0, 8)])
>>> window_count(1500, size=512, overlap=76)
4
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["iter_spans", "processed_units", "repeated_units", "spans", "window_count"]


def window_count(units: int, *, size: int, overlap: int) -> int:
    """``0`` for empty input, else ``1 + ceil(max(0, U - C) / S)``."""
    if units <= 0:
        return 0
    stride = size - overlap
    return 1 + -(-max(0, units - size) // stride)


def repeated_units(units: int, *, size: int, overlap: int) -> int:
    """Units held by two consecutive windows: ``(N - 1) * O``.

    Every window after the first is longer than ``O`` (the one before it did not
    reach the end), so each repeats exactly ``O`` units.
    """
    n = window_count(units, size=size, overlap=overlap)
    return max(0, n - 1) * overlap


def processed_units(units: int, *, size: int, overlap: int) -> int:
    """The sum of the window lengths: ``U + (N - 1) * O``."""
    return units + repeated_units(units, size=size, overlap=overlap)


def iter_spans(units: int, *, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` for each window, in order."""
    stride = size - overlap
    start = 0
    while start < units:
        end = min(start + size, units)
        yield start, end
        if end == units:
            return
        start += stride


def spans(units: int, *, size: int, overlap: int) -> list[tuple[int, int]]:
    """All windows as a list (see :func:`iter_spans`)."""
    return list(iter_spans(units, size=size, overlap=overlap))
