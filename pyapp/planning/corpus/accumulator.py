"""The engine-neutral pair: :func:`accumulate` turns a batch of documents into an
:class:`Accumulator`; :func:`merge` adds two accumulators. The local pool and
Dask both call exactly these, so their totals agree to the byte.

A batch is an iterable of items from the readers (:mod:`.readers`): a
:class:`Raw` document as read (a file's bytes, a JSONL line's bytes, or a
Parquet value) or a :class:`Problem` met while reading. Everything that is
decided per document happens here, once:

* **JSONL**: a leading UTF-8 byte-order mark on the file's first line is
  removed; the line must be UTF-8 and JSON, an object with a string field named
  by ``text_field``; a string holding an unpaired surrogate (``"\\ud800"``),
  which UTF-8 cannot hold, is an error, as in ``chunk`` and the page;
* **every document**: a leading byte-order mark (U+FEFF) is not text: it is
  removed (:func:`pyapp.core.units.strip_bom`) and counted in ``boms_removed``;
* the units are counted (:mod:`.counting`) and the windows follow in closed form
  (:mod:`pyapp.core.windows`): ``N = 1 + ceil(max(0, U - C) / S)`` chunks (0 for
  an empty document), ``U + (N - 1) * O`` processed units, ``N * min(C, U)``
  nominal units. The recursive splitter has no closed form: each document is
  chunked (:func:`pyapp.core.chunkings.chunking_of`) and its chunk count and
  processed units (the sum of the chunks' lengths) are those of its chunks.

:func:`merge` is associative and commutative, and keeps only bounded lists
(the smallest :data:`MAX_LISTED` errors and skips by where they are, the
:data:`LARGEST_KEPT` largest documents), so any order or tree of merges gives
the same accumulator.

>>> settings = Settings(unit="word", encoding=None, size=4, overlap=1)
>>> acc = accumulate([Raw(Where("a.txt"), b"one two three four five six seven")], settings)
>>> acc.documents, acc.units, acc.chunks, acc.processed_units
(1, 7, 2, 8)
"""

from __future__ import annotations

import heapq
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from ...core.cache import forget_texts
from ...core.chunkings import chunking_of
from ...core.params import Params
from ...core.units import strip_bom
from ...core.windows import processed_units, window_count
from .counting import counter_for
from .signals import Stopped

__all__ = [
    "LARGEST_KEPT",
    "MAX_DOCUMENT_BYTES",
    "MAX_LISTED",
    "Accumulator",
    "Item",
    "Largest",
    "Problem",
    "Raw",
    "Settings",
    "Where",
    "accumulate",
    "length_bin",
    "merge",
    "next_edge",
    "shown_id",
]

#: A document (a file, a JSONL line or a Parquet value) larger than this many
#: bytes is listed as an error instead of counted: a worker holds a few copies of
#: one document at a time, never more.
MAX_DOCUMENT_BYTES: Final = 64 * 1024 * 1024
#: How many errors (and how many skipped paths) the output lists; the totals count all.
MAX_LISTED: Final = 1000
#: How many of the largest documents the output lists.
LARGEST_KEPT: Final = 10
#: A document id is shown with at most this many characters.
MAX_ID_CHARS: Final = 200

_UTF8_BOM: Final = b"\xef\xbb\xbf"
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class Where(NamedTuple):
    """Where a document or problem is.

    ``path`` is the path as shown (valid UTF-8). ``offset`` is the byte offset
    of the piece of a JSONL file that was read (0 unless a large file was split
    between workers); ``line`` the JSONL line within that piece, 1-based, 0 for a
    whole file; ``row`` the Parquet row in the file, 0-based, -1 for no row.
    """

    path: str
    offset: int = 0
    line: int = 0
    row: int = -1


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """What every worker needs to count: the unit and window, and the input fields."""

    unit: str
    encoding: str | None
    size: int
    overlap: int
    text_field: str = "text"
    id_field: str | None = None
    max_document_bytes: int = MAX_DOCUMENT_BYTES
    #: The recursive splitter's params (``None``: the fixed window, in closed form).
    recursive: Params | None = None


@dataclass(frozen=True, slots=True)
class Raw:
    """One document as read: a file's bytes, a JSONL line's bytes (``where.line > 0``),
    a Parquet value (``str``, or ``None`` for a null), with its Parquet id if any."""

    where: Where
    data: bytes | str | None
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Problem:
    """Why something at ``where`` was not counted."""

    where: Where
    reason: str


Item = Raw | Problem


class Largest(NamedTuple):
    """One of the largest documents. Ranked by units (most first), then by where."""

    units: int
    chunks: int
    where: Where
    id: str | None

    def rank(self) -> tuple[int, Where]:
        return -self.units, self.where


def length_bin(units: int) -> int:
    """The lower edge of the document-length bin holding ``units``: 0, then the
    1-2-5 series (1, 2, 5, 10, 20, 50, ...), each bin up to the next edge.

    >>> [length_bin(u) for u in (0, 1, 4, 5, 19, 20, 999, 1000)]
    [0, 1, 2, 5, 10, 20, 500, 1000]
    """
    if units <= 0:
        return 0
    power: int = 10 ** (len(str(units)) - 1)
    lead = units // power
    return power * (5 if lead >= 5 else 2 if lead >= 2 else 1)


def next_edge(edge: int) -> int:
    """The bin edge after ``edge``: 0 -> 1, 1 -> 2, 2 -> 5, 5 -> 10, 10 -> 20, ...

    >>> [next_edge(e) for e in (0, 1, 2, 5, 10, 500)]
    [1, 2, 5, 10, 20, 1000]
    """
    if edge <= 0:
        return 1
    power: int = 10 ** (len(str(edge)) - 1)
    lead = edge // power
    return power * (2 if lead == 1 else 5 if lead == 2 else 10)


def _problem_key(problem: Problem) -> tuple[Where, str]:
    return problem.where, problem.reason


@dataclass(slots=True)
class Accumulator:
    """Exact running totals of a corpus count (all integers)."""

    documents: int = 0
    units: int = 0
    chunks: int = 0
    processed_units: int = 0
    nominal_units: int = 0
    #: The size of every piece of input read, in bytes (compressed, for ``.gz``).
    input_bytes: int = 0
    boms_removed: int = 0
    min_units: int | None = None
    #: ``{chunks: documents}``, exact.
    chunk_histogram: Counter[int] = field(default_factory=Counter)
    #: ``{bin lower edge: documents}`` (see :func:`length_bin`).
    length_histogram: Counter[int] = field(default_factory=Counter)
    largest: list[Largest] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    errors_total: int = 0
    skipped: list[Problem] = field(default_factory=list)
    skipped_total: int = 0
    #: Lines in each piece of a JSONL file that was split: ``{(path, offset): lines}``,
    #: so a line number within a piece can be made a line number in the file.
    lines: dict[tuple[str, int], int] = field(default_factory=dict)

    def add_error(self, problem: Problem) -> None:
        self.errors_total += 1
        _keep_smallest(self.errors, problem)

    def add_skip(self, problem: Problem) -> None:
        self.skipped_total += 1
        _keep_smallest(self.skipped, problem)

    def add_document(
        self,
        units: int,
        where: Where,
        id_: str | None,
        *,
        size: int,
        overlap: int,
        measured: tuple[int, int] | None = None,
    ) -> None:
        """One document of ``units`` units; ``measured`` is ``(chunks, processed units)``
        of its real chunking (the recursive splitter), else the closed forms are used."""
        if measured is None:
            n = window_count(units, size=size, overlap=overlap)
            processed = processed_units(units, size=size, overlap=overlap)
        else:
            n, processed = measured
        self.documents += 1
        self.units += units
        self.chunks += n
        self.processed_units += processed
        self.nominal_units += n * min(size, units)
        self.chunk_histogram[n] += 1
        self.length_histogram[length_bin(units)] += 1
        if self.min_units is None or units < self.min_units:
            self.min_units = units
        entry = Largest(units, n, where, id_)
        largest = self.largest
        if len(largest) < LARGEST_KEPT or entry.rank() < largest[-1].rank():
            largest.append(entry)
            largest.sort(key=Largest.rank)
            del largest[LARGEST_KEPT:]


def _keep_smallest(kept: list[Problem], problem: Problem) -> None:
    """Adds ``problem`` to the sorted list ``kept`` if it is among the smallest ``MAX_LISTED``."""
    if len(kept) >= MAX_LISTED and _problem_key(problem) >= _problem_key(kept[-1]):
        return
    kept.append(problem)
    kept.sort(key=_problem_key)
    del kept[MAX_LISTED:]


def merge(a: Accumulator, b: Accumulator) -> Accumulator:
    """The totals of both (a new accumulator; neither argument changes).

    >>> s = Settings(unit="char", encoding=None, size=2, overlap=0)
    >>> one = accumulate([Raw(Where("a"), b"abc")], s)
    >>> two = accumulate([Raw(Where("b"), b"x"), Problem(Where("c"), "why")], s)
    >>> both = merge(one, two)
    >>> both.documents, both.chunks, dict(both.chunk_histogram), both.errors_total
    (2, 3, {2: 1, 1: 1}, 1)
    >>> merge(two, one) == both
    True
    """
    mins = [m for m in (a.min_units, b.min_units) if m is not None]
    return Accumulator(
        documents=a.documents + b.documents,
        units=a.units + b.units,
        chunks=a.chunks + b.chunks,
        processed_units=a.processed_units + b.processed_units,
        nominal_units=a.nominal_units + b.nominal_units,
        input_bytes=a.input_bytes + b.input_bytes,
        boms_removed=a.boms_removed + b.boms_removed,
        min_units=min(mins) if mins else None,
        chunk_histogram=a.chunk_histogram + b.chunk_histogram,
        length_histogram=a.length_histogram + b.length_histogram,
        largest=heapq.nsmallest(LARGEST_KEPT, a.largest + b.largest, key=Largest.rank),
        errors=heapq.nsmallest(MAX_LISTED, a.errors + b.errors, key=_problem_key),
        errors_total=a.errors_total + b.errors_total,
        skipped=heapq.nsmallest(MAX_LISTED, a.skipped + b.skipped, key=_problem_key),
        skipped_total=a.skipped_total + b.skipped_total,
        lines={**a.lines, **b.lines},
    )


# --------------------------------------------------------------------- one document


def shown_id(value: object) -> str | None:
    """A record's id as text (strings as they are, other values as JSON), capped.

    >>> shown_id("a-1"), shown_id(7), shown_id(None), len(shown_id("x" * 500) or "")
    ('a-1', '7', None, 201)
    """
    if value is None:
        return None
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return shown if len(shown) <= MAX_ID_CHARS else shown[:MAX_ID_CHARS] + "…"


def _surrogate_error(text: str) -> str | None:
    found = _SURROGATE.search(text)
    if found is None:
        return None
    at = found.start()
    return (
        f"text has an unpaired surrogate U+{ord(text[at]):04X} at character {at}, which"
        " UTF-8 cannot hold: remove it"
    )


def _not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}): convert it to UTF-8"


def _uncountable(exc: BaseException) -> str:
    detail = " ".join(str(exc).split())[:120]
    return f"the tokenizer failed on it ({type(exc).__name__}{': ' + detail if detail else ''})"


class _Counting:
    """One batch's accumulator and the rules that turn a raw item into a document."""

    def __init__(self, settings: Settings, count: Callable[[str], int]) -> None:
        self.settings = settings
        self.count = count
        self.acc = Accumulator()

    def add(self, item: Item) -> None:
        if isinstance(item, Problem):
            self.acc.add_error(item)
            return
        where, data = item.where, item.data
        if isinstance(data, bytes):
            if where.line > 0:
                self._line(where, data)
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    self.acc.add_error(Problem(where, _not_utf8(data, exc)))
                    return
                self._document(where, text, None)
        elif data is None:
            self.acc.add_error(Problem(where, f"{self.settings.text_field} is null"))
        else:
            self._document(where, data, item.id)

    def _line(self, where: Where, data: bytes) -> None:
        """One JSONL line: decode, parse, take the text field."""
        if where.line == 1 and where.offset == 0 and data.startswith(_UTF8_BOM):
            data = data[len(_UTF8_BOM) :]  # the file's byte-order mark: not part of the record
            self.acc.boms_removed += 1
        try:
            line = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.acc.add_error(Problem(where, _not_utf8(data, exc)))
            return
        escaped = "\\u" in line
        try:
            record = json.loads(line)
        except ValueError as exc:
            self.acc.add_error(Problem(where, f"not JSON ({exc})"))
            return
        del line  # the parsed record holds the text now
        name = self.settings.text_field
        value = record.get(name) if isinstance(record, dict) else None
        if not isinstance(value, str):
            self.acc.add_error(Problem(where, f"no string field {json.dumps(name)}"))
            return
        if escaped and (why := _surrogate_error(value)) is not None:
            self.acc.add_error(Problem(where, why))
            return
        id_field = self.settings.id_field
        id_ = shown_id(record.get(id_field)) if id_field is not None else None
        del record
        self._document(where, value, id_)

    def _document(self, where: Where, text: str, id_: str | None) -> None:
        text, removed = strip_bom(text)
        if removed:
            self.acc.boms_removed += 1
        s = self.settings
        measured: tuple[int, int] | None = None
        try:
            units = self.count(text)
            if s.recursive is not None:
                chunking = chunking_of(text, s.recursive)
                measured = (chunking.count, chunking.processed)
                del chunking
                forget_texts()  # a corpus never asks twice: hold no document's chunks
        except (KeyboardInterrupt, SystemExit, GeneratorExit, Stopped):
            raise
        except BaseException as exc:  # a tokenizer's own failure (pyo3's PanicException)
            self.acc.add_error(Problem(where, _uncountable(exc)))
            return
        self.acc.add_document(units, where, id_, size=s.size, overlap=s.overlap, measured=measured)


def accumulate(items: Iterable[Item], settings: Settings) -> Accumulator:
    """Count a batch of documents (in this process, the counter built once per process).

    >>> s = Settings(unit="char", encoding=None, size=3, overlap=1, id_field="id")
    >>> acc = accumulate(
    ...     [
    ...         Raw(Where("b.jsonl", line=1), b'\\xef\\xbb\\xbf{"text": "abcde", "id": 7}'),
    ...         Raw(Where("b.jsonl", line=2), b'{"text": "\\\\ud800"}'),
    ...         Raw(Where("c.txt"), "\\ufeffxy".encode()),
    ...     ],
    ...     s,
    ... )
    >>> acc.documents, acc.units, acc.boms_removed, acc.largest[0].id
    (2, 7, 2, '7')
    >>> acc.errors[0].reason[:42]
    'text has an unpaired surrogate U+D800 at c'
    """
    counting = _Counting(settings, counter_for(settings.unit, settings.encoding))
    for item in items:
        counting.add(item)
    return counting.acc
