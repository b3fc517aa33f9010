"""The page's audit panel: an imported chunking and its figures, and two chunkings side
by side, with the text cut into pieces the page draws as they come (never as HTML).

A **piece** is a run of code points with one look: ``"read"`` (some chunk holds it and
the model reads it there), ``"dropped"`` (only the dropped tails of over-limit chunks
hold it: the model never sees it), ``"none"`` (no chunk holds it). ``edge`` marks a
piece that begins where a chunk begins: ``"start"``, or in a comparison ``"a"`` or
``"b"`` where only that chunking has a boundary (a boundary that moved), or ``"both"``.

>>> pieces("abcdefgh", [(0, 5), (4, 8)], cuts=[3, None])
[['abc', 'read', 'start'], ['d', 'dropped', None], ['efgh', 'read', 'start']]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ..core.audit import (
    Measure,
    Side,
    audit_document,
    audit_text,
    chunking_of_file,
    chunking_of_settings,
    compare,
    dumps,
)
from ..core.evidence import Evidence
from ..core.lens import Lens
from ..facts import TEXT_VIEW_WHOLE

__all__ = ["audit_view", "compare_view", "lens_view", "pieces", "side_of"]

JSON = dict[str, Any]
Span = tuple[int, int]

#: The pieces cover at most this many code points of the text (the rest is said).
SHOWN: Final = TEXT_VIEW_WHOLE
#: Cards: the first this many chunks, each its text as the model reads it and the tail
#: it drops (the download holds every chunk).
CARDS: Final = 200


def cards(text: str, chunks: Sequence[JSON]) -> list[JSON]:
    """``{"index", "verdict", "read", "dropped"}`` for the first :data:`CARDS` chunks:
    a placed chunk's text in the text, cut where the model's input ends (``dropped`` is
    empty when it reads it whole); a missing chunk's own text, not cut.

    >>> cards("abcdef", [{"index": 0, "verdict": "given", "char_start": 1, "char_end": 5,
    ...                   "cut": 3, "text": "bcde"}])
    [{'index': 0, 'verdict': 'given', 'read': 'bc', 'dropped': 'de'}]
    """
    out: list[JSON] = []
    for chunk in chunks[:CARDS]:
        start, end, cut = chunk["char_start"], chunk["char_end"], chunk.get("cut")
        if start is None:
            read, dropped = chunk["text"], ""
        elif cut is None:
            read, dropped = text[start:end], ""
        else:
            read, dropped = text[start:cut], text[cut:end]
        out.append({"index": chunk["index"], "verdict": chunk.get("verdict"), "read": read,
                    "dropped": dropped})  # fmt: skip
    return out


def pieces(
    text: str,
    spans: Sequence[Span | None],
    *,
    cuts: Sequence[int | None] | None = None,
    edges_a: set[int] | None = None,
    edges_b: set[int] | None = None,
    limit: int = SHOWN,
) -> list[list[Any]]:
    """``[piece text, look, edge]`` for code points ``[0, min(len(text), limit))``."""
    stop = min(len(text), limit)
    read_delta: dict[int, int] = {}
    held_delta: dict[int, int] = {}
    for k, span in enumerate(spans):
        if span is None:
            continue
        start, end = span
        cut = cuts[k] if cuts is not None else None
        read_end = end if cut is None else cut
        held_delta[start] = held_delta.get(start, 0) + 1
        held_delta[end] = held_delta.get(end, 0) - 1
        read_delta[start] = read_delta.get(start, 0) + 1
        read_delta[read_end] = read_delta.get(read_end, 0) - 1
    if edges_a is not None and edges_b is not None:
        starts = edges_a | edges_b
    else:
        starts = {s[0] for s in spans if s is not None}
    points = sorted({0, stop, *(p for p in (*read_delta, *held_delta, *starts) if 0 < p < stop)})
    out: list[list[Any]] = []
    read = held = 0
    for a, b in zip(points, points[1:], strict=False):
        read += read_delta.get(a, 0)
        held += held_delta.get(a, 0)
        look = "read" if read > 0 else "dropped" if held > 0 else "none"
        edge: str | None = None
        if a in starts:
            if edges_a is not None and edges_b is not None:
                edge = "both" if a in edges_a and a in edges_b else "a" if a in edges_a else "b"
            else:
                edge = "start"
        if out and out[-1][1] == look and edge is None:
            out[-1][0] += text[a:b]
        else:
            out.append([text[a:b], look, edge])
    return out


def _shown(text: str) -> JSON:
    return {"shown_chars": min(len(text), SHOWN), "text_chars": len(text)}


def audit_view(
    text: str,
    source: str,
    *,
    measure: Measure,
    lens: Lens | None,
    text_field: str | None = None,
    start_field: str | None = None,
    evidence: Evidence | None = None,
    top_k: int = 5,
) -> JSON:
    """The audit as the page shows it: the export's document and its exact text (the
    download, byte for byte what ``python -m pyapp audit`` prints) and the text pieces."""
    report = audit_text(
        text, source, measure=measure, lens=lens, text_field=text_field,
        start_field=start_field, evidence=evidence, top_k=top_k,
    )  # fmt: skip
    doc = audit_document(report)
    cuts = [c.get("cut") for c in doc["chunks"]]
    return {
        "document": doc,
        "json": dumps(doc),
        "filename": f"audit-{doc['source']['shape']}.json",
        "pieces": pieces(report.text, report.chunking.spans, cuts=cuts),
        "cards": cards(report.text, doc["chunks"]),
        **_shown(report.text),
    }


def compare_view(
    text: str, a: Side, b: Side, *, measure: Measure, lens: Lens | None,
    evidence: Evidence | None, top_k: int,
) -> JSON:  # fmt: skip
    """Two chunkings side by side, and the text with the boundaries each has."""
    doc = compare(text, a, b, measure=measure, lens=lens, evidence=evidence, top_k=top_k)
    edges_a = {s[0] for s in a.spans if s is not None}
    edges_b = {s[0] for s in b.spans if s is not None}
    return {
        "document": doc,
        "json": dumps(doc),
        "filename": "compare.json",
        "pieces": pieces(text, b.spans, edges_a=edges_a, edges_b=edges_b),
        **_shown(text),
    }


def lens_view(text: str, side: Side, lens: Lens) -> JSON:
    """What ``lens`` reads of a chunking made here (any splitter, any unit): the
    truncation lens apart from the chunk unit."""
    from ..core.lens import read_chunks as lens_read

    report = lens_read(text, side.spans, lens)
    chunks = [
        {"index": k, "char_start": s[0], "char_end": s[1], "model_tokens": c.tokens,
         "truncated": bool(c.dropped_tokens), "cut": c.cut, "dropped_tokens": c.dropped_tokens}
        for k, (s, c) in enumerate(zip(side.spans, report.chunks, strict=True))
        if s is not None and c is not None
    ]  # fmt: skip
    return {
        "lens": report.to_json(len(side.spans)),
        "chunks": chunks,
        "pieces": pieces(text, side.spans, cuts=[c["cut"] for c in chunks]),
        **_shown(text),
    }


def side_of(text: str, raw: object, *, name: str, params_of: Any, chunks_of: Any) -> Side:
    """One side of a comparison from the page: ``{"chunks": FILE TEXT}`` or
    ``{"settings": {...}}`` (the main view's fields)."""
    from ..errors import InputError

    if isinstance(raw, dict) and ("chunks" in raw or "chunks_base64" in raw):
        try:
            source = chunks_of(raw)
            return chunking_of_file(text, source, label=str(raw.get("label", "file")))
        except InputError as exc:
            raise InputError(name, f"{name.upper()}: {exc.message}") from None
    if isinstance(raw, dict) and isinstance(raw.get("settings"), dict):
        return chunking_of_settings(
            text, params_of(raw["settings"]), label=str(raw.get("label", "settings"))
        )
    raise InputError(name, f'{name} must be {{"chunks": text}} or {{"settings": {{...}}}}')
