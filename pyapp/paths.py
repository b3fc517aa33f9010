"""Paths in messages."""

from __future__ import annotations

import os

__all__ = ["shown_path"]


def shown_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """A path as valid text: bytes that are not UTF-8 (kept by Python as lone
    surrogates) are written as ``\\xff`` escapes, so a message can always be printed.

    >>> shown_path(b"bad\\xffname.txt".decode("utf-8", "surrogateescape"))
    'bad\\\\xffname.txt'
    """
    name = os.fsencode(path)
    return name.decode("utf-8", "backslashreplace")
