"""Chunks made elsewhere: a JSON or JSON Lines file of chunks, its shape recognized
from its keys, read into plain records (the text and the offsets it claims).

The shapes, tried in this order on every record (the first record decides, and every
record must then have that shape's text field):

==========================  ==========================================================
shape                       a record is
==========================  ==========================================================
``pyapp``                   this tool's export (``{"schema": "pyapp.…", "chunks": [...]}``,
                            chunks with ``text`` and ``char_start``/``char_end``)
``strings``                 a plain string (semchunk, or anything else)
``langchain``               ``page_content``, optional ``metadata.start_index`` (also
                            LangChain's serialized form, ``{"lc": 1, "kwargs": {...}}``)
``llamaindex``              ``text`` with ``start_char_idx`` (and ``end_char_idx``)
``haystack``                ``content``, optional ``meta.split_idx_start`` (or a
                            flattened ``split_idx_start``)
``chonkie``                 ``text`` with ``start_index`` (and ``end_index``,
                            ``token_count``)
``unstructured``            ``text`` with ``element_id`` (Unstructured elements: no
                            offsets)
``mapped``                  ``--text-field`` and ``--start-field`` (dotted paths)
==========================  ==========================================================

A file whose top level is an object may hold its records under ``chunks``,
``documents`` or ``nodes``. Offsets count code points (Python string indices), as
every one of these tools writes them.

>>> chunks = read_chunks('[{"page_content": "ab", "metadata": {"start_index": 3}}]')
>>> chunks.shape, chunks.chunks[0].text, chunks.chunks[0].start, chunks.chunks[0].where
('langchain', 'ab', 3, 'item 1 (line 1)')
>>> try:
...     read_chunks('{"text": "ab"}\\n{"text": "cd"}')
... except InputError as err:
...     print(err)  # doctest: +NORMALIZE_WHITESPACE
line 1: unknown chunk shape (keys: text): looked for page_content (LangChain), text with
start_index (Chonkie), text with start_char_idx (LlamaIndex), content (Haystack), text
with element_id (Unstructured), a plain string, or this tool's export (schema, chunks);
name the fields with --text-field and --start-field
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from ..errors import InputError
from ..facts import MAX_CHUNKS_FILE_BYTES, MAX_IMPORTED_CHUNKS, over_byte_limit
from .params import quote

__all__ = ["SHAPES", "ImportedChunk", "ImportedChunks", "decode_chunks_file", "read_chunks"]

#: Each shape's name and what the summary calls it.
SHAPES: Final = {
    "pyapp": "this tool's export",
    "strings": "a plain list of strings (semchunk, or anything else)",
    "langchain": "LangChain documents (page_content, metadata.start_index)",
    "llamaindex": "LlamaIndex nodes (text, start_char_idx, end_char_idx)",
    "haystack": "Haystack documents (content, meta.split_idx_start)",
    "chonkie": "Chonkie chunks (text, start_index, end_index, token_count)",
    "unstructured": "Unstructured elements (text, element_id; no offsets)",
    "mapped": "the fields you named",
}

#: What an unknown shape's message says was looked for.
_LOOKED_FOR: Final = (
    "looked for page_content (LangChain), text with start_index (Chonkie), text with"
    " start_char_idx (LlamaIndex), content (Haystack), text with element_id (Unstructured),"
    " a plain string, or this tool's export (schema, chunks); name the fields with"
    " --text-field and --start-field"
)

#: Where a top-level object may hold its records.
_WRAPPERS: Final = ("chunks", "documents", "nodes")


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedChunk:
    """One record: its text and the offsets it claims (``None`` when it claims none).
    ``where`` says where it is in the file, for messages ("line 12", "item 3 (line 40)")."""

    text: str
    start: int | None
    end: int | None
    where: str
    #: The field the text was read from, and the start's (for messages).
    text_field: str
    start_field: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportedChunks:
    shape: str
    #: ``"json"`` or ``"jsonl"``.
    format: str
    chunks: tuple[ImportedChunk, ...]

    @property
    def shape_label(self) -> str:
        return SHAPES[self.shape]


# ---------------------------------------------------------------------- bytes and JSON
def decode_chunks_file(data: bytes, *, name: str = "the chunks file") -> str:
    """The file's text: refused over :data:`~pyapp.facts.MAX_CHUNKS_FILE_BYTES`, or when it
    is not UTF-8 (with the line and offset of the first bad byte). A leading byte-order
    mark is dropped.

    >>> try:
    ...     decode_chunks_file(b'["a",\\n"\\xff"]')
    ... except InputError as err:
    ...     print(err)  # doctest: +NORMALIZE_WHITESPACE
    the chunks file is not UTF-8: byte 0xff at offset 7 (line 2):
    save it as UTF-8
    """
    if len(data) > MAX_CHUNKS_FILE_BYTES:
        raise InputError("chunks", _too_big(name, len(data)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            "chunks",
            f"{name} is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
            f" (line {line}): save it as UTF-8",
        ) from None
    return text.removeprefix("\ufeff")


def _too_big(name: str, size: int) -> str:
    return over_byte_limit(
        name,
        f"{size:,} bytes",
        "chunks_file",
        limit=MAX_CHUNKS_FILE_BYTES,
        scope=" for a chunks file",
    )


def _records(source: str) -> tuple[str, list[tuple[Any, str]]]:
    """``(format, [(record, where), ...])``: JSON (an array, a single object, or an
    object holding the records under ``chunks``/``documents``/``nodes``) or JSON Lines."""
    try:
        whole = json.loads(source)
    except RecursionError:
        raise InputError("chunks", "the chunks file nests too deeply to be chunks") from None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) and exc.msg == "Extra data":
            return "jsonl", _jsonl(source)
        if isinstance(exc, json.JSONDecodeError):
            raise InputError(
                "chunks",
                f"line {exc.lineno}, column {exc.colno}: the chunks file is not JSON or JSON"
                f" Lines ({exc.msg}): give the JSON your splitter wrote",
            ) from None
        raise
    if isinstance(whole, list):
        return "json", list(zip(whole, _item_lines(source, len(whole)), strict=True))
    if isinstance(whole, dict):
        if isinstance(whole.get("schema"), str) and isinstance(whole.get("chunks"), list):
            return "json", [  # this tool's export (its "text" is the text's fingerprint)
                ({"__pyapp__": True, **r} if isinstance(r, dict) else r, f"chunk {i}")
                for i, r in enumerate(whole["chunks"])
            ]
        for key in _WRAPPERS:
            inner = whole.get(key)
            if isinstance(inner, list) and not _is_chunk_object(whole):
                if key == "chunks" and isinstance(whole.get("schema"), str):
                    return "json", [
                        ({"__pyapp__": True, **r} if isinstance(r, dict) else r, f"chunk {i}")
                        for i, r in enumerate(inner)
                    ]
                return "json", [(r, f"{key}[{i}]") for i, r in enumerate(inner)]
        return "json", [(whole, "line 1")]
    raise InputError(
        "chunks",
        f"line 1: the chunks file holds {type(whole).__name__} {quote(whole)}, not chunks:"
        " give a list of chunks",
    )


def _is_chunk_object(value: dict[str, Any]) -> bool:
    return any(k in value for k in ("text", "page_content", "content"))


def _jsonl(source: str) -> list[tuple[Any, str]]:
    out: list[tuple[Any, str]] = []
    for number, line in enumerate(source.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((json.loads(line), f"line {number}"))
        except RecursionError:
            raise InputError("chunks", f"line {number} nests too deeply to be a chunk") from None
        except ValueError as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise InputError(
                "chunks",
                f"line {number}: not JSON ({reason}): each line of a JSON Lines file is one chunk",
            ) from None
        if len(out) > MAX_IMPORTED_CHUNKS:
            raise _too_many(len(out))
    return out


def _item_lines(source: str, count: int) -> list[str]:
    """``"item N (line L)"`` for each item of a top-level JSON array, by decoding the
    items one after another (the standard decoder, from each item's position)."""
    decoder = json.JSONDecoder()
    where: list[str] = []
    at = source.index("[") + 1
    line, counted = 1, 0
    length = len(source)
    for number in range(1, count + 1):
        while at < length and source[at] in " \t\r\n,":
            at += 1
        line += source.count("\n", counted, at)
        counted = at
        where.append(f"item {number} (line {line})")
        _, at = decoder.raw_decode(source, at)
    return where


def _too_many(count: int) -> InputError:
    return InputError(
        "chunks",
        f"the chunks file holds {count:,} chunks or more, over the cap of"
        f" {MAX_IMPORTED_CHUNKS:,}: audit a part of the text and its chunks",
    )


# ---------------------------------------------------------------------- shapes
def _get(record: Any, path: str) -> tuple[bool, Any]:
    """``(present, value)`` of a dotted ``path`` in ``record``."""
    value = record
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return False, None
        value = value[key]
    return True, value


def _unwrap(record: Any) -> Any:
    """LangChain's serialized form (``dumpd``): the document's fields are its ``kwargs``."""
    if (
        isinstance(record, dict)
        and record.get("lc") == 1
        and isinstance(record.get("kwargs"), dict)
    ):
        return record["kwargs"]
    return record


#: Each shape: (text field, start field, end field), in the order tried.
_FIELDS: Final[dict[str, tuple[str, str | None, str | None]]] = {
    "pyapp": ("text", "char_start", "char_end"),
    "langchain": ("page_content", "metadata.start_index", None),
    "llamaindex": ("text", "start_char_idx", "end_char_idx"),
    "haystack": ("content", "meta.split_idx_start", None),
    "chonkie": ("text", "start_index", "end_index"),
    "unstructured": ("text", None, None),
}


def _shape_of(record: Any, where: str) -> str:
    if isinstance(record, str):
        return "strings"
    if isinstance(record, dict):
        if record.get("__pyapp__") is True:
            return "pyapp"
        record = _unwrap(record)
        if "page_content" in record:
            return "langchain"
        if ("text" in record or "text_resource" in record) and "start_char_idx" in record:
            return "llamaindex"
        if "content" in record:
            return "haystack"
        if "text" in record and "start_index" in record:
            return "chonkie"
        if "text" in record and "element_id" in record:
            return "unstructured"
        keys = ", ".join(sorted(str(k) for k in record)[:8]) or "none"
        raise InputError("chunks", f"{where}: unknown chunk shape (keys: {keys}): {_LOOKED_FOR}")
    raise InputError(
        "chunks",
        f"{where}: a chunk must be an object or a string, got {type(record).__name__}:"
        f" {_LOOKED_FOR}",
    )


def _offset(record: Any, path: str | None, where: str) -> tuple[int | None, str | None]:
    if path is None:
        return None, None
    present, value = _get(record, path)
    if not present or value is None:
        return None, path
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            "chunks",
            f"{where}, field {path}: an offset must be a whole number or null, got {quote(value)}",
        )
    return value, path


def _read(
    record: Any, where: str, shape: str, fields: tuple[str, str | None, str | None]
) -> ImportedChunk:
    text_field, start_field, end_field = fields
    if shape == "strings":
        if not isinstance(record, str):
            raise InputError(
                "chunks",
                f"{where}: expected a string like the first chunk, got {type(record).__name__}",
            )
        return ImportedChunk(
            text=record, start=None, end=None, where=where, text_field="(string)", start_field=None
        )
    record = _unwrap(record)
    if shape == "haystack" and not _get(record, "meta.split_idx_start")[0]:
        start_field = "split_idx_start" if _get(record, "split_idx_start")[0] else start_field
    if shape == "llamaindex" and "text" not in record:
        text_field = "text_resource.text"  # LlamaIndex's newer nodes keep their text there
    present, text = _get(record, text_field)
    if not present:
        raise InputError(
            "chunks", f"{where}: field {text_field} is missing (the first chunk had it)"
        )
    if not isinstance(text, str):
        raise InputError(
            "chunks", f"{where}, field {text_field}: the text must be a string, got {quote(text)}"
        )
    start, start_field = _offset(record, start_field, where)
    end, _ = _offset(record, end_field, where)
    return ImportedChunk(
        text=text,
        start=start,
        end=end,
        where=where,
        text_field=text_field,
        start_field=start_field,
    )


def read_chunks(
    source: str,
    *,
    text_field: str | None = None,
    start_field: str | None = None,
    max_chars: int | None = None,
) -> ImportedChunks:
    """The records of a chunks file's text (see the module docstring). ``text_field`` and
    ``start_field`` name the fields of any other shape; ``max_chars`` (the text's length)
    refuses a chunk longer than the text, naming its line and field."""
    if len(source.encode("utf-8", "surrogatepass")) > MAX_CHUNKS_FILE_BYTES:
        raise InputError(
            "chunks", _too_big("the chunks file", len(source.encode("utf-8", "surrogatepass")))
        )
    if not source.strip():
        raise InputError("chunks", "the chunks file is empty: give the JSON your splitter wrote")
    fmt, records = _records(source)
    if len(records) > MAX_IMPORTED_CHUNKS:
        raise _too_many(len(records))
    if not records:
        raise InputError("chunks", "the chunks file holds no chunks")
    if text_field is not None:
        shape = "mapped"
        fields: tuple[str, str | None, str | None] = (text_field, start_field, None)
    elif start_field is not None:
        raise InputError("start_field", "--start-field needs --text-field: name both fields")
    else:
        shape = _shape_of(records[0][0], records[0][1])
        fields = _FIELDS.get(shape, ("", None, None))
    chunks: list[ImportedChunk] = []
    for record, where in records:
        if shape == "pyapp" and isinstance(record, dict):
            record = {k: v for k, v in record.items() if k != "__pyapp__"}
        chunk = _read(record, where, shape, fields)
        if max_chars is not None and len(chunk.text) > max_chars:
            raise InputError(
                "chunks",
                f"{where}, field {chunk.text_field}: the chunk is {len(chunk.text):,} characters,"
                f" longer than the whole text ({max_chars:,}): is this the text it was made from?",
            )
        chunks.append(chunk)
    return ImportedChunks(shape=shape, format=fmt, chunks=tuple(chunks))
