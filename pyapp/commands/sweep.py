"""``python -m pyapp sweep FILE --size C [--unit ...] [--overlap ...]``: print sweep rows."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..params import ENCODINGS, UNITS
from ..sweep import sweep_text
from .chunk import read_text

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "sweep",
        help="chunks, inflation and cut sentences across overlaps and sizes",
        description=(
            "For FILE (or stdin), print the pyapp.sweep/1 JSON: rows across overlap 0-50%%"
            " of --size and across sizes x0.5 to x2 around it."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    parser.add_argument("--unit", choices=UNITS, default="word", help="unit to count (word)")
    parser.add_argument("--size", required=True, metavar="N", help="current window size in units")
    parser.add_argument(
        "--overlap",
        default="0",
        metavar="N|P%",
        help="current overlap, units or a percent of --size (0); the size series keeps its share",
    )
    parser.add_argument(
        "--encoding", choices=ENCODINGS, default=None, help="token encoding (o200k_base)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    text = read_text(args.file)
    result = sweep_text(
        text, unit=args.unit, encoding=args.encoding, size=args.size, overlap=args.overlap
    )
    sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    return 0
