"""``python -m pyapp chunk [FILE|-] --unit ... --size N --overlap N|P%``: print the export JSON."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.chunking import chunk_text
from ..core.export import SCHEMA, dumps
from ..facts import FIELD_DEFAULTS, MAX_CHUNKS, MAX_PROCESSED_UNITS
from .common import add_chunking_flags, params_from_args, read_text, write_text

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "chunk",
        help="chunk one text and print the export JSON",
        description=f"Chunk FILE (or stdin) into fixed windows and print the {SCHEMA} JSON.",
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    add_chunking_flags(
        parser, unit=FIELD_DEFAULTS["unit"], size=None, overlap=FIELD_DEFAULTS["overlap"]
    )
    parser.add_argument(
        "--no-caps",
        action="store_true",
        help=f"lift the {MAX_CHUNKS}-chunk and {MAX_PROCESSED_UNITS:,}-unit caps",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args, caps=not args.no_caps)
    report = chunk_text(read_text(args.file), params)
    write_text(dumps(report))
    if report.capped is not None:
        cap = report.capped
        what = "chunks" if cap.cap == "chunks" else "processed units"
        print(
            f"python -m pyapp chunk: {cap.value:,} {what} is over the cap of {cap.limit:,}:"
            " the summary is exact, the chunks are left out; add --no-caps to get them all",
            file=sys.stderr,
        )
    return 0
