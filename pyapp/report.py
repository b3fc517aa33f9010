"""Chunk one text under one configuration: the summary, the caps, the chunks.

The summary is closed-form arithmetic on ``U``, ``C`` and ``O`` with exact
fractions, so it is cheap even for a megabyte; chunk objects are built only
when the result is under the caps.

>>> from .params import parse_params
>>> text = "one two three four five six seven eight nine ten"
>>> report = chunk_text(text, parse_params(unit="word", size=4, overlap=1, tokens_per_unit=1))
>>> [c.text for c in report.chunks]
['one two three four', 'four five six seven', 'seven eight nine ten']
>>> report.summary.processed_units, report.summary.repeated_units, report.summary.extra_volume
(12, 2, Fraction(1, 5))
>>> all(text[c.char_start:c.char_end] == c.text for c in report.chunks)
True
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, islice
from typing import Final

from .boundaries import Boundaries, SentenceUnits
from .errors import InputError
from .params import Params
from .tokenizers import Backend
from .units import Chars, Segmentation, Tokens, Words, utf8_length
from .windows import iter_spans, repeated_units, window_count

__all__ = [
    "MAX_BYTES",
    "MAX_CHUNKS",
    "MAX_PROCESSED_UNITS",
    "OVERVIEW_WINDOWS",
    "Cap",
    "Chunk",
    "Report",
    "Summary",
    "chunk_text",
    "segment",
    "sentence_units",
    "summarize",
    "view_chunks",
]

MAX_BYTES: Final = 1_000_000
MAX_CHUNKS: Final = 256
MAX_PROCESSED_UNITS: Final = 200_000
OVERVIEW_WINDOWS: Final = 2_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """Unrounded figures. Ratios over ``units`` are ``None`` when there are no units."""

    units: int
    chunks: int
    stride: int
    processed_units: int
    repeated_units: int
    extra_volume: Fraction | None
    inflation: Fraction | None
    limit_inflation: Fraction
    estimated_tokens: Fraction
    estimated_cost: Fraction
    input_bytes: int
    input_chars: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Cap:
    """Which cap the result hit: ``cap`` is ``"chunks"`` or ``"processed_units"``."""

    cap: str
    value: int
    limit: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Chunk:
    """One window. Contract: ``source[char_start:char_end] == text`` and
    ``repeated_prefix + fresh_text == text``.

    ``repeated_prefix`` is the part of ``text`` the previous chunk's text also
    holds: ``source[char_start:previous.char_end]``. In word and char mode it is
    exactly the ``overlap`` units; in token mode a character split between two
    tokens counts as held by both chunks.
    """

    index: int
    start: int
    end: int
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    text: str
    repeated_prefix: str
    fresh_text: str
    repeated_units: int
    fresh_units: int
    #: Word mode: the words joined by single spaces.
    preview: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    params: Params
    summary: Summary
    capped: Cap | None
    chunks: tuple[Chunk, ...]
    #: Char spans of the first :data:`OVERVIEW_WINDOWS` windows (even when capped).
    overview: tuple[tuple[int, int], ...]
    #: Sentences no chunk holds whole, over every window (even when capped).
    boundaries: Boundaries


def check_size(text: str) -> int:
    """The text's UTF-8 length, refused over :data:`MAX_BYTES`."""
    size = utf8_length(text)
    if size > MAX_BYTES:
        raise InputError(
            "text",
            f"text is {size:,} bytes of UTF-8, over the {MAX_BYTES:,}-byte limit:"
            " shorten it or split it into several documents",
        )
    return size


@functools.lru_cache(maxsize=4)
def _segment(text: str, unit: str, encoding: str | None, backend: Backend | None) -> Segmentation:
    if unit == "word":
        return Words(text)
    if unit == "char":
        return Chars(text)
    assert encoding is not None
    return Tokens(text, encoding=encoding, backend=backend)


def segment(text: str, params: Params, *, backend: Backend | None = None) -> Segmentation:
    """The text in ``params.unit`` units. The segmentations of the last few texts are
    kept (word spans, token ids and byte ends), so an edit of the size alone does not
    segment again."""
    return _segment(text, params.unit, params.encoding, backend)


@functools.lru_cache(maxsize=4)
def _sentence_units(
    text: str, unit: str, encoding: str | None, backend: Backend | None
) -> SentenceUnits:
    return SentenceUnits.of(text, _segment(text, unit, encoding, backend))


def sentence_units(text: str, params: Params, *, backend: Backend | None = None) -> SentenceUnits:
    """The sentences of ``text`` as units of ``params.unit`` (kept for the last few
    texts): any size and overlap is then checked without segmenting again."""
    return _sentence_units(text, params.unit, params.encoding, backend)


def summarize(*, units: int, params: Params, input_bytes: int, input_chars: int) -> Summary:
    """The summary figures in closed form (nothing proportional to the text)."""
    size, overlap = params.size, params.overlap
    chunks = window_count(units, size=size, overlap=overlap)
    repeated = repeated_units(units, size=size, overlap=overlap)
    processed = units + repeated
    tokens = processed * params.tokens_per_unit
    return Summary(
        units=units,
        chunks=chunks,
        stride=params.stride,
        processed_units=processed,
        repeated_units=repeated,
        extra_volume=Fraction(repeated, units) if units else None,
        inflation=Fraction(processed, units) if units else None,
        limit_inflation=Fraction(size, params.stride),
        estimated_tokens=tokens,
        estimated_cost=tokens * params.price_per_million / 1_000_000,
        input_bytes=input_bytes,
        input_chars=input_chars,
    )


def _cap(summary: Summary, params: Params) -> Cap | None:
    if not params.caps:
        return None
    if summary.chunks > MAX_CHUNKS:
        return Cap(cap="chunks", value=summary.chunks, limit=MAX_CHUNKS)
    if summary.processed_units > MAX_PROCESSED_UNITS:
        return Cap(cap="processed_units", value=summary.processed_units, limit=MAX_PROCESSED_UNITS)
    return None


@dataclass(frozen=True, slots=True)
class _Window:
    index: int
    start: int
    end: int
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    #: Where the repeated prefix ends and the fresh text begins (a char offset).
    split: int
    repeated: int


def _windows(seg: Segmentation, params: Params) -> list[_Window]:
    out: list[_Window] = []
    previous_end = 0
    overlap = params.overlap
    for index, (start, end) in enumerate(iter_spans(seg.count, size=params.size, overlap=overlap)):
        char_start, char_end, byte_start, byte_end = seg.edges(start, end)
        split = min(max(previous_end, char_start), char_end) if index else char_start
        out.append(
            _Window(
                index, start, end, char_start, char_end, byte_start, byte_end, split,
                overlap if index else 0,
            )
        )  # fmt: skip
        previous_end = char_end
    return out


def _words_joined(text: str) -> str:
    return " ".join(text.split())


def _build_chunks(text: str, seg: Segmentation, params: Params) -> tuple[Chunk, ...]:
    word = params.unit == "word"
    out: list[Chunk] = []
    for w in _windows(seg, params):
        body = text[w.char_start : w.char_end]
        out.append(
            Chunk(
                index=w.index,
                start=w.start,
                end=w.end,
                char_start=w.char_start,
                char_end=w.char_end,
                byte_start=w.byte_start,
                byte_end=w.byte_end,
                text=body,
                repeated_prefix=text[w.char_start : w.split],
                fresh_text=text[w.split : w.char_end],
                repeated_units=w.repeated,
                fresh_units=w.end - w.start - w.repeated,
                preview=_words_joined(body) if word else None,
            )
        )
    return tuple(out)


@functools.lru_cache(maxsize=4)
def _word_index(text: str) -> tuple[list[str], list[int]]:
    """The words of ``text`` (``str.split()``) and their running code-point lengths
    (``lengths[k]`` is the length of the first ``k`` words), kept per text: every
    size then joins its previews from slices instead of splitting the text again."""
    words = text.split()
    return words, list(accumulate(map(len, words), initial=0))


def _local_marks(
    cut_spans: list[tuple[int, int]], char_start: int, char_end: int
) -> list[tuple[int, int]]:
    """The parts of the cut spans inside ``[char_start, char_end)``, in the source's
    code points (sorted, disjoint: cut spans are)."""
    out: list[tuple[int, int]] = []
    at = bisect_right(cut_spans, char_start, key=lambda span: span[1])
    for a, b in islice(cut_spans, at, None):
        if a >= char_end:
            break
        a, b = max(a, char_start), min(b, char_end)
        if a < b:
            out.append((a, b))
    return out


def _preview_marks(
    local: list[tuple[int, int]],
    window: _Window,
    starts: list[int],
    ends: list[int],
    lengths: list[int],
) -> list[list[int]]:
    """Source ranges of a word window mapped to its preview (the words joined by
    single spaces): each word's part inside a range, plus the space between two
    words the range spans."""
    out: list[list[int]] = []
    first = window.start

    def at(k: int, offset: int) -> int:  # preview offset of code point `offset` of word k
        return lengths[k] - lengths[first] + (k - first) + offset - starts[k]

    for a, b in local:
        k0 = bisect_right(ends, a, first, window.end)  # first word ending after a
        k1 = bisect_left(starts, b, first, window.end) - 1  # last word starting before b
        if k0 > k1:
            continue
        lo, hi = at(k0, max(a, starts[k0])), at(k1, min(b, ends[k1]))
        if lo < hi:
            out.append([lo, hi])
    return out


def view_chunks(
    text: str,
    params: Params,
    *,
    cut_spans: list[tuple[int, int]] | None = None,
    backend: Backend | None = None,
) -> list[dict[str, object]]:
    """The chunk cards of the ``chunk`` op, as JSON objects: every field the page
    renders and nothing twice.

    Each is an export chunk without ``text`` and ``preview``, and in word mode also
    without ``repeated_prefix`` and ``fresh_text`` (a word card shows only the
    preview). Then, in word mode, ``preview_repeated`` and ``preview_fresh`` (the
    words of each part joined by single spaces), in token mode ``token_breaks``, and
    in every mode ``cut_marks``: the ``[a, b)`` code-point ranges of the card's shown
    text (word mode: ``preview_repeated``, a space when both parts are non-empty,
    ``preview_fresh``; char and token mode: ``repeated_prefix + fresh_text``) that
    belong to a sentence in ``cut_spans``. Call it only for a result under the caps.

    >>> from .params import parse_params
    >>> params = parse_params(unit="word", size=3, overlap=1)
    >>> [(c["preview_repeated"], c["preview_fresh"], c["cut_marks"])
    ...  for c in view_chunks("a  b c\\nd", params, cut_spans=[(3, 8)])]
    [('', 'a b c', [[2, 5]]), ('c', 'd', [[0, 3]])]
    >>> chars = parse_params(unit="char", size=4, overlap=0)
    >>> [(c["repeated_prefix"], c["fresh_text"], c["cut_marks"])
    ...  for c in view_chunks("ab. cd.", chars, cut_spans=[(4, 7)])]
    [('', 'ab. ', []), ('', 'cd.', [[0, 3]])]
    """
    seg = segment(text, params, backend=backend)
    spans = cut_spans or []
    tokens = seg if isinstance(seg, Tokens) else None
    windows = _windows(seg, params)
    word = isinstance(seg, Words)
    if isinstance(seg, Words):
        words, lengths = _word_index(text)
        starts, ends = seg.bounds(windows[-1].end if windows else 0)
    out: list[dict[str, object]] = []
    for w in windows:
        chunk: dict[str, object] = {
            "index": w.index,
            "start": w.start,
            "end": w.end,
            "char_start": w.char_start,
            "char_end": w.char_end,
            "byte_start": w.byte_start,
            "byte_end": w.byte_end,
        }
        local = _local_marks(spans, w.char_start, w.char_end)
        if word:
            split = w.start + w.repeated
            chunk["repeated_units"] = w.repeated
            chunk["fresh_units"] = w.end - split
            chunk["preview_repeated"] = " ".join(words[w.start : split])
            chunk["preview_fresh"] = " ".join(words[split : w.end])
            chunk["cut_marks"] = _preview_marks(local, w, starts, ends, lengths)
            out.append(chunk)
            continue
        chunk["repeated_prefix"] = text[w.char_start : w.split]
        chunk["fresh_text"] = text[w.split : w.char_end]
        chunk["repeated_units"] = w.repeated
        chunk["fresh_units"] = w.end - w.start - w.repeated
        if tokens is not None:
            chunk["token_breaks"] = tokens.breaks(w.start, w.end, char_start=w.char_start)
        chunk["cut_marks"] = [[a - w.char_start, b - w.char_start] for a, b in local]
        out.append(chunk)
    return out


def _overview(seg: Segmentation, params: Params) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for start, end in iter_spans(seg.count, size=params.size, overlap=params.overlap):
        if len(out) == OVERVIEW_WINDOWS:
            break
        out.append(seg.char_span(start, end))
    return tuple(out)


def chunk_text(
    text: str,
    params: Params,
    *,
    backend: Backend | None = None,
    chunks: bool = True,
    overview: bool = False,
) -> Report:
    """Chunk ``text``; ``chunks=False`` leaves the chunk objects out (the page's view
    builds its own with :func:`view_chunks`), ``overview`` adds the window strip."""
    input_bytes = check_size(text)
    seg = segment(text, params, backend=backend)
    summary = summarize(
        units=seg.count, params=params, input_bytes=input_bytes, input_chars=len(text)
    )
    capped = _cap(summary, params)
    built = _build_chunks(text, seg, params) if chunks and not capped else ()
    strip = _overview(seg, params) if overview else ()
    index = sentence_units(text, params, backend=backend)
    bounds = Boundaries(
        sentences=len(index.sentences),
        cut_spans=index.cut(size=params.size, overlap=params.overlap),
    )
    return Report(
        params=params,
        summary=summary,
        capped=capped,
        chunks=built,
        overview=strip,
        boundaries=bounds,
    )
