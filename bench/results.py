"""Writing one section of ``bench/RESULTS.md``, and keeping every other one.

Each benchmark owns the sections between its markers (``<!-- NAME: start -->`` and
``<!-- NAME: end -->``) and rewrites only those: a run of one benchmark never loses
another's figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def markers(name: str) -> tuple[str, str]:
    """The two comment lines that bound section ``name``."""
    return f"<!-- {name}: start -->", f"<!-- {name}: end -->"


def put_section(
    name: str, body: str, *, place: Callable[[str], int] | None = None, path: Path = RESULTS
) -> None:
    """Puts ``body`` between section ``name``'s markers in ``path``: in place of the
    section when it is there, else at ``place(kept)`` (an offset in the file as it
    is), else at the end."""
    start, end = markers(name)
    marked = f"{start}\n{body.strip(chr(10))}\n{end}\n"
    kept = path.read_text("utf-8") if path.exists() else ""
    if start in kept and end in kept[kept.index(start) :]:
        a = kept.index(start)
        b = kept.index(end, a) + len(end)
        b += kept[b : b + 1] == "\n"
        kept = kept[:a] + marked + kept[b:]
    else:
        at = len(kept) if place is None else place(kept)
        head, tail = kept[:at].rstrip("\n"), kept[at:]
        kept = (head + "\n\n" if head else "") + marked + ("\n" + tail if tail else "")
    path.write_text(kept, "utf-8")
    print(f"written to {path}")
