"""Size a real corpus exactly: every document chunked, no averages (native only).

``python -m pyapp corpus PATH...`` counts every document of a corpus with the
chunking parameters, on this machine's cores or on a Dask cluster, and prints
the ``pyapp.corpus/2`` document (:mod:`.output`). The pieces:

* :mod:`.sources` lists files, folders and URLs (text, JSONL, Parquet, gzip)
  into parts, the unit of work;
* :mod:`.readers` reads a part, one document at a time, in bounded memory;
* :mod:`.accumulator` holds the engine-neutral pair, :func:`accumulate` (a batch
  of documents to totals) and :func:`merge` (two totals to one), the only place
  where documents are counted;
* :mod:`.local_pool` (``engine="local"``, the default) and :mod:`.dask_cluster`
  (``engine="dask"``) run :func:`~.readers.count_part` over the parts;
* :mod:`.output` writes the JSON document, :mod:`.report` the HTML page.

Per document the work is one count of units (no per-unit list is built, see
:mod:`.counting`) and the window arithmetic in closed form: no chunk object is
built (the recursive splitter, which has no closed form, chunks each document once and
keeps only its count and processed units). Memory per worker is bounded by the
largest document, itself at most
:data:`~.accumulator.MAX_DOCUMENT_BYTES` (64 MiB; a larger one is listed as an
error). A file or line that cannot be read is listed in ``errors`` with the
reason (the first :data:`~.accumulator.MAX_LISTED`; ``errors_total`` counts
all), and everything else still counts.

This package uses processes and files, so the browser never imports it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Final

from ...core.params import Params
from ...errors import InputError
from .accumulator import (
    MAX_DOCUMENT_BYTES,
    Accumulator,
    Settings,
    accumulate,
    merge,
)
from .counting import counter_for
from .output import document, nearest_rank
from .signals import Stopped, stopping_on_signals
from .sources import Part, Piece, group, list_paths, part_size

__all__ = [
    "ENGINES",
    "MAX_DOCUMENT_BYTES",
    "Accumulator",
    "CorpusResult",
    "Settings",
    "Stopped",
    "accumulate",
    "count_corpus",
    "max_workers",
    "merge",
    "nearest_rank",
    "usable_cores",
]

ENGINES: Final = ("local", "dask")
#: A document id or text field name longer than this is not a field name.
MAX_FIELD_NAME: Final = 256


def usable_cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return os.cpu_count() or 1


def max_workers() -> int:
    """The most workers a run starts on this machine: twice the usable cores (the
    work is CPU-bound; more processes only take memory)."""
    return 2 * usable_cores()


@dataclass(frozen=True, slots=True)
class CorpusResult:
    """The totals of one run, with what it ran with and how long it took."""

    totals: Accumulator
    params: Params
    settings: Settings
    engine: str
    workers: int | None
    timing: dict[str, float] = field(default_factory=dict)

    def to_json(self, *, timing: bool = True) -> dict[str, Any]:
        return document(
            self.totals, self.params, self.settings, timing=self.timing if timing else None
        )


def _check_name(field_name: str, flag: str, value: str | None) -> None:
    if value is not None and not 0 < len(value) <= MAX_FIELD_NAME:
        raise InputError(field_name, f"{flag} must be a name of 1 to {MAX_FIELD_NAME} characters")


def _workers(engine: str, workers: int | None, scheduler: str | None) -> int:
    most = max_workers()
    if workers is not None and scheduler is not None:
        raise InputError(
            "workers",
            "--workers sizes a local cluster: leave it out when a scheduler is given"
            " (--scheduler or DASK_SCHEDULER_ADDRESS)",
        )
    if workers is not None and not 1 <= workers <= most:
        raise InputError(
            "workers",
            f"--workers must be from 1 to {most} (twice the {usable_cores()} cores this"
            f" machine gives this process), got {workers}",
        )
    if engine not in ENGINES:
        raise InputError("engine", f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if scheduler is not None and engine != "dask":
        raise InputError("scheduler", "--scheduler needs --engine dask")
    if scheduler is not None:
        from .dask_cluster import check_scheduler

        check_scheduler(scheduler)
    return workers if workers is not None else usable_cores()


def count_corpus(
    paths: Iterable[str],
    params: Params,
    *,
    engine: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    text_field: str = "text",
    id_field: str | None = None,
    max_document_bytes: int = MAX_DOCUMENT_BYTES,
    progress: bool | None = None,
    part_bytes: int | None = None,
) -> CorpusResult:
    """Count every document under ``paths`` with ``params`` (the caps do not apply).

    ``engine="local"``: ``workers`` processes (default: every usable core; 1 counts
    in this process). ``engine="dask"``: on the cluster at ``scheduler``, or on a
    local cluster of ``workers`` processes. ``progress``: a bar on stderr; ``None``
    shows it only on a terminal, and only for runs longer than a second.
    """
    if max_document_bytes < 1:
        raise InputError("max_document_bytes", "the per-document limit must be at least 1 byte")
    _check_name("text_field", "--text-column", text_field)
    _check_name("id_field", "--id-column", id_field)
    n_workers = _workers(engine, workers, scheduler)
    settings = Settings(
        unit=params.unit,
        encoding=params.encoding,
        size=params.size,
        overlap=params.overlap,
        text_field=text_field,
        id_field=id_field,
        max_document_bytes=max_document_bytes,
        recursive=params if params.splitter == "recursive" else None,
    )
    began = time.perf_counter()
    listing = list_paths(list(paths))
    totals = Accumulator()
    for problem in listing.problems:
        totals.add_error(problem)
    for problem in listing.skipped:
        totals.add_skip(problem)
    timing = {
        "listing_seconds": time.perf_counter() - began,
        "startup_seconds": 0.0,
        "count_seconds": 0.0,
        "shutdown_seconds": 0.0,
    }
    if listing.files:
        counted = _run(
            listing.files,
            settings,
            engine=engine,
            workers=n_workers,
            scheduler=scheduler,
            part_bytes=part_bytes,
            progress=progress,
            timing=timing,
        )
        totals = merge(totals, counted)
    timing["seconds"] = time.perf_counter() - began
    return CorpusResult(
        totals,
        params,
        settings,
        engine,
        None if scheduler is not None else n_workers,
        timing,
    )


def _run(
    files: list[Piece],
    settings: Settings,
    *,
    engine: str,
    workers: int,
    scheduler: str | None,
    part_bytes: int | None,
    progress: bool | None,
    timing: dict[str, float],
) -> Accumulator:
    from tqdm import tqdm  # type: ignore[import-untyped]  # no stubs; types-tqdm not a dep

    from .dask_cluster import DaskCluster
    from .local_pool import LocalPool

    total_bytes = sum(piece.size for piece in files)

    def parts_for(slots: int) -> list[Part]:
        return group(files, part_bytes=part_bytes or part_size(total_bytes, slots))

    started = time.perf_counter()
    bar_options: dict[str, Any] = {
        "total": total_bytes,
        "unit": "B",
        "unit_scale": True,
        "file": sys.stderr,
        "disable": None if progress is None else not progress,
        "delay": 0 if progress else 1.0,
        "leave": False,
    }
    runner: LocalPool | DaskCluster
    parts: list[Part] | None = None
    totals = Accumulator()
    with stopping_on_signals(), ExitStack() as stack:
        if engine == "dask":
            # The bar first, to say what the cluster is doing while it starts (its
            # workers are spawned, never forked, so the bar's thread is no harm).
            bar = stack.enter_context(tqdm(desc="corpus (dask)", **bar_options))

            def say(doing: str) -> None:
                bar.set_description_str(f"corpus (dask): {doing}")

            runner = DaskCluster(settings, scheduler=scheduler, workers=workers, status=say)
        else:
            parts = parts_for(workers)
            # Built here first, so that a tokenizer that cannot load is one clear error
            # before any worker starts (and forked workers inherit it).
            counter_for(settings.unit, settings.encoding)
            runner = LocalPool(settings, workers=min(workers, len(parts)))
        with runner:
            timing["startup_seconds"] = time.perf_counter() - started
            if parts is None:  # a cluster's parts follow its size, known once connected
                parts = parts_for(runner.slots())
                bar.set_description_str(f"corpus ({runner.name})")
            else:  # after the workers: a forked worker must not inherit the bar's thread
                bar = stack.enter_context(tqdm(desc=f"corpus ({runner.name})", **bar_options))
            counting = time.perf_counter()
            bar.set_postfix_str(f"0/{len(parts)} parts")
            # The bar is drawn again at least every TICK_SECONDS, a part done or not.
            for done, result in enumerate(runner.map(parts, tick=bar.refresh), start=1):
                totals = merge(totals, result)
                bar.set_postfix_str(f"{done}/{len(parts)} parts", refresh=False)
                bar.update(result.input_bytes)
            timing["count_seconds"] = time.perf_counter() - counting
            closing = time.perf_counter()
        timing["shutdown_seconds"] = time.perf_counter() - closing
    return totals
