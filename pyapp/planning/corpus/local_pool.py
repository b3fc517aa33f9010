"""The ``local`` engine: a pool of worker processes on this machine (the default).

Each worker runs :func:`~.readers.count_part` on one part at a time; at most two
parts per worker are in flight, so memory stays flat however large the corpus.
Where it is safe (``fork``, and this process has no other thread yet), the
workers are forked after the parent built the unit counter, so they inherit the
tokenizer; otherwise each builds it once.

Workers start with the parent's signals held (:func:`~.signals.signals_held`) and
ignore SIGINT: Ctrl-C reaches the parent, which stops them. On any
exception in the parent (Ctrl-C, SIGTERM turned into :class:`~.signals.Stopped`,
a bug) the workers are terminated and joined before the exception goes on, so
none is left behind.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import TracebackType
from typing import Any

from .accumulator import Accumulator, Settings
from .counting import counter_for
from .readers import count_part
from .signals import HANDLED, signals_held
from .sources import Part

__all__ = ["LocalPool"]

#: The longest the progress bar goes without being drawn again while parts run.
TICK_SECONDS = 1.0
#: Seconds to wait for a terminated worker before killing it.
_JOIN_SECONDS = 5.0


def _init_worker(unit: str, encoding: str | None) -> None:
    """Per worker, once: leave Ctrl-C to the parent, let SIGTERM end this process (the
    parent's handlers may have been inherited, held), build the counter."""
    for each in HANDLED:
        signal.signal(each, signal.SIG_IGN if each == signal.SIGINT else signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HANDLED)
    counter_for(unit, encoding)


def _ready() -> bool:
    return True


class LocalPool:
    """``with LocalPool(settings, workers=2) as pool: for acc in pool.map(parts): ...``"""

    name = "local"

    def __init__(self, settings: Settings, *, workers: int) -> None:
        self.settings = settings
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalPool:
        if self.workers <= 1:
            return self  # counted in this process
        settings = self.settings
        methods = multiprocessing.get_all_start_methods()
        if "fork" in methods and threading.active_count() == 1:
            counter_for(settings.unit, settings.encoding)  # inherited by the forked workers
            context: Any = multiprocessing.get_context("fork")
        else:
            context = multiprocessing.get_context(
                "forkserver" if "forkserver" in methods else "spawn"
            )
        try:
            with signals_held():
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=context,
                    initializer=_init_worker,
                    initargs=(settings.unit, settings.encoding),
                )
                # Start the workers now, before any progress thread exists.
                self._pool.submit(_ready).result()
        except BaseException:
            self._stop()
            raise
        return self

    def slots(self) -> int:
        """Worker processes (1: this process)."""
        return max(1, self.workers)

    def map(
        self, parts: Sequence[Part], *, tick: Callable[[], object] | None = None
    ) -> Iterator[Accumulator]:
        """Each part's accumulator, in the order they finish; ``tick()`` every
        :data:`TICK_SECONDS` in which none finished."""
        pool = self._pool
        if pool is None:
            for part in parts:
                yield count_part(part, self.settings)
            return
        pending: set[Future[Accumulator]] = set()

        def finished() -> Iterator[Accumulator]:
            nonlocal pending
            done, pending = wait(pending, timeout=TICK_SECONDS, return_when=FIRST_COMPLETED)
            if not done and tick is not None:
                tick()
            for future in done:
                yield future.result()

        for part in parts:
            while len(pending) >= 2 * self.workers:
                yield from finished()
            pending.add(pool.submit(count_part, part, self.settings))
        while pending:
            yield from finished()

    def _stop(self) -> None:
        """Terminates the workers (running parts included) and waits for them."""
        pool = self._pool
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(_JOIN_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._pool is None:
            return
        if exc is None:
            self._pool.shutdown(wait=True)
            self._pool = None
        else:
            self._stop()
