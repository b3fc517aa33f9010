"""Finding the documents: paths and URLs become :class:`Piece` s, pieces become parts.

**What is read.** A folder is read recursively; inside it only these names are
read (other files are ignored): ``.txt`` and ``.md`` (one document per file),
``.jsonl`` (one document per line), ``.parquet`` (one document per row), and
``.txt.gz``, ``.md.gz``, ``.jsonl.gz`` (the same, gzip-compressed). A path named
explicitly is read whatever its name: ``.jsonl``/``.jsonl.gz`` as JSONL,
``.parquet`` as Parquet, anything else as one text document (gunzipped if it ends
in ``.gz``). Suffixes match in any case.

**Local paths.** Symbolic links are followed, and each real file and folder is
read once (by device and inode): a path that names one already read, through
overlapping arguments or a link, is listed under ``skipped``, and so is a link
back to a folder that contains it (a loop). A link that can never resolve (``a ->
b -> a``) is an error named as a loop. A FIFO, socket or device is never opened:
it is listed as an error (reading one could block forever or never end).

**URLs.** ``scheme://...`` paths go through fsspec (``memory://``, ``s3://`` with
s3fs, ``gs://`` with gcsfs, ...); ``file://`` URLs are local paths.

**Parts.** Pieces are grouped into parts of about ``part_bytes`` each, the unit
of work a worker reads and counts. A JSONL file larger than a part is split into
byte ranges (a line belongs to the range it starts in), a Parquet file into runs
of row groups; gzip files are never split.

The listing is held in memory: a few hundred bytes per file, never the files' data.
"""

from __future__ import annotations

import errno
import os
import stat
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Final

from .accumulator import Problem, Where
from .files import (
    PARQUET_INSTALL,
    Kind,
    Part,
    Piece,
    is_url,
    not_regular,
    open_binary,
    os_reason,
    shown_path,
)

__all__ = [
    "PARQUET_INSTALL",
    "Listing",
    "Part",
    "Piece",
    "group",
    "is_url",
    "kind_of",
    "list_paths",
    "part_size",
]

TEXT_SUFFIXES: Final = (".txt", ".md")
JSONL_SUFFIX: Final = ".jsonl"
PARQUET_SUFFIX: Final = ".parquet"
GZ_SUFFIX: Final = ".gz"

#: Parts are never smaller than this (a task has a fixed cost) nor larger than
#: :data:`MAX_PART_BYTES` (progress, balance and a worker's read-ahead).
MIN_PART_BYTES: Final = 1 << 20
MAX_PART_BYTES: Final = 64 << 20
#: Parts per worker when the size is chosen from the corpus: enough for balance.
PARTS_PER_WORKER: Final = 8


@dataclass(slots=True)
class Listing:
    """What the paths hold: the files to read, in order, and what was not read."""

    files: list[Piece] = field(default_factory=list)
    #: Paths that could not be listed or opened as documents.
    problems: list[Problem] = field(default_factory=list)
    #: Paths not read because they name something read already.
    skipped: list[Problem] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return sum(piece.size for piece in self.files)


def local_path(url: str) -> str:
    """The local path of a ``file://`` URL (percent-escapes decoded).

    >>> local_path("file:///data/my%20docs"), local_path("file://localhost/data")
    ('/data/my docs', '/data')
    """
    parsed = urllib.parse.urlsplit(url)
    host = "" if parsed.netloc in ("", "localhost") else f"//{parsed.netloc}"
    return host + urllib.parse.unquote(parsed.path)


def kind_of(name: str, *, named: bool) -> tuple[Kind, bool] | None:
    """``(kind, gzipped)`` of a file name; ``None`` if a folder's walk ignores it.

    >>> kind_of("a.JSONL.gz", named=False), kind_of("b.csv", named=False)
    (('jsonl', True), None)
    >>> kind_of("b.csv", named=True), kind_of("c.txt.gz", named=True)
    (('text', False), ('text', True))
    """
    lower = name.lower()
    gz = lower.endswith(GZ_SUFFIX)
    base = lower[: -len(GZ_SUFFIX)] if gz else lower
    if base.endswith(JSONL_SUFFIX):
        return "jsonl", gz
    if base.endswith(PARQUET_SUFFIX) and not gz:
        return "parquet", False
    if base.endswith(TEXT_SUFFIXES) or named:
        return "text", gz
    return None


class _Lister:
    """Walks the paths once, in a stable (sorted) order, each real file once."""

    def __init__(self) -> None:
        self.files: list[Piece] = []
        self.problems: list[Problem] = []
        self.skipped: list[Problem] = []
        self.seen_files: dict[tuple[int, int], str] = {}
        self.seen_dirs: dict[tuple[int, int], str] = {}
        self.seen_urls: set[str] = set()

    def problem(self, shown: str, reason: str) -> None:
        self.problems.append(Problem(Where(shown), reason))

    # ---- local paths
    def local(self, path: str) -> None:
        shown = shown_path(path)
        try:
            info = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ENOENT and os.path.islink(path):
                self.problem(shown, "broken symbolic link (its target does not exist)")
            else:
                self.problem(shown, os_reason(exc))
            return
        if stat.S_ISDIR(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key in self.seen_dirs:
                self.skip(shown, f"same folder as {self.seen_dirs[key]}, read once")
                return
            self.seen_dirs[key] = shown
            self.walk(path, shown, key)
        else:
            found = kind_of(os.path.basename(path), named=True)
            assert found is not None
            self.local_file(path, shown, info, found)

    def skip(self, shown: str, reason: str) -> None:
        self.skipped.append(Problem(Where(shown), reason))

    def local_file(
        self, path: str, shown: str, info: os.stat_result, found: tuple[Kind, bool]
    ) -> None:
        if not stat.S_ISREG(info.st_mode):
            self.problem(shown, not_regular(info.st_mode))
            return
        key = (info.st_dev, info.st_ino)
        if key in self.seen_files:
            self.skip(shown, f"same file as {self.seen_files[key]}, counted once")
            return
        self.seen_files[key] = shown
        kind, gz = found
        # Read by its absolute path: a cluster's workers may run in another folder.
        self.files.append(Piece(kind, os.path.abspath(path), shown, info.st_size, gz=gz))

    def entries(self, folder: str, folder_shown: str) -> Iterator[os.DirEntry[str]]:
        """A folder's entries, sorted by name (none if it cannot be listed)."""
        try:
            with os.scandir(folder) as listing:
                return iter(sorted(listing, key=lambda entry: entry.name))
        except OSError as exc:
            self.problem(folder_shown, os_reason(exc, "cannot list folder"))
            return iter(())

    def walk(self, folder: str, folder_shown: str, key: tuple[int, int]) -> None:
        """Depth first, in name order, without recursion (any depth)."""
        ancestors = {key: folder_shown}  # the folders being read, for loops
        stack = [(key, self.entries(folder, folder_shown))]
        while stack:
            here, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                del ancestors[here]
                continue
            path = entry.path
            shown = shown_path(path)
            found = kind_of(entry.name, named=False)
            try:
                info = os.stat(path)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    self.problem(shown, os_reason(exc))
                elif found is not None:
                    broken = exc.errno == errno.ENOENT and entry.is_symlink()
                    reason = "broken symbolic link (its target does not exist)"
                    self.problem(shown, reason if broken else os_reason(exc))
                continue
            if stat.S_ISDIR(info.st_mode):
                inner = (info.st_dev, info.st_ino)
                if inner in ancestors:
                    self.skip(shown, f"symbolic link loop: leads back to {ancestors[inner]}")
                elif inner in self.seen_dirs:
                    self.skip(shown, f"same folder as {self.seen_dirs[inner]}, read once")
                else:
                    self.seen_dirs[inner] = ancestors[inner] = shown
                    stack.append((inner, self.entries(path, shown)))
            elif found is not None:
                self.local_file(path, shown, info, found)

    # ---- URLs (fsspec)
    def url(self, url: str) -> None:
        try:
            from fsspec.core import url_to_fs
        except ImportError:
            self.problem(url, "reading a URL needs fsspec: pip install 'pyapp[dask]' (or fsspec)")
            return
        try:
            fs, root = url_to_fs(url)
            info = fs.info(root)
        except FileNotFoundError:
            self.problem(url, "no such file or folder")
            return
        except Exception as exc:  # a missing backend (s3fs...), credentials, the network
            self.problem(url, f"cannot open ({type(exc).__name__}: {exc})")
            return
        if info.get("type") == "directory":
            try:
                found = fs.find(root, detail=True)
            except Exception as exc:
                self.problem(url, f"cannot list folder ({type(exc).__name__}: {exc})")
                return
            entries = [(name, item) for name, item in found.items() if item.get("type") == "file"]
            named = False
        else:
            entries, named = [(root, info)], True
        for name, item in sorted(entries, key=lambda pair: pair[0]):
            kind = kind_of(name.rsplit("/", 1)[-1], named=named)
            if kind is None:
                continue
            full = fs.unstrip_protocol(name)
            if full in self.seen_urls:
                self.skip(full, f"same file as {full}, counted once")
                continue
            self.seen_urls.add(full)
            self.files.append(Piece(kind[0], full, full, int(item.get("size") or 0), gz=kind[1]))


def _split(piece: Piece, part_bytes: int) -> list[Piece]:
    """A large piece as ranges of about ``part_bytes``."""
    if piece.gz or piece.size <= part_bytes:
        return [piece]
    if piece.kind == "jsonl":
        starts = range(0, piece.size, part_bytes)
        return [
            replace(
                piece,
                size=min(part_bytes, piece.size - start),
                start=start,
                stop=start + part_bytes if start + part_bytes < piece.size else -1,
                split=True,
            )
            for start in starts
        ]
    if piece.kind == "parquet":
        return _split_parquet(piece, part_bytes)
    return [piece]


def _split_parquet(piece: Piece, part_bytes: int) -> list[Piece]:
    """Runs of row groups of about ``part_bytes`` (compressed); the file whole if its
    footer cannot be read here (the reader then says why)."""
    try:
        import pyarrow.parquet as pq

        with open_binary(piece) as handle:
            meta: Any = pq.ParquetFile(handle).metadata
    except Exception:  # no pyarrow, not Parquet, unreadable: one piece
        return [piece]
    pieces: list[Piece] = []
    first_group = first_row = rows = size = 0
    groups = meta.num_row_groups
    for group in range(groups):
        info = meta.row_group(group)
        rows += info.num_rows
        size += sum(info.column(c).total_compressed_size for c in range(info.num_columns))
        if size >= part_bytes or group == groups - 1:
            pieces.append(
                replace(piece, size=size, start=first_group, stop=group + 1, first_row=first_row)
            )
            first_group, first_row, size = group + 1, first_row + rows, 0
            rows = 0
    if not pieces:
        return [piece]
    # The footer and page headers belong to no row group: give them to the last piece,
    # so the pieces add up to the file.
    last = pieces[-1]
    pieces[-1] = replace(last, size=last.size + piece.size - sum(p.size for p in pieces))
    return pieces


def part_size(total_bytes: int, workers: int) -> int:
    """Bytes per part for a corpus of ``total_bytes`` on ``workers`` workers (for a
    cluster: its worker threads).

    >>> part_size(10**10, 2) == 64 << 20, part_size(10**8, 2), part_size(10**6, 2) == 1 << 20
    (True, 6250000, True)
    """
    share = total_bytes // max(1, workers * PARTS_PER_WORKER)
    return max(MIN_PART_BYTES, min(MAX_PART_BYTES, share))


def list_paths(paths: Iterable[str]) -> Listing:
    """Every file under ``paths``, each real file once, in a stable order."""
    lister = _Lister()
    for path in paths:
        if path.startswith("file://"):
            lister.local(local_path(path))
        elif is_url(path):
            lister.url(path)
        else:
            lister.local(path)
    return Listing(lister.files, lister.problems, lister.skipped)


def group(files: Iterable[Piece], *, part_bytes: int) -> list[Part]:
    """The files, large ones split, grouped in order into parts of about ``part_bytes``."""
    parts: list[Part] = []
    part: list[Piece] = []
    held = 0
    for file in files:
        for piece in _split(file, part_bytes):
            if part and held + piece.size > part_bytes:
                parts.append(tuple(part))
                part, held = [], 0
            part.append(piece)
            held += piece.size
    if part:
        parts.append(tuple(part))
    return parts
