"""The ``pyapp.corpus/2`` document: an accumulator's totals as JSON.

Everything in it is exact and independent of the engine, the number of workers
and the order parts finished in, except the ``timing`` object. The HTML report
(:mod:`.report`) is drawn from this same document.

``chunks_per_document`` percentiles use the **nearest-rank** method: the
``p``-th percentile is the ``ceil(p/100 × n)``-th smallest count, so every
figure is a real document's count (the median of an even number of documents
is the lower middle one).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from ...core.export import splitter_json
from ...core.params import Params
from ...core.summary import cost_of
from ...figures import number
from .accumulator import Accumulator, Settings, Where, next_edge

__all__ = ["SCHEMA", "document", "length_bins", "nearest_rank"]

SCHEMA: Final = "pyapp.corpus/2"


def nearest_rank(histogram: Mapping[int, int], percent: int) -> int:
    """The ``percent``-th percentile of a ``{value: how many}`` histogram, nearest rank.

    >>> h = {1: 3, 2: 1, 7: 1}  # the values 1, 1, 1, 2, 7
    >>> [nearest_rank(h, p) for p in (0, 50, 80, 95, 100)]
    [1, 1, 2, 7, 7]
    """
    total = sum(histogram.values())
    rank = max(1, math.ceil(Fraction(percent, 100) * total))
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        if seen >= rank:
            return value
    raise ValueError("empty histogram")


def length_bins(histogram: Mapping[int, int]) -> list[dict[str, int]]:
    """``[{from, to, documents}]``, every bin from the smallest to the largest one
    held (empty ones included, so a chart has no gaps); ``to`` is inclusive.

    >>> [(b["from"], b["to"], b["documents"]) for b in length_bins({2: 3, 10: 1})]
    [(2, 4, 3), (5, 9, 0), (10, 19, 1)]
    """
    if not histogram:
        return []
    out = []
    edge, last = min(histogram), max(histogram)
    while edge <= last:
        following = next_edge(edge)
        out.append({"from": edge, "to": following - 1, "documents": histogram.get(edge, 0)})
        edge = following
    return out


def _line_starts(lines: Mapping[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """For each piece of a split JSONL file, how many lines of the file come before it."""
    before: dict[tuple[str, int], int] = {}
    running: dict[str, int] = {}
    for path, offset in sorted(lines):
        before[(path, offset)] = running.get(path, 0)
        running[path] = running.get(path, 0) + lines[(path, offset)]
    return before


def _place(where: Where, before: Mapping[tuple[str, int], int]) -> dict[str, Any]:
    line = where.line + before.get((where.path, where.offset), 0) if where.line else None
    return {"path": where.path, "line": line, "row": where.row if where.row >= 0 else None}


def _order(entry: dict[str, Any]) -> tuple[str, int, int]:
    return entry["path"], entry["line"] or 0, entry["row"] if entry["row"] is not None else -1


def document(
    acc: Accumulator,
    params: Params,
    settings: Settings,
    *,
    timing: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The output document (``timing``, if given, is the only engine-dependent part)."""
    tpu, price = params.tokens_per_unit, params.price_per_million
    actual = acc.processed_units * tpu
    hist = acc.chunk_histogram
    documents, units = acc.documents, acc.units
    spread: dict[str, Any] = {"min": None, "median": None, "p95": None, "max": None, "mean": None}
    if hist:
        spread = {
            "min": min(hist),
            "median": nearest_rank(hist, 50),
            "p95": nearest_rank(hist, 95),
            "max": max(hist),
            "mean": number(Fraction(acc.chunks, documents)),
        }
    spread["method"] = "nearest rank: the ceil(p/100 * n)-th smallest"
    one = hist.get(1, 0)
    spread["one_chunk"] = one
    spread["one_chunk_share"] = number(Fraction(one, documents)) if documents else None
    spread["histogram"] = [{"chunks": k, "documents": hist[k]} for k in sorted(hist)]
    before = _line_starts(acc.lines)
    largest = [
        {
            **_place(entry.where, before),
            "id": entry.id,
            "units": entry.units,
            "chunks": entry.chunks,
        }
        for entry in acc.largest
    ]
    errors = sorted(
        ({**_place(p.where, before), "reason": p.reason} for p in acc.errors), key=_order
    )
    skipped = [{"path": p.where.path, "reason": p.reason} for p in acc.skipped]
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "params": {
            "unit": params.unit,
            "encoding": params.encoding,
            "size": params.size,
            "overlap": params.overlap,
            "tokens_per_unit": number(tpu),
            "price_per_million": number(price),
        },
        "input": {
            "text_field": settings.text_field,
            "id_field": settings.id_field,
            "max_document_bytes": settings.max_document_bytes,
        },
        "documents": documents,
        "units": units,
        "chunks": acc.chunks,
        "processed_units": acc.processed_units,
        "repeated_units": acc.processed_units - units,
        "inflation": number(Fraction(acc.processed_units, units)) if units else None,
        "stored_tokens_nominal": number(acc.nominal_units * tpu),
        "stored_tokens_actual": number(actual),
        "inflation_nominal": number(Fraction(acc.nominal_units, units)) if units else None,
        "estimated_cost": number(cost_of(actual, price)),
        "chunks_per_document": spread,
        "units_per_document": {
            "min": acc.min_units,
            "max": acc.largest[0].units if acc.largest else None,
            "mean": number(Fraction(units, documents)) if documents else None,
            "empty": hist.get(0, 0),
            "histogram": length_bins(acc.length_histogram),
        },
        "largest_documents": largest,
        "boms_removed": acc.boms_removed,
        "input_bytes": acc.input_bytes,
        "errors_total": acc.errors_total,
        "errors": errors,
        "skipped_total": acc.skipped_total,
        "skipped": skipped,
    }
    if params.splitter == "recursive":  # counted from each document's chunks, not a formula
        out["params"]["splitter"] = splitter_json(params)
    if timing is not None:
        out["timing"] = {key: round(value, 3) for key, value in timing.items()}
    return out
