"""Reading a part: each piece's documents, one at a time, in bounded memory.

:func:`count_part` is what a worker runs, on either engine: it reads one part
(:mod:`.sources`) and counts it with :func:`~.accumulator.accumulate`.

* A **text** file is one document; its size is checked before it is read.
* A **JSONL** file is read line by line, each line read with a bound: a line
  longer than the per-document limit is skipped in small steps (never held) and
  listed as an error. A range of a split file starts at the first line that begins
  in it.
* A **Parquet** file is read in batches of rows, only the text (and id) column;
  a value over the limit is listed, never converted to a Python string.
* ``.gz`` files are decompressed as they are read, with the same bounds.

Files are opened by :func:`~.files.open_binary`, which never blocks on a FIFO.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from typing import IO, Any, Final

from .accumulator import Accumulator, Item, Problem, Raw, Settings, Where, accumulate, shown_id
from .files import PARQUET_INSTALL, GzipMembers, NotRegular, Part, Piece, open_binary, os_reason

__all__ = ["count_part", "open_binary", "read_piece"]

#: Bytes read at a time while skipping the rest of an over-long line.
_SKIP_STEP: Final = 1 << 16
#: Bytes read at a time from a file whose size is not known (gzip) or grew.
_STEP: Final = 1 << 20
#: Parquet: the most rows, and about the most text bytes, read at a time (a row
#: group's rows per batch follow from its text column's uncompressed size).
_ROWS: Final = 1024
_BATCH_TEXT_BYTES: Final = 16 << 20
#: Parquet: bytes read from the file at a time (never a whole column chunk at once).
_PARQUET_BUFFER: Final = 1 << 20


def _too_big(settings: Settings, size: int | None = None) -> str:
    limit = settings.max_document_bytes
    if size is None:
        return f"document is over the limit of {limit:,} bytes per document: split it"
    return f"document is {size:,} bytes, over the limit of {limit:,} bytes per document: split it"


def _skip_line(handle: IO[bytes]) -> int:
    """Reads to just past the next newline in small steps; returns the bytes skipped."""
    skipped = 0
    while True:
        step = handle.readline(_SKIP_STEP)
        skipped += len(step)
        if not step or step.endswith(b"\n"):
            return skipped


def _text(piece: Piece, handle: IO[bytes], settings: Settings) -> Iterator[Item]:
    where = Where(piece.shown)
    limit = settings.max_document_bytes
    if not piece.gz and piece.size > limit:
        yield Problem(where, _too_big(settings, piece.size))
        return
    data = _read_at_most(handle, limit + 1, hint=None if piece.gz else piece.size + 1)
    if len(data) > limit:
        yield Problem(where, _too_big(settings))
        return
    yield Raw(where, data)


def _read_at_most(handle: IO[bytes], most: int, *, hint: int | None) -> bytes:
    """Up to ``most`` bytes. (``read(most)`` would set aside ``most`` bytes for every
    small file.) Reads the expected size (``hint``) at once, else steps of a megabyte.

    >>> import io
    >>> _read_at_most(io.BytesIO(b"abcdef"), 4, hint=None)
    b'abcd'
    >>> _read_at_most(io.BytesIO(b"ab"), 9, hint=3)
    b'ab'
    """
    first = min(most, hint if hint is not None else _STEP)
    chunks = [handle.read(first)]
    held = len(chunks[0])
    if hint is not None and held < first:
        return chunks[0]  # it ended where the listing said
    while held < most:
        chunk = handle.read(min(_STEP, most - held))
        if not chunk:
            break
        chunks.append(chunk)
        held += len(chunk)
    return b"".join(chunks)


def _jsonl(
    piece: Piece, handle: IO[bytes], settings: Settings, lines: dict[tuple[str, int], int]
) -> Iterator[Item]:
    limit = settings.max_document_bytes
    position = piece.start
    if piece.start > 0:
        handle.seek(piece.start - 1)
        position += _skip_line(handle) - 1  # the line that began before belongs to the last range
    stop = piece.stop
    offset = piece.start if piece.split else 0
    number = 0
    while stop < 0 or position < stop:
        line = handle.readline(limit + 2)  # room for "\r\n" after a record at the limit
        if not line:
            break
        number += 1
        position += len(line)
        where = Where(piece.shown, offset, number)
        if len(line.rstrip(b"\r\n")) > limit:
            if not line.endswith(b"\n"):
                position += _skip_line(handle)
            yield Problem(where, _too_big(settings))
            continue
        if not line.isspace():
            yield Raw(where, line)
    if piece.split:
        lines[(piece.shown, piece.start)] = number


def _text_type(pa: Any, kind: Any) -> bool:
    """A string column as Arrow reads it: ``string``, ``large_string``, ``string_view``,
    or a dictionary of one of those."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)
    )


def _is_text(pa: Any, schema: Any, name: str) -> bool:
    return name in schema.names and _text_type(pa, schema.field(name).type)


def _rows_per_batch(meta: Any, group: int, column: int) -> int:
    """Rows of row group ``group`` to read at a time: about :data:`_BATCH_TEXT_BYTES`
    of the text column as stored uncompressed (at least 1, at most :data:`_ROWS`)."""
    info = meta.row_group(group)
    if column < 0:
        return _ROWS
    rows = max(1, int(info.num_rows))
    size = max(1, int(info.column(column).total_uncompressed_size))
    return max(1, min(_ROWS, _BATCH_TEXT_BYTES * rows // size))


def _lengths(pa: Any, pc: Any, texts: Any) -> tuple[Any, list[int | None]]:
    """The column as an array whose values give ``as_py`` strings, and each value's
    length in bytes (a dictionary's values are measured once, never repeated)."""
    if pa.types.is_dictionary(texts.type):
        values = texts.dictionary
        if pa.types.is_string_view(values.type):
            values = values.cast(pa.large_string())
        return texts, pc.binary_length(values).take(texts.indices).to_pylist()
    if pa.types.is_string_view(texts.type):
        texts = texts.cast(pa.large_string())  # one batch: bounded
    return texts, pc.binary_length(texts).to_pylist()


def _parquet(piece: Piece, handle: IO[bytes], settings: Settings) -> Iterator[Item]:
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
    except ImportError:
        yield Problem(Where(piece.shown), f"reading Parquet needs pyarrow: {PARQUET_INSTALL}")
        return
    try:
        source: Any = pq.ParquetFile(handle, buffer_size=_PARQUET_BUFFER, pre_buffer=False)
    except Exception as exc:  # pyarrow's own errors: not Parquet, truncated
        yield Problem(Where(piece.shown), f"not a readable Parquet file ({exc})")
        return
    schema = source.schema_arrow
    text_name, id_name = settings.text_field, settings.id_field
    missing = [
        name for name in (text_name, id_name) if name is not None and name not in schema.names
    ]
    if (missing or not _is_text(pa, schema, text_name)) and piece.start > 0:
        return  # a later range of a split file: its first range says why
    if missing:
        flag = "--text-column" if missing[0] == text_name else "--id-column"
        names = ", ".join(schema.names[:20]) + (", ..." if len(schema.names) > 20 else "")
        yield Problem(
            Where(piece.shown),
            f"no column {missing[0]!r} (it has: {names}): name the right one with {flag}",
        )
        return
    if not _is_text(pa, schema, text_name):
        text_type = schema.field(text_name).type
        yield Problem(
            Where(piece.shown),
            f"column {text_name!r} holds {text_type}, not text: name the text column"
            " with --text-column",
        )
        return
    stop = piece.stop if piece.stop >= 0 else source.num_row_groups
    columns = [text_name] if id_name is None else [text_name, id_name]
    meta = source.metadata
    paths = [meta.schema.column(j).path for j in range(meta.num_columns)]
    text_column = paths.index(text_name) if text_name in paths else -1
    row = piece.first_row
    for group in range(piece.start, stop):
        batches = source.iter_batches(
            batch_size=_rows_per_batch(meta, group, text_column),
            row_groups=[group],
            columns=columns,
            use_threads=False,
        )
        for batch in batches:
            yield from _parquet_batch(pa, pc, batch, piece, row, settings)
            row += batch.num_rows


def _parquet_batch(
    pa: Any, pc: Any, batch: Any, piece: Piece, row: int, settings: Settings
) -> Iterator[Item]:
    """The rows of one batch: a value over the limit or not UTF-8 is listed by its row."""
    texts, lengths = _lengths(pa, pc, batch.column(0))
    id_name = settings.id_field
    ids = batch.column(1).to_pylist() if id_name is not None else [None] * len(lengths)
    values: list[Any] | None = None
    if sum(n or 0 for n in lengths) <= _BATCH_TEXT_BYTES:
        try:
            values = texts.to_pylist()
        except UnicodeDecodeError:
            values = None  # some row is not UTF-8: each one by itself, to name it
    limit = settings.max_document_bytes
    for i, length in enumerate(lengths):
        where = Where(piece.shown, row=row + i)
        if length is not None and length > limit:
            yield Problem(where, _too_big(settings, length))
            continue
        if values is not None:
            value = values[i]
        else:
            try:
                value = texts[i].as_py()
            except UnicodeDecodeError as exc:
                value = exc.object  # the bytes: counted as a file's, so the error names them
        yield Raw(where, value, shown_id(ids[i]))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, NotRegular):
        return exc.strerror or "not a regular file"
    if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
        return os_reason(exc)
    if isinstance(exc, (gzip.BadGzipFile, EOFError, zlib.error)):
        return f"not a valid .gz file ({exc or type(exc).__name__})"
    return f"cannot read ({type(exc).__name__}: {exc})"


def read_piece(
    piece: Piece, settings: Settings, lines: dict[tuple[str, int], int]
) -> Iterator[Item]:
    """The documents (and problems) of one piece, one at a time.

    A failure part-way (a truncated ``.gz``, a vanished file) is listed after the
    documents read before it, which still count.
    """
    try:
        with open_binary(piece) as handle:
            if piece.kind == "text":
                yield from _text(piece, handle, settings)
            elif piece.kind == "jsonl":
                yield from _jsonl(piece, handle, settings, lines)
            else:
                yield from _parquet(piece, handle, settings)
            members = getattr(handle, "raw", None)
            if isinstance(members, GzipMembers) and members.ignored:
                yield Problem(
                    Where(piece.shown),
                    f"{members.ignored:,} bytes after the gzip data were ignored (they do not"
                    f" begin another gzip member); the {members.members} member(s) before them"
                    " were read",
                )
    except Exception as exc:  # OSError, gzip's, or a reader library's own (Parquet, a URL backend)
        reason = _reason(exc)
        if piece.start > 0:  # one range of a split file: say which
            unit = "byte" if piece.kind == "jsonl" else "row group"
            reason = f"from {unit} {piece.start:,}: {reason}"
        yield Problem(Where(piece.shown, piece.start if piece.split else 0), reason)


def _read_part(part: Part, settings: Settings, lines: dict[tuple[str, int], int]) -> Iterator[Item]:
    for piece in part:
        yield from read_piece(piece, settings, lines)


def count_part(part: Part, settings: Settings) -> Accumulator:
    """Read and count one part: what a worker does, on either engine."""
    lines: dict[tuple[str, int], int] = {}
    acc = accumulate(_read_part(part, settings, lines), settings)
    acc.input_bytes += sum(piece.size for piece in part)
    acc.lines.update(lines)
    return acc
