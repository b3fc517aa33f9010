"""Overlap sweep: how chunks, inflation and cut sentences move with overlap and size.

One call segments the text once and splits it into sentences once; every row is
then closed-form window arithmetic plus an ``O(sentences)`` cut count
(:class:`~pyapp.core.sentences.SentenceUnits`), so no chunk is ever built.

Two series:

* ``overlap``: the current size at overlap 0%, 5%, ... 50% of it, each rounded
  half up to whole units (the engine's rule), duplicates and overlaps ``>= C``
  dropped, plus the current overlap if it is not among them;
* ``size``: the current size × 0.5, 0.75, 1, 1.5 and 2 (rounded half up, at
  least 1, duplicates dropped), each with the current overlap *share*: the
  percentage if the overlap was given as one, else ``O / C``; rounded half up
  and kept below the size.

Each row matches what a separate ``chunk`` run of that configuration reports
(the tests check it).

With evidence (JSON Lines or a list of items, read as the ``evidence`` command
reads them), every row also has ``evidence_whole`` and ``evidence_coverage`` (items
whole at that setting, and their share) and ``recall_at_k`` (BM25's, as the
``evidence`` command computes it; ``None`` when no item has a question or the row
is over the retrieval check's limit), and the sweep says how many items and
questions it checked. The items are mapped to units once; each row's coverage is
then ``O(items)`` arithmetic, and its recall one BM25 pass over its chunks.

>>> text = "One two three. Four five six. Seven eight nine ten."
>>> result = sweep_text(text, unit="word", size=4, overlap=1)
>>> [(r["overlap"], r["chunks"], r["cut"]) for r in result.rows if r["series"] == "overlap"]
[(0, 3, 2), (1, 3, 0), (2, 4, 0)]
>>> [(r["size"], r["overlap"], r["chunks"]) for r in result.rows if r["series"] == "size"]
[(2, 1, 9), (3, 1, 5), (4, 1, 3), (6, 2, 2), (8, 2, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Final

from ..core.chunking import check_size, sentence_units
from ..core.chunkings import Chunking, FixedWindows, chunking_of, plain_params, segment
from ..core.coverage import ItemUnits, count_whole, item_units
from ..core.evidence import Evidence
from ..core.evidence_report import (
    Vectors,
    chunking_ranges,
    dense_texts,
    item_ranges,
    needed_span,
    read_evidence,
    retrieve,
    retrieve_dense,
)
from ..core.export import splitter_json
from ..core.overlap import overlap_figures
from ..core.params import Params, parse_params, parse_whole
from ..core.sentences import SentenceUnits, split_sentences_kept
from ..core.units import Segmentation, strip_bom
from ..core.windows import processed_units, window_count
from ..errors import InputError
from ..facts import EVIDENCE_DEFAULTS
from ..figures import number, round_half_up

__all__ = [
    "OVERLAP_PERCENTS",
    "RECALL_LEFT_OUT",
    "SIZE_FACTORS",
    "Sweep",
    "grid",
    "sweep_dense_texts",
    "sweep_text",
]

#: Why the questions were left out of a sweep (``recall_work``).
RECALL_LEFT_OUT: Final = (
    "Recall@k at every setting is left out for a text this long with this many questions:"
    " it would keep the engine busy for seconds after every change. The evidence check"
    " shows it for your setting."
)
#: Overlap series, in percent of the size.
OVERLAP_PERCENTS: Final = tuple(range(0, 55, 5))
#: Size series, as factors of the current size.
SIZE_FACTORS: Final = (Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2))


@dataclass(frozen=True, slots=True, kw_only=True)
class Sweep:
    params: dict[str, Any]
    units: int
    sentences: int
    rows: list[dict[str, Any]]
    #: ``{"items", "questions", "top_k", "errors"}`` when evidence was given.
    evidence: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "schema": "pyapp.sweep/1",
            "params": self.params,
            "units": self.units,
            "sentences": self.sentences,
            "rows": self.rows,
        }
        if self.evidence is not None:
            out["evidence"] = self.evidence
        return out


@dataclass(frozen=True, slots=True)
class _Evidence:
    """What every row needs of the evidence: the text, the items and their units."""

    text: str
    seg: Segmentation
    evidence: Evidence
    units: ItemUnits
    top_k: int
    #: The dense embeddings, when the sweep adds the dense columns.
    vectors: Vectors | None = None

    def row_of(self, chunking: Chunking, unit: str) -> dict[str, Any]:
        """The evidence columns of any chunking, from its intervals alone."""
        items = self.evidence.items
        needed = [needed_span(self.text, item.start, item.end) for item in items]
        ranges = chunking_ranges(chunking, needed)
        whole = sum(1 for held, _ in ranges if held is not None)
        recall = None
        if any(item.question is not None for item in items):
            retrieval, _ = retrieve(self.text, chunking, items, ranges, unit=unit, top_k=self.top_k)
            recall = retrieval.recall_at_k
        out = {
            "evidence_whole": whole,
            "evidence_coverage": number(Fraction(whole, len(items))),
            "recall_at_k": number(recall),
        }
        return out | self._dense(chunking, ranges)

    def _dense(
        self, chunking: Chunking, ranges: list[tuple[tuple[int, int] | None, tuple[int, int]]]
    ) -> dict[str, Any]:
        """The dense columns of one chunking (none without vectors)."""
        if self.vectors is None:
            return {}
        recall = iou = None
        items = self.evidence.items
        if any(item.question is not None for item in items):
            dense, _ = retrieve_dense(
                self.text, chunking, items, ranges, top_k=self.top_k, vectors=self.vectors
            )
            recall = dense.recall_at_k
            if dense.range_metrics is not None:
                iou = dense.range_metrics.stat("iou").mean
        return {"dense_recall_at_k": number(recall), "dense_iou": number(iou)}

    def row(self, *, unit: str, size: int, overlap: int) -> dict[str, Any]:
        items = self.evidence.items
        whole = count_whole(self.units.first, self.units.last, size=size, overlap=overlap)
        recall = None
        dense = {} if self.vectors is None else {"dense_recall_at_k": None, "dense_iou": None}
        if any(item.question is not None for item in items):
            ranges = item_ranges(self.units, size=size, overlap=overlap)
            chunking = FixedWindows(self.text, self.seg, plain_params(unit, None, size, overlap))
            retrieval, _ = retrieve(self.text, chunking, items, ranges, unit=unit, top_k=self.top_k)
            recall = retrieval.recall_at_k
            dense = self._dense(chunking, ranges)
        out = {
            "evidence_whole": whole,
            "evidence_coverage": number(Fraction(whole, len(items))),
            "recall_at_k": number(recall),
        }
        return out | dense


def _row(
    series: str,
    size: int,
    overlap: int,
    units: int,
    index: SentenceUnits,
    *,
    current: bool,
    evidence: _Evidence | None,
    unit: str,
) -> dict[str, Any]:
    chunks = window_count(units, size=size, overlap=overlap)
    processed = processed_units(units, size=size, overlap=overlap)
    row = {
        "series": series,
        "size": size,
        "overlap": overlap,
        "overlap_percent": number(Fraction(100 * overlap, size)),
        "stride": size - overlap,
        "chunks": chunks,
        "processed_units": processed,
        "repeated_units": processed - units,
        "inflation": number(Fraction(processed, units)) if units else None,
        "limit_inflation": number(Fraction(size, size - overlap)),
        "cut": index.cut_count(size=size, overlap=overlap),
        "current": current,
    }
    if evidence is not None:
        row.update(evidence.row(unit=unit, size=size, overlap=overlap))
    return row


def _row_measured(
    series: str,
    params: Params,
    units: int,
    sentences: list[tuple[int, int]],
    *,
    text: str,
    current: bool,
    evidence: _Evidence | None,
) -> dict[str, Any]:
    """A row of a splitter without closed forms: chunk the text at this setting and
    read the figures from the intervals, with the overlap the boundaries produced."""
    size, overlap = params.size, params.overlap
    chunking = chunking_of(text, params)
    processed = chunking.processed
    figures = overlap_figures(chunking, requested=overlap, size=size)
    row: dict[str, Any] = {
        "series": series,
        "size": size,
        "overlap": overlap,
        "overlap_percent": number(Fraction(100 * overlap, size)),
        "stride": None,
        "chunks": chunking.count,
        "processed_units": processed,
        "repeated_units": sum(chunking.overlaps),
        "inflation": number(Fraction(processed, units)) if units else None,
        "limit_inflation": None,
        "cut": len(chunking.cut(sentences)),
        "current": current,
        "produced_overlap_min": figures.produced_min,
        "produced_overlap_median": number(figures.produced_median),
        "produced_overlap_max": figures.produced_max,
        "no_overlap": figures.no_overlap,
        "over_size": figures.over_size,
        "extra_volume": number(Fraction(sum(chunking.overlaps), units)) if units else None,
    }
    if evidence is not None:
        row.update(evidence.row_of(chunking, params.unit))
    return row


def grid(params: Params) -> list[tuple[str, int, int]]:
    """The sweep's settings around ``params``: ``(series, size, overlap)`` per row."""
    c, o = params.size, params.overlap
    percent = params.overlap_percent
    share = percent / 100 if percent is not None else Fraction(o, c)
    overlaps = {o} | {v for p in OVERLAP_PERCENTS if (v := round_half_up(Fraction(p * c, 100))) < c}
    out = [("overlap", c, ov) for ov in sorted(overlaps)]
    seen: set[int] = set()
    for factor in SIZE_FACTORS:
        sz = max(1, round_half_up(c * factor))
        if sz in seen:
            continue
        seen.add(sz)
        out.append(("size", sz, o if sz == c else min(sz - 1, round_half_up(share * sz))))
    return out


def sweep_dense_texts(
    text: str,
    *,
    evidence_jsonl: str | None = None,
    evidence: object = None,
    **settings: Any,
) -> list[str]:
    """Every text the sweep's dense columns embed, each once, for the chunk settings
    :func:`sweep_text` takes (``size`` and the rest, checked as ``chunk`` checks
    them): the chunk texts of every row (rows over the dense check's limit left
    out), then the questions. Settings
    share most chunks (the same size at another overlap starts at the same places
    only now and then, but every row at overlap 0 of a size shares nothing): the
    count here is what the model has to do before the cache helps."""
    params = parse_params(**settings)
    rows = [replace(params, size=sz, overlap=ov) for _, sz, ov in grid(params)]
    return dense_texts(text, *rows, jsonl=evidence_jsonl, items=evidence)


def sweep_text(
    text: str,
    *,
    splitter: object = "fixed",
    separators_preset: object = None,
    separators: object = None,
    separator_regex: object = None,
    keep_separator: object = None,
    strip: object = None,
    unit: object = "word",
    encoding: object = None,
    size: object,
    overlap: object = 0,
    overlap_mode: object = "units",
    evidence_jsonl: str | None = None,
    evidence: object = None,
    top_k: object = None,
    fit: bool = False,
    vectors: Vectors | None = None,
    recall_work: int | None = None,
) -> Sweep:
    """Sweep ``text`` around one configuration (validated like ``chunk``'s), with the
    evidence columns when ``evidence_jsonl`` or ``evidence`` is given (``fit``: evidence
    made on another text is refused, as the ``evidence`` command refuses it), and the
    dense ones (``dense_recall_at_k``, ``dense_iou``) when ``vectors`` holds the
    embeddings of :func:`sweep_dense_texts` (of the same splitter and settings). With
    ``recall_work``, the questions are left out (and ``evidence.note`` says so) when the
    text's code points x (questions + 10) exceed it: recall at every setting would be
    that much BM25 work."""
    params = parse_params(
        unit=unit,
        encoding=encoding,
        size=size,
        overlap=overlap,
        overlap_mode=overlap_mode,
        splitter=splitter,
        separators_preset=separators_preset,
        separators=separators,
        separator_regex=separator_regex,
        keep_separator=keep_separator,
        strip=strip,
    )
    check = None
    note: str | None = None
    text, _ = strip_bom(text)  # not text, as in every chunk run (and evidence offsets)
    check_size(text)
    seg = segment(text, params)
    if evidence_jsonl is not None or evidence is not None:
        k = parse_whole("top_k", EVIDENCE_DEFAULTS["top_k"] if top_k is None else top_k)
        read = read_evidence(text, jsonl=evidence_jsonl, items=evidence, fit=fit)
        questions = sum(1 for item in read.items if item.question is not None)
        if recall_work is not None and questions and len(text) * (questions + 10) > recall_work:
            note = RECALL_LEFT_OUT
            vectors = None  # the dense columns are recall too
            read = replace(read, items=tuple(replace(i, question=None) for i in read.items))
        spans = [(item.start, item.end) for item in read.items]
        check = _Evidence(text, seg, read, item_units(text, seg, spans), k, vectors)
    elif vectors is not None:
        raise InputError("evidence", "the dense columns need evidence with questions")
    units = seg.count
    index = sentence_units(text, params)
    c, o = params.size, params.overlap

    measured = params.splitter != "fixed"
    sentences = split_sentences_kept(text) if measured else []

    def row(series: str, sz: int, ov: int, *, current: bool) -> dict[str, Any]:
        if measured:
            at = replace(params, size=sz, overlap=ov)
            return _row_measured(
                series, at, units, sentences, text=text, current=current, evidence=check
            )
        return _row(series, sz, ov, units, index, current=current, evidence=check, unit=params.unit)

    rows = [
        row(series, sz, ov, current=(ov == o) if series == "overlap" else (sz == c))
        for series, sz, ov in grid(params)
    ]

    described: dict[str, Any] = {
        "unit": params.unit, "encoding": params.encoding, "size": c, "overlap": o,
    }  # fmt: skip
    if measured:  # the fixed window's sweep stays as it was
        described["splitter"] = splitter_json(params)
    return Sweep(
        params=described,
        units=units,
        sentences=len(index.sentences),
        rows=rows,
        evidence=None
        if check is None
        else {
            "items": len(check.evidence.items),
            "questions": sum(1 for i in check.evidence.items if i.question is not None),
            "top_k": check.top_k,
            "errors": [e.to_json() for e in check.evidence.errors],
            **({"note": note} if note else {}),
        },
    )
