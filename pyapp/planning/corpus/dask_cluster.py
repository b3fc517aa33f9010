"""The ``dask`` engine: the same parts and the same :func:`~.readers.count_part`,
run on a Dask cluster.

* ``scheduler`` (``--scheduler`` or ``DASK_SCHEDULER_ADDRESS``): an existing
  cluster, e.g. ``tcp://10.0.0.5:8786``. Its workers need pyapp (with the ``dask``
  extra) installed, and must see the paths: use a shared file system or URLs
  (``s3://``, ``gs://``, ...) they can read.
* otherwise a ``LocalCluster`` of ``workers`` processes with one thread each
  (the tokenizer holds the GIL between calls), started for this run and closed
  after it, whatever happens (Ctrl-C and SIGTERM included).

One task per part: each worker reads its part where it runs and returns the
part's accumulator; no document row ever crosses the network, and nothing is
shuffled. The accumulators (a few kilobytes each) are merged on the client as
they finish, which also drives the progress bar.
"""

from __future__ import annotations

import logging
import queue
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import Any, Final

from ...errors import InputError
from .accumulator import Accumulator, Settings
from .counting import warm
from .readers import count_part
from .signals import signals_held
from .sources import Part

__all__ = ["DASK_INSTALL", "DaskCluster", "check_scheduler", "dask_available"]

DASK_INSTALL: Final = "pip install 'pyapp[dask]'"
#: Seconds to wait for a scheduler to answer before saying it cannot be reached.
CONNECT_SECONDS: Final = 10

_LOGGERS: Final = ("distributed", "tornado", "asyncio")
#: Schemes of a scheduler another process can reach, each ``scheme://HOST:PORT``.
_SCHEMES: Final = ("tcp", "tls", "ws", "wss", "ucx")


def check_scheduler(address: str) -> None:
    """Refuses at once an address no client could connect to (before a ``Client``
    exists: a client that fails while parsing its address takes 20 s to be
    collected, and prints a traceback when it is).

    >>> check_scheduler("tcp://10.0.0.5:8786")
    >>> try:
    ...     check_scheduler("inproc://x")
    ... except InputError as exc:
    ...     print(exc.message[:61])
    --scheduler 'inproc://x' names a scheduler inside one process
    """
    shown = repr(address[:60])
    if not address.strip():
        raise InputError("scheduler", "--scheduler is empty: give tcp://HOST:PORT")
    scheme, _, location = address.rpartition("://") if "://" in address else ("tcp", "", address)
    if scheme == "inproc":  # a scheduler in this very process (a test's, a notebook's)
        if _inproc_listening(location):
            return
        raise InputError(
            "scheduler",
            f"--scheduler {shown} names a scheduler inside one process: give its tcp://HOST:PORT",
        )
    if scheme not in _SCHEMES:
        raise InputError(
            "scheduler",
            f"--scheduler {shown} has an unknown scheme {scheme!r}: use"
            f" {', '.join(s + '://' for s in _SCHEMES)} followed by HOST:PORT",
        )
    try:
        from distributed.comm.addressing import parse_host_port

        parse_host_port(location)
    except ImportError:
        return  # the engine says Dask is missing
    except (ValueError, TypeError) as exc:
        raise InputError(
            "scheduler", f"--scheduler {shown} is not an address ({exc}): give {scheme}://HOST:PORT"
        ) from None


#: The longest the progress bar goes without being drawn again while parts run.
TICK_SECONDS: Final = 1.0


def _next(finished: queue.Queue[Any]) -> Any:
    """The next future done (or the watcher's error); TimeoutError after
    :data:`TICK_SECONDS` with none."""
    try:
        return finished.get(timeout=TICK_SECONDS)
    except queue.Empty:
        raise TimeoutError from None


def _inproc_listening(location: str) -> bool:
    try:
        from distributed.comm.inproc import global_manager
    except ImportError:
        return False
    try:
        return global_manager.get_listener_for(location) is not None
    except ValueError:  # not an inproc location at all
        return False


def dask_available() -> bool:
    """Whether ``distributed`` can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


class DaskCluster:
    """``with DaskCluster(settings, scheduler=None, workers=2) as c:``, then
    ``for acc in c.map(parts): ...``"""

    name = "dask"

    def __init__(
        self,
        settings: Settings,
        *,
        scheduler: str | None,
        workers: int,
        status: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.scheduler = scheduler
        self.workers = workers
        self._say = status if status is not None else (lambda doing: None)
        self._stack = ExitStack()
        self._client: Any = None
        self._futures: list[Any] = []

    def __enter__(self) -> DaskCluster:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise InputError(
                "engine", f"--engine dask needs Dask, which is not installed: {DASK_INSTALL}"
            ) from None
        try:
            with signals_held():
                self._start(Client, LocalCluster)
        except BaseException:
            self._stack.close()
            raise
        return self

    def _start(self, client_class: Any, cluster_class: Any) -> None:
        stack = self._stack
        # The cluster's own log lines and advice ("Sending large graph...") would drown
        # the output: the command speaks in one line, or not at all.
        for name in _LOGGERS:
            logger = logging.getLogger(name)
            stack.callback(logger.setLevel, logger.level)
            logger.setLevel(logging.CRITICAL)
        stack.enter_context(warnings.catch_warnings())
        warnings.filterwarnings("ignore", category=UserWarning, module=r"distributed(\.|$)")
        if self.scheduler is not None:
            self._say(f"connecting to the scheduler at {self.scheduler}")
            try:
                client = client_class(self.scheduler, timeout=CONNECT_SECONDS, set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError(
                    "scheduler",
                    f"cannot reach the Dask scheduler at {self.scheduler!r} ({exc}):"
                    " check --scheduler or DASK_SCHEDULER_ADDRESS",
                ) from None
            self._client = stack.enter_context(client)
        else:
            plural = "es" if self.workers != 1 else ""
            self._say(f"starting a local cluster of {self.workers} worker process{plural}")
            self._client = stack.enter_context(
                client_class(self._local_cluster(cluster_class), set_as_default=False)
            )
        self._say("loading the tokenizer on every worker")
        self._warm()

    def _local_cluster(self, cluster_class: Any) -> Any:
        # The scheduler's HTTP server (metrics, health) takes a free port, never a fixed
        # one that another cluster may hold; no dashboard.
        return self._stack.enter_context(
            cluster_class(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                scheduler_kwargs={"dashboard": False},
                silence_logs=logging.CRITICAL,
            )
        )

    def _warm(self) -> None:
        """Every worker builds its counter (the tokenizer) now, as part of start-up,
        and a cluster whose workers cannot run pyapp says so at once."""
        unit, encoding = self.settings.unit, self.settings.encoding
        try:
            self._client.run(warm, unit, encoding)
        except Exception as exc:  # the worker's own error, sent back
            raise InputError(
                "scheduler",
                f"the cluster's workers cannot count ({type(exc).__name__}: {exc}): install"
                f" pyapp on them ({DASK_INSTALL})",
            ) from None

    def slots(self) -> int:
        """Worker threads in the cluster (parts are sized to give each several)."""
        threads = sum(self._client.nthreads().values())
        return max(1, int(threads)) if threads else self.workers

    def map(
        self, parts: Sequence[Part], *, tick: Callable[[], object] | None = None
    ) -> Iterator[Accumulator]:
        """Each part's accumulator, in the order they finish; ``tick()`` every
        :data:`TICK_SECONDS` in which none finished."""
        from distributed import as_completed

        client = self._client
        futures = client.map(count_part, list(parts), settings=self.settings, pure=False)
        self._futures = futures
        finished: queue.Queue[Any] = queue.Queue()

        def watch() -> None:  # as_completed blocks: it feeds the queue the loop below reads
            try:
                for future in as_completed(futures, loop=client.loop):
                    finished.put(future)
            except BaseException as exc:  # handed to the loop, which raises it
                finished.put(exc)

        threading.Thread(target=watch, name="pyapp-dask-parts", daemon=True).start()
        for _ in range(len(futures)):
            while True:
                try:
                    future = _next(finished)
                    break
                except TimeoutError:
                    if tick is not None:
                        tick()
            if isinstance(future, BaseException):
                raise future
            result: Accumulator = future.result()
            future.release()
            yield result
        self._futures = []

    def __exit__(self, *exc_info: object) -> None:  # stops alike, failed or not
        try:
            if self._futures and self._client is not None:
                self._client.cancel(self._futures)  # a remote cluster stops the run's tasks
        finally:
            self._futures = []
            self._stack.close()
