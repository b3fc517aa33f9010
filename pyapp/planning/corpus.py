"""Size a real corpus exactly: every document chunked, no averages (native only).

``python -m pyapp corpus PATH...`` reads files and folders (recursively) of
``.txt``/``.md`` documents, one document per file, and ``.jsonl`` files with one
document per line in a string field ``text``. A file named explicitly is read
as text unless it ends in ``.jsonl``; inside folders only those three suffixes
are read. Text must be UTF-8.

Per document the work is one count of units (``len(encode(text))`` for tokens,
``len(text.split())`` for words, ``len(text)`` for code points) and the window
arithmetic in closed form (:mod:`pyapp.windows`): no chunk object is built.

* ``chunks``: ``N = 1 + ceil(max(0, U - C) / S)`` (0 for an empty document);
* ``processed_units``: ``U + (N - 1) * O``, the sum of the real chunk lengths;
* ``stored_tokens_actual``: ``processed × tokens_per_unit`` (exact tokens in
  token mode); ``stored_tokens_nominal``: ``N × min(C, U)`` per document, times
  ``tokens_per_unit``: what a calculator that counts every chunk as full
  (reference 003) would say, per document;
* ``chunks_per_document``: min, median, p95 and max by the **nearest-rank**
  method: the ``p``-th percentile is the ``ceil(p/100 × n)``-th smallest count,
  so every figure is a real document's count (the median of an even number of
  documents is the lower middle one).

It streams: documents are read in order and sent to worker processes in batches
of about :data:`BATCH_BYTES`, with at most two batches per worker in flight, and
only totals and a histogram of chunks per document are kept, so memory does not
grow with the corpus (beyond the largest single file). Each worker builds its
tokenizer once. A file or line that cannot be read is listed in ``errors`` with
the reason (the first :data:`MAX_LISTED_ERRORS`; ``errors_total`` counts all),
and everything else still counts.

This module uses processes and files, so the browser never imports it.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from ..core.params import Params
from ..core.units import word_count
from ..core.windows import processed_units, window_count
from ..figures import number

__all__ = [
    "BATCH_BYTES",
    "MAX_LISTED_ERRORS",
    "CorpusTotals",
    "count_corpus",
    "iter_batches",
    "nearest_rank",
]

BATCH_BYTES: Final = 1 << 19
MAX_LISTED_ERRORS: Final = 1000
TEXT_SUFFIXES: Final = (".txt", ".md")
JSONL_SUFFIX: Final = ".jsonl"

#: One unit of work: ``(path, line or None, raw bytes)``; line is 1-based in a JSONL file.
Item = tuple[str, int | None, bytes]
#: A reason a file or line was not counted: ``(path, line or None, reason)``.
Problem = tuple[str, int | None, str]


def nearest_rank(histogram: dict[int, int], percent: int) -> int:
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


@dataclass(slots=True)
class CorpusTotals:
    """Running totals; :meth:`merge` adds a batch's totals (all exact integers)."""

    documents: int = 0
    units: int = 0
    chunks: int = 0
    processed_units: int = 0
    nominal_units: int = 0
    bytes_read: int = 0
    histogram: Counter[int] = field(default_factory=Counter)
    errors: list[Problem] = field(default_factory=list)
    errors_total: int = 0

    def merge(self, other: CorpusTotals) -> None:
        self.documents += other.documents
        self.units += other.units
        self.chunks += other.chunks
        self.processed_units += other.processed_units
        self.nominal_units += other.nominal_units
        self.bytes_read += other.bytes_read
        self.histogram.update(other.histogram)
        for problem in other.errors:
            self.add_error(problem)
        self.errors_total += other.errors_total - len(other.errors)

    def add_error(self, problem: Problem) -> None:
        self.errors_total += 1
        if len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append(problem)

    def add_document(self, units: int, *, size: int, overlap: int) -> None:
        n = window_count(units, size=size, overlap=overlap)
        self.documents += 1
        self.units += units
        self.chunks += n
        self.processed_units += processed_units(units, size=size, overlap=overlap)
        self.nominal_units += n * min(size, units)
        self.histogram[n] += 1

    def to_json(self, params: Params) -> dict[str, Any]:
        tpu, price = params.tokens_per_unit, params.price_per_million
        actual = self.processed_units * tpu
        hist = self.histogram
        spread: dict[str, Any] = {"min": None, "median": None, "p95": None, "max": None}
        if hist:
            spread = {
                "min": min(hist),
                "median": nearest_rank(hist, 50),
                "p95": nearest_rank(hist, 95),
                "max": max(hist),
                "mean": number(Fraction(self.chunks, self.documents)),
            }
        spread["method"] = "nearest rank: the ceil(p/100 * n)-th smallest"
        units = self.units
        return {
            "schema": "pyapp.corpus/1",
            "params": {
                "unit": params.unit,
                "encoding": params.encoding,
                "size": params.size,
                "overlap": params.overlap,
                "tokens_per_unit": number(params.tokens_per_unit),
                "price_per_million": number(params.price_per_million),
            },
            "documents": self.documents,
            "units": units,
            "chunks": self.chunks,
            "processed_units": self.processed_units,
            "repeated_units": self.processed_units - units,
            "inflation": number(Fraction(self.processed_units, units)) if units else None,
            "stored_tokens_nominal": number(self.nominal_units * tpu),
            "stored_tokens_actual": number(actual),
            "inflation_nominal": number(Fraction(self.nominal_units, units)) if units else None,
            "estimated_cost": number(actual * price / 1_000_000),
            "chunks_per_document": spread,
            "input_bytes": self.bytes_read,
            "errors_total": self.errors_total,
            "errors": [
                {"path": path, "line": line, "reason": reason} for path, line, reason in self.errors
            ],
        }


# --------------------------------------------------------------------- reading


def _walk(path: str, problems: list[Problem]) -> Iterator[str]:
    """Files under ``path`` with a known suffix, in a stable (sorted) order."""

    def onerror(exc: OSError) -> None:
        problems.append((exc.filename or path, None, f"cannot list folder ({exc.strerror})"))

    for root, dirs, files in os.walk(path, onerror=onerror):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((*TEXT_SUFFIXES, JSONL_SUFFIX)):
                yield os.path.join(root, name)


def iter_files(paths: Iterable[str], problems: list[Problem]) -> Iterator[str]:
    """Each file named, and each known file under each folder named."""
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path, problems)
        elif os.path.exists(path):
            yield path
        else:
            problems.append((path, None, "no such file or folder"))


def _iter_items(paths: Iterable[str], problems: list[Problem]) -> Iterator[Item]:
    for path in iter_files(paths, problems):
        try:
            if path.endswith(JSONL_SUFFIX):
                with open(path, "rb") as handle:
                    for number_, line in enumerate(handle, start=1):
                        if line.strip():
                            yield path, number_, line
            else:
                with open(path, "rb") as handle:
                    yield path, None, handle.read()
        except OSError as exc:
            problems.append((path, None, f"cannot read ({exc.strerror})"))


def iter_batches(
    paths: Iterable[str], problems: list[Problem], *, batch_bytes: int = BATCH_BYTES
) -> Iterator[list[Item]]:
    """Documents in order, grouped into batches of about ``batch_bytes``.

    Problems met while walking and reading are appended to ``problems`` as they
    happen; the caller drains it.
    """
    batch: list[Item] = []
    held = 0
    for item in _iter_items(paths, problems):
        batch.append(item)
        held += len(item[2])
        if held >= batch_bytes:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


# --------------------------------------------------------------------- counting

_counter: Callable[[str], int] | None = None
_window: tuple[int, int] = (1, 0)
_config: tuple[str, str | None, int, int] | None = None


def _make_counter(unit: str, encoding: str | None) -> Callable[[str], int]:
    if unit == "word":
        return word_count
    if unit == "char":
        return len
    from ..core.tokenizers import get_tokenizer

    assert encoding is not None
    encode = get_tokenizer(encoding, backend="tiktoken").encode_ordinary
    return lambda text: len(encode(text))


def _init_worker(unit: str, encoding: str | None, size: int, overlap: int) -> None:
    """Per process, once: build the unit counter (the tokenizer) and remember the window.

    The parent builds it before starting the pool, so forked workers inherit it
    and skip the build; workers started fresh (spawn, forkserver) build their own.
    """
    global _counter, _window, _config
    if _counter is not None and _config == (unit, encoding, size, overlap):
        return
    _counter = _make_counter(unit, encoding)
    _window = (size, overlap)
    _config = (unit, encoding, size, overlap)


def _decode_error(data: bytes, exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}): convert it to UTF-8"


def _count_batch(batch: list[Item]) -> CorpusTotals:
    """Count one batch in this process (after :func:`_init_worker`)."""
    assert _counter is not None
    count = _counter
    size, overlap = _window
    totals = CorpusTotals()
    for path, line, data in batch:
        totals.bytes_read += len(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            totals.add_error((path, line, _decode_error(data, exc)))
            continue
        if line is not None:
            try:
                record = json.loads(text)
            except ValueError as exc:
                totals.add_error((path, line, f"not JSON ({exc})"))
                continue
            value = record.get("text") if isinstance(record, dict) else None
            if not isinstance(value, str):
                totals.add_error((path, line, 'no string field "text"'))
                continue
            text = value
        totals.add_document(count(text), size=size, overlap=overlap)
    return totals


def count_corpus(
    paths: Iterable[str],
    params: Params,
    *,
    workers: int | None = None,
    progress: bool | None = None,
    batch_bytes: int = BATCH_BYTES,
) -> CorpusTotals:
    """Count every document under ``paths`` with ``params`` (caps do not apply).

    ``workers`` processes (default: every core); 1 counts in this process.
    ``progress``: a tqdm bar on stderr; ``None`` shows it only on a terminal and
    only for runs longer than a second.
    """
    from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs; types-tqdm not a dep

    paths = list(paths)
    n_workers = workers if workers is not None else (os.cpu_count() or 1)
    problems: list[Problem] = []
    total_bytes = 0
    for path in iter_files(paths, []):
        with contextlib.suppress(OSError):
            total_bytes += os.path.getsize(path)
    totals = CorpusTotals()
    init = (params.unit, params.encoding, params.size, params.overlap)
    _init_worker(*init)
    pool = (
        ProcessPoolExecutor(max_workers=n_workers, initializer=_init_worker, initargs=init)
        if n_workers > 1
        else None
    )
    # The bar comes after the pool: with fork, the workers start before its thread does.
    bar = tqdm(
        total=total_bytes,
        unit="B",
        unit_scale=True,
        desc="corpus",
        file=sys.stderr,
        disable=None if progress is None else not progress,
        delay=0 if progress else 1.0,
        leave=False,
    )

    def take(result: CorpusTotals) -> None:
        totals.merge(result)
        bar.update(result.bytes_read)

    def drain_problems() -> None:
        for problem in problems:
            totals.add_error(problem)
        problems.clear()

    try:
        batches = iter_batches(paths, problems, batch_bytes=batch_bytes)
        if pool is None:
            for batch in batches:
                take(_count_batch(batch))
                drain_problems()
        else:
            pending: set[Future[CorpusTotals]] = set()
            for batch in batches:
                drain_problems()
                if len(pending) >= 2 * n_workers:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        take(future.result())
                pending.add(pool.submit(_count_batch, batch))
            for future in pending:
                take(future.result())
        drain_problems()
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    # Errors in a stable order whatever order the workers finished in.
    totals.errors.sort(key=lambda p: (p[0], p[1] or 0))
    return totals
