"""Stopping a run on a signal, so that the engines can clean up.

Inside :func:`stopping_on_signals`, SIGTERM and SIGHUP raise :class:`Stopped`
and SIGINT raises ``KeyboardInterrupt`` (as usual) in the main thread; the
engines' ``with`` blocks then stop their workers or cluster. A second signal
while that cleanup runs is ignored, so the cleanup is never cut short.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

__all__ = ["Stopped", "stopping_on_signals"]

_SIGNALS = tuple(
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
        for each in _SIGNALS:
            signal.signal(each, signal.SIG_IGN)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Stopped(signum)

    previous: dict[int, Any] = {each: signal.signal(each, handler) for each in _SIGNALS}
    try:
        yield
    finally:
        for each, old in previous.items():
            signal.signal(each, old)
