"""Chunk one text under one configuration: its windows, the caps, the chunks.

The summary is closed-form arithmetic (:mod:`pyapp.core.summary`), cheap even for
a megabyte; chunk objects are built only when the result is under the caps (or
the caps are lifted), and the sentence check only when asked for.

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

from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction

from ..errors import InputError
from ..facts import MAX_BYTES, MAX_CHUNKS, MAX_PROCESSED_UNITS
from .cache import per_text
from .fingerprint import TextFacts, text_facts
from .params import Params
from .sentences import Boundaries, SentenceUnits
from .summary import Summary, summarize
from .tokenizers import Backend, get_tokenizer
from .tokenizers.local import count_alone
from .units import Chars, CharToByte, Segmentation, Tokens, Words, strip_bom, utf8_length
from .windows import window_count

__all__ = [
    "Cap",
    "Chunk",
    "Report",
    "Window",
    "cap_of",
    "check_size",
    "chunk_text",
    "segment",
    "sentence_units",
    "tokens_alone",
    "windows",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Cap:
    """Which cap the result hit: ``cap`` is ``"chunks"`` or ``"processed_units"``."""

    cap: str
    value: int
    limit: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """Where one window lies: units ``[start, end)``, code points ``[char_start,
    char_end)``, UTF-8 bytes ``[byte_start, byte_end)``. ``split`` is the code
    point where its repeated prefix ends and its fresh text begins."""

    index: int
    start: int
    end: int
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    split: int
    repeated_units: int

    @property
    def fresh_units(self) -> int:
        return self.end - self.start - self.repeated_units


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
    #: Word mode: the words joined by single spaces.
    preview: str | None = None
    #: Token mode: how many tokens ``text`` is when encoded by itself (a window cut
    #: inside a character, or a WordPiece window starting at a ``##`` piece, can
    #: re-encode to more tokens than the window holds).
    tokens_alone: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    params: Params
    summary: Summary
    capped: Cap | None
    chunks: tuple[Chunk, ...]
    #: Sentences no chunk holds whole, over every window (even when capped); ``None``
    #: when the check was not asked for.
    boundaries: Boundaries | None
    #: Whether a leading byte-order mark was removed: offsets count from after it.
    bom_removed: bool = False
    #: The text the offsets count in (its SHA-256, size and line breaks).
    text: TextFacts | None = None


def check_size(text: str) -> int:
    """The text's UTF-8 length, refused over :data:`~pyapp.facts.MAX_BYTES`."""
    size = utf8_length(text)
    if size > MAX_BYTES:
        raise InputError(
            "text",
            f"text is {size:,} bytes of UTF-8, over the {MAX_BYTES:,}-byte limit:"
            " shorten it or split it into several documents",
        )
    return size


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


@per_text
def _sentence_units(
    text: str, unit: str, encoding: str | None, backend: Backend | None
) -> SentenceUnits:
    return SentenceUnits.of(text, _segment(text, unit, encoding, backend))


def sentence_units(text: str, params: Params, *, backend: Backend | None = None) -> SentenceUnits:
    """The sentences of ``text`` as units of ``params.unit``, kept per text: any size
    and overlap is then checked without segmenting again."""
    return _sentence_units(text, params.unit, params.encoding, backend)


def cap_of(summary: Summary, params: Params) -> Cap | None:
    """The first cap this result is over, or ``None`` (always, when caps are lifted)."""
    if not params.caps:
        return None
    if summary.chunks > MAX_CHUNKS:
        return Cap(cap="chunks", value=summary.chunks, limit=MAX_CHUNKS)
    if summary.processed_units > MAX_PROCESSED_UNITS:
        return Cap(cap="processed_units", value=summary.processed_units, limit=MAX_PROCESSED_UNITS)
    return None


def windows(
    seg: Segmentation, params: Params, *, first: int = 0, stop: int | None = None
) -> Iterator[Window]:
    """Every window of ``seg`` under ``params``, in order; with ``first`` and ``stop``,
    windows ``first .. stop - 1`` only (each found directly, none before it built).

    >>> from .params import parse_params
    >>> seg, params = Chars("abcdefgh"), parse_params(unit="char", size=4, overlap=1)
    >>> [(w.index, w.char_start, w.split, w.char_end) for w in windows(seg, params, first=1)]
    [(1, 3, 4, 7), (2, 6, 7, 8)]
    """
    size, overlap, units = params.size, params.overlap, seg.count
    stride = size - overlap
    total = window_count(units, size=size, overlap=overlap)
    stop = total if stop is None else min(stop, total)
    previous_end = 0
    if 0 < first < stop:
        before = (first - 1) * stride
        previous_end = seg.char_span(before, min(before + size, units))[1]
    for index in range(max(first, 0), stop):
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


@per_text
def _tokens_alone(
    text: str, encoding: str, size: int, overlap: int, backend: Backend | None
) -> tuple[int, ...]:
    """Each window's text encoded by itself, counted: by two short encodes of its
    head and tail and a count of the whole text's tokens between them
    (:func:`~pyapp.core.tokenizers.local.count_alone`), exact."""
    tokenizer = get_tokenizer(encoding, backend=backend)
    params = Params(
        unit="token", encoding=encoding, size=size, overlap=overlap,
        tokens_per_unit=Fraction(1), price_per_million=Fraction(0),
    )  # fmt: skip
    seg = segment(text, params, backend=backend)
    assert isinstance(seg, Tokens)
    starts = seg.byte_starts()
    byte_of = CharToByte(text)
    return tuple(
        count_alone(
            text, w.char_start, w.char_end,
            encoding=encoding, starts=starts, count=tokenizer.count, byte_of=byte_of,
        )
        for w in windows(seg, params)
    )  # fmt: skip


def tokens_alone(
    text: str, params: Params, *, backend: Backend | None = None
) -> tuple[int, ...] | None:
    """Token mode: each window's text encoded by itself, counted (kept per text and
    configuration). ``None`` in other units, and when the result is past the
    processed-units cap with the caps on: the re-encoding costs as much as the
    processed units, which the cap bounds."""
    if params.unit != "token" or params.encoding is None:
        return None
    processed = summarize(
        units=segment(text, params, backend=backend).count,
        params=params,
        input_bytes=0,
        input_chars=0,
    ).processed_units
    if params.caps and processed > MAX_PROCESSED_UNITS:
        return None
    return _tokens_alone(text, params.encoding, params.size, params.overlap, backend)


def over_limit(params: Params) -> int:
    """The most ``tokens_alone`` a chunk may have: the model's maximum less its special
    tokens, or the size when no maximum is set."""
    if params.max_tokens is not None:
        return params.max_tokens - params.special_tokens
    return params.size


def with_alone(summary: Summary, counts: tuple[int, ...] | None, params: Params) -> Summary:
    """The summary with ``max_tokens_alone`` and ``chunks_over_limit`` filled in."""
    if counts is None:
        return summary
    limit = over_limit(params)
    return replace(
        summary,
        max_tokens_alone=max(counts, default=0),
        chunks_over_limit=sum(1 for n in counts if n > limit),
    )


def _chunk(text: str, w: Window, *, word: bool, alone: int | None = None) -> Chunk:
    body = text[w.char_start : w.char_end]
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
        text=body,
        repeated_prefix=text[w.char_start : w.split],
        fresh_text=text[w.split : w.char_end],
        preview=" ".join(body.split()) if word else None,
        tokens_alone=alone,
    )


def chunk_text(
    text: str,
    params: Params,
    *,
    backend: Backend | None = None,
    chunks: bool = True,
    boundaries: bool = True,
) -> Report:
    """Chunk ``text``. ``chunks=False`` leaves the chunk objects out (the page's view
    builds its own cards); ``boundaries=False`` skips the sentence check. A leading
    byte-order mark is not text: it is removed first, and the report says so."""
    text, bom_removed = strip_bom(text)
    input_bytes = check_size(text)
    seg = segment(text, params, backend=backend)
    summary = summarize(
        units=seg.count, params=params, input_bytes=input_bytes, input_chars=len(text)
    )
    capped = cap_of(summary, params)
    alone = tokens_alone(text, params, backend=backend)
    summary = with_alone(summary, alone, params)
    word = params.unit == "word"
    built = (
        tuple(
            _chunk(text, w, word=word, alone=alone[w.index] if alone else None)
            for w in windows(seg, params)
        )
        if chunks and not capped
        else ()
    )
    bounds = None
    if boundaries:
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
        boundaries=bounds,
        bom_removed=bom_removed,
        text=text_facts(text),
    )
