"""The versioned export document (``pyapp.chunks/4``) and its exact JSON text.

Numbers: an exact integer is written as a JSON integer, any other fraction as
the nearest float (``4/3`` -> ``1.3333333333333333``). A ratio over zero units
is ``null``. Keys keep the order below; the text is
``json.dumps(doc, ensure_ascii=False, indent=2) + "\\n"``, so the same input
gives the same bytes natively and in the browser.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..figures import number
from .chunking import Cap, Report
from .chunkings import Chunk
from .sentences import Boundaries
from .summary import Summary

__all__ = [
    "SCHEMA",
    "boundaries_json",
    "cap_json",
    "chunk_json",
    "document",
    "dumps",
    "export_filename",
    "params_json",
    "summary_json",
]

#: ``/2`` added the ``boundaries`` section (sentences no chunk holds whole);
#: ``/3`` added ``bom_removed`` (a leading byte-order mark is not text), the model
#: preset (``params.model``, ``max_tokens``, ``special_tokens``), each token chunk's
#: ``tokens_alone`` and the summary's ``max_tokens_alone`` and ``chunks_over_limit``;
#: ``/4`` added ``text`` (the SHA-256, size and line breaks of the text the offsets
#: count in, :mod:`~pyapp.core.fingerprint`).
SCHEMA: Final = "pyapp.chunks/4"

JSON = dict[str, Any]


def params_json(report: Report) -> JSON:
    p = report.params
    return {
        "unit": p.unit,
        "encoding": p.encoding,
        "size": p.size,
        "overlap": p.overlap,
        "tokens_per_unit": number(p.tokens_per_unit),
        "price_per_million": number(p.price_per_million),
        "model": p.model,
        "max_tokens": p.max_tokens,
        "special_tokens": p.special_tokens,
    }


def summary_json(summary: Summary) -> JSON:
    return {
        "units": summary.units,
        "chunks": summary.chunks,
        "stride": summary.stride,
        "processed_units": summary.processed_units,
        "repeated_units": summary.repeated_units,
        "extra_volume": number(summary.extra_volume),
        "inflation": number(summary.inflation),
        "limit_inflation": number(summary.limit_inflation),
        "estimated_tokens": number(summary.estimated_tokens),
        "estimated_cost": number(summary.estimated_cost),
        "input_bytes": summary.input_bytes,
        "input_chars": summary.input_chars,
        "max_tokens_alone": summary.max_tokens_alone,
        "chunks_over_limit": summary.chunks_over_limit,
    }


def boundaries_json(boundaries: Boundaries) -> JSON:
    """``{"sentences", "cut", "cut_spans": [[char_start, char_end], ...]}``."""
    return boundaries.to_json()


def cap_json(cap: Cap | None) -> JSON | None:
    if cap is None:
        return None
    return {"cap": cap.cap, "value": cap.value, "limit": cap.limit}


def chunk_json(chunk: Chunk, *, card: bool = False) -> JSON:
    """A chunk as exported, or with ``card`` as the page's card shows it: the one
    serializer of a chunk. A card leaves out ``text`` and ``preview``, and in word
    mode the repeated prefix and fresh text too (a word card shows its previews,
    ``preview_repeated`` and ``preview_fresh``, instead)."""
    out: JSON = {
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "char_start": chunk.char_start,
        "char_end": chunk.char_end,
        "byte_start": chunk.byte_start,
        "byte_end": chunk.byte_end,
    }
    word = chunk.preview_repeated is not None
    if not card:
        out["text"] = chunk.text
    if not (card and word):
        out["repeated_prefix"] = chunk.repeated_prefix
        out["fresh_text"] = chunk.fresh_text
    out["repeated_units"] = chunk.repeated_units
    out["fresh_units"] = chunk.fresh_units
    if word and card:
        out["preview_repeated"] = chunk.preview_repeated
        out["preview_fresh"] = chunk.preview_fresh
    elif word:
        out["preview"] = chunk.preview
    if chunk.tokens_alone is not None:
        out["tokens_alone"] = chunk.tokens_alone
    return out


def document(report: Report) -> JSON:
    """The export document, keys in their fixed order."""
    return {
        "schema": SCHEMA,
        "params": params_json(report),
        "summary": summary_json(report.summary),
        "bom_removed": report.bom_removed,
        "text": report.text.to_json() if report.text is not None else None,
        "boundaries": boundaries_json(report.boundaries) if report.boundaries else None,
        "chunks": [chunk_json(c) for c in report.chunks],
        "capped": cap_json(report.capped),
    }


def dumps(report: Report) -> str:
    """The exact export text that ``python -m pyapp chunk`` prints: the document as
    ``json.dumps(doc, ensure_ascii=False, indent=2)`` writes it (:func:`indented`),
    and a newline."""
    return indented(document(report)) + "\n"


_escape = json.encoder.encode_basestring  # the C escaper, for ensure_ascii=False
_INDENT: Final = "  "


def indented(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=2)``, byte for byte, for the JSON
    values an export holds (dicts with string keys, lists, strings, integers, finite
    floats, booleans, null). The standard library writes an indented document with
    its Python encoder; this writes the same text several times faster, escaping
    strings in C, so a megabyte of chunks is written in a few milliseconds.

    >>> doc = {"a": [1, [2.5, None]], "b": {}, "c": [], "d": "é\\n\\"", "e": True}
    >>> indented(doc) == json.dumps(doc, ensure_ascii=False, indent=2)
    True
    """
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Appends ``value`` to ``out``; ``newline`` is a line break and this depth's indent."""
    if isinstance(value, str):
        out.append(_escape(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(float.__repr__(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + _INDENT
        separator = "{" + inner
        for key, item in value.items():
            out.append(separator)
            out.append(_escape(key))
            out.append(": ")
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = newline + _INDENT
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value of the export")


def export_filename(report: Report) -> str:
    """``chunks-<unit>-<size>-<overlap>.json`` (overlap in whole units)."""
    p = report.params
    return f"chunks-{p.unit}-{p.size}-{p.overlap}.json"
