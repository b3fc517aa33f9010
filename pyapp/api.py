"""The one door between the browser worker and the engine: ``handle(request_json) -> str``.

Requests and responses are JSON text (see ``docs/protocol.md``)::

    {"ok": true,  "op": "chunk", "result": {...}}
    {"ok": false, "op": "chunk", "error": {"field": "overlap", "message": "..."}}

Bad input never raises across this door; a raised exception is a bug.
Importing this module loads no tokenizer: ranks load on first token use.

>>> import json
>>> request = {"op": "counts", "text": "one two  three"}
>>> json.loads(handle(json.dumps(request)))
{'ok': True, 'op': 'counts', 'result': {'bytes': 14, 'chars': 14, 'words': 3, 'tokens': None}}
>>> answer = json.loads(handle('{"op": "chunk", "text": "a b", "size": "2", "overlap": "2"}'))
>>> answer["ok"], answer["error"]["field"]
(False, 'overlap')

A long text can be sent once and named afterwards (the engine holds the last
:data:`TEXTS_HELD`); a name it does not hold is an answer saying to send it again:

>>> json.loads(handle('{"op": "text", "ref": "t1", "text": "one two"}'))["result"]
{'ref': 't1', 'chars': 7}
>>> json.loads(handle('{"op": "counts", "text_ref": "t1"}'))["result"]["words"]
2
>>> json.loads(handle('{"op": "counts", "text_ref": "t0"}'))["error"]["field"]
'text_ref'
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from typing import Any

from .budget import check_budget
from .derivation import derive
from .errors import EngineError, InputError
from .export import (
    boundaries_json,
    cap_json,
    dumps,
    export_filename,
    params_json,
    summary_json,
)
from .params import DEFAULT_ENCODING, ENCODINGS, Params, parse_params
from .remedies import with_remedies
from .report import MAX_BYTES, Report, chunk_text, view_chunks
from .sizing import size_index
from .sweep import sweep_text
from .tokenizers import get_tokenizer
from .units import utf8_length, word_count

__all__ = ["handle"]

JSON = dict[str, Any]


#: How many texts the ``text`` op holds; the oldest goes first.
TEXTS_HELD = 4

#: Texts sent once with the ``text`` op, by the ref the page chose (oldest first).
_texts: dict[str, str] = {}


def _ref(request: JSON, field: str) -> str:
    ref = request.get(field)
    if not isinstance(ref, str) or not ref:
        raise InputError(field, f"{field} must be a non-empty string naming a text")
    return ref


def _text(request: JSON) -> str:
    if "text_ref" in request and "text" not in request:
        ref = _ref(request, "text_ref")
        held = _texts.get(ref)
        if held is None:
            raise InputError(
                "text_ref",
                f"text_ref {ref!r} is not held (the engine keeps the last {TEXTS_HELD} texts):"
                " send the text again with the text op",
            )
        return held
    text = request.get("text")
    if text is None:
        raise InputError("text", "text is missing: send the text to chunk")
    if not isinstance(text, str):
        raise InputError("text", f"text must be a string, got {type(text).__name__}")
    return text


def _params(request: JSON) -> Params:
    if "size" not in request:
        raise InputError("size", "size is missing: enter a whole number of units, 1 or more")
    return parse_params(
        unit=request.get("unit", "word"),
        encoding=request.get("encoding"),
        size=request["size"],
        overlap=request.get("overlap", 0),
        overlap_mode=request.get("overlap_mode", "units"),
        tokens_per_unit=request.get("tokens_per_unit"),
        price_per_million=request.get("price_per_million", 1),
    )


@functools.lru_cache(maxsize=4)
def _words(text: str) -> int:
    """The word count of the last few texts (the page asks again on every edit)."""
    return word_count(text)


def _counts(text: str, *, tokens: int | None) -> JSON:
    size = utf8_length(text)
    counts: JSON = {"bytes": size, "chars": len(text), "words": _words(text), "tokens": tokens}
    if size > MAX_BYTES:  # counted all the same, so the page shows the real size
        counts["over_limit"] = True
    return counts


def _op_counts(request: JSON) -> JSON:
    text = _text(request)
    unit = request.get("unit", "word")
    tokens: int | None = None
    if unit == "token" and utf8_length(text) <= MAX_BYTES:
        params = parse_params(unit="token", encoding=request.get("encoding"), size=1)
        tokens = chunk_text(text, params).summary.units
    return _counts(text, tokens=tokens)


def _op_chunk(request: JSON) -> JSON:
    text = _text(request)
    params = _params(request)
    report = chunk_text(text, params, chunks=False, overview=True)
    tokens = report.summary.units if params.unit == "token" else None
    cut = report.boundaries.cut_spans
    chunks = [] if report.capped else view_chunks(text, params, cut_spans=cut)
    return {
        "params": params_json(report),
        "summary": summary_json(report.summary),
        "derivation": derive(report.summary, params),
        "capped": with_remedies(cap_json(report.capped), report.summary.units, params),
        "boundaries": boundaries_json(report.boundaries),
        "chunks": chunks,
        "counts": _counts(text, tokens=tokens),
        "overview": {
            "total_chars": len(text),
            "windows": [list(span) for span in report.overview],
        },
    }


def _op_text(request: JSON) -> JSON:
    """Holds a text under the page's ``ref``, for later requests' ``text_ref``. Any
    string is held; the ops that read it validate it, as they do ``text``."""
    ref = _ref(request, "ref")
    text = _text({"text": request.get("text")})
    _texts.pop(ref, None)
    _texts[ref] = text
    while len(_texts) > TEXTS_HELD:
        del _texts[next(iter(_texts))]
    return {"ref": ref, "chars": len(text)}


def _export_report(request: JSON) -> Report:
    return chunk_text(_text(request), _params(request))


def _op_export(request: JSON) -> JSON:
    report = _export_report(request)
    return {"filename": export_filename(report), "json": dumps(report)}


def _op_warm(request: JSON) -> JSON:
    encoding = request.get("encoding") or DEFAULT_ENCODING
    if encoding not in ENCODINGS:
        raise InputError(
            "encoding", f"unknown encoding {encoding!r}: choose one of {', '.join(ENCODINGS)}"
        )
    began = time.perf_counter()
    get_tokenizer(encoding).encode("warm")
    return {"encoding": encoding, "seconds": time.perf_counter() - began}


def _op_size(request: JSON) -> JSON:
    return size_index(
        documents=request.get("documents"),
        avg_tokens=request.get("avg_tokens"),
        size=request.get("size"),
        overlap=request.get("overlap", 0),
        overlap_mode=request.get("overlap_mode", "units"),
        top_k=request.get("top_k", 5),
        budget=request.get("budget", 128000),
        dim=request.get("dim"),
        bytes_per_value=request.get("bytes_per_value", 4),
    ).to_json()


def _op_budget(request: JSON) -> JSON:
    return check_budget(
        window=request.get("window"),
        system=request.get("system", 0),
        question=request.get("question", 0),
        answer=request.get("answer", 0),
        top_k=request.get("top_k"),
        size=request.get("size"),
    ).to_json()


def _op_sweep(request: JSON) -> JSON:
    return sweep_text(
        _text(request),
        unit=request.get("unit", "word"),
        encoding=request.get("encoding"),
        size=request.get("size"),
        overlap=request.get("overlap", 0),
        overlap_mode=request.get("overlap_mode", "units"),
    ).to_json()


OPS: dict[str, Callable[[JSON], JSON]] = {
    "chunk": _op_chunk,
    "export": _op_export,
    "counts": _op_counts,
    "warm": _op_warm,
    "size": _op_size,
    "budget": _op_budget,
    "sweep": _op_sweep,
    "text": _op_text,
}


def _error(op: object, field: str | None, message: str) -> str:
    name = op if isinstance(op, str) else None
    body = {"ok": False, "op": name, "error": {"field": field, "message": message}}
    return json.dumps(body, ensure_ascii=False)


def handle(request_json: str) -> str:
    """Answer one request; see the module docstring and ``docs/protocol.md``."""
    try:
        request = json.loads(request_json)
    except (TypeError, ValueError) as exc:
        return _error(None, None, f"the request is not valid JSON ({exc}): send a JSON object")
    if not isinstance(request, dict):
        return _error(None, None, "the request must be a JSON object with an op")
    op = request.get("op")
    action = OPS.get(op) if isinstance(op, str) else None
    if action is None:
        return _error(op, "op", f"unknown op {op!r}: use one of {', '.join(OPS)}")
    try:
        result = action(request)
    except EngineError as exc:
        return _error(op, exc.field, exc.message)
    return json.dumps({"ok": True, "op": op, "result": result}, ensure_ascii=False)
