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

import base64
import binascii
import json
import sys
import time
import traceback
from array import array
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..core.audit import Measure, chunking_of_file, chunking_of_settings, main_view_chunking
from ..core.chunking import check_size, chunk_text, segment
from ..core.chunkings import chunking_of
from ..core.dense import DIMENSION, batches, mean_pool, normalize, pack, plan, text_key, unpack
from ..core.evidence import Evidence, parse_items, parse_jsonl
from ..core.evidence_export import dumps as evidence_dumps
from ..core.evidence_export import evidence_jsonl
from ..core.evidence_export import export_filename as evidence_filename
from ..core.evidence_report import EvidenceReport, Vectors, check_evidence, dense_texts
from ..core.export import dumps, export_filename
from ..core.imported import decode_chunks_file
from ..core.lens import Lens, parse_lens
from ..core.params import Params, parse_encoding, parse_params, parse_unit, parse_whole, quote
from ..core.tokenizers import get_tokenizer, warm
from ..core.units import strip_bom, utf8_length
from ..errors import EngineError, InputError, VocabularyMissing
from ..facts import (
    DENSE_PAGE_SECONDS_PER_TOKEN,
    EVIDENCE_DEFAULTS,
    FIELD_DEFAULTS,
    MAX_BYTES,
    MAX_CHUNKS_FILE_BYTES,
    MAX_SWEEP_RECALL_WORK,
    MEASURE_UNIT,
    RETRIEVERS,
    SPLITTER_FIELDS,
    STRIP_COLUMNS_DEFAULT,
    STRIP_COLUMNS_MAX,
    TEXT_VIEW_WHOLE,
    TEXTS_HELD,
    over_byte_limit,
)
from ..planning.budget import check_budget
from ..planning.fit import fit_size
from ..planning.sizing import measure_text, size_index
from ..planning.sweep import sweep_dense_texts, sweep_text
from ..weights import EMBEDDING_MODEL
from .audit_view import audit_view, compare_view, lens_view, side_of
from .find import find_matches, locate, parse_query
from .segments import segments_view
from .view import cards_view, checks_view, chunk_view, counts, evidence_view, overview

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


#: Chunks files opened in the audit panel, by the ref its answer gave (oldest first):
#: ``chunks_ref`` in a main-view request shows that file's chunks instead of a splitter's.
_imported: dict[str, tuple[str, str | None, str | None]] = {}


def _imported_params(request: JSON, params: Params) -> Params:
    """``params`` with the chunking of the held chunks file ``chunks_ref``, re-anchored on
    this request's text and measured in its unit."""
    ref = _ref(request, "chunks_ref")
    held = _imported.get(ref)
    if held is None:
        raise InputError(
            "chunks_ref", f"chunks_ref {quote(ref)} is not held: open the chunks file again"
        )
    text, _ = strip_bom(_text(request))
    source, text_field, start_field = held
    side = chunking_of_file(text, source, text_field=text_field, start_field=start_field)
    chunking = main_view_chunking(text, side, params.unit, params.encoding)
    return replace(params, splitter="imported", recursive=None, imported=chunking)


def _params(request: JSON) -> Params:
    if "size" not in request:
        raise InputError("size", "size is missing: enter a whole number of units, 1 or more")
    params = _parse_params(request)
    if request.get("chunks_ref") is not None:
        return _imported_params(request, params)
    return params


def _parse_params(request: JSON) -> Params:
    return parse_params(
        caps=_caps(request),
        unit=request.get("unit", FIELD_DEFAULTS["unit"]),
        encoding=request.get("encoding"),
        size=request["size"],
        overlap=request.get("overlap", FIELD_DEFAULTS["overlap"]),
        overlap_mode=request.get("overlap_mode", FIELD_DEFAULTS["overlap_mode"]),
        tokens_per_unit=request.get("tokens_per_unit"),
        price_per_million=request.get("price_per_million"),
        model=request.get("model"),
        max_tokens=request.get("max_tokens"),
        **_splitter_fields(request),
    )


def _splitter_fields(request: JSON) -> dict[str, Any]:
    """The splitter and, for the recursive one, its settings (the fixed window reads none
    of them, so a page that keeps them while the fixed window is chosen loses nothing)."""
    splitter = request.get("splitter", FIELD_DEFAULTS["splitter"])
    if splitter != "recursive":
        return {"splitter": splitter}
    return {name: request.get(name) for name in SPLITTER_FIELDS}


def _op_counts(request: JSON) -> JSON:
    text = _text(request)
    unit = parse_unit(request.get("unit", FIELD_DEFAULTS["unit"]))
    tokens: int | None = None
    if unit == "token":
        encoding = parse_encoding(request.get("encoding"))
        if utf8_length(text) <= MAX_BYTES:  # a longer text is counted, not tokenized
            params = parse_params(unit="token", encoding=encoding, size=1)
            tokens = segment(text, params).count
    return counts(text, tokens=tokens)


def _op_chunk(request: JSON) -> JSON:
    """The page's view. ``"checks": false`` leaves the sentence check and the download's
    size to a ``checks`` call that follows (the page asks for them in the background).
    ``text_view`` (``{"page", "pages"}``) adds the text view's pages in sight to the
    answer, as the ``segments`` op gives them, and ``cards`` (``{"from", "to"}``) the
    cards in sight when the caps are lifted, as the ``cards`` op gives them (``null``
    when the result is not past a cap), so a keystroke needs one call for the figures,
    the cards and the text view alike."""
    checks = request.get("checks", True)
    if not isinstance(checks, bool):
        raise InputError("checks", f"checks must be true or false, got {quote(checks)}")
    text, params = _text(request), _params(request)
    view = chunk_view(text, params, checks=checks, columns=_columns(request))
    wanted = request.get("text_view")
    if wanted is not None:
        view["text_view"] = _text_view(text, params, wanted)
    cards = request.get("cards")
    if cards is not None:
        view["cards"] = _cards_window(text, params, cards) if view["lifted"] else None
    return view


def _cards_window(text: str, params: Params, wanted: object) -> JSON:
    """The cards in sight for a ``chunk`` answer whose caps are lifted: ``wanted`` is
    ``{"from", "to"}``, read as the ``cards`` op reads them, and the answer is that op's."""
    if not isinstance(wanted, dict):
        raise InputError("cards", f"cards must be an object with from and to, got {quote(wanted)}")
    start, stop = _card_range(wanted)
    return cards_view(text, params, first=start, stop=stop)


def _text_view(text: str, params: Params, wanted: object) -> JSON:
    """The text view's pages for a ``chunk`` answer: ``wanted`` is ``{"page", "pages"}``,
    read as the ``segments`` op reads them; a text under
    :data:`~pyapp.facts.TEXT_VIEW_WHOLE` code points comes whole, as the view draws it."""
    if not isinstance(wanted, dict):
        raise InputError(
            "text_view", f"text_view must be an object with page and pages, got {quote(wanted)}"
        )
    page = _offset(wanted, "page", 0)
    pages = wanted.get("pages")
    pages_wanted = None if pages is None else _offset(wanted, "pages", 0)
    if len(text) - text.startswith("\ufeff") < TEXT_VIEW_WHOLE:
        page, pages_wanted = 0, None
    return segments_view(text, params, page=page, pages_wanted=pages_wanted)


def _columns(request: JSON) -> int:
    """``columns``: how many bars the overview strip has (its width in pixels)."""
    value = request.get("columns", STRIP_COLUMNS_DEFAULT)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= STRIP_COLUMNS_MAX:
        raise InputError(
            "columns",
            f"columns must be a whole number from 1 to {STRIP_COLUMNS_MAX:,} (the strip's"
            f" width in pixels), got {quote(value)}",
        )
    return value


def _op_strip(request: JSON) -> JSON:
    """The overview strip alone, at ``columns`` bars (the strip was resized)."""
    text, _ = strip_bom(_text(request))
    check_size(text)
    return overview(text, _params(request), _columns(request))


def _op_find(request: JSON) -> JSON:
    """The text view's find: every match of ``query`` and the chunks holding them."""
    query = parse_query(request.get("query"))
    text, _ = strip_bom(_text(request))
    check_size(text)
    return find_matches(chunking_of(text, _params(request)), query)


def _op_goto(request: JSON) -> JSON:
    """Where chunk ``chunk`` (as typed, from 1) lies in the text: "go to chunk N"."""
    text, _ = strip_bom(_text(request))
    check_size(text)
    return locate(chunking_of(text, _params(request)), request.get("chunk"))


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


def _card_range(fields: JSON) -> tuple[int, int]:
    """``from`` and ``to`` of a range of chunk cards ``[from, to)``."""
    start = _offset(fields, "from", 0)
    stop = _offset(fields, "to", start)
    if stop < start:
        raise InputError(
            "to",
            f"to ({stop:,}) is less than from ({start:,}): ask for the cards [from, to),"
            " with to at least from",
        )
    return start, stop


def _op_cards(request: JSON) -> JSON:
    """Chunk cards ``[from, to)``, for a result whose caps are lifted."""
    start, stop = _card_range(request)
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


def _document_name(request: JSON) -> str | None:
    """``document_name``: the name of the file the text was opened from (the
    downloads carry it), or ``null`` for a pasted text."""
    name = request.get("document_name")
    if name is not None and not isinstance(name, str):
        raise InputError(
            "document_name", f"document_name must be a file's name or null, got {quote(name)}"
        )
    return name


def _op_export(request: JSON) -> JSON:
    report = chunk_text(_text(request), _params(request))
    return {"filename": export_filename(report, _document_name(request)), "json": dumps(report)}


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
                "evidence", over_byte_limit("the evidence", f"{size:,} bytes of UTF-8", "evidence")
            )
    return source, request.get("evidence")


def _top_k(request: JSON) -> int:
    return parse_whole("top_k", request.get("top_k", EVIDENCE_DEFAULTS["top_k"]))


def _retriever(request: JSON) -> str:
    retriever = request.get("retriever", EVIDENCE_DEFAULTS["retriever"])
    if retriever not in RETRIEVERS:
        raise InputError(
            "retriever",
            f"retriever must be one of {', '.join(RETRIEVERS)}, got {quote(retriever)}",
        )
    return str(retriever)


def _vectors(request: JSON) -> Vectors | None:
    """``vectors``: ``{key: base64 of 384 little-endian doubles}``, as ``dense_pool``
    made them (or the page's cache kept them)."""
    raw = request.get("vectors")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError("vectors", "vectors must be an object of base64 vectors by key")
    try:
        return Vectors({str(k): unpack(base64.b64decode(v, validate=True)) for k, v in raw.items()})
    except (TypeError, ValueError) as exc:
        raise InputError("vectors", f"a vector is not usable: {exc}") from None


def _evidence_report(request: JSON) -> EvidenceReport:
    text = _text(request)
    params = _params(request)
    source, items = _evidence_fields(request)
    return check_evidence(
        text, params, jsonl=source, items=items, top_k=_top_k(request),
        retriever=_retriever(request), vectors=_vectors(request),
    )  # fmt: skip


def _window_fields(request: JSON) -> JSON:
    """The unit, encoding, size and overlap of a request, an omitted one as the engine
    reads it (:data:`~pyapp.facts.FIELD_DEFAULTS`; the size is required)."""
    return {
        "unit": request.get("unit", FIELD_DEFAULTS["unit"]),
        "encoding": request.get("encoding"),
        "size": request.get("size"),
        "overlap": request.get("overlap", FIELD_DEFAULTS["overlap"]),
        "overlap_mode": request.get("overlap_mode", FIELD_DEFAULTS["overlap_mode"]),
    }


def _dense_texts(request: JSON) -> list[str]:
    source, items = _evidence_fields(request)
    if request.get("scope", "evidence") == "sweep":
        return sweep_dense_texts(
            _text(request),
            **_splitter_fields(request),
            **_window_fields(request),
            evidence_jsonl=source,
            evidence=items,
        )
    return dense_texts(_text(request), _params(request), jsonl=source, items=items)


def _op_dense_plan(request: JSON) -> JSON:
    """What the dense check of a setting (``scope: "evidence"``, the default) or of the
    sweep's settings (``"sweep"``) embeds: every text's ``keys``; with ``held`` (the
    keys the page's cache has), the model's input for the others, in ``batches`` of
    ``{"key", "ids"}`` (one length per batch), the ``tokens`` they hold, how many
    ``texts`` that is, and about how long the page's model takes (``page_seconds``).
    ``"batches": false`` leaves the batches out (a preview of the work needs only its
    size, not megabytes of ids)."""
    texts = _dense_texts(request)
    keys = list(dict.fromkeys(map(text_key, texts)))
    out: JSON = {"model": EMBEDDING_MODEL.to_json(), "keys": keys}
    held = request.get("held")
    if held is None:
        return out
    if not isinstance(held, list) or not all(isinstance(k, str) for k in held):
        raise InputError("held", "held must be a list of keys")
    want = request.get("batches", True)
    if not isinstance(want, bool):
        raise InputError("batches", "batches must be true or false")
    have = set(held)
    work = plan(t for t in texts if text_key(t) not in have)
    if want:
        out["batches"] = [
            [{"key": k, "ids": work.missing[k]} for k in b] for b in batches(work.missing)
        ]
    out["tokens"] = work.tokens
    out["texts"] = len(work.missing)
    out["page_seconds"] = work.tokens * DENSE_PAGE_SECONDS_PER_TOKEN
    return out


def _op_dense_pool(request: JSON) -> JSON:
    """Pooled, normalized vectors of one batch the model ran: ``hidden`` is base64 of
    ``rows * length * 384`` little-endian float32 (``last_hidden_state``, row by row),
    every id kept by the attention mask. Answers ``vectors``: base64 doubles per row."""
    rows, length = _offset(request, "rows", 0), _offset(request, "length", 0)
    try:
        data = base64.b64decode(request.get("hidden", ""), validate=True)
    except (TypeError, ValueError):
        raise InputError("hidden", "hidden must be base64 text") from None
    width = length * DIMENSION
    if rows < 1 or length < 1 or len(data) != rows * width * 4:
        raise InputError(
            "hidden", f"hidden is {len(data):,} bytes, not {rows} x {length} x {DIMENSION} float32"
        )
    values = array("f")
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return {
        "vectors": [
            base64.b64encode(
                pack(normalize(mean_pool(values[r * width : (r + 1) * width], [1] * length)))
            ).decode("ascii")
            for r in range(rows)
        ]
    }


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
            "filename": evidence_filename(report, _document_name(request)),
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
    """The closed forms of a fixed window; with ``splitter: "recursive"`` (and its
    settings, ``unit``, ``encoding`` and the text), the real chunking of the text."""
    fields = {"documents": None, "avg_tokens": None, "size": None, **_fields(request, _SIZE_FIELDS)}
    if request.get("splitter", FIELD_DEFAULTS["splitter"]) != "recursive":
        return size_index(**fields).to_json()
    if "avg_tokens" not in request:  # the text's own length is D: no figure to type
        fields["avg_tokens"] = 1
    plan = size_index(**fields)
    params = parse_params(
        caps=_caps(request),
        unit=request.get("unit", "token"),
        encoding=request.get("encoding"),
        size=plan.size,
        overlap=plan.overlap,
        **_splitter_fields(request),
    )
    return size_index(**fields, measured=measure_text(_text(request), params)).to_json()


def _op_fit(request: JSON) -> JSON:
    """The largest size at which every chunk of the text, encoded on its own, fits the
    model's input limit with its special tokens (:func:`~pyapp.planning.fit.fit_size`),
    for the chunk op's fields (token unit, a model or ``max_tokens``)."""
    return fit_size(_text(request), _params(request)).to_json()


def _op_budget(request: JSON) -> JSON:
    fields = {"window": None, "top_k": None, "size": None, **_fields(request, _BUDGET_FIELDS)}
    return check_budget(**fields).to_json()


def _op_sweep(request: JSON) -> JSON:
    source, items = _evidence_fields(request)
    return sweep_text(
        _text(request),
        **_splitter_fields(request),
        **_window_fields(request),
        evidence_jsonl=source,
        evidence=items,
        top_k=request.get("top_k"),
        vectors=_vectors(request),
        recall_work=MAX_SWEEP_RECALL_WORK,
    ).to_json()


def _measure(request: JSON) -> Measure:
    return Measure.parse(
        unit=request.get("unit", MEASURE_UNIT),
        encoding=request.get("encoding"),
        price_per_million=request.get("price_per_million"),
    )


def _lens(request: JSON) -> Lens | None:
    """The embedding model whose truncation to show: ``lens_model`` (a preset) or
    ``lens_encoding`` with ``lens_max_tokens`` (and ``lens_special_tokens``)."""
    return parse_lens(
        model=request.get("lens_model"),
        encoding=request.get("lens_encoding"),
        max_tokens=request.get("lens_max_tokens"),
        special_tokens=request.get("lens_special_tokens"),
    )


def _optional_evidence(text: str, request: JSON) -> Evidence | None:
    source, items = _evidence_fields(request)
    if source is None and items is None:
        return None
    evidence = parse_jsonl(text, source) if source is not None else parse_items(text, items)
    return evidence if evidence.items else None


def _chunks_source(request: JSON) -> str:
    """The chunks file: ``chunks`` (its text) or ``chunks_base64`` (its bytes, as the page
    reads a file: decoded here, so a file that is not UTF-8 is refused as the command
    line refuses it)."""
    raw = request.get("chunks_base64")
    if raw is not None:
        if not isinstance(raw, str) or len(raw) > 4 * (MAX_CHUNKS_FILE_BYTES // 3 + 1):
            raise InputError("chunks", "chunks_base64 must be a chunks file's bytes in base64")
        try:
            data = base64.b64decode(raw, validate=True)
        except binascii.Error:
            raise InputError("chunks", "chunks_base64 is not base64") from None
        return decode_chunks_file(data)
    source = request.get("chunks")
    if not isinstance(source, str):
        raise InputError("chunks", "chunks must be the text of a chunks file (JSON or JSON Lines)")
    return source


def _field_path(request: JSON, name: str) -> str | None:
    value = request.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(name, f"{name} must be a field name, got {quote(value)}")
    return value


def _op_audit(request: JSON) -> JSON:
    """Another tool's chunks of the text, re-anchored, with every figure
    (:func:`~pyapp.web.audit_view.audit_view`)."""
    text, _ = strip_bom(_text(request))
    source = _chunks_source(request)
    text_field = _field_path(request, "text_field")
    start_field = _field_path(request, "start_field")
    answer = audit_view(
        text,
        source,
        measure=_measure(request),
        lens=_lens(request),
        text_field=text_field,
        start_field=start_field,
        evidence=_optional_evidence(text, request),
        top_k=_top_k(request),
    )
    held = (source, text_field, start_field)
    ref = next((r for r, h in _imported.items() if h == held), None)
    if ref is None:
        ref = f"chunks-{len(_imported) + 1}"
        while ref in _imported:
            ref += "+"
    _imported.pop(ref, None)
    _imported[ref] = held  # the same file keeps its ref, and is held the longest
    while len(_imported) > TEXTS_HELD:
        del _imported[next(iter(_imported))]
    return {**answer, "chunks_ref": ref}


def _op_compare(request: JSON) -> JSON:
    """Two chunkings of the text side by side: ``a`` and ``b`` are each
    ``{"chunks": file text}`` or ``{"settings": {...the chunk op's fields}}``."""
    text, _ = strip_bom(_text(request))
    a = side_of(text, request.get("a"), name="a", params_of=_params, chunks_of=_chunks_source)
    b = side_of(text, request.get("b"), name="b", params_of=_params, chunks_of=_chunks_source)
    return compare_view(
        text, a, b, measure=_measure(request), lens=_lens(request),
        evidence=_optional_evidence(text, request), top_k=_top_k(request),
    )  # fmt: skip


def _op_lens(request: JSON) -> JSON:
    """What the embedding model (``lens_model``, or ``lens_encoding`` with
    ``lens_max_tokens``) reads of the chunks these settings make: each chunk's count in
    its tokenizer, the cut of each over-limit chunk, and the text cut into pieces."""
    text, _ = strip_bom(_text(request))
    lens = _lens(request)
    if lens is None:
        raise InputError("lens_model", "choose an embedding model to see what it reads")
    return lens_view(text, chunking_of_settings(text, _params(request)), lens)


OPS: dict[str, Callable[[JSON], JSON]] = {
    "chunk": _op_chunk,
    "export": _op_export,
    "counts": _op_counts,
    "warm": _op_warm,
    "checks": _op_checks,
    "size": _op_size,
    "budget": _op_budget,
    "fit": _op_fit,
    "sweep": _op_sweep,
    "evidence": _op_evidence,
    "segments": _op_segments,
    "cards": _op_cards,
    "strip": _op_strip,
    "find": _op_find,
    "goto": _op_goto,
    "text": _op_text,
    "audit": _op_audit,
    "compare": _op_compare,
    "lens": _op_lens,
    "dense_plan": _op_dense_plan,
    "dense_pool": _op_dense_pool,
}


def _error(op: object, field: str | None, message: str, **more: str) -> str:
    name = op if isinstance(op, str) and op in OPS else None
    body = {"ok": False, "op": name, "error": {"field": field, "message": message, **more}}
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
    except VocabularyMissing as exc:
        return _error(op, exc.field, exc.message, vocabulary=exc.vocabulary)
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
