"""The one door between the browser worker and the engine: ``handle(request_json) -> str``.

Requests and responses are JSON text (see ``docs/protocol.md``)::

    {"ok": true,  "op": "chunk", "result": {...}}
    {"ok": false, "op": "chunk", "error": {"field": "overlap", "message": "..."}}

Nothing raises across this door: bad input is an error answer naming the field,
and a bug is an error answer too (its traceback goes to stderr).
Importing this module loads no tokenizer: ranks load on first token use.

>>> import json
>>> request = {"op": "counts", "text": "one two  three"}
>>> json.loads(handle(json.dumps(request)))
{'ok': True, 'op': 'counts', 'result': {'bytes': 14, 'chars': 14, 'words': 3, 'tokens': None}}
>>> answer = json.loads(handle('{"op": "chunk", "text": "a b", "size": "2", "overlap": "2"}'))
>>> answer["ok"], answer["error"]["field"]
(False, 'overlap')

A long text can be sent once and named afterwards (the engine holds the last
:data:`~pyapp.facts.TEXTS_HELD`); a name it does not hold is an answer saying to send it again:

>>> json.loads(handle('{"op": "text", "ref": "t1", "text": "one two"}'))["result"]
{'ref': 't1', 'chars': 7}
>>> json.loads(handle('{"op": "counts", "text_ref": "t1"}'))["result"]["words"]
2
>>> json.loads(handle('{"op": "counts", "text_ref": "t0"}'))["error"]["field"]
'text_ref'
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

from ..core.chunking import chunk_text, segment
from ..core.evidence_export import dumps as evidence_dumps
from ..core.evidence_export import evidence_jsonl
from ..core.evidence_export import export_filename as evidence_filename
from ..core.evidence_report import EvidenceReport, check_evidence
from ..core.export import dumps, export_filename
from ..core.params import Params, parse_encoding, parse_params, parse_unit, parse_whole, quote
from ..core.tokenizers import get_tokenizer, warm
from ..core.units import utf8_length
from ..errors import EngineError, InputError
from ..facts import EVIDENCE_DEFAULTS, MAX_BYTES, TEXTS_HELD
from ..planning.budget import check_budget
from ..planning.sizing import size_index
from ..planning.sweep import sweep_text
from .segments import segments_view
from .view import cards_view, checks_view, chunk_view, counts, evidence_view

__all__ = ["OPS", "handle"]

JSON = dict[str, Any]

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
                f"text_ref {quote(ref)} is not held (the engine keeps the last {TEXTS_HELD}"
                " texts): send the text again with the text op",
            )
        return held
    text = request.get("text")
    if text is None:
        raise InputError("text", "text is missing: send the text to chunk")
    if not isinstance(text, str):
        raise InputError("text", f"text must be a string, got {quote(text)}")
    return text


def _caps(request: JSON) -> bool:
    """``caps`` (default true): false lifts the chunk and processed-unit caps."""
    caps = request.get("caps", True)
    if not isinstance(caps, bool):
        raise InputError("caps", f"caps must be true or false, got {quote(caps)}")
    return caps


def _offset(request: JSON, field: str, default: int) -> int:
    """A whole number, 0 or more: a range's edge (``from``, ``to``) or a page count."""
    value = request.get(field, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(field, f"{field} must be a whole number, 0 or more, got {quote(value)}")
    return value


def _params(request: JSON) -> Params:
    if "size" not in request:
        raise InputError("size", "size is missing: enter a whole number of units, 1 or more")
    return parse_params(
        caps=_caps(request),
        unit=request.get("unit", "word"),
        encoding=request.get("encoding"),
        size=request["size"],
        overlap=request.get("overlap", 0),
        overlap_mode=request.get("overlap_mode", "units"),
        tokens_per_unit=request.get("tokens_per_unit"),
        price_per_million=request.get("price_per_million"),
        model=request.get("model"),
        max_tokens=request.get("max_tokens"),
    )


def _op_counts(request: JSON) -> JSON:
    text = _text(request)
    unit = parse_unit(request.get("unit", "word"))
    tokens: int | None = None
    if unit == "token":
        encoding = parse_encoding(request.get("encoding"))
        if utf8_length(text) <= MAX_BYTES:  # a longer text is counted, not tokenized
            params = parse_params(unit="token", encoding=encoding, size=1)
            tokens = segment(text, params).count
    return counts(text, tokens=tokens)


def _op_chunk(request: JSON) -> JSON:
    """The page's view. ``"checks": false`` leaves the sentence check and the download's
    size to a ``checks`` call that follows (the page asks for them in the background)."""
    checks = request.get("checks", True)
    if not isinstance(checks, bool):
        raise InputError("checks", f"checks must be true or false, got {quote(checks)}")
    return chunk_view(_text(request), _params(request), checks=checks)


def _op_checks(request: JSON) -> JSON:
    """What a ``chunk`` call with ``"checks": false`` left out."""
    return checks_view(_text(request), _params(request))


def _op_segments(request: JSON) -> JSON:
    """The text view of ``pages`` pages from page ``page`` (default: every page)."""
    pages = request.get("pages")
    return segments_view(
        _text(request),
        _params(request),
        page=_offset(request, "page", 0),
        pages_wanted=None if pages is None else _offset(request, "pages", 0),
    )


def _op_cards(request: JSON) -> JSON:
    """Chunk cards ``[from, to)``, for a result whose caps are lifted."""
    start = _offset(request, "from", 0)
    stop = _offset(request, "to", start)
    if stop < start:
        raise InputError(
            "to",
            f"to ({stop:,}) is less than from ({start:,}): ask for the cards [from, to),"
            " with to at least from",
        )
    return cards_view(_text(request), _params(request), first=start, stop=stop)


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


def _op_export(request: JSON) -> JSON:
    report = chunk_text(_text(request), _params(request))
    return {"filename": export_filename(report), "json": dumps(report)}


def _evidence_fields(request: JSON) -> tuple[str | None, object]:
    """The evidence of a request: ``evidence_jsonl`` (JSON Lines text, as a file
    holds it) or ``evidence`` (a list of item objects)."""
    source = request.get("evidence_jsonl")
    if source is not None:
        if not isinstance(source, str):
            raise InputError(
                "evidence", f"evidence_jsonl must be JSON Lines text, got {quote(source)}"
            )
        size = utf8_length(source)
        if size > MAX_BYTES:
            raise InputError(
                "evidence",
                f"the evidence is {size:,} bytes of UTF-8, over the {MAX_BYTES:,}-byte limit:"
                " split it and check each part",
            )
    return source, request.get("evidence")


def _top_k(request: JSON) -> int:
    return parse_whole("top_k", request.get("top_k", EVIDENCE_DEFAULTS["top_k"]))


def _evidence_report(request: JSON) -> EvidenceReport:
    text = _text(request)
    params = _params(request)
    source, items = _evidence_fields(request)
    return check_evidence(text, params, jsonl=source, items=items, top_k=_top_k(request))


def _op_evidence(request: JSON) -> JSON:
    """The evidence check of one setting. ``"export": true`` answers the download
    instead: the exact text ``python -m pyapp evidence`` prints (``json``) and the
    evidence list as JSON Lines (``jsonl``)."""
    export = request.get("export", False)
    if not isinstance(export, bool):
        raise InputError("export", f"export must be true or false, got {quote(export)}")
    report = _evidence_report(request)
    if export:
        return {
            "filename": evidence_filename(report),
            "json": evidence_dumps(report),
            "jsonl": evidence_jsonl(report),
        }
    return evidence_view(_text(request), report)


def _op_warm(request: JSON) -> JSON:
    """Loads a tokenizer ahead of its first use: whole, or with ``seconds`` for about
    that long, in steps (:func:`~pyapp.core.tokenizers.warm`); ``done`` says whether
    it is ready. The browser worker warms in slices between other calls, so an
    edit never waits behind the whole load.

    >>> answer = _op_warm({"encoding": "cl100k_base", "seconds": 0})
    >>> sorted(answer), answer["encoding"]
    (['done', 'encoding', 'seconds'], 'cl100k_base')
    >>> _op_warm({"encoding": "cl100k_base"})["done"]
    True
    """
    encoding = parse_encoding(request.get("encoding"))
    seconds = request.get("seconds")
    began = time.perf_counter()
    if seconds is None:
        get_tokenizer(encoding)
        done = True
    elif isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds <= 1:
        raise InputError("seconds", f"seconds must be a number from 0 to 1, got {quote(seconds)}")
    else:
        done = warm(encoding, seconds=seconds)
    return {"encoding": encoding, "done": done, "seconds": time.perf_counter() - began}


#: The request fields each planning op reads; a field left out takes the
#: function's default (:data:`~pyapp.facts.SIZING_DEFAULTS`, ``BUDGET_DEFAULTS``).
_SIZE_FIELDS = (
    "documents", "avg_tokens", "size", "overlap", "overlap_mode", "top_k", "budget", "dim",
    "bytes_per_value",
)  # fmt: skip
_BUDGET_FIELDS = ("window", "system", "question", "answer", "top_k", "size")


def _fields(request: JSON, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: request[name] for name in names if name in request}


def _op_size(request: JSON) -> JSON:
    fields = {"documents": None, "avg_tokens": None, "size": None, **_fields(request, _SIZE_FIELDS)}
    return size_index(**fields).to_json()


def _op_budget(request: JSON) -> JSON:
    fields = {"window": None, "top_k": None, "size": None, **_fields(request, _BUDGET_FIELDS)}
    return check_budget(**fields).to_json()


def _op_sweep(request: JSON) -> JSON:
    source, items = _evidence_fields(request)
    return sweep_text(
        _text(request),
        unit=request.get("unit", "word"),
        encoding=request.get("encoding"),
        size=request.get("size"),
        overlap=request.get("overlap", 0),
        overlap_mode=request.get("overlap_mode", "units"),
        evidence_jsonl=source,
        evidence=items,
        top_k=request.get("top_k"),
    ).to_json()


OPS: dict[str, Callable[[JSON], JSON]] = {
    "chunk": _op_chunk,
    "export": _op_export,
    "counts": _op_counts,
    "warm": _op_warm,
    "checks": _op_checks,
    "size": _op_size,
    "budget": _op_budget,
    "sweep": _op_sweep,
    "evidence": _op_evidence,
    "segments": _op_segments,
    "cards": _op_cards,
    "text": _op_text,
}


def _error(op: object, field: str | None, message: str) -> str:
    name = op if isinstance(op, str) and op in OPS else None
    body = {"ok": False, "op": name, "error": {"field": field, "message": message}}
    return json.dumps(body, ensure_ascii=False)


def handle(request_json: str) -> str:
    """Answer one request; see the module docstring and ``docs/protocol.md``.

    Whatever the string, the answer is a JSON object: bad input is a clear error,
    and an unexpected failure (a bug) is one plain sentence, its traceback written
    to stderr (the browser console, in the worker), never into the answer."""
    try:
        request = json.loads(request_json)
    except RecursionError:
        return _error(None, None, "the request nests too deeply: send a flat JSON object")
    except (TypeError, ValueError) as exc:
        reason = quote(str(exc))
        return _error(None, None, f"the request is not valid JSON ({reason}): send a JSON object")
    if not isinstance(request, dict):
        return _error(None, None, "the request must be a JSON object with an op")
    op = request.get("op")
    action = OPS.get(op) if isinstance(op, str) else None
    if action is None:
        return _error(op, "op", f"unknown op {quote(op)}: use one of {', '.join(OPS)}")
    try:
        result = action(request)
    except EngineError as exc:
        return _error(op, exc.field, exc.message)
    except (RecursionError, MemoryError) as exc:
        return _error(op, None, f"the request is too large to answer ({type(exc).__name__})")
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a bug (or a library's panic): say so, details to the console
        traceback.print_exc(file=sys.stderr)
        return _error(
            op,
            None,
            f"the engine failed on this request ({type(exc).__name__}); this is a bug,"
            " and the details are in the browser console",
        )
    return json.dumps({"ok": True, "op": op, "result": result}, ensure_ascii=False)
