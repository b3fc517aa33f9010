"""Audit a chunking made elsewhere, and compare two chunkings of one text.

An imported chunks file (:mod:`.imported`) is re-anchored on the text (:mod:`.anchor`);
what comes out is a chunking like any other, a list of code-point intervals, and every
figure below works from those intervals: the chunks' sizes in a unit, the inflation,
the index entries, stored tokens and cost, what each boundary repeats or skips, the
sentences no chunk holds whole, the evidence passages held whole or split, BM25 recall,
and, through the truncation lens (:mod:`.lens`), what the embedding model drops.

>>> text = "One two three. Four five six. One two three."
>>> chunks = '["One two three.", " Four five six.", "One two three."]'
>>> report = audit_text(text, chunks, measure=Measure(unit="word"))
>>> [(c.verdict, c.start, c.end) for c in report.anchored]
[('corrected', 0, 14), ('corrected', 14, 29), ('corrected', 30, 44)]
>>> report.anchoring_sentence()
'your chunks carry no start offsets: all 3 were found in the text'
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from ..errors import InputError
from ..facts import MEASURE_UNIT, SIZING_DEFAULTS
from ..figures import number
from ..models import MODELS
from .anchor import VERDICTS, Anchored, anchor
from .bm25 import ChunkIndex, term_index, terms, top
from .chunking import check_size
from .chunkings import Chunking, chunking_of
from .evidence import Evidence, EvidenceItem, parse_jsonl
from .export import indented
from .imported import ImportedChunks, read_chunks
from .intervals import holders, sorted_spans
from .lens import Lens, LensReport
from .lens import read_chunks as lens_read
from .params import Params, parse_encoding, parse_number, parse_unit
from .sentences import split_sentences_kept
from .summary import cost_of
from .tokenizers import get_tokenizer
from .units import Tokens, Words, byte_offsets, strip_bom, word_count

__all__ = [
    "AUDIT_SCHEMA",
    "COMPARE_SCHEMA",
    "AuditReport",
    "Figures",
    "Measure",
    "Side",
    "anchoring_sentence",
    "audit_document",
    "audit_text",
    "chunking_of_file",
    "chunking_of_settings",
    "compare",
    "dumps",
    "figures",
    "model_of",
]

AUDIT_SCHEMA: Final = "pyapp.audit/1"
COMPARE_SCHEMA: Final = "pyapp.compare/1"
#: Missing chunks and moved boundaries listed at most this many (the counts stay exact).
LISTED: Final = 1_000
#: A missing chunk is quoted this many characters at most.
PREVIEW: Final = 80

Span = tuple[int, int]
JSON = dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class Measure:
    """How a chunking's sizes are counted: ``unit`` (``word``, ``char`` or ``token`` in
    ``encoding``), and the price per million stored tokens (``None``: none given, so no
    cost is estimated)."""

    unit: str = MEASURE_UNIT
    encoding: str | None = None
    price_per_million: Fraction | None = None

    @staticmethod
    def parse(
        *, unit: object = MEASURE_UNIT, encoding: object = None, price_per_million: object = None
    ) -> Measure:
        the_unit = parse_unit(unit)
        the_encoding = parse_encoding(encoding) if the_unit == "token" else None
        blank = price_per_million is None or (
            isinstance(price_per_million, str) and not price_per_million.strip()
        )
        price = None if blank else parse_number("price_per_million", price_per_million)
        return Measure(unit=the_unit, encoding=the_encoding, price_per_million=price)

    def count(self, text: str) -> int:
        if self.unit == "char":
            return len(text)
        if self.unit == "word":
            return word_count(text)
        assert self.encoding is not None
        return get_tokenizer(self.encoding).count(text)

    def to_json(self) -> JSON:
        return {
            "unit": self.unit,
            "encoding": self.encoding,
            "price_per_million": number(self.price_per_million),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Side:
    """One chunking of one text: each chunk's interval (``None`` when it was not found)
    and its own text; for an imported file, its anchoring too."""

    label: str
    spans: tuple[Span | None, ...]
    texts: tuple[str, ...]
    anchored: tuple[Anchored, ...] | None = None
    source: ImportedChunks | None = None


def chunking_of_file(text: str, source: str, *, label: str = "file", text_field: str | None = None,
                     start_field: str | None = None) -> Side:  # fmt: skip
    """An imported chunks file, re-anchored on ``text``."""
    imported = read_chunks(
        source, text_field=text_field, start_field=start_field, max_chars=len(text)
    )
    chunks = imported.chunks
    placed = anchor(
        text, [c.text for c in chunks], [c.start for c in chunks], [c.end for c in chunks]
    )
    return Side(
        label=label,
        spans=tuple(
            (a.start, a.end) if a.start is not None and a.end is not None else None for a in placed
        ),
        texts=tuple(c.text for c in chunks),
        anchored=tuple(placed),
        source=imported,
    )


def chunking_of_settings(text: str, params: Params, *, label: str = "settings") -> Side:
    """The chunking ``params`` makes of ``text`` (:func:`~.chunkings.chunking_of`)."""
    spans = tuple(chunking_of(text, params).spans())
    return Side(label=label, spans=spans, texts=tuple(text[s:e] for s, e in spans))


def main_view_chunking(text: str, side: Side, unit: str, encoding: str | None) -> Chunking:
    """The placed chunks as the main view's chunking (``splitter="imported"``): in text
    order, each chunk's length in ``unit`` measured on its own text, and the units of
    the text it holds (a word or token sharing a character or byte with it), so the
    cards, the text view, the summary and the sentence check read it like any other."""
    ordered = sorted_spans(side.spans)
    starts, ends = [s for s, _, _ in ordered], [e for _, e, _ in ordered]
    measure = Measure(unit=unit, encoding=encoding)
    unit_starts: list[int] | None = None
    unit_ends: list[int] | None = None
    if unit == "word":
        word_starts, word_ends = Words(text).bounds(word_count(text))
        unit_starts = [bisect_right(word_ends, s) for s in starts]
        unit_ends = [bisect_left(word_starts, e) for e in ends]
    elif unit == "token":
        assert encoding is not None
        seg = Tokens(text, encoding=encoding)
        token_starts, token_ends = seg.byte_starts(), seg.byte_ends()
        unit_starts = [bisect_right(token_ends, b) for b in byte_offsets(text, starts)]
        unit_ends = [bisect_left(token_starts, b) for b in byte_offsets(text, ends)]
    return Chunking(
        text,
        starts,
        ends,
        unit=unit,
        lengths=[measure.count(text[s:e]) for s, e in zip(starts, ends, strict=True)],
        unit_starts=unit_starts,
        unit_ends=unit_ends,
        measure=measure.count,
        splitter="imported",
    )


def model_of(text: str, side: Side, measure: Measure) -> tuple[Chunking, list[int]]:
    """The placed chunks as the engine's model of a chunking (in text order: by start,
    then end), and the index in ``side`` of each of its chunks."""
    ordered = sorted_spans(side.spans)
    model = Chunking(
        text,
        [s for s, _, _ in ordered],
        [e for _, e, _ in ordered],
        unit=measure.unit,
        lengths=[measure.count(text[s:e]) for s, e, _ in ordered],
        measure=measure.count,
    )
    return model, [i for _, _, i in ordered]


# ---------------------------------------------------------------------- figures
@dataclass(frozen=True, slots=True, kw_only=True)
class Figures:
    """What one chunking comes to, from its intervals."""

    chunks: int
    found: int
    text_units: int
    processed_units: int
    index_entries: int
    stored_tokens: int
    stored_encoding: str
    price_per_million: Fraction | None
    overlap_units: int
    gap_chars: int
    uncovered_chars: int
    sentences: int
    cut_sentences: list[Span]
    boundaries: list[JSON]
    lens: LensReport | None
    #: Each chunk's length in the unit, in the chunking's order.
    units: list[int] = field(default_factory=list)
    #: Each chunk's dropped tail (the model's truncation), in the unit.
    dropped_units: list[int] = field(default_factory=list)
    evidence: list[JSON] | None = None
    recall_at_k: Fraction | None = None
    questions: int = 0

    @property
    def inflation(self) -> Fraction | None:
        return Fraction(self.processed_units, self.text_units) if self.text_units else None

    @property
    def vector_bytes(self) -> int | None:
        """The vectors' bytes: one per entry, the model preset's dimension, 4 bytes a
        value (float32, the sizing panel's default); ``None`` without a dimension."""
        if self.lens is None or self.lens.lens.model is None:
            return None
        dimension = MODELS[self.lens.lens.model].dimension
        if dimension is None:
            return None
        return self.index_entries * dimension.value * int(SIZING_DEFAULTS["bytes_per_value"])

    @property
    def cost(self) -> Fraction | None:
        return cost_of(self.stored_tokens, self.price_per_million)

    def to_json(self) -> JSON:
        return {
            "chunks": self.chunks,
            "found": self.found,
            "text_units": self.text_units,
            "processed_units": self.processed_units,
            "inflation": number(self.inflation),
            "index_entries": self.index_entries,
            "vector_bytes": self.vector_bytes,
            "stored_tokens": self.stored_tokens,
            "stored_encoding": self.stored_encoding,
            "estimated_cost": number(self.cost),
            "overlap_units": self.overlap_units,
            "gap_chars": self.gap_chars,
            "uncovered_chars": self.uncovered_chars,
            "sentences": self.sentences,
            "cut_sentences": len(self.cut_sentences),
            "chunks_over_limit": self.lens.truncated if self.lens else None,
            "dropped_units": sum(self.dropped_units) if self.lens else None,
            "recall_at_k": number(self.recall_at_k),
        }


def _stored_encoding(measure: Measure, lens: Lens | None) -> str:
    if lens is not None:
        return lens.encoding
    return measure.encoding or parse_encoding(None)


def figures(
    text: str,
    chunking: Side,
    *,
    measure: Measure,
    lens: Lens | None,
    evidence: Evidence | None = None,
    top_k: int = 5,
) -> Figures:
    spans, texts = chunking.spans, chunking.texts
    model, order = model_of(text, chunking, measure)
    units: list[int] = [0] * len(spans)
    for k, i in enumerate(order):
        units[i] = model.lengths[k]
    for i, (s, t) in enumerate(zip(spans, texts, strict=True)):
        if s is None:
            units[i] = measure.count(t)
    processed = sum(units)
    encoding = _stored_encoding(measure, lens)
    lens_report = lens_read(text, spans, lens, texts=texts) if lens is not None else None
    bodies = [text[s[0] : s[1]] if s is not None else t for s, t in zip(spans, texts, strict=True)]
    if lens_report is not None and lens is not None:  # the model's own counts, less its specials
        stored = sum(c.tokens - lens.special_tokens for c in lens_report.chunks if c is not None)
    elif measure.unit == "token" and measure.encoding == encoding:
        stored = processed
    else:
        tokenizer = get_tokenizer(encoding)
        stored = sum(tokenizer.count(b) for b in bodies)
    overlaps, gaps = model.overlaps, model.gaps
    sentences = split_sentences_kept(text)
    cut = model.cut(sentences)  # the sentence check of the model of a chunking
    fig = Figures(
        chunks=len(spans),
        found=model.count,
        text_units=measure.count(text),
        processed_units=processed,
        index_entries=len(spans),
        stored_tokens=stored,
        stored_encoding=encoding,
        price_per_million=measure.price_per_million,
        overlap_units=sum(overlaps),
        gap_chars=sum(gaps),
        uncovered_chars=model.uncovered(),
        sentences=len(sentences),
        cut_sentences=cut,
        boundaries=[
            {
                "after": order[k],
                "before": order[k + 1],
                "overlap_units": overlaps[k],
                "gap_chars": gaps[k],
            }
            for k in range(len(overlaps))
        ],  # fmt: skip
        lens=lens_report,
        units=units,
        dropped_units=_dropped_units(text, spans, lens_report, measure),
    )
    if evidence is None:
        return fig
    rows, recall, asked = _evidence(text, spans, evidence.items, top_k)
    return Figures(**{**_fields(fig), "evidence": rows, "recall_at_k": recall, "questions": asked})


def _dropped_units(
    text: str, spans: Sequence[Span | None], lens: LensReport | None, measure: Measure
) -> list[int]:
    """Each placed chunk's dropped tail ``text[cut:end]`` in the unit (0 when read whole).
    A word the cut falls inside counts as dropped when its tail holds part of it."""
    if lens is None:
        return []
    out: list[int] = []
    for span, seen in zip(spans, lens.chunks, strict=True):
        cut = seen.cut if seen is not None else None
        out.append(
            measure.count(text[cut : span[1]]) if span is not None and cut is not None else 0
        )
    return out


def _fields(fig: Figures) -> dict[str, Any]:
    return {name: getattr(fig, name) for name in Figures.__slots__}


def _evidence(
    text: str, spans: Sequence[Span | None], items: Sequence[EvidenceItem], top_k: int
) -> tuple[list[JSON], Fraction | None, int]:
    wanted = [(item.start, item.end) for item in items]
    held = holders(spans, wanted)
    ordered = sorted_spans(spans)
    asked = [i for i, item in enumerate(items) if item.question]
    recalled: dict[int, bool] = {}
    if asked and ordered:
        queries = {i: terms(items[i].question or "") for i in asked}
        index = ChunkIndex(
            term_index(text),
            [(s, e) for s, e, _ in ordered],
            {t for q in queries.values() for t in q},
        )
        for i in asked:
            start, end = wanted[i]
            chosen = top(index.scores(queries[i]), top_k)
            recalled[i] = any(ordered[k][0] <= start and end <= ordered[k][1] for k in chosen)
    rows = [
        {
            "id": item.id,
            "start": item.start,
            "end": item.end,
            "whole": held[i] is not None,
            "held_by": held[i],
            "retrieved": recalled.get(i),
        }
        for i, item in enumerate(items)
    ]
    recall = Fraction(sum(recalled.values()), len(asked)) if asked else None
    return rows, recall, len(asked)


# ---------------------------------------------------------------------- the audit
@dataclass(frozen=True, slots=True, kw_only=True)
class AuditReport:
    text: str
    chunking: Side
    measure: Measure
    figures: Figures
    bom_removed: bool = False
    top_k: int = 5
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def anchored(self) -> tuple[Anchored, ...]:
        assert self.chunking.anchored is not None
        return self.chunking.anchored

    def verdicts(self) -> dict[str, int]:
        counts = dict.fromkeys(VERDICTS, 0)
        for a in self.anchored:
            counts[a.verdict] += 1
        return counts

    def anchoring_sentence(self) -> str:
        """The summary in words, e.g. "your tool's start offsets were wrong for 918 of
        1,831 chunks; all were found"."""
        return anchoring_sentence(self.anchored)


def anchoring_sentence(anchored: Sequence[Anchored]) -> str:
    """
    >>> from .anchor import anchor
    >>> print(anchoring_sentence(anchor("ab ab", ["ab", "ab", "zz"], [0, 0, None])))
    ... # doctest: +NORMALIZE_WHITESPACE
    your tool's start offsets were wrong for 1 of 2 chunks that carry one; 1 of 3 chunks
    was not found (listed)
    """
    n = len(anchored)
    with_offset = [a for a in anchored if a.given_start is not None]
    wrong = sum(a.offset_wrong for a in with_offset)
    missing = sum(not a.found for a in anchored)
    normalized = sum(a.verdict == "normalized" for a in anchored)
    chunks = "chunk" if n == 1 else "chunks"
    if not with_offset:
        head = "your chunks carry no start offsets"
        found = f"all {n:,} were found in the text" if not missing else ""
    else:
        carry = len(with_offset)
        scope = (
            f"{n:,} {chunks}"
            if carry == n
            else f"{carry:,} {'chunk' if carry == 1 else 'chunks'} that carry one"
        )
        head = f"your tool's start offsets were wrong for {wrong:,} of {scope}"
        found = "all were found" if not missing else ""
    if missing:
        verb = "was" if missing == 1 else "were"
        found = f"{missing:,} of {n:,} {chunks} {verb} not found (listed)"
    tail = f", {normalized:,} only up to whitespace" if normalized and not missing else ""
    separator = ": " if not with_offset else "; "
    return f"{head}{separator}{found}{tail}"


def read_evidence_for(text: str, jsonl: str | None) -> Evidence | None:
    if jsonl is None:
        return None
    evidence = parse_jsonl(text, jsonl)
    if not evidence.items:
        first = evidence.errors[0].message if evidence.errors else "it holds no line"
        raise InputError("evidence", f"no evidence line can be used ({first})")
    return evidence


def audit_text(
    text: str,
    source: str,
    *,
    measure: Measure | None = None,
    lens: Lens | None = None,
    text_field: str | None = None,
    start_field: str | None = None,
    evidence_jsonl: str | None = None,
    evidence: Evidence | None = None,
    top_k: int = 5,
) -> AuditReport:
    """Audit the chunks file ``source`` (its text) against ``text``."""
    text, bom_removed = strip_bom(text)
    check_size(text)
    measure = measure or Measure()
    chunking = chunking_of_file(text, source, text_field=text_field, start_field=start_field)
    if evidence is None:
        evidence = read_evidence_for(text, evidence_jsonl)
    fig = figures(text, chunking, measure=measure, lens=lens, evidence=evidence, top_k=top_k)
    return AuditReport(text=text, chunking=chunking, measure=measure, figures=fig,
                       bom_removed=bom_removed, top_k=top_k)  # fmt: skip


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW else text[:PREVIEW] + "…"


def audit_document(report: AuditReport) -> JSON:
    """The audit export (``pyapp.audit/1``), keys in their fixed order."""
    chunking, fig = report.chunking, report.figures
    assert chunking.source is not None and chunking.anchored is not None
    lens = fig.lens
    missing = [
        {"index": a.index, "where": chunking.source.chunks[a.index].where,
         "given_start": a.given_start, "text": _preview(chunking.texts[a.index])}
        for a in chunking.anchored if not a.found
    ]  # fmt: skip
    chunks: list[JSON] = []
    for a, imported in zip(chunking.anchored, chunking.source.chunks, strict=True):
        row: JSON = {
            "index": a.index,
            "where": imported.where,
            "verdict": a.verdict,
            "char_start": a.start,
            "char_end": a.end,
            "given_start": a.given_start,
            "given_end": a.given_end,
            "units": fig.units[a.index],
        }
        if lens is not None:
            seen = lens.chunks[a.index]
            row["model_tokens"] = seen.tokens if seen else None
            row["truncated"] = bool(seen and seen.dropped_tokens)
            row["cut"] = seen.cut if seen else None
            row["dropped_tokens"] = seen.dropped_tokens if seen else 0
            row["dropped_units"] = fig.dropped_units[a.index]
        row["text"] = imported.text
        chunks.append(row)
    return {
        "schema": AUDIT_SCHEMA,
        "source": {
            "shape": chunking.source.shape,
            "shape_label": chunking.source.shape_label,
            "format": chunking.source.format,
            "chunks": len(chunking.spans),
        },
        "anchoring": {
            **report.verdicts(),
            "offsets_given": sum(a.given_start is not None for a in chunking.anchored),
            "offsets_wrong": sum(a.offset_wrong for a in chunking.anchored),
            "summary": report.anchoring_sentence(),
            "missing_chunks": missing[:LISTED],
        },
        "measure": report.measure.to_json(),
        "lens": lens.to_json(len(chunking.spans)) if lens is not None else None,
        "summary": fig.to_json(),
        "bom_removed": report.bom_removed,
        "boundaries": fig.boundaries,
        "cut_sentences": [list(s) for s in fig.cut_sentences],
        "evidence": fig.evidence,
        "top_k": report.top_k if fig.evidence is not None else None,
        "chunks": chunks,
    }


def dumps(document: JSON) -> str:
    """The exact text the command line prints: ``json.dumps(doc, ensure_ascii=False,
    indent=2)`` and a newline (the same bytes natively and in the browser)."""
    return indented(document) + "\n"


# ---------------------------------------------------------------------- compare
def _edges(spans: Sequence[Span | None]) -> set[int]:
    return {edge for s in spans if s is not None for edge in s}


def compare(
    text: str,
    a: Side,
    b: Side,
    *,
    measure: Measure,
    lens: Lens | None,
    evidence: Evidence | None = None,
    top_k: int = 5,
) -> JSON:
    """Two chunkings of one text side by side (``pyapp.compare/1``): each one's figures
    and their difference (B minus A), the boundaries only one of them has, the evidence
    passages that flip between whole and split, and the change in BM25 recall."""
    fa = figures(text, a, measure=measure, lens=lens, evidence=evidence, top_k=top_k)
    fb = figures(text, b, measure=measure, lens=lens, evidence=evidence, top_k=top_k)
    ja, jb = fa.to_json(), fb.to_json()
    difference: JSON = {}
    for key, value in ja.items():
        other = jb[key]
        if (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and isinstance(other, int | float)
        ):
            exact_a = (
                fa.inflation
                if key == "inflation"
                else fa.cost
                if key == "estimated_cost"
                else fa.recall_at_k
                if key == "recall_at_k"
                else value
            )
            exact_b = (
                fb.inflation
                if key == "inflation"
                else fb.cost
                if key == "estimated_cost"
                else fb.recall_at_k
                if key == "recall_at_k"
                else other
            )
            difference[key] = (
                number(Fraction(exact_b) - Fraction(exact_a))
                if exact_a is not None and exact_b is not None
                else None
            )
    edges_a, edges_b = _edges(a.spans), _edges(b.spans)
    only_a, only_b = sorted(edges_a - edges_b), sorted(edges_b - edges_a)
    flips: list[JSON] = []
    if fa.evidence is not None and fb.evidence is not None:
        for ra, rb in zip(fa.evidence, fb.evidence, strict=True):
            if ra["whole"] != rb["whole"]:
                flips.append({"id": ra["id"], "start": ra["start"], "end": ra["end"],
                              "a": "whole" if ra["whole"] else "split",
                              "b": "whole" if rb["whole"] else "split"})  # fmt: skip
    recall_change = (
        number(fb.recall_at_k - fa.recall_at_k)
        if fa.recall_at_k is not None and fb.recall_at_k is not None
        else None
    )
    return {
        "schema": COMPARE_SCHEMA,
        "measure": measure.to_json(),
        "lens": lens.to_json() if lens is not None else None,
        "a": {"label": a.label, **_side(a), **ja},
        "b": {"label": b.label, **_side(b), **jb},
        "difference": difference,
        "moved_boundaries": {
            "only_in_a": len(only_a),
            "only_in_b": len(only_b),
            "a": only_a[:LISTED],
            "b": only_b[:LISTED],
        },
        "evidence_flips": flips,
        "recall_change": recall_change,
        "top_k": top_k if evidence is not None else None,
    }


def _side(chunking: Side) -> JSON:
    if chunking.source is None or chunking.anchored is None:
        return {"shape": None, "verdicts": None}
    counts = dict.fromkeys(VERDICTS, 0)
    for x in chunking.anchored:
        counts[x.verdict] += 1
    return {"shape": chunking.source.shape, "verdicts": counts}
