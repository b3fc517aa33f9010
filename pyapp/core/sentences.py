"""Sentences, and which of them no single chunk holds whole (the boundary check).

Overlap exists so that a passage cut at one window's edge is found whole in the
next window. We check it on sentences: the ones that every chunk cuts.

**The sentence rule** (:func:`split_sentences`) is :data:`pyapp.facts.SENTENCE_RULE`,
written there once for people (the page, README.md and docs/protocol.md show it).
What it leaves to the code: a terminator run is maximal (``。。`` is one run too); an
ASCII run followed by anything but whitespace (``e.g.x``, ``?!"``) ends nothing; a
blank line is a line break, optional spaces or tabs, another line break (``\\n``,
``\\r\\n`` and ``\\r`` are line breaks); whitespace-only text has no sentences.

>>> text = "One. Two?! Three...\\nstill three 3.14\\n\\nHeading\\n\\n 第一句。第二句！"
>>> [text[a:b] for a, b in split_sentences(text)]
['One.', 'Two?!', 'Three...', 'still three 3.14', 'Heading', '第一句。', '第二句！']

**The cut check.** A sentence ``[a, b)`` is held whole by a chunk with char range
``[cs, ce)`` when ``cs <= a`` and ``b <= ce``. It is *cut* when no chunk holds
it. Fixed windows have non-decreasing starts and ends, so the window starting
last at or before ``a`` is the only candidate: :class:`SentenceUnits` decides it
in ``O(1)`` per sentence from the unit spans alone, for any size and overlap,
without building a single window (the sweep and capped results use it).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any, Final

from .cache import per_text
from .unit_ranges import unit_ranges
from .units import Segmentation
from .windows import window_count

__all__ = ["Boundaries", "SentenceUnits", "split_sentences", "split_sentences_kept"]

_FULL_WIDTH: Final = frozenset("。！？")

#: A terminator run: scanning left to right, a match always starts at a run's first
#: character and takes the whole run (so a long run costs its length, once).
_RUN: Final = re.compile(r"[.!?。！？]++")
#: A blank line: a line break, spaces or tabs, another line break (atomic groups keep
#: a lone ``\r\n`` from counting as ``\r`` + ``\n``). Both patterns begin with one
#: class of characters, so the scans run at memory speed; the sentence before a
#: blank line ends at its last visible character.
_BLANK: Final = re.compile(r"(?>\r\n|\r|\n)[^\S\r\n]*+(?>\r\n|\r|\n)")
#: The same with no ``\r`` in the text: it begins with a literal, which the regex
#: engine finds at memchr speed (about eight times faster on a megabyte).
_BLANK_LF: Final = re.compile(r"\n[^\S\r\n]*+\n")
_VISIBLE: Final = re.compile(r"\S")


@per_text
def _split_sentences_cached(text: str) -> list[tuple[int, int]]:
    """split_sentences of the last few texts (callers only read the list)."""
    return split_sentences(text)


def split_sentences_kept(text: str) -> list[tuple[int, int]]:
    """:func:`split_sentences`, kept per text (read the list only)."""
    return _split_sentences_cached(text)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` in code points, in order, by the module's rule.

    ``text[start:end]`` is the sentence, without surrounding whitespace. Linear time.

    >>> split_sentences("")
    []
    >>> split_sentences("  Wait... what?  ")
    [(2, 9), (10, 15)]
    >>> split_sentences("v1.2 is out!Really")
    [(0, 18)]
    >>> split_sentences("Ja.\\r\\n\\r\\nNein")
    [(0, 3), (7, 11)]
    """
    spans: list[tuple[int, int]] = []
    append = spans.append
    length = len(text)
    visible = _VISIBLE.search
    full_width = _FULL_WIDTH.isdisjoint
    runs = [match.span() for match in _RUN.finditer(text)]
    blank = _BLANK if "\r" in text else _BLANK_LF
    blanks = [match.span() for match in blank.finditer(text)]
    start = 0
    r = b = 0
    # The two kinds of break never share a character, so they merge by position.
    while r < len(runs) or b < len(blanks):
        if b == len(blanks) or (r < len(runs) and runs[r][0] < blanks[b][0]):
            run_start, run_end = runs[r]
            r += 1
            if (
                run_end < length
                and not text[run_end].isspace()
                and full_width(text[run_start:run_end])
            ):
                continue  # 3.14, v1.2, e.g.x: not the end of a sentence
            first = visible(text, start, run_end)
            if first is not None:
                append((first.start(), run_end))
            start = run_end
        else:
            blank_start, blank_end = blanks[b]
            b += 1
            first = visible(text, start, blank_start)
            if first is not None:
                end = start + len(text[start:blank_start].rstrip())
                append((first.start(), end))
            start = blank_end
    tail = text[start:].rstrip()
    first = visible(text, start, start + len(tail))
    if first is not None:
        append((first.start(), start + len(tail)))
    return spans


@dataclass(frozen=True, slots=True)
class SentenceUnits:
    """Each sentence as the units it needs: ``first`` (the last unit starting at or
    before the sentence's first character) and ``last`` (the first unit reaching
    its last character). A window ``[s, e)`` holds the sentence whole exactly when
    ``s <= first`` and ``e - 1 >= last``.

    Build it once per text and segmentation; :meth:`cut` then answers any size and
    overlap in ``O(S)``.

    >>> from pyapp.core.units import Words
    >>> text = "Aa bb. Cc dd ee. Ff."
    >>> su = SentenceUnits.of(text, Words(text))
    >>> su.first, su.last
    ([0, 2, 5], [1, 4, 5])
    >>> su.cut(size=3, overlap=0)
    [(7, 16)]
    >>> su.cut(size=3, overlap=1)
    []
    """

    sentences: list[tuple[int, int]]
    first: list[int]
    last: list[int]
    units: int

    @classmethod
    def of(cls, text: str, units: Segmentation) -> SentenceUnits:
        sentences = _split_sentences_cached(text)
        first, last = unit_ranges(text, units, sentences, rule="held")
        return cls(sentences, first, last, units.count)

    def cut(self, *, size: int, overlap: int) -> list[tuple[int, int]]:
        """Spans of the sentences no window of ``size`` and ``overlap`` holds whole.

        ``first`` and ``last`` never decrease, so the sentences whose candidate is
        window ``k`` are one run of them, and the cut ones are a tail of that run:
        two bisections per window when there are fewer windows than sentences.
        """
        units = self.units
        windows = window_count(units, size=size, overlap=overlap)
        stride = size - overlap
        if windows == 0:
            return list(self.sentences)
        if windows > len(self.sentences):
            return self._cut_each(size=size, stride=stride, windows=windows)
        return self._cut_by_window(size=size, stride=stride, windows=windows)

    def _cut_by_window(self, *, size: int, stride: int, windows: int) -> list[tuple[int, int]]:
        """:meth:`cut` a window at a time (when sentences outnumber windows)."""
        units = self.units
        sentences, first, last = self.sentences, self.first, self.last
        lo = bisect_left(first, 0)  # before the first unit: no window holds them
        out = sentences[:lo]
        top = windows - 1
        for k in range(windows):
            start = k * stride
            hi = bisect_left(first, start + stride, lo) if k < top else len(first)
            reach = min(start + size, units) - 1
            out += sentences[bisect_right(last, reach, lo, hi) : hi]
            lo = hi
        return out

    def _cut_each(self, *, size: int, stride: int, windows: int) -> list[tuple[int, int]]:
        """:meth:`cut` one sentence at a time (when windows outnumber sentences)."""
        units = self.units
        out: list[tuple[int, int]] = []
        for span, first, last in zip(self.sentences, self.first, self.last, strict=True):
            if first < 0:
                out.append(span)
                continue
            start = min(first // stride, windows - 1) * stride
            if min(start + size, units) - 1 < last:
                out.append(span)
        return out

    def cut_count(self, *, size: int, overlap: int) -> int:
        """How many sentences are cut (as :meth:`cut`, without building the list)."""
        windows = window_count(self.units, size=size, overlap=overlap)
        if windows == 0:
            return len(self.sentences)
        if windows > len(self.sentences):
            return self._count_each(size=size, overlap=overlap)
        stride = size - overlap
        units, first, last = self.units, self.first, self.last
        lo = bisect_left(first, 0)
        cut = lo
        top = windows - 1
        for k in range(windows):
            start = k * stride
            hi = bisect_left(first, start + stride, lo) if k < top else len(first)
            cut += hi - bisect_right(last, min(start + size, units) - 1, lo, hi)
            lo = hi
        return cut

    def _count_each(self, *, size: int, overlap: int) -> int:
        """:meth:`cut_count` one sentence at a time (when windows outnumber sentences)."""
        units = self.units
        windows = window_count(units, size=size, overlap=overlap)
        if windows == 0:
            return len(self.sentences)
        stride = size - overlap
        top = windows - 1
        cut = 0
        for first, last in zip(self.first, self.last, strict=True):
            if first < 0:
                cut += 1
                continue
            w = first // stride
            start = (w if w < top else top) * stride
            end = start + size
            if (end if end < units else units) - 1 < last:
                cut += 1
        return cut


@dataclass(frozen=True, slots=True, kw_only=True)
class Boundaries:
    """The ``boundaries`` section of the export and of the ``chunk`` op."""

    sentences: int
    cut_spans: list[tuple[int, int]]

    @property
    def cut(self) -> int:
        return len(self.cut_spans)

    def to_json(self) -> dict[str, Any]:
        return {
            "sentences": self.sentences,
            "cut": self.cut,
            "cut_spans": [[a, b] for a, b in self.cut_spans],
        }
