"""``python -m pyapp fit [FILE|-] --model M``: the largest chunk size at which every chunk
of the text, encoded on its own, fits the model's input limit with its special tokens
(:func:`~pyapp.planning.fit.fit_size`), as JSON: the object the page's ``fit`` op answers."""

from __future__ import annotations

import argparse
from typing import Any

from ..facts import BOUNDS
from ..planning.fit import fit_size
from .common import add_chunking_flags, params_from_args, read_text, write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "fit",
        help="the largest chunk size whose chunks all fit a model's input limit",
        description=(
            "Fit the chunk size to a model (--model, or --max-tokens): the largest size at"
            " which every chunk of FILE, encoded on its own, plus the model's special"
            " tokens, fits its input limit; found by chunking at each size from the limit"
            " down. --size only says whether that size is already the fit."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    add_chunking_flags(
        parser, unit="token", size=str(BOUNDS["size"].high), overlap="0", estimate=False
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args, caps=False)
    write_json(fit_size(read_text(args.file), params).to_json())
    return 0
