"""``python -m pyapp COMMAND ...``: the engine on the command line (see :mod:`.main`)."""

from __future__ import annotations

from .main import main

__all__ = ["main"]
