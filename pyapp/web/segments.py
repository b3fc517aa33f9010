"""The text view: the text shown once, cut where the chunks that hold it change.

A **segment** is a maximal run of code points held by the same set of chunks.
Windows have non-decreasing starts and ends, so the chunks holding a code point
``p`` are always one run of indices: from the first window ending after ``p`` to
the last window starting at or before it (none, for whitespace between two
word-mode chunks at overlap 0). A segment is written ``(start, end, first, count)``:
code points ``[start, end)`` (after a leading byte-order mark, as every offset),
held by chunks ``first .. first + count - 1``.

>>> from ..core.params import parse_params
>>> text = "one two three four five"
>>> spans = window_spans(text, parse_params(unit="word", size=2, overlap=1))
>>> [(text[a:b], first, count) for a, b, first, count in segments(spans, 0, len(text))]
... # doctest: +NORMALIZE_WHITESPACE
[('one ', 0, 1), ('two', 0, 2), (' ', 1, 1), ('three', 1, 2), (' ', 2, 1), ('four', 2, 2),
 (' five', 3, 1)]
>>> spans = window_spans(text, parse_params(unit="word", size=2, overlap=0))
>>> [(text[a:b], count) for a, b, _, count in segments(spans, 0, len(text))]
[('one two', 1), (' ', 0), ('three four', 1), (' ', 0), ('five', 1)]

The page asks for one range of code points at a time (a whole text under
:data:`~pyapp.facts.TEXT_VIEW_WHOLE` code points, else the pages near what it
shows), so a megabyte cut into a hundred thousand chunks costs only what is seen.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import repeat
from operator import sub
from typing import Any, Final

from ..core.cache import per_text
from ..core.chunking import check_size
from ..core.chunkings import Chunking, FixedWindows, chunking_of
from ..core.lens import cut_of, lens_of_params
from ..core.params import Params
from ..core.units import strip_bom
from ..facts import TEXT_VIEW_PAGE, TEXT_VIEW_WHOLE

__all__ = [
    "blocks",
    "pages",
    "segment_lists",
    "segments",
    "segments_view",
    "window_spans",
]

JSON = dict[str, Any]

#: Whitespace a page may end after, when no line break is near.
_SPACE: Final = re.compile(r"\s")


def window_spans(text: str, params: Params) -> Chunking:
    """The chunking whose spans the text view cuts at (``text`` without a leading
    byte-order mark; kept per text and configuration)."""
    return chunking_of(text, params)


def segment_lists(spans: Chunking, start: int, stop: int) -> tuple[list[int], list[int], list[int]]:
    """The segments of code points ``[start, stop)`` as three lists: ``bounds``
    (where each begins, then ``stop``), ``first`` and ``count``; the first and last
    segments are cut at ``start`` and ``stop``. Every step runs in C (bisection,
    sorting, ``map``): a hundred thousand segments take milliseconds.
    """
    if start >= stop:
        return [start], [], []
    cs, ce = spans.char_starts, spans.char_ends
    lo = bisect_right(ce, start)  # windows [lo, hi) touch [start, stop)
    hi = bisect_left(cs, stop)
    starting = cs[bisect_right(cs, start, lo, hi) : hi]  # start < p < stop
    ending = ce[lo : bisect_left(ce, stop, lo, hi)]  # start < p < stop
    bounds = [start, *sorted(set(starting + ending)), stop]
    heads = bounds[:-1]
    first = list(map(bisect_right, repeat(ce), heads))  # windows ending at or before p
    after = list(map(bisect_right, repeat(cs), heads))  # windows starting at or before p
    return bounds, first, list(map(sub, after, first))


def segments(spans: Chunking, start: int, stop: int) -> Iterator[tuple[int, int, int, int]]:
    """The segments of code points ``[start, stop)``, in order, as ``(start, end,
    first, count)`` (:func:`segment_lists`, one tuple each).

    >>> spans = Chunking("x" * 10, [0, 3, 6], [4, 7, 10])  # chars, size 4, overlap 1
    >>> list(segments(spans, 2, 8))
    [(2, 3, 0, 1), (3, 4, 0, 2), (4, 6, 1, 1), (6, 7, 1, 2), (7, 8, 2, 1)]
    """
    bounds, first, count = segment_lists(spans, start, stop)
    return zip(bounds, bounds[1:], first, count, strict=False)


@per_text
def pages(text: str) -> list[int]:
    """Where the text view's pages begin, and the text's length last. A page is at
    least :data:`~pyapp.facts.TEXT_VIEW_PAGE` code points and ends just after a line
    break when one comes within three pages more (a page then starts a line, as it
    would anyway); else just after whitespace within half a page (the line only
    ends early); else where it reaches four pages.

    >>> pages(""), pages("short")
    ([0], [0, 5])
    >>> edges = pages(("x" * 2100 + "\\n") * 3)
    >>> edges, edges[1] % 2101
    ([0, 2101, 4202, 6303], 0)
    >>> pages("word " * 1000)[1]  # no line break: after the first space from 1,024 on
    1025
    """
    out = [0]
    length = len(text)
    at = TEXT_VIEW_PAGE
    while at < length:
        line = text.find("\n", at - 1, at + 3 * TEXT_VIEW_PAGE)
        if line >= 0:
            edge = line + 1
        else:
            space = _SPACE.search(text, at - 1, at + TEXT_VIEW_PAGE // 2)
            edge = space.end() if space else min(at + 3 * TEXT_VIEW_PAGE, length)
        if edge >= length:
            break
        out.append(edge)
        at = edge + TEXT_VIEW_PAGE
    if length:
        out.append(length)
    return out


def blocks(text: str, bounds: list[int]) -> list[int]:
    """A whole text's blocks, for the text view to draw it whole: where each begins (a
    segment's start, from ``bounds``), then the text's end. A block holds whole
    segments and at least :data:`~pyapp.facts.TEXT_VIEW_PAGE` code points, and ends
    after the first segment that ends in a line break (the next block then starts a
    line, as the text does); past three pages, after one that ends in whitespace (a
    line only ends early); past four, after any. Separate blocks keep each layout
    small and let the browser skip the ones out of sight.

    >>> page = TEXT_VIEW_PAGE
    >>> text = "x" * (page + 5) + "\\n" + "y" * 10
    >>> blocks(text, [0, page - 1, page + 3, page + 6, len(text)])  # the line break wins
    [0, 1030, 1040]
    >>> blocks("abc", [0, 1, 3]), blocks("", [0])
    ([0, 3], [0])
    """
    length = len(text)
    edges = [0]
    for k in range(1, len(bounds) - 1):
        at = bounds[k]
        size = at - edges[-1]
        if size < TEXT_VIEW_PAGE:
            continue
        before = text[at - 1]
        if (
            before == "\n"
            or (size >= 3 * TEXT_VIEW_PAGE and _SPACE.match(before))
            or size >= 4 * TEXT_VIEW_PAGE
        ):
            edges.append(at)
    if length:
        edges.append(length)
    return edges


def segments_view(
    text: str, params: Params, *, page: int = 0, pages_wanted: int | None = None
) -> JSON:
    """The ``segments`` op's answer for pages ``page .. page + pages_wanted - 1`` of
    the text (:func:`pages`; all of them by default, as many as fit in
    :data:`~pyapp.facts.TEXT_VIEW_WHOLE` code points): the segments of those code
    points ``[from, to)``, the windows that touch them, and every page's start; when
    they are the whole text, its :func:`blocks` too (the page draws a short text whole).

    >>> from ..core.params import parse_params
    >>> view = segments_view("ab cd ef", parse_params(unit="word", size=1))
    >>> view["segments"]
    {'bounds': [0, 2, 3, 5, 6, 8], 'first': [0, 1, 1, 2, 2], 'count': [1, 0, 1, 0, 1]}
    >>> view["windows"]["char_starts"], view["windows"]["ends"]
    ([0, 3, 6], [1, 2, 3])
    """
    text, bom_removed = strip_bom(text)
    check_size(text)  # over the limit or with a lone surrogate: refused, as by every op
    length = len(text)
    edges = pages(text)
    last = len(edges) - 1  # the number of pages
    page = min(page, last)
    stop_page = last if pages_wanted is None else min(last, page + pages_wanted)
    while stop_page > page + 1 and edges[stop_page] - edges[page] > TEXT_VIEW_WHOLE:
        stop_page -= 1
    start, stop = edges[page], edges[stop_page]
    spans = window_spans(text, params)
    bounds, first, count = segment_lists(spans, start, stop)
    lo = bisect_right(spans.char_ends, start)  # the windows ending at or before `start`
    hi = max(lo, bisect_left(spans.char_starts, stop)) if stop > start else lo
    starts, ends = spans.unit_range(lo, hi)
    short = short_boundaries(spans, params.overlap, max(lo, 1), hi)
    dropped = dropped_tails(text, spans, params, lo, hi)
    if dropped is not None:
        bounds, first, count = _split_at(bounds, first, count, dropped["at"])
    return {
        "total_chars": length,
        "chunks": spans.count,
        "bom_removed": bom_removed,
        "page": page,
        "pages": stop_page - page,
        "from": start,
        "to": stop,
        "page_starts": edges,
        "windows": {
            "first": lo,
            "starts": starts,
            "ends": ends,
            "char_starts": spans.char_starts[lo:hi],
            "char_ends": spans.char_ends[lo:hi],
        },
        "segments": {"bounds": bounds, "first": first, "count": count},
        **({"blocks": blocks(text, bounds)} if start == 0 and stop == length else {}),
        "short_boundaries": short,
        **({} if dropped is None else {"model_dropped": dropped}),
    }


def dropped_tails(
    text: str, chunking: Chunking, params: Params, first: int, stop: int
) -> JSON | None:
    """With a model chosen (:func:`~pyapp.core.lens.lens_of_params`), the tails of
    chunks ``first .. stop - 1`` that it never reads: chunk ``chunk[i]``'s input ends
    at code point ``at[i]`` and its tail runs to ``end[i]``. ``None`` with no model.

    >>> from ..core.params import parse_params
    >>> p = parse_params(unit="char", size=600, model="all-MiniLM-L6-v2", max_tokens=5)
    >>> text = "one two three four. five six"
    >>> dropped_tails(text, chunking_of(text, p), p, 0, 1)
    {'model': 'all-MiniLM-L6-v2', 'at': [13], 'end': [28], 'chunk': [0]}
    """
    lens = lens_of_params(params)
    if lens is None:
        return None
    at: list[int] = []
    end: list[int] = []
    chunk: list[int] = []
    starts, ends = chunking.char_starts, chunking.char_ends
    for k in range(first, stop):
        cut = cut_of(text, starts[k], ends[k], lens)
        if cut is not None and cut < ends[k]:
            at.append(cut)
            end.append(ends[k])
            chunk.append(k)
    return {"model": lens.name, "at": at, "end": end, "chunk": chunk}


def _split_at(
    bounds: list[int], first: list[int], count: list[int], cuts: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """The segments split at each cut inside one (both halves held by the same chunks),
    so a dropped tail starts on a segment's edge.

    >>> _split_at([0, 4, 8], [0, 0], [1, 2], [2, 4, 6])
    ([0, 2, 4, 6, 8], [0, 0, 0, 0], [1, 1, 2, 2])
    """
    b, f, c = list(bounds), list(first), list(count)
    for cut in sorted(set(cuts)):
        s = bisect_right(b, cut) - 1
        if 0 <= s < len(f) and b[s] < cut < b[s + 1]:
            b.insert(s + 1, cut)
            f.insert(s + 1, f[s])
            c.insert(s + 1, c[s])
    return b, f, c


def short_boundaries(chunking: Chunking, requested: int, first: int, stop: int) -> JSON:
    """The boundaries before chunks ``first .. stop - 1`` that got less overlap than
    ``requested``: where the later chunk starts (``at``, a code point) and what it got
    (``overlap``, in units). The text view marks them. A fixed window's never do.

    >>> short_boundaries(Chunking("abcdefgh", [0, 4, 5], [5, 8, 8]), 2, 1, 3)
    {'at': [4], 'overlap': [1]}
    """
    if isinstance(chunking, FixedWindows) or stop <= first:
        return {"at": [], "overlap": []}
    overlaps, starts = chunking.overlaps, chunking.char_starts
    kept = [k for k in range(first, stop) if overlaps[k - 1] < requested]
    return {"at": [starts[k] for k in kept], "overlap": [overlaps[k - 1] for k in kept]}
