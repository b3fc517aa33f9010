"""``python -m pyapp compare TEXT A B``: two chunkings of one text side by side, as JSON
(``pyapp.compare/1``). A and B are chunk files or this tool's exports, read as ``audit``
reads them; the measuring unit, the model and the evidence flags are ``audit``'s."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.audit import chunking_of_file, compare, dumps, read_evidence_for
from ..core.chunking import check_size
from ..core.params import parse_whole
from ..core.units import strip_bom
from ..errors import InputError
from .audit import (
    add_lens_flags,
    evidence_from_args,
    lens_from_args,
    measure_from_args,
    read_chunks_file,
)
from .common import read_text, shown_path, write_text

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="two chunkings of one text side by side",
        description=(
            "Compare two chunkings A and B of TEXT (chunk files or exports): each one's"
            " chunks, processed units, inflation, index entries, stored tokens and cost,"
            " with the difference; the boundaries that moved; the evidence passages that"
            " flip between whole and split; the change in BM25 recall; the chunks over"
            " the model's limit."
        ),
    )
    parser.add_argument("file", metavar="TEXT", help="the UTF-8 text; - is stdin")
    parser.add_argument("a", metavar="A", help="the first chunking (chunks file or export)")
    parser.add_argument("b", metavar="B", help="the second chunking (chunks file or export)")
    add_lens_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if [args.file, args.a, args.b].count("-") > 1:
        raise InputError("chunks", "only one of TEXT, A and B can be stdin: name the files")
    measure = measure_from_args(args)
    lens = lens_from_args(args)
    top_k = parse_whole("top_k", args.top_k)
    text, _ = strip_bom(read_text(args.file))
    check_size(text)
    sides = []
    for name, path in (("a", args.a), ("b", args.b)):
        source = read_chunks_file(path, field=name)
        try:
            sides.append(chunking_of_file(text, source, label=shown_path(path)))
        except InputError as exc:
            raise InputError(name, f"{name.upper()}: {exc.message}") from None
    evidence = read_evidence_for(text, evidence_from_args(args))
    write_text(
        dumps(
            compare(
                text, sides[0], sides[1], measure=measure, lens=lens, evidence=evidence, top_k=top_k
            )
        )
    )
    return 0
