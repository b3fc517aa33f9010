"""A chunking: an ordered list of code-point intervals over one text.

This is the engine's one model of what a chunker made. Chunk ``k`` is the
half-open interval ``[char_starts[k], char_ends[k])`` of code points, so
``text[char_starts[k]:char_ends[k]]`` is its text. Every analysis (the cards and
their repeated prefix, the text view, the summary, the sentence check, the
evidence check, retrieval, the overlap each boundary got) reads a
:class:`Chunking` and nothing else about the chunker that made it.

* :class:`Chunking` holds any intervals (in order: starts and ends never
  decrease) with each chunk's length in its unit. Its byte offsets come from its
  code points, by construction (:class:`~pyapp.core.units.CharToByte`).
* :class:`FixedWindows` is the fixed window, one way to make a chunking. It
  knows its intervals in closed form (unit ``k * S`` to ``min(k * S + C, U)``), so
  its figures cost nothing proportional to the text, and it finds any window
  directly without building the ones before it; in token mode its byte offsets
  are the tokens' own, which may fall inside a character.
* :func:`chunking_of` is the one way to get the chunking of a text under a
  configuration (kept per text).

>>> chunking = Chunking("abcdefgh", [0, 3, 6], [4, 7, 8])
>>> chunking.count, chunking.lengths, chunking.overlaps
(3, [4, 4, 2], [1, 1])
>>> [(w.char_start, w.split, w.char_end, w.repeated_units) for w in chunking.windows()]
[(0, 0, 4, 0), (3, 4, 7, 1), (6, 7, 8, 1)]
>>> from .params import parse_params
>>> from .units import Chars
>>> params = parse_params(unit="char", size=4, overlap=1)
>>> fixed = FixedWindows("abcdefgh", Chars("abcdefgh"), params)
>>> fixed.char_starts, fixed.char_ends, fixed.overlaps
([0, 3, 6], [4, 7, 8], [1, 1])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Final

from .cache import per_text
from .params import Params
from .tokenizers import Backend
from .units import Chars, CharToByte, Segmentation, Tokens, Words
from .windows import window_count

__all__ = [
    "Chunk",
    "Chunking",
    "FixedWindows",
    "Window",
    "chunking_of",
    "intersection",
    "plain_params",
    "chunk_of",
    "segment",
    "word_list",
]

#: Code points that are not whitespace (a gap counts only these).
_VISIBLE: Final = re.compile(r"\S")


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """Where one chunk lies: units ``[start, end)``, code points ``[char_start,
    char_end)``, UTF-8 bytes ``[byte_start, byte_end)``. ``split`` is the code
    point where its repeated prefix ends and its fresh text begins;
    ``repeated_units`` is the overlap with the chunk before it, in the unit."""

    index: int
    start: int
    end: int
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    split: int
    repeated_units: int
    #: The chunk's length in its unit, when that is not ``end - start`` (a splitter
    #: that measures each chunk's text by itself, as LangChain's does in tokens).
    units: int | None = None

    @property
    def fresh_units(self) -> int:
        length = self.end - self.start if self.units is None else self.units
        return length - self.repeated_units


def intersection(a_start: int, a_end: int, b_start: int, b_end: int) -> tuple[int, int]:
    """The code points two intervals share, as ``(start, end)`` (empty: ``start >= end``)."""
    return max(a_start, b_start), min(a_end, b_end)


@dataclass(frozen=True, slots=True, kw_only=True)
class Chunk(Window):
    """One window with its text. Contract: ``source[char_start:char_end] == text`` and
    ``repeated_prefix + fresh_text == text``.

    ``repeated_prefix`` is the part of ``text`` the previous chunk's text also
    holds: ``source[char_start:previous.char_end]``. In word and char mode it is
    exactly the ``overlap`` units; in token mode a character split between two
    tokens counts as held by both chunks.
    """

    text: str
    repeated_prefix: str
    fresh_text: str
    #: Word mode: the words of the repeated prefix and of the fresh text, each joined
    #: by single spaces.
    preview_repeated: str | None = None
    preview_fresh: str | None = None
    #: Token mode: how many tokens ``text`` is when encoded by itself (a window cut
    #: inside a character, or a WordPiece window starting at a ``##`` piece, can
    #: re-encode to more tokens than the window holds).
    tokens_alone: int | None = None

    @property
    def preview(self) -> str | None:
        """Word mode: the chunk's words joined by single spaces."""
        if self.preview_repeated is None or self.preview_fresh is None:
            return None
        if self.preview_repeated and self.preview_fresh:
            return self.preview_repeated + " " + self.preview_fresh
        return self.preview_repeated or self.preview_fresh


@per_text
def word_list(text: str) -> list[str]:
    """The words of ``text`` (``str.split()``), kept per text: callers only read it."""
    return text.split()


def chunk_of(
    text: str, w: Window, *, words: Sequence[str] | None = None, alone: int | None = None
) -> Chunk:
    """Chunk ``w`` of ``text`` with its text, its repeated prefix and fresh text, and in
    word mode (``words``: the text's words, :data:`word_list`) its previews: the one
    place a chunk's text is cut from the source."""
    preview_repeated: str | None = None
    preview_fresh: str | None = None
    if words is not None:
        split = w.start + w.repeated_units
        preview_repeated = " ".join(words[w.start : split])
        preview_fresh = " ".join(words[split : w.end])
    return Chunk(
        index=w.index,
        start=w.start,
        end=w.end,
        char_start=w.char_start,
        char_end=w.char_end,
        byte_start=w.byte_start,
        byte_end=w.byte_end,
        split=w.split,
        repeated_units=w.repeated_units,
        units=w.units,
        text=text[w.char_start : w.char_end],
        repeated_prefix=text[w.char_start : w.split],
        fresh_text=text[w.split : w.char_end],
        preview_repeated=preview_repeated,
        preview_fresh=preview_fresh,
        tokens_alone=alone,
    )


class Chunking:
    """Chunks ``[char_starts[k], char_ends[k])`` of ``text``, in order.

    ``lengths[k]`` is chunk ``k``'s length in ``unit`` (default: its code points);
    ``unit_starts`` and ``unit_ends`` say which units of the text it holds (default:
    its code points). ``measure(piece)`` is the length of a piece of text in the
    unit, used for the overlap each boundary produced (default: ``len``).
    ``splitter`` names what made it, ``settings`` how (for the export).
    """

    splitter: str = "intervals"

    def __init__(
        self,
        text: str,
        char_starts: Sequence[int],
        char_ends: Sequence[int],
        *,
        unit: str = "char",
        lengths: Sequence[int] | None = None,
        unit_starts: Sequence[int] | None = None,
        unit_ends: Sequence[int] | None = None,
        measure: Callable[[str], int] | None = None,
        byte_of: CharToByte | None = None,
    ) -> None:
        self.text = text
        self.unit = unit
        self._char_starts = list(char_starts)
        self._char_ends = list(char_ends)
        self._lengths = None if lengths is None else list(lengths)
        self._unit_starts = None if unit_starts is None else list(unit_starts)
        self._unit_ends = None if unit_ends is None else list(unit_ends)
        self._measure = measure or len
        self._byte_of = byte_of

    # ---- the intervals -------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self.char_starts)

    @property
    def char_starts(self) -> list[int]:
        """Where each chunk begins, in code points (the list kept: read it only)."""
        return self._char_starts

    @property
    def char_ends(self) -> list[int]:
        """Where each chunk ends, in code points (the list kept: read it only)."""
        return self._char_ends

    @property
    def unit_starts(self) -> list[int]:
        return self._unit_starts if self._unit_starts is not None else self.char_starts

    @property
    def unit_ends(self) -> list[int]:
        return self._unit_ends if self._unit_ends is not None else self.char_ends

    def spans(self) -> list[tuple[int, int]]:
        """Every chunk as ``(char_start, char_end)``."""
        return list(zip(self.char_starts, self.char_ends, strict=True))

    @cached_property
    def lengths(self) -> list[int]:
        """Each chunk's length in its unit."""
        if self._lengths is not None:
            return self._lengths
        return [e - s for s, e in zip(self.unit_starts, self.unit_ends, strict=True)]

    def unit_range(self, first: int, stop: int) -> tuple[list[int], list[int]]:
        """The unit starts and ends of chunks ``first .. stop - 1``."""
        return self.unit_starts[first:stop], self.unit_ends[first:stop]

    @property
    def processed(self) -> int:
        """The units every chunk holds, added up (the volume embedded)."""
        return sum(self.lengths)

    # ---- what each boundary got ----------------------------------------------

    @cached_property
    def overlaps(self) -> list[int]:
        """At each boundary ``k`` (between chunks ``k`` and ``k + 1``): the text both
        hold, measured in the unit (0 when they merely touch or a gap lies between)."""
        out: list[int] = []
        cs, ce, text, measure = self.char_starts, self.char_ends, self.text, self._measure
        for k in range(1, len(cs)):
            a, b = intersection(cs[k - 1], ce[k - 1], cs[k], ce[k])
            out.append(measure(text[a:b]) if a < b else 0)
        return out

    @cached_property
    def gaps(self) -> list[int]:
        """At each boundary ``k``: the code points between chunk ``k``'s end and
        chunk ``k + 1``'s start that no chunk holds and that are not whitespace."""
        cs, ce, text = self.char_starts, self.char_ends, self.text
        return [
            len(_VISIBLE.findall(text, ce[k - 1], cs[k])) if cs[k] > ce[k - 1] else 0
            for k in range(1, len(cs))
        ]

    def uncovered(self) -> int:
        """Code points that no chunk holds and that are not whitespace (before the first
        chunk, in every gap, after the last)."""
        cs, ce, text = self.char_starts, self.char_ends, self.text
        out = reach = 0
        for a, b in sorted(zip(cs, ce, strict=True)):
            if a > reach:
                out += len(_VISIBLE.findall(text, reach, a))
            reach = max(reach, b)
        return out + len(_VISIBLE.findall(text, reach, len(text)))

    # ---- each chunk in full ----------------------------------------------------

    def windows(self, *, first: int = 0, stop: int | None = None) -> Iterator[Window]:
        """Chunks ``first .. stop - 1`` with their units, bytes and repeated prefix."""
        cs, ce = self.char_starts, self.char_ends
        us, ue, lengths, overlaps = self.unit_starts, self.unit_ends, self.lengths, self.overlaps
        byte_of = self._byte_of or CharToByte(self.text)
        top = len(cs) if stop is None else min(stop, len(cs))
        for k in range(max(first, 0), top):
            a, b = cs[k], ce[k]
            split = min(max(ce[k - 1], a), b) if k else a
            yield Window(
                index=k,
                start=us[k],
                end=ue[k],
                char_start=a,
                char_end=b,
                byte_start=byte_of(a),
                byte_end=byte_of(b),
                split=split,
                repeated_units=overlaps[k - 1] if k else 0,
                units=lengths[k],
            )


class FixedWindows(Chunking):
    """The fixed window over ``seg``: window ``k`` is units ``[kS, min(kS + C, U))``
    (stride ``S = C - O``); the walk stops at the first window reaching the end.

    Its intervals, lengths and overlaps are closed forms, computed only when read;
    :meth:`windows` finds any window directly."""

    splitter = "fixed"

    def __init__(self, text: str, seg: Segmentation, params: Params) -> None:
        super().__init__(text, [], [], unit=params.unit)
        self.seg = seg
        self.params = params
        self.size = params.size
        self.stride = params.stride
        self.total_units = seg.count
        self._count = window_count(seg.count, size=params.size, overlap=params.overlap)

    @property
    def count(self) -> int:
        return self._count

    @cached_property
    def _spans(self) -> tuple[list[int], list[int]]:
        """Every window's code-point start and end, each list built in C."""
        seg, size, stride, n = self.seg, self.size, self.stride, self._count
        units = self.total_units
        if n == 0:
            return [], []
        last_start = (n - 1) * stride
        # Every window but the last ends at start + size; the last at the text's end.
        if isinstance(seg, Chars):
            return list(range(0, last_start + 1, stride)), [
                *range(size, size + last_start, stride),
                units,
            ]
        if isinstance(seg, Words):
            word_starts, word_ends = seg.bounds(units)
            starts = word_starts[0 : last_start + 1 : stride]
            ends = [*word_ends[size - 1 : size - 1 + last_start : stride], word_ends[units - 1]]
            return starts, ends
        if isinstance(seg, Tokens):
            last_tokens = [*range(size - 1, size - 1 + last_start, stride), units - 1]
            return seg.char_bounds(list(range(0, last_start + 1, stride)), last_tokens)
        spans = [seg.char_span(s, min(s + size, units)) for s in range(0, last_start + 1, stride)]
        return [a for a, _ in spans], [b for _, b in spans]

    @property
    def char_starts(self) -> list[int]:
        return self._spans[0]

    @property
    def char_ends(self) -> list[int]:
        return self._spans[1]

    def unit_range(self, first: int, stop: int) -> tuple[list[int], list[int]]:
        """The unit starts and ends of windows ``first .. stop - 1``, without the rest."""
        stride, size, units = self.stride, self.size, self.total_units
        starts = list(range(first * stride, stop * stride, stride))
        return starts, [min(s + size, units) for s in starts]

    @cached_property
    def _unit_lists(self) -> tuple[list[int], list[int]]:
        return self.unit_range(0, self._count)

    @property
    def unit_starts(self) -> list[int]:
        return self._unit_lists[0]

    @property
    def unit_ends(self) -> list[int]:
        return self._unit_lists[1]

    @cached_property
    def lengths(self) -> list[int]:
        n, size = self._count, self.size
        if n == 0:
            return []
        return [size] * (n - 1) + [self.total_units - (n - 1) * self.stride]

    @property
    def processed(self) -> int:
        return self.total_units + max(0, self._count - 1) * self.params.overlap

    @cached_property
    def overlaps(self) -> list[int]:
        """Every window after the first repeats exactly ``O`` units."""
        return [self.params.overlap] * max(0, self._count - 1)

    def windows(self, *, first: int = 0, stop: int | None = None) -> Iterator[Window]:
        """Windows ``first .. stop - 1``, each found directly (none before it built).

        >>> from .params import parse_params
        >>> params = parse_params(unit="char", size=4, overlap=1)
        >>> fixed = FixedWindows("abcdefgh", Chars("abcdefgh"), params)
        >>> [(w.index, w.char_start, w.split, w.char_end) for w in fixed.windows(first=1)]
        [(1, 3, 4, 7), (2, 6, 7, 8)]
        """
        seg, size, overlap, units = self.seg, self.size, self.params.overlap, self.total_units
        stride = self.stride
        top = self._count if stop is None else min(stop, self._count)
        previous_end = 0
        if 0 < first < top:
            before = (first - 1) * stride
            previous_end = seg.char_span(before, min(before + size, units))[1]
        for index in range(max(first, 0), top):
            start = index * stride
            end = min(start + size, units)
            char_start, char_end, byte_start, byte_end = seg.edges(start, end)
            split = min(max(previous_end, char_start), char_end) if index else char_start
            yield Window(
                index=index,
                start=start,
                end=end,
                char_start=char_start,
                char_end=char_end,
                byte_start=byte_start,
                byte_end=byte_end,
                split=split,
                repeated_units=overlap if index else 0,
            )
            previous_end = char_end

    def uncovered(self) -> int:
        """Fixed windows tile the units; only whitespace outside every word is left."""
        if self._count == 0:
            return len(_VISIBLE.findall(self.text))
        return 0


@per_text
def _segment(text: str, unit: str, encoding: str | None, backend: Backend | None) -> Segmentation:
    if unit == "word":
        return Words(text)
    if unit == "char":
        return Chars(text)
    assert encoding is not None
    return Tokens(text, encoding=encoding, backend=backend)


def segment(text: str, params: Params, *, backend: Backend | None = None) -> Segmentation:
    """The text in ``params.unit`` units, kept per text (word spans, token ids and
    byte ends), so an edit of the size alone does not segment again."""
    return _segment(text, params.unit, params.encoding, backend)


def plain_params(unit: str, encoding: str | None, size: int, overlap: int) -> Params:
    """Params with only what chunking reads (the rest at neutral values)."""
    return Params(
        unit=unit,  # type: ignore[arg-type]  # from a validated Params
        encoding=encoding,
        size=size,
        overlap=overlap,
        tokens_per_unit=Fraction(1),
        price_per_million=Fraction(0),
    )


@per_text
def _fixed(
    text: str, unit: str, encoding: str | None, size: int, overlap: int, backend: Backend | None
) -> FixedWindows:
    params = plain_params(unit, encoding, size, overlap)
    return FixedWindows(text, _segment(text, unit, encoding, backend), params)


def chunking_of(text: str, params: Params, *, backend: Backend | None = None) -> Chunking:
    """The chunking of ``text`` (without a leading byte-order mark) under ``params``,
    kept per text and configuration: the one place a chunker is chosen."""
    return _fixed(text, params.unit, params.encoding, params.size, params.overlap, backend)
