"""``python -m pyapp size --documents N --avg-tokens D --size C ...``: size an index."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.params import parse_params
from ..errors import InputError
from ..facts import SIZING_DEFAULTS as D
from ..models import MODELS
from ..planning.sizing import measure_text, size_index
from .common import add_splitter_flags, read_text, splitter_fields, write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "size",
        help="size a RAG index: vectors, stored tokens, context-budget share",
        description=(
            "Size an index of DOCUMENTS documents of AVG-TOKENS tokens each, chunked at"
            " SIZE tokens with OVERLAP, and print the pyapp.size/1 JSON. With --splitter"
            " recursive and --text FILE, each document is modelled as FILE and sized from"
            " its real chunks (no formula gives them)."
        ),
    )
    parser.add_argument("--documents", required=True, metavar="N", help="number of documents")
    parser.add_argument(
        "--avg-tokens",
        default=None,
        metavar="D",
        help="average document length in tokens (with --text: that text's length)",
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
    parser.add_argument(
        "--text",
        default=None,
        metavar="FILE",
        help="recursive splitter: a document to chunk and measure (- is stdin)",
    )
    parser.add_argument(
        "--encoding",
        default=None,
        metavar="E",
        help="recursive splitter: the encoding its tokens are counted in",
    )
    add_splitter_flags(parser)
    parser.set_defaults(run=run)


def _dimension(model: str) -> int | None:
    figure = MODELS[model].dimension
    return figure.value if figure is not None else None


def run(args: argparse.Namespace) -> int:
    fields = splitter_fields(args)
    avg_tokens = args.avg_tokens
    measured = None
    if fields["splitter"] == "recursive":
        if args.text is None:
            raise InputError(
                "text", "--splitter recursive sizes from a real chunking: give --text FILE"
            )
        plan = size_index(
            documents=args.documents, avg_tokens=avg_tokens or 1, size=args.size,
            overlap=args.overlap,
        )  # fmt: skip
        params = parse_params(
            **fields, unit="token", encoding=args.encoding, size=plan.size, overlap=plan.overlap
        )
        measured = measure_text(read_text(args.text), params)
        avg_tokens = measured.text_tokens
    elif args.text is not None:
        raise InputError(
            "text", "--text is measured by the recursive splitter: add --splitter recursive"
        )
    sizing = size_index(
        documents=args.documents,
        avg_tokens=avg_tokens,
        size=args.size,
        overlap=args.overlap,
        top_k=args.top_k,
        budget=args.budget,
        dim=args.dim if args.dim is not None or args.model is None else _dimension(args.model),
        bytes_per_value=args.bytes_per_value,
        measured=measured,
    )
    write_json(sizing.to_json())
    return 0
