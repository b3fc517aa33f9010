"""``python -m pyapp size --documents N --avg-tokens D --size C ...``: size an index."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..sizing import size_index

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
        "--overlap", default="0", metavar="N|P%", help="overlap in tokens, or a percent of --size"
    )
    parser.add_argument("--top-k", default="5", metavar="K", help="chunks retrieved per query (5)")
    parser.add_argument(
        "--budget", default="128000", metavar="T", help="context budget in tokens (128000)"
    )
    parser.add_argument(
        "--dim", default=None, metavar="N", help="embedding dimension (omit: no vector bytes)"
    )
    parser.add_argument(
        "--bytes-per-value", default="4", metavar="B", help="bytes per vector value (4: float32)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    sizing = size_index(
        documents=args.documents,
        avg_tokens=args.avg_tokens,
        size=args.size,
        overlap=args.overlap,
        top_k=args.top_k,
        budget=args.budget,
        dim=args.dim,
        bytes_per_value=args.bytes_per_value,
    )
    sys.stdout.write(json.dumps(sizing.to_json(), ensure_ascii=False, indent=2) + "\n")
    return 0
