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

from ..errors import InputError
from ..facts import MAX_BYTES, MAX_CHUNKS, MAX_PROCESSED_UNITS, over_byte_limit
from .cache import per_text
from .chunkings import (
    Chunk,
    Chunking,
    Window,
    chunk_of,
    chunking_of,
    plain_params,
    segment,
    word_list,
)
from .fingerprint import TextFacts, text_facts
from .params import Params
from .sentences import Boundaries, SentenceUnits, split_sentences_kept
from .summary import Summary, summarize, summarize_chunking
from .tokenizers import Backend, get_tokenizer
from .tokenizers.local import count_alone
from .units import CharToByte, Tokens, strip_bom, utf8_length

__all__ = [
    "Cap",
    "Chunk",
    "Report",
    "Window",
    "alone_counts",
    "cap_of",
    "check_size",
    "chunk_text",
    "segment",
    "sentence_check",
    "sentence_units",
    "tokens_alone",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Cap:
    """Which cap the result hit: ``cap`` is ``"chunks"`` or ``"processed_units"``."""

    cap: str
    value: int
    limit: int


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
    #: The chunking itself (``None`` only in reports made by hand).
    chunking: Chunking | None = None


def check_size(text: str) -> int:
    """The text's UTF-8 length, refused over :data:`~pyapp.facts.MAX_BYTES`."""
    size = utf8_length(text)
    if size > MAX_BYTES:
        raise InputError("text", over_byte_limit("text", f"{size:,} bytes of UTF-8"))
    return size


@per_text
def _sentence_units(
    text: str, unit: str, encoding: str | None, backend: Backend | None
) -> SentenceUnits:
    params = plain_params(unit, encoding, 1, 0)
    return SentenceUnits.of(text, segment(text, params, backend=backend))


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


def alone_counts(
    text: str, encoding: str, size: int, overlap: int, *, backend: Backend | None = None
) -> Iterator[int]:
    """Each fixed token window's text encoded by itself, counted, window by window (a
    caller that stops early pays only for the windows it read): by two short encodes
    of its head and tail and a count of the whole text's tokens between them
    (:func:`~pyapp.core.tokenizers.local.count_alone`), exact."""
    tokenizer = get_tokenizer(encoding, backend=backend)
    params = plain_params("token", encoding, size, overlap)
    seg = segment(text, params, backend=backend)
    assert isinstance(seg, Tokens)
    starts = seg.byte_starts()
    byte_of = CharToByte(text)
    chunking = chunking_of(text, params, backend=backend)
    return (
        count_alone(
            text, a, b,
            encoding=encoding, starts=starts, count=tokenizer.count, byte_of=byte_of,
        )
        for a, b in zip(chunking.char_starts, chunking.char_ends, strict=True)
    )  # fmt: skip


@per_text
def _tokens_alone(
    text: str, encoding: str, size: int, overlap: int, backend: Backend | None
) -> tuple[int, ...]:
    """:func:`alone_counts`, kept per text and configuration."""
    return tuple(alone_counts(text, encoding, size, overlap, backend=backend))


def tokens_alone(
    text: str, params: Params, *, backend: Backend | None = None
) -> tuple[int, ...] | None:
    """Token mode: each window's text encoded by itself, counted (kept per text and
    configuration). ``None`` in other units, and when the result is past the
    processed-units cap with the caps on: the re-encoding costs as much as the
    processed units, which the cap bounds."""
    if params.unit != "token" or params.encoding is None:
        return None
    if params.splitter != "fixed":
        chunking = chunking_of(text, params, backend=backend)
        return tuple(chunking.lengths)  # each chunk's text measured by itself already
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
    chunking = chunking_of(text, params, backend=backend)
    summary = summarize_chunking(
        chunking, units=seg.count, params=params, input_bytes=input_bytes, input_chars=len(text)
    )
    capped = cap_of(summary, params)
    alone = tokens_alone(text, params, backend=backend)
    summary = with_alone(summary, alone, params)
    words = word_list(text) if params.unit == "word" else None
    built = (
        tuple(
            chunk_of(text, w, words=words, alone=alone[w.index] if alone else None)
            for w in chunking.windows()
        )
        if chunks and not capped
        else ()
    )
    return Report(
        params=params,
        summary=summary,
        capped=capped,
        chunks=built,
        boundaries=sentence_check(text, params, backend=backend) if boundaries else None,
        bom_removed=bom_removed,
        chunking=chunking,
        text=text_facts(text),
    )


def sentence_check(text: str, params: Params, *, backend: Backend | None = None) -> Boundaries:
    """The sentences no chunk holds whole: for the fixed window from the unit spans in
    closed form (:meth:`SentenceUnits.cut`), for any other chunking from its intervals."""
    if params.splitter == "fixed":
        index = sentence_units(text, params, backend=backend)
        return Boundaries(
            sentences=len(index.sentences),
            cut_spans=index.cut(size=params.size, overlap=params.overlap),
        )
    sentences = split_sentences_kept(text)
    return Boundaries(
        sentences=len(sentences),
        cut_spans=chunking_of(text, params, backend=backend).cut(sentences),
    )
