"""What a piece of a corpus is, and how one is opened: shared by the listing
(:mod:`.sources`) and the readers (:mod:`.readers`), which import neither each other
nor the command line.

A local path is opened without blocking and checked to be a regular file before
a byte is read, so a FIFO that appeared after the listing cannot hang a worker.
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, Final, Literal

from ...paths import file_kind, shown_path

__all__ = [
    "PARQUET_INSTALL",
    "GzipMembers",
    "Kind",
    "NotRegular",
    "Part",
    "Piece",
    "is_url",
    "not_regular",
    "open_binary",
    "os_reason",
    "shown_path",
]

Kind = Literal["text", "jsonl", "parquet"]

PARQUET_INSTALL: Final = "pip install 'pyapp[dask]' (or pyarrow)"
_URL: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_GZIP_MAGIC: Final = b"\x1f\x8b"
#: Compressed bytes read, and decompressed bytes made, at a time.
_GZIP_STEP: Final = 1 << 16
_GZIP_BUFFER: Final = 1 << 16


@dataclass(frozen=True, slots=True)
class Piece:
    """A file, or a range of one, for a reader. ``path`` is what the reader opens
    (a local path or a URL), ``shown`` how it is named in the output."""

    kind: Kind
    path: str
    shown: str
    size: int
    gz: bool = False
    #: JSONL: the first byte; Parquet: the first row group.
    start: int = 0
    #: JSONL: the byte after the range; Parquet: the row group after; -1: to the end.
    stop: int = -1
    #: Parquet: the file's row number of the first row read.
    first_row: int = 0
    #: JSONL: one of several ranges of the file (its lines are counted, so that a
    #: line number in the range becomes a line number in the file).
    split: bool = False


Part = tuple[Piece, ...]


def is_url(path: str) -> bool:
    """``scheme://...``

    >>> is_url("s3://bucket/x.jsonl"), is_url("/data/x.jsonl"), is_url("C:/data")
    (True, False, False)
    """
    return _URL.match(path) is not None


def not_regular(mode: int) -> str:
    """The reason a special file is not read."""
    kind = file_kind(mode, "not a file or folder")
    return f"not a regular file ({kind}): skipped, since reading it could block or never end"


def os_reason(exc: OSError, doing: str = "cannot read") -> str:
    """An OS error as a reason: loops and missing paths named as such."""
    if exc.errno == errno.ELOOP:
        return "symbolic link loop (the link leads back to itself): fix or remove the link"
    if exc.errno == errno.ENOENT:
        return "no such file or folder"
    return f"{doing} ({exc.strerror or type(exc).__name__})"


class NotRegular(OSError):
    """A local path that is not a regular file."""


@contextmanager
def open_binary(piece: Piece) -> Iterator[IO[bytes]]:
    """The piece's file, opened for reading bytes (decompressed if gzipped)."""
    if is_url(piece.path):
        from fsspec.core import url_to_fs

        fs, path = url_to_fs(piece.path)
        if "memory" in fs.protocol:
            # fsspec's memory file system gives every reader the same file object (one
            # position for all threads): read a private copy, the bytes are in memory anyway.
            raw: IO[bytes] = io.BytesIO(fs.cat_file(path))
        else:
            raw = fs.open(path, "rb")
    else:
        fd = os.open(piece.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise NotRegular(errno.EINVAL, not_regular(mode))
            os.set_blocking(fd, True)
            raw = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
    try:
        if piece.gz:
            with io.BufferedReader(GzipMembers(raw), buffer_size=_GZIP_BUFFER) as unzipped:
                yield unzipped
        else:
            yield raw
    finally:
        raw.close()


class GzipMembers(io.RawIOBase):
    """The decompressed bytes of every gzip member of ``raw``, one after another
    (as ``gzip`` reads them). Bytes after the last member that do not begin another
    are not an error: they are read past, and counted in :attr:`ignored` (zeros
    alone, a common padding, are ignored silently, as ``gzip`` does).

    >>> import gzip
    >>> data = gzip.compress(b"one ") + gzip.compress(b"two") + b"junk"
    >>> members = GzipMembers(io.BytesIO(data))
    >>> io.BufferedReader(members).read(), members.members, members.ignored
    (b'one two', 2, 4)
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._unpack: Any = None  # between members
        self._input = b""
        self._out = b""
        self._done = False
        self.members = 0
        self.ignored = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out and not self._done:
            self._step()
        n = min(len(buffer), len(self._out))
        buffer[:n] = self._out[:n]
        self._out = self._out[n:]
        return n

    def _read(self) -> bytes:
        return self._raw.read(_GZIP_STEP) or b""

    def _step(self) -> None:
        if self._unpack is None:
            while len(self._input) < len(_GZIP_MAGIC) and (more := self._read()):
                self._input += more
            if self._input.startswith(_GZIP_MAGIC):
                self._unpack = zlib.decompressobj(zlib.MAX_WBITS | 16)
            elif self.members == 0:
                raise gzip.BadGzipFile(f"Not a gzipped file ({self._input[:2]!r})")
            else:
                self._trailing()
                return
        data = self._input or self._read()
        if not data:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        self._out = self._unpack.decompress(data, _GZIP_STEP)
        self._input = self._unpack.unconsumed_tail
        if self._unpack.eof:
            self._input = self._unpack.unused_data + self._input
            self._unpack = None
            self.members += 1

    def _trailing(self) -> None:
        count, zeros = len(self._input), not self._input.strip(b"\0")
        while more := self._read():
            count += len(more)
            zeros = zeros and not more.strip(b"\0")
        self.ignored = 0 if zeros else count
        self._input = b""
        self._done = True
