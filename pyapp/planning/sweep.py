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

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from ..core.chunking import check_size, sentence_units
from ..core.chunkings import FixedWindows, plain_params, segment
from ..core.coverage import ItemUnits, count_whole, item_units
from ..core.evidence import Evidence
from ..core.evidence_report import item_ranges, read_evidence, retrieve
from ..core.params import parse_params, parse_whole
from ..core.sentences import SentenceUnits
from ..core.units import Segmentation, strip_bom
from ..core.windows import processed_units, window_count
from ..facts import EVIDENCE_DEFAULTS
from ..figures import number, round_half_up

__all__ = ["OVERLAP_PERCENTS", "SIZE_FACTORS", "Sweep", "sweep_text"]

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

    def row(self, *, unit: str, size: int, overlap: int) -> dict[str, Any]:
        items = self.evidence.items
        whole = count_whole(self.units.first, self.units.last, size=size, overlap=overlap)
        recall = None
        if any(item.question is not None for item in items):
            ranges = item_ranges(self.units, size=size, overlap=overlap)
            chunking = FixedWindows(self.text, self.seg, plain_params(unit, None, size, overlap))
            retrieval, _ = retrieve(self.text, chunking, items, ranges, unit=unit, top_k=self.top_k)
            recall = retrieval.recall_at_k
        return {
            "evidence_whole": whole,
            "evidence_coverage": number(Fraction(whole, len(items))),
            "recall_at_k": number(recall),
        }


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


def sweep_text(
    text: str,
    *,
    unit: object = "word",
    encoding: object = None,
    size: object,
    overlap: object = 0,
    overlap_mode: object = "units",
    evidence_jsonl: str | None = None,
    evidence: object = None,
    top_k: object = None,
    fit: bool = False,
) -> Sweep:
    """Sweep ``text`` around one configuration (validated like ``chunk``'s), with the
    evidence columns when ``evidence_jsonl`` or ``evidence`` is given (``fit``: evidence
    made on another text is refused, as the ``evidence`` command refuses it)."""
    params = parse_params(
        unit=unit, encoding=encoding, size=size, overlap=overlap, overlap_mode=overlap_mode
    )
    check = None
    text, _ = strip_bom(text)  # not text, as in every chunk run (and evidence offsets)
    check_size(text)
    seg = segment(text, params)
    if evidence_jsonl is not None or evidence is not None:
        k = parse_whole("top_k", EVIDENCE_DEFAULTS["top_k"] if top_k is None else top_k)
        read = read_evidence(text, jsonl=evidence_jsonl, items=evidence, fit=fit)
        spans = [(item.start, item.end) for item in read.items]
        check = _Evidence(text, seg, read, item_units(text, seg, spans), k)
    units = seg.count
    index = sentence_units(text, params)
    c, o = params.size, params.overlap

    percent = params.overlap_percent
    share = percent / 100 if percent is not None else Fraction(o, c)

    rows: list[dict[str, Any]] = []
    overlaps = sorted(
        {o} | {v for p in OVERLAP_PERCENTS if (v := round_half_up(Fraction(p * c, 100))) < c}
    )
    for ov in overlaps:
        rows.append(
            _row("overlap", c, ov, units, index, current=ov == o, evidence=check, unit=params.unit)
        )

    seen: set[int] = set()
    for factor in SIZE_FACTORS:
        sz = max(1, round_half_up(c * factor))
        if sz in seen:
            continue
        seen.add(sz)
        ov = o if sz == c else min(sz - 1, round_half_up(share * sz))
        rows.append(
            _row("size", sz, ov, units, index, current=sz == c, evidence=check, unit=params.unit)
        )

    return Sweep(
        params={"unit": params.unit, "encoding": params.encoding, "size": c, "overlap": o},
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
        },
    )
