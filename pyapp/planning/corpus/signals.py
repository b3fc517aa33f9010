"""Stopping a run on a signal, so that the engines can clean up.

Inside :func:`stopping_on_signals`, SIGTERM and SIGHUP raise :class:`Stopped`
and SIGINT raises ``KeyboardInterrupt`` (as usual) in the main thread; the
engines' ``with`` blocks then stop their workers or cluster. A second signal
while that cleanup runs is ignored, so the cleanup is never cut short.

While workers start, :func:`signals_held` holds those signals back: a worker
never runs the parent's handlers, and Ctrl-C at a terminal (which signals the
whole process group) reaches only the parent, which then stops the workers.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["HANDLED", "Stopped", "signals_held", "stopping_on_signals"]

#: The signals a run stops on.
HANDLED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stopped(BaseException):
    """The run was stopped by a signal (not an ``Exception``: nothing swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextmanager
def stopping_on_signals() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP interrupt the main thread once; later ones wait."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may handle signals; the caller's own rules apply
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        for each in HANDLED:
            signal.signal(each, signal.SIG_IGN)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Stopped(signum)

    previous: dict[int, Any] = {each: signal.signal(each, handler) for each in HANDLED}
    try:
        yield
    finally:
        for each, old in previous.items():
            signal.signal(each, old)


@contextmanager
def signals_held() -> Iterator[None]:
    """Holds :data:`HANDLED` back (blocked, not lost) while workers start.

    Processes started meanwhile inherit the held mask, so they never run this
    process's handlers, and Ctrl-C at a terminal reaches only this process. A
    signal that arrives meanwhile is delivered on the way out, and stops the run.
    """
    if not hasattr(signal, "pthread_sigmask") or (
        threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    # multiprocessing starts its resource tracker with these signals blocked, then
    # unblocks them in the starting thread: start it first, so nothing undoes the hold.
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
