"""The evidence check of one text under one setting: which items are whole, the
smallest overlap that keeps all of them whole and its cost, and the retrieval check.

:func:`check_evidence` reads the evidence (:mod:`pyapp.core.evidence`), maps each
item to the units it needs (:mod:`pyapp.core.coverage`), and ranks the chunks for
each question with BM25 (:mod:`pyapp.core.bm25`), with the dense retriever
(cosine similarity of all-MiniLM-L6-v2 embeddings, :mod:`pyapp.core.dense`, given
as :class:`Vectors`), or both: siblings that share :func:`_ranked`, which gives
the figures below and Chroma's range metrics (:mod:`pyapp.core.range_metrics`) for
either. Only the retrieval checks look at chunk texts; everything else is window
arithmetic, so a megabyte with a thousand items takes well under a second.

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

The check is skipped (and says why) when no item has a question, when the
setting processes more than :data:`~pyapp.facts.MAX_RETRIEVAL_UNITS` units or has
more than :data:`~pyapp.facts.MAX_RETRIEVAL_CHUNKS` chunks, or when scoring would
take more than :data:`~pyapp.facts.MAX_RETRIEVAL_PAIRS` steps.

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

from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Protocol

from ..errors import InputError
from ..facts import (
    MAX_DENSE_CHUNKS,
    MAX_EVIDENCE_LISTED,
    MAX_OVERLAP_TRIES,
    MAX_RETRIEVAL_CHUNKS,
    MAX_RETRIEVAL_PAIRS,
    MAX_RETRIEVAL_UNITS,
    RETRIEVERS,
    UNITS,
)
from .bm25 import ChunkIndex, term_index, terms
from .cache import per_text
from .chunking import Cap, check_size
from .chunkings import Chunking, chunking_of, segment
from .coverage import ItemUnits, item_units, min_overlap, touch_range, whole_range
from .dense import cosine_scores, dense_rank_of, dense_top, text_key
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
from .range_metrics import RangeMetrics, range_metrics
from .summary import Summary, summarize_chunking
from .units import strip_bom
from .windows import processed_units, window_count

__all__ = [
    "EvidenceReport",
    "ItemResult",
    "AnyPlacement",
    "MinOverlap",
    "QuestionResult",
    "Retrieval",
    "Vectors",
    "check_evidence",
    "dense_chunk_texts",
    "dense_texts",
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
    #: The same figures for the dense retriever (``None``: not asked, or no question).
    dense: QuestionResult | None = None

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
    #: How it was found, for a splitter without a closed form (``None``: the closed form).
    found_by: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AnyPlacement:
    """The overlap that keeps any passage up to the longest item's length whole wherever
    it falls, not only where these items are: ``longest - 1``, capped below the size.

    For the fixed window this is a guarantee: with stride ``S = C - O``, a run of
    ``L`` units starting at ``a`` lies in window ``floor(a / S)`` whenever
    ``L <= O + 1`` (the window reaches ``floor(a / S) * S + C > a - S + C = a + O``).
    It cannot hold for an item longer than the size, nor for a splitter whose chunks
    move with the separators (``guaranteed`` is false, and ``reason`` says why).
    The smallest overlap (:class:`MinOverlap`) is usually far below it: it only keeps
    these items whole, where they are."""

    longest: int
    overlap: int
    guaranteed: bool
    reason: str | None
    chunks: int
    processed_units: int
    extra_volume: Fraction | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Retrieval:
    """The setting's retrieval figures (means over the questions), or why they are
    missing (``skipped``)."""

    questions: int
    recall_at_k: Fraction | None = None
    context_units: Fraction | None = None
    context_repeated_units: Fraction | None = None
    #: Chroma's range metrics over the distinct questions (:mod:`.range_metrics`).
    range_metrics: RangeMetrics | None = None
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
    #: The overlap that keeps any passage up to the longest item's length whole.
    any_placement: AnyPlacement
    #: ``"bm25"``, ``"minilm"`` or ``"both"``: which of the two below were asked for.
    retriever: str
    retrieval: Retrieval | None
    dense: Retrieval | None
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


def any_placement(text: str, params: Params, longest: int, units: int) -> AnyPlacement:
    """:class:`AnyPlacement` for items at most ``longest`` units long (at least 1)."""
    size = params.size
    overlap = min(longest - 1, size - 1)
    plural = UNITS[params.unit].plural
    reason = None
    if params.splitter != "fixed":
        chunking = chunking_of(text, replace(params, overlap=overlap))
        reason = (
            "the recursive splitter treats the overlap as a target and its chunks move with"
            " the separators, so no overlap keeps a passage whole wherever it falls"
        )
        return AnyPlacement(
            longest=longest, overlap=overlap, guaranteed=False, reason=reason,
            chunks=chunking.count, processed_units=chunking.processed,
            extra_volume=Fraction(sum(chunking.overlaps), units) if units else None,
        )  # fmt: skip
    if longest > size:
        reason = (
            f"the longest passage is {longest:,} {plural}, longer than the size ({size:,}):"
            f" no overlap keeps it whole; raise the size to at least {longest:,}"
        )
    processed = processed_units(units, size=size, overlap=overlap)
    return AnyPlacement(
        longest=longest, overlap=overlap, guaranteed=longest <= size, reason=reason,
        chunks=window_count(units, size=size, overlap=overlap), processed_units=processed,
        extra_volume=Fraction(processed - units, units) if units else None,
    )  # fmt: skip


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


Ranges = Sequence[tuple[tuple[int, int] | None, tuple[int, int]]]


class Ranking(Protocol):
    """A question's ranking of the chunks: the first ``k`` retrieved, best first, and
    the rank (1-based) of the best-ranked chunk of a run, ``None`` when none is
    retrieved (:class:`~pyapp.core.bm25.Ranking`, :class:`DenseRanking`)."""

    def top(self, k: int) -> list[int]: ...

    def rank_of(self, first: int, last: int) -> int | None: ...


@dataclass(frozen=True, slots=True)
class DenseRanking:
    """Every chunk's cosine score for one question; every chunk is a candidate."""

    scores: Sequence[float]

    def top(self, k: int) -> list[int]:
        return dense_top(self.scores, k)

    def rank_of(self, first: int, last: int) -> int | None:
        return dense_rank_of(self.scores, first, last)


def _ranked(
    items: Sequence[EvidenceItem],
    asked: Sequence[int],
    chunking: Chunking,
    ranges: Ranges,
    top_k: int,
    ranking: Callable[[int], Ranking],
) -> tuple[Retrieval, list[QuestionResult | None]]:
    """The figures of one retriever (``ranking(i)``: item ``i``'s question ranked):
    ranks, ``recall_at_k`` and context per item, and the range metrics per distinct
    question (every item carrying it is part of its evidence)."""
    windows = list(zip(chunking.unit_starts, chunking.unit_ends, strict=True))
    spans = chunking.spans()
    per_item: list[QuestionResult | None] = [None] * len(items)
    recalled = context = repeated = 0
    retrieved: dict[str, list[tuple[int, int]]] = {}
    evidence: dict[str, list[tuple[int, int]]] = {}
    for i in asked:
        ranked = ranking(i)
        whole, touches = ranges[i]
        rank_whole = ranked.rank_of(*whole) if whole is not None else None
        best = ranked.top(top_k)
        chosen = sorted(best)
        lengths = sum(windows[k][1] - windows[k][0] for k in chosen)
        union = reach = 0
        for k in chosen:  # windows in index order start in order: merge as we go
            start, end = windows[k]
            union += max(0, end - max(start, reach))
            reach = max(reach, end)
        per_item[i] = QuestionResult(
            rank_whole=rank_whole,
            rank_touching=ranked.rank_of(*touches) if touches[1] >= touches[0] else None,
            context_units=lengths,
            context_repeated_units=lengths - union,
        )
        recalled += rank_whole is not None and rank_whole <= top_k
        context += lengths
        repeated += lengths - union
        question = items[i].question or ""
        retrieved.setdefault(question, [spans[k] for k in best])
        evidence.setdefault(question, []).append((items[i].start, items[i].end))
    n = len(asked)
    return Retrieval(
        questions=n,
        recall_at_k=Fraction(recalled, n),
        context_units=Fraction(context, n),
        context_repeated_units=Fraction(repeated, n),
        range_metrics=range_metrics(
            list(evidence), list(evidence.values()), list(retrieved.values()), spans
        ),
    ), per_item


def _asked(items: Sequence[EvidenceItem]) -> list[int]:
    return [i for i, item in enumerate(items) if item.question is not None]


def retrieve(
    text: str,
    chunking: Chunking,
    items: Sequence[EvidenceItem],
    ranges: Ranges,
    *,
    unit: str,
    top_k: int,
) -> tuple[Retrieval, list[QuestionResult | None]]:
    """The BM25 retrieval check of one chunking: its figures, and each item's
    (``None`` for an item without a question). ``ranges`` are :func:`item_ranges`'. The
    chunks are indexed from their intervals alone; the context they make up is counted
    in the text's units they hold (``unit_starts`` to ``unit_ends``)."""
    asked = _asked(items)
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
    if chunking.count > MAX_RETRIEVAL_CHUNKS:
        return Retrieval(
            questions=len(asked),
            skipped=(
                f"the retrieval check indexes every chunk, and this setting has"
                f" {chunking.count:,} chunks, over its {MAX_RETRIEVAL_CHUNKS:,} limit:"
                " raise the size"
            ),
        ), per_item
    spans = chunking.spans()
    queries = {i: terms(items[i].question or "") for i in asked}
    index = ChunkIndex(term_index(text), spans, {t for q in queries.values() for t in q})
    pairs = sum(index.pairs(queries[i]) for i in asked)
    if pairs > MAX_RETRIEVAL_PAIRS:
        return Retrieval(
            questions=len(asked),
            skipped=(
                f"the retrieval check would take {pairs:,} (term, chunk) steps for"
                f" {len(asked):,} questions over {chunking.count:,} chunks, over its"
                f" {MAX_RETRIEVAL_PAIRS:,} limit: raise the size, or check fewer questions"
                " at a time"
            ),
        ), per_item
    return _ranked(items, asked, chunking, ranges, top_k, lambda i: index.ranking(queries[i]))


class Vectors:
    """Normalized embeddings by :func:`~pyapp.core.dense.text_key`, as the embedder
    made them (natively, or in the page); compared by identity, so a report can be
    kept per text and vectors."""

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        self.vectors = vectors

    def of(self, text: str) -> Sequence[float]:
        vector = self.vectors.get(text_key(text))
        if vector is None:
            raise InputError(
                "embeddings", "an embedding the dense check needs was not given: embed again"
            )
        return vector


def _dense_skip(chunking: Chunking) -> str | None:
    chunks = chunking.count
    if chunks > MAX_DENSE_CHUNKS:
        return (
            f"dense retrieval embeds every chunk, and this setting has {chunks:,} chunks,"
            f" over its {MAX_DENSE_CHUNKS:,} limit: raise the size"
        )
    return None


def retrieve_dense(
    text: str,
    chunking: Chunking,
    items: Sequence[EvidenceItem],
    ranges: Ranges,
    *,
    top_k: int,
    vectors: Vectors,
) -> tuple[Retrieval, list[QuestionResult | None]]:
    """The dense retrieval check of one chunking: every chunk and question embedded
    (``vectors``), chunks ranked by cosine similarity, equal scores by index."""
    asked = _asked(items)
    per_item: list[QuestionResult | None] = [None] * len(items)
    if not asked:
        return Retrieval(questions=0, skipped="no evidence item has a question"), per_item
    skipped = _dense_skip(chunking)
    if skipped is not None:
        return Retrieval(questions=len(asked), skipped=skipped), per_item
    chunk_vectors = [vectors.of(text[a:b]) for a, b in chunking.spans()]
    scored: dict[str, list[float]] = {}

    def ranking(i: int) -> Ranking:
        question = items[i].question or ""
        if question not in scored:
            scored[question] = cosine_scores(vectors.of(question), chunk_vectors)
        return DenseRanking(scored[question])

    return _ranked(items, asked, chunking, ranges, top_k, ranking)


def dense_texts(
    text: str, *settings: Params, jsonl: str | None = None, items: object = None
) -> list[str]:
    """Every text the dense check embeds for these settings (one, or the sweep's
    grid), each once: the chunk texts in order, setting after setting, then the
    questions. Empty when no passage has a question; a setting over the dense
    check's limit adds no chunk."""
    text, _ = strip_bom(text)
    check_size(text)
    evidence = read_evidence(text, jsonl=jsonl, items=items)
    questions = [item.question for item in evidence.items if item.question is not None]
    if not questions:
        return []
    chunks = [t for params in settings for t in dense_chunk_texts(text, params)]
    return list(dict.fromkeys([*chunks, *questions]))


def dense_chunk_texts(text: str, params: Params) -> list[str]:
    """The chunk texts the dense check embeds at ``params`` (``text`` without a BOM);
    none when the setting is over the dense check's limit."""
    chunking = chunking_of(text, params)
    if _dense_skip(chunking):
        return []
    return [text[a:b] for a, b in chunking.spans()]


def needed_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The part of an item a chunk must hold for it to be whole: the item without the
    whitespace at its ends (which a splitter may strip from a chunk's edges; an item
    is never whitespace only)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def chunking_ranges(
    chunking: Chunking, spans: Sequence[tuple[int, int]]
) -> list[tuple[tuple[int, int] | None, tuple[int, int]]]:
    """Per span, from the chunking's intervals alone: the chunks holding it whole
    (first, last; ``None`` when split) and the chunks it touches (an empty run
    ``(k, k - 1)`` when it lies where no chunk is)."""
    out: list[tuple[tuple[int, int] | None, tuple[int, int]]] = []
    for a, b in spans:
        touches = chunking.touching(a, b)
        if touches is None:
            after = bisect_right(chunking.char_ends, a)
            touches = (after, after - 1)
        out.append((chunking.holding(a, b), touches))
    return out


def min_overlap_tried(
    text: str, params: Params, spans: Sequence[tuple[int, int]], units: int
) -> MinOverlap:
    """The smallest overlap keeping every span whole, for a splitter whose chunks have
    no closed form: found by chunking again at overlap 0, 1, 2, ... (at most
    :data:`~pyapp.facts.MAX_OVERLAP_TRIES` of them), and saying so."""
    size = params.size
    top = min(size, MAX_OVERLAP_TRIES)
    for overlap in range(top):
        chunking = chunking_of(text, replace(params, overlap=overlap))
        if all(chunking.holding(a, b) is not None for a, b in spans):
            processed = chunking.processed
            return MinOverlap(
                overlap=overlap,
                reason=None,
                chunks=chunking.count,
                processed_units=processed,
                extra_volume=Fraction(sum(chunking.overlaps), units) if units else None,
                found_by=f"chunking again at overlaps 0 to {overlap} (no closed form)",
            )
    tried = f"overlaps 0 to {top - 1:,}"
    more = "" if top == size else f" (of the {size:,} below the size)"
    return MinOverlap(
        overlap=None,
        reason=f"no overlap among {tried}{more} keeps every item whole: raise the size",
        found_by=f"chunking again at {tried} (no closed form)",
    )


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
    retriever: str = "bm25",
    vectors: Vectors | None = None,
) -> EvidenceReport:
    """Check the evidence (JSON Lines ``jsonl`` or a list ``items``) against ``text``
    under ``params``. A leading byte-order mark is removed first (offsets count from
    after it, as in the chunk export), and the report says so. ``fit`` refuses
    evidence made on another text (the command line's rule) instead of listing
    those lines under ``errors`` (the page's). ``retriever`` is ``"bm25"``,
    ``"minilm"`` or ``"both"``; the dense one reads its embeddings from ``vectors``
    (every text of :func:`dense_texts`)."""
    if retriever not in RETRIEVERS:
        raise InputError(
            "retriever", f"unknown retriever {quote(retriever)}: use one of {', '.join(RETRIEVERS)}"
        )
    if retriever != "bm25" and vectors is None:
        raise InputError("retriever", f"the {retriever} check needs the embeddings of its texts")
    text, bom_removed = strip_bom(text)
    input_bytes = check_size(text)
    evidence = read_evidence(text, jsonl=jsonl, items=items, fit=fit)
    return _check(text, params, evidence, top_k, input_bytes, bom_removed, retriever, vectors)


@per_text
def _check(
    text: str,
    params: Params,
    evidence: Evidence,
    top_k: int,
    input_bytes: int,
    bom_removed: bool,
    retriever: str,
    vectors: Vectors | None,
) -> EvidenceReport:
    """The report, kept per text: the page's export after its view costs nothing."""
    seg = segment(text, params)
    units = seg.count
    size, overlap = params.size, params.overlap
    chunking = chunking_of(text, params)
    summary = summarize_chunking(
        chunking, units=units, params=params, input_bytes=input_bytes, input_chars=len(text)
    )
    items = evidence.items
    mapped = item_units(text, seg, [(item.start, item.end) for item in items])
    fixed = params.splitter == "fixed"
    if fixed:
        ranges = item_ranges(mapped, size=size, overlap=overlap)
        longer = [b - a + 1 > size for a, b in zip(mapped.first, mapped.last, strict=True)]
        least = _min_overlap(items, mapped.first, mapped.last, params, units)
        longest = max(b - a + 1 for a, b in zip(mapped.first, mapped.last, strict=True))
    else:
        needed = [needed_span(text, item.start, item.end) for item in items]
        ranges = chunking_ranges(chunking, needed)
        measure = chunking.measure
        longer = [measure(text[a:b]) > size for a, b in needed]
        least = min_overlap_tried(text, params, needed, units)
        longest = max(measure(text[a:b]) for a, b in needed)
    anywhere = any_placement(text, params, max(longest, 1), units)
    listed = sum((w[1] - w[0] + 1 if w is not None else 0) + t[1] - t[0] + 1 for w, t in ranges)
    capped = (
        Cap(cap="listed_chunks", value=listed, limit=MAX_EVIDENCE_LISTED)
        if listed > MAX_EVIDENCE_LISTED
        else None
    )
    nothing: list[QuestionResult | None] = [None] * len(items)
    retrieval, questions = (
        retrieve(text, chunking, items, ranges, unit=params.unit, top_k=top_k)
        if retriever != "minilm"
        else (None, nothing)
    )
    dense, dense_questions = (
        retrieve_dense(text, chunking, items, ranges, top_k=top_k, vectors=vectors)
        if vectors is not None and retriever != "bm25"
        else (None, nothing)
    )
    results = tuple(
        ItemResult(
            item=item,
            unit_start=a,
            unit_end=b + 1,
            whole=whole,
            touches=touches,
            longer_than_size=long,
            retrieval=question,
            dense=dense_question,
        )
        for item, a, b, (whole, touches), question, dense_question, long in zip(
            items,
            mapped.first,
            mapped.last,
            ranges,
            questions,
            dense_questions,
            longer,
            strict=True,
        )
    )
    return EvidenceReport(
        params=params,
        top_k=top_k,
        summary=summary,
        items=results,
        errors=evidence.errors,
        noun=evidence.noun,
        min_overlap=least,
        any_placement=anywhere,
        retriever=retriever,
        retrieval=retrieval,
        dense=dense,
        capped=capped,
        bom_removed=bom_removed,
        text=text_facts(text),
    )
