"""Paths in messages."""

from __future__ import annotations

import os
import stat

__all__ = ["file_kind", "shown_path"]


def shown_path(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """A path as valid text: bytes that are not UTF-8 (kept by Python as lone
    surrogates) are written as ``\\xff`` escapes, so a message can always be printed.

    >>> shown_path(b"bad\\xffname.txt".decode("utf-8", "surrogateescape"))
    'bad\\\\xffname.txt'
    """
    name = os.fsencode(path)
    return name.decode("utf-8", "backslashreplace")


def file_kind(mode: int, otherwise: str) -> str:
    """What a file that is not a regular one is, from its ``st_mode``, for a message.

    >>> file_kind(stat.S_IFIFO, "not a regular file"), file_kind(0, "not a file or folder")
    ('a FIFO', 'not a file or folder')
    """
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return otherwise
