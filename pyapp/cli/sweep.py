"""``python -m pyapp sweep FILE --size C [--unit ...] [--overlap ...]``: print sweep rows."""

from __future__ import annotations

import argparse
from typing import Any

from ..planning.sweep import sweep_text
from .common import add_chunking_flags, read_text, write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "sweep",
        help="chunks, inflation and cut sentences across overlaps and sizes",
        description=(
            "For FILE (or stdin), print the pyapp.sweep/1 JSON: rows across overlap 0-50%%"
            " of --size and across sizes x0.5 to x2 around it (the size series keeps the"
            " overlap's share)."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    add_chunking_flags(parser, unit="word", size=None, overlap="0", estimate=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    result = sweep_text(
        text, unit=args.unit, encoding=args.encoding, size=args.size, overlap=args.overlap
    )
    write_json(result.to_json())
    return 0
