"""``python -m pyapp size --documents N --avg-tokens D --size C ...``: size an index."""

from __future__ import annotations

import argparse
from typing import Any

from ..facts import SIZING_DEFAULTS as D
from ..models import MODELS
from ..planning.sizing import size_index
from .common import write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "size",
        help="size a RAG index: vectors, stored tokens, context-budget share",
        description=(
            "Size an index of DOCUMENTS documents of AVG-TOKENS tokens each, chunked at"
            " SIZE tokens with OVERLAP, and print the pyapp.size/1 JSON."
        ),
    )
    parser.add_argument("--documents", required=True, metavar="N", help="number of documents")
    parser.add_argument(
        "--avg-tokens", required=True, metavar="D", help="average document length in tokens"
    )
    parser.add_argument("--size", required=True, metavar="C", help="chunk size in tokens")
    parser.add_argument(
        "--overlap",
        default=D["overlap"],
        metavar="N|P%",
        help="overlap in tokens, or a percent of --size",
    )
    parser.add_argument(
        "--top-k",
        default=D["top_k"],
        metavar="K",
        help=f"chunks retrieved per query ({D['top_k']})",
    )
    parser.add_argument(
        "--budget",
        default=D["budget"],
        metavar="T",
        help=f"context budget in tokens ({D['budget']})",
    )
    parser.add_argument(
        "--dim",
        default=None,
        metavar="N",
        help="embedding dimension (the model's; omit both: no vector bytes)",
    )
    parser.add_argument(
        "--model",
        choices=[name for name, m in MODELS.items() if m.dimension is not None],
        default=None,
        help="embedding model preset: sets --dim (overridable)",
    )
    parser.add_argument(
        "--bytes-per-value",
        default=D["bytes_per_value"],
        metavar="B",
        help=f"bytes per vector value ({D['bytes_per_value']}: float32)",
    )
    parser.set_defaults(run=run)


def _dimension(model: str) -> int | None:
    figure = MODELS[model].dimension
    return figure.value if figure is not None else None


def run(args: argparse.Namespace) -> int:
    sizing = size_index(
        documents=args.documents,
        avg_tokens=args.avg_tokens,
        size=args.size,
        overlap=args.overlap,
        top_k=args.top_k,
        budget=args.budget,
        dim=args.dim if args.dim is not None or args.model is None else _dimension(args.model),
        bytes_per_value=args.bytes_per_value,
    )
    write_json(sizing.to_json())
    return 0
