"""The evidence document (``pyapp.evidence/2``) and its exact JSON text.

``python -m pyapp evidence`` prints :func:`dumps` of the report, and the page's
download is the same text from the ``evidence`` op, so the two are equal byte for
byte. Numbers follow the chunk export's rule (:func:`~pyapp.figures.number`):
exact integers stay integers, other fractions become the nearest float. Keys keep
the order below; the JSON Schema is ``pyapp/schema/evidence.schema.json``.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..figures import number
from .bm25 import K1, B
from .evidence import jsonl
from .evidence_report import EvidenceReport, ItemResult, QuestionResult
from .export import cap_json

__all__ = ["SCHEMA", "document", "dumps", "evidence_jsonl", "export_filename", "item_json"]

#: ``/2`` added ``text`` (the SHA-256, size and line breaks of the text the offsets
#: count in, :mod:`~pyapp.core.fingerprint`), which the evidence list's export names
#: in its last line too.
SCHEMA: Final = "pyapp.evidence/2"

JSON = dict[str, Any]


def _question_json(result: QuestionResult | None) -> JSON | None:
    if result is None:
        return None
    return {
        "rank_whole": result.rank_whole,
        "rank_touching": result.rank_touching,
        "context_units": result.context_units,
        "context_repeated_units": result.context_repeated_units,
    }


def _run(span: tuple[int, int] | None) -> list[int]:
    return [] if span is None else list(range(span[0], span[1] + 1))


def item_json(result: ItemResult, *, listed: bool) -> JSON:
    """One item; ``whole_in`` and ``touches`` are ``None`` when not ``listed``."""
    item = result.item
    return {
        "id": item.id,
        "line": item.line,
        "start": item.start,
        "end": item.end,
        "question": item.question,
        "unit_start": result.unit_start,
        "unit_end": result.unit_end,
        "units": result.units,
        "longer_than_size": result.longer_than_size,
        "status": result.status,
        "whole_in": _run(result.whole) if listed else None,
        "touches": _run(result.touches) if listed else None,
        "retrieval": _question_json(result.retrieval),
    }


def document(report: EvidenceReport) -> JSON:
    """The evidence document, keys in their fixed order."""
    p, s, m, r = report.params, report.summary, report.min_overlap, report.retrieval
    listed = report.capped is None
    return {
        "schema": SCHEMA,
        "params": {
            "unit": p.unit,
            "encoding": p.encoding,
            "size": p.size,
            "overlap": p.overlap,
            "top_k": report.top_k,
        },
        "bom_removed": report.bom_removed,
        "text": report.text.to_json(),
        "summary": {
            "units": s.units,
            "chunks": s.chunks,
            "processed_units": s.processed_units,
            "extra_volume": number(s.extra_volume),
            "items": len(report.items),
            "evidence_whole": report.whole,
            "evidence_split": len(report.items) - report.whole,
            "evidence_coverage": number(report.coverage),
            "longer_than_size": sum(1 for i in report.items if i.longer_than_size),
            "min_overlap_for_evidence": m.overlap,
            "min_overlap_reason": m.reason,
            "chunks_at_min_overlap": m.chunks,
            "processed_units_at_min_overlap": m.processed_units,
            "extra_volume_at_min_overlap": number(m.extra_volume),
        },
        "retrieval": {
            "method": "Okapi BM25",
            "k1": K1,
            "b": B,
            "questions": r.questions,
            "recall_at_k": number(r.recall_at_k),
            "context_units": number(r.context_units),
            "context_repeated_units": number(r.context_repeated_units),
            "skipped": r.skipped,
        },
        "evidence": [item_json(i, listed=listed) for i in report.items],
        "errors": [e.to_json() for e in report.errors],
        "capped": cap_json(report.capped),
    }


def dumps(report: EvidenceReport) -> str:
    """The exact text ``python -m pyapp evidence`` prints."""
    return json.dumps(document(report), ensure_ascii=False, indent=2) + "\n"


def export_filename(report: EvidenceReport) -> str:
    """``evidence-<unit>-<size>-<overlap>.json`` (overlap in whole units)."""
    p = report.params
    return f"evidence-{p.unit}-{p.size}-{p.overlap}.json"


def evidence_jsonl(report: EvidenceReport) -> str:
    """The usable items as JSON Lines with their offsets, and a last line naming the
    text they count in: the evidence list's export, which ``--evidence`` reads back
    to the same items (and refuses against another text)."""
    return jsonl([r.item for r in report.items], text=report.text)
