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
from ..models import MODELS
from ..weights import EMBEDDING_MODEL
from .bm25 import K1, B
from .evidence import jsonl
from .evidence_report import EvidenceReport, ItemResult, QuestionResult, Retrieval
from .export import cap_json, download_name, splitter_json
from .range_metrics import RangeMetrics

__all__ = ["SCHEMA", "document", "dumps", "evidence_jsonl", "export_filename", "item_json"]

#: ``/2`` added ``text`` (the SHA-256, size and line breaks of the text the offsets
#: count in, :mod:`~pyapp.core.fingerprint`), which the evidence list's export names
#: in its last line too. ``/3`` added the retriever choice, the dense check
#: (``dense_retrieval``, overall and per item) and Chroma's range metrics.
SCHEMA: Final = "pyapp.evidence/3"

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
        "dense_retrieval": _question_json(result.dense),
    }


#: Chroma's four metrics, in the order the document lists them.
RANGE_METRICS: Final = ("recall", "precision", "iou", "precision_omega")


def _range_json(metrics: RangeMetrics | None) -> JSON | None:
    if metrics is None:
        return None
    stats = {name: metrics.stat(name) for name in RANGE_METRICS}
    return {
        "questions": len(metrics.questions),
        **{name: {"mean": number(stat.mean), "std": stat.std} for name, stat in stats.items()},
        "per_question": [
            {
                "question": question,
                "recall": number(scores.recall),
                "precision": number(scores.precision),
                "iou": number(scores.iou),
                "precision_omega": number(omega),
            }
            for question, scores, omega in zip(
                metrics.questions, metrics.scores, metrics.omegas, strict=True
            )
        ],
    }


def _figures(r: Retrieval) -> JSON:
    return {
        "questions": r.questions,
        "recall_at_k": number(r.recall_at_k),
        "context_units": number(r.context_units),
        "context_repeated_units": number(r.context_repeated_units),
        "range_metrics": _range_json(r.range_metrics),
        "skipped": r.skipped,
    }


def _bm25_json(r: Retrieval | None) -> JSON | None:
    if r is None:
        return None
    return {"method": "Okapi BM25", "k1": K1, "b": B, **_figures(r)}


def _dense_json(r: Retrieval | None) -> JSON | None:
    if r is None:
        return None
    model = MODELS[EMBEDDING_MODEL.name]
    return {
        "method": "cosine similarity of mean-pooled, normalized embeddings",
        "model": EMBEDDING_MODEL.name,
        "model_sha256": EMBEDDING_MODEL.sha256,
        "max_tokens": model.max_tokens.value,
        **_figures(r),
    }


def document(report: EvidenceReport) -> JSON:
    """The evidence document, keys in their fixed order."""
    p, s, m, r = report.params, report.summary, report.min_overlap, report.retrieval
    anywhere = report.any_placement
    listed = report.capped is None
    params: JSON = {
        "unit": p.unit,
        "encoding": p.encoding,
        "size": p.size,
        "overlap": p.overlap,
        "top_k": report.top_k,
    }
    if p.splitter != "fixed":  # the fixed window's document stays as it was
        params["splitter"] = splitter_json(p)
    doc: JSON = {
        "schema": SCHEMA,
        "params": params,
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
            "longest_item_units": anywhere.longest,
            "overlap_for_any_placement": anywhere.overlap,
            "any_placement_guaranteed": anywhere.guaranteed,
            "any_placement_reason": anywhere.reason,
            "chunks_at_any_placement": anywhere.chunks,
            "processed_units_at_any_placement": anywhere.processed_units,
            "extra_volume_at_any_placement": number(anywhere.extra_volume),
        },
        "retriever": report.retriever,
        "retrieval": _bm25_json(r),
        "dense_retrieval": _dense_json(report.dense),
        "evidence": [item_json(i, listed=listed) for i in report.items],
        "errors": [e.to_json() for e in report.errors],
        "capped": cap_json(report.capped),
    }
    if m.found_by is not None:
        doc["summary"]["min_overlap_found_by"] = m.found_by
    return doc


def dumps(report: EvidenceReport) -> str:
    """The exact text ``python -m pyapp evidence`` prints."""
    return json.dumps(document(report), ensure_ascii=False, indent=2) + "\n"


def export_filename(report: EvidenceReport, document: str | None = None) -> str:
    """The evidence download's name (see :func:`pyapp.core.export.download_name`)."""
    return download_name("evidence", report.params, document)


def evidence_jsonl(report: EvidenceReport) -> str:
    """The usable items as JSON Lines with their offsets, and a last line naming the
    text they count in: the evidence list's export, which ``--evidence`` reads back
    to the same items (and refuses against another text)."""
    return jsonl([r.item for r in report.items], text=report.text)
