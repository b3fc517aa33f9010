"""The evidence check of one text under one setting: which items are whole, the
smallest overlap that keeps all of them whole and its cost, and the retrieval check.

:func:`check_evidence` reads the evidence (:mod:`pyapp.core.evidence`), maps each
item to the units it needs (:mod:`pyapp.core.coverage`), and ranks the chunks for
each question with BM25 (:mod:`pyapp.core.bm25`). Only the retrieval check looks
at chunk texts; everything else is window arithmetic, so a megabyte with a
thousand items takes well under a second.

**Retrieval figures**, for the ``k`` best chunks of each question (fewer when
fewer chunks share a term with it):

* ``rank_whole``: the rank of the first chunk in BM25's order that holds the
  item whole (``None`` when none is retrieved); ``rank_touching``: the same for
  the chunks the item touches;
* ``recall_at_k``: the share of questions whose item is whole in one of the top
  ``k`` chunks (``rank_whole <= k``);
* ``context_units``: the units (tokens in token mode) the top-``k`` chunks put
  into the context, the sum of their lengths; ``context_repeated_units``: how many
  of them are a repeat of a unit another retrieved chunk holds too (the sum of the
  lengths minus the units of their union): the cost of overlapping chunks
  retrieved together. The summary gives the mean of each over the questions.

The check is skipped (and says why) when no item has a question, or when the
setting processes more than :data:`~pyapp.facts.MAX_RETRIEVAL_UNITS` units.

>>> from .params import parse_params
>>> text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
>>> lines = '{"id": "x", "quote": "gamma delta epsilon", "question": "Where is gamma?"}'
>>> r = check_evidence(text, parse_params(unit="word", size=4, overlap=1), jsonl=lines, top_k=1)
>>> item = r.items[0]
>>> item.status, item.whole, item.touches, r.min_overlap.overlap
('split', None, (0, 1), 2)
>>> item.retrieval.rank_whole, item.retrieval.rank_touching, r.retrieval.recall_at_k
(None, 1, Fraction(0, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..facts import MAX_EVIDENCE_LISTED, MAX_RETRIEVAL_PAIRS, MAX_RETRIEVAL_UNITS, UNITS
from .bm25 import ChunkIndex, term_index, terms
from .cache import per_text
from .chunking import Cap, check_size
from .chunkings import Chunking, chunking_of, segment
from .coverage import ItemUnits, item_units, min_overlap, touch_range, whole_range
from .evidence import (
    Evidence,
    EvidenceItem,
    LineError,
    parse_items,
    parse_jsonl,
    require_fit,
    require_items,
)
from .fingerprint import TextFacts, text_facts
from .params import Params, quote
from .summary import Summary, summarize
from .units import strip_bom
from .windows import processed_units, window_count

__all__ = [
    "EvidenceReport",
    "ItemResult",
    "MinOverlap",
    "QuestionResult",
    "Retrieval",
    "check_evidence",
    "item_ranges",
    "read_evidence",
    "retrieve",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionResult:
    rank_whole: int | None
    rank_touching: int | None
    context_units: int
    context_repeated_units: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemResult:
    """One item under one setting: units ``[unit_start, unit_end)``, the first and
    last chunk holding it whole (``None``: split), the first and last it touches."""

    item: EvidenceItem
    unit_start: int
    unit_end: int
    whole: tuple[int, int] | None
    touches: tuple[int, int]
    longer_than_size: bool
    retrieval: QuestionResult | None

    @property
    def units(self) -> int:
        return self.unit_end - self.unit_start

    @property
    def status(self) -> str:
        return "split" if self.whole is None else "whole"


@dataclass(frozen=True, slots=True, kw_only=True)
class MinOverlap:
    """The smallest overlap at this size keeping every item whole, with what that
    setting costs; or ``overlap=None`` and the ``reason``."""

    overlap: int | None
    reason: str | None
    chunks: int | None = None
    processed_units: int | None = None
    extra_volume: Fraction | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Retrieval:
    """The setting's retrieval figures (means over the questions), or why they are
    missing (``skipped``)."""

    questions: int
    recall_at_k: Fraction | None = None
    context_units: Fraction | None = None
    context_repeated_units: Fraction | None = None
    skipped: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class EvidenceReport:
    params: Params
    top_k: int
    summary: Summary
    items: tuple[ItemResult, ...]
    errors: tuple[LineError, ...]
    #: How ``errors`` count positions: ``"line"`` (JSON Lines) or ``"item"`` (a list).
    noun: str
    min_overlap: MinOverlap
    retrieval: Retrieval
    #: ``listed_chunks`` when the per-item chunk lists would be over
    #: :data:`~pyapp.facts.MAX_EVIDENCE_LISTED` indices and are left out.
    capped: Cap | None
    bom_removed: bool
    #: The text the offsets count in (its SHA-256, size and line breaks).
    text: TextFacts

    @property
    def whole(self) -> int:
        return sum(1 for r in self.items if r.whole is not None)

    @property
    def coverage(self) -> Fraction:
        return Fraction(self.whole, len(self.items))


def _min_overlap(
    items: tuple[EvidenceItem, ...], first: list[int], last: list[int], params: Params, units: int
) -> MinOverlap:
    size = params.size
    best = min_overlap(first, last, size=size)
    plural = UNITS[params.unit].plural
    if best is None:
        long = [(b - a + 1, i) for i, (a, b) in enumerate(zip(first, last, strict=True))]
        longest, at = max(x for x in long if x[0] > size)
        count = sum(1 for length, _ in long if length > size)
        name = quote(items[at].id)
        if count == 1:
            said = (
                f"item {name} is {longest:,} {plural} long, longer than the size ({size:,}):"
                " no overlap can keep it whole"
            )
        else:
            said = (
                f"{count:,} items are longer than the size ({size:,}), the longest, {name},"
                f" {longest:,} {plural}: no overlap can keep them whole"
            )
        return MinOverlap(overlap=None, reason=f"{said}; raise the size to at least {longest:,}")
    processed = processed_units(units, size=size, overlap=best)
    return MinOverlap(
        overlap=best,
        reason=None,
        chunks=window_count(units, size=size, overlap=best),
        processed_units=processed,
        extra_volume=Fraction(processed - units, units),
    )


def item_ranges(
    units: ItemUnits, *, size: int, overlap: int
) -> list[tuple[tuple[int, int] | None, tuple[int, int]]]:
    """Per item: the chunks holding it whole (first, last; ``None`` when split) and the
    chunks it touches, at ``size`` and ``overlap``."""
    count = units.units
    return [
        (
            whole_range(a, b, units=count, size=size, overlap=overlap),
            touch_range(a, b, units=count, size=size, overlap=overlap),
        )
        for a, b in zip(units.first, units.last, strict=True)
    ]


def retrieve(
    text: str,
    chunking: Chunking,
    items: Sequence[EvidenceItem],
    ranges: Sequence[tuple[tuple[int, int] | None, tuple[int, int]]],
    *,
    unit: str,
    top_k: int,
) -> tuple[Retrieval, list[QuestionResult | None]]:
    """The retrieval check of one chunking: its figures, and each item's (``None``
    for an item without a question). ``ranges`` are :func:`item_ranges`'. The chunks
    are indexed from their intervals alone; their lengths are the chunking's."""
    asked = [i for i, item in enumerate(items) if item.question is not None]
    per_item: list[QuestionResult | None] = [None] * len(items)
    if not asked:
        return Retrieval(questions=0, skipped="no evidence item has a question"), per_item
    processed = chunking.processed
    if processed > MAX_RETRIEVAL_UNITS:
        return Retrieval(
            questions=len(asked),
            skipped=(
                f"the retrieval check indexes every chunk, and this setting processes"
                f" {processed:,} {UNITS[unit].plural}, over its {MAX_RETRIEVAL_UNITS:,}"
                " limit: raise the size or lower the overlap"
            ),
        ), per_item
    windows = list(zip(chunking.unit_starts, chunking.unit_ends, strict=True))
    lengths_of = chunking.lengths
    spans = chunking.spans()
    queries = {i: terms(items[i].question or "") for i in asked}
    index = ChunkIndex(term_index(text), spans, {t for q in queries.values() for t in q})
    pairs = sum(index.pairs(queries[i]) for i in asked)
    if pairs > MAX_RETRIEVAL_PAIRS:
        return Retrieval(
            questions=len(asked),
            skipped=(
                f"the retrieval check would score {pairs:,} (question, chunk) pairs for"
                f" {len(asked):,} questions over {len(windows):,} chunks, over its"
                f" {MAX_RETRIEVAL_PAIRS:,} limit: raise the size, or check fewer questions"
                " at a time"
            ),
        ), per_item
    recalled = context = repeated = 0
    for i in asked:
        ranking = index.ranking(queries[i])
        whole, touches = ranges[i]
        rank_whole = ranking.rank_of(*whole) if whole is not None else None
        chosen = sorted(ranking.top(top_k))
        lengths = sum(lengths_of[k] for k in chosen)
        union = reach = 0
        for k in chosen:  # windows in index order start in order: merge as we go
            start, end = windows[k]
            union += max(0, end - max(start, reach))
            reach = max(reach, end)
        result = QuestionResult(
            rank_whole=rank_whole,
            rank_touching=ranking.rank_of(*touches),
            context_units=lengths,
            context_repeated_units=lengths - union,
        )
        per_item[i] = result
        recalled += rank_whole is not None and rank_whole <= top_k
        context += lengths
        repeated += lengths - union
    n = len(asked)
    return Retrieval(
        questions=n,
        recall_at_k=Fraction(recalled, n),
        context_units=Fraction(context, n),
        context_repeated_units=Fraction(repeated, n),
    ), per_item


def read_evidence(text: str, *, jsonl: str | None, items: object, fit: bool = False) -> Evidence:
    """The evidence from JSON Lines or a list of items (exactly one of them), refused
    when nothing in it can be used, and with ``fit`` when a line does not fit the
    text (:func:`~pyapp.core.evidence.require_fit`)."""
    if (jsonl is None) == (items is None):
        raise InputError("evidence", "give the evidence either as JSON Lines or as a list")
    evidence = parse_jsonl(text, jsonl) if jsonl is not None else parse_items(text, items)
    if fit:
        require_fit(evidence)
    require_items(evidence)
    return evidence


def check_evidence(
    text: str,
    params: Params,
    *,
    jsonl: str | None = None,
    items: object = None,
    top_k: int,
    fit: bool = False,
) -> EvidenceReport:
    """Check the evidence (JSON Lines ``jsonl`` or a list ``items``) against ``text``
    under ``params``. A leading byte-order mark is removed first (offsets count from
    after it, as in the chunk export), and the report says so. ``fit`` refuses
    evidence made on another text (the command line's rule) instead of listing
    those lines under ``errors`` (the page's)."""
    text, bom_removed = strip_bom(text)
    input_bytes = check_size(text)
    evidence = read_evidence(text, jsonl=jsonl, items=items, fit=fit)
    return _check(text, params, evidence, top_k, input_bytes, bom_removed)


@per_text
def _check(
    text: str, params: Params, evidence: Evidence, top_k: int, input_bytes: int, bom_removed: bool
) -> EvidenceReport:
    """The report, kept per text: the page's export after its view costs nothing."""
    seg = segment(text, params)
    units = seg.count
    size, overlap = params.size, params.overlap
    summary = summarize(units=units, params=params, input_bytes=input_bytes, input_chars=len(text))
    items = evidence.items
    mapped = item_units(text, seg, [(item.start, item.end) for item in items])
    ranges = item_ranges(mapped, size=size, overlap=overlap)
    listed = sum((w[1] - w[0] + 1 if w is not None else 0) + t[1] - t[0] + 1 for w, t in ranges)
    capped = (
        Cap(cap="listed_chunks", value=listed, limit=MAX_EVIDENCE_LISTED)
        if listed > MAX_EVIDENCE_LISTED
        else None
    )
    retrieval, questions = retrieve(
        text, chunking_of(text, params), items, ranges, unit=params.unit, top_k=top_k
    )
    results = tuple(
        ItemResult(
            item=item,
            unit_start=a,
            unit_end=b + 1,
            whole=whole,
            touches=touches,
            longer_than_size=b - a + 1 > size,
            retrieval=question,
        )
        for item, a, b, (whole, touches), question in zip(
            items, mapped.first, mapped.last, ranges, questions, strict=True
        )
    )
    return EvidenceReport(
        params=params,
        top_k=top_k,
        summary=summary,
        items=results,
        errors=evidence.errors,
        noun=evidence.noun,
        min_overlap=_min_overlap(items, mapped.first, mapped.last, params, units),
        retrieval=retrieval,
        capped=capped,
        bom_removed=bom_removed,
        text=text_facts(text),
    )
