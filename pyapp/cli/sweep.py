"""``python -m pyapp sweep FILE --size C [--unit ...] [--overlap ...] [--evidence EVIDENCE.jsonl
[--top-k K] [--retriever bm25|minilm|both] [--cache DIR]]``: print sweep rows (with
evidence coverage and recall@k per row when given, and dense recall@k and IoU with
``--retriever minilm|both``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InputError
from ..facts import EVIDENCE_DEFAULTS, FIELD_DEFAULTS, RETRIEVERS
from ..planning.sweep import sweep_dense_texts, sweep_text
from .common import add_chunking_flags, read_text, splitter_fields, write_json
from .evidence import embed_native, read_evidence_file

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
    add_chunking_flags(
        parser,
        unit=FIELD_DEFAULTS["unit"],
        size=None,
        overlap=FIELD_DEFAULTS["overlap"],
        estimate=False,
    )
    parser.add_argument(
        "--evidence",
        default=None,
        metavar="EVIDENCE",
        help="JSON Lines evidence passages (as for the evidence command): adds evidence"
        " coverage and BM25 recall@k to every row",
    )
    parser.add_argument(
        "--top-k",
        default=None,
        metavar="K",
        help=f"chunks retrieved per question, with --evidence ({EVIDENCE_DEFAULTS['top_k']})",
    )
    parser.add_argument(
        "--retriever",
        default=EVIDENCE_DEFAULTS["retriever"],
        choices=RETRIEVERS,
        help="minilm or both: adds dense recall@k and IoU (all-MiniLM-L6-v2) to every row,"
        " with --evidence; says first how many texts it embeds and about how long",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the dense embeddings in DIR: settings share chunks, and a rerun embeds nothing",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.top_k is not None and args.evidence is None:
        raise InputError("top_k", "--top-k needs --evidence: give the evidence to retrieve")
    text = read_text(args.file)
    evidence = None
    if args.evidence is not None:
        if args.file == "-" and args.evidence == "-":
            raise InputError("evidence", "FILE and --evidence cannot both be stdin: name a file")
        evidence = read_evidence_file(args.evidence)
    vectors = None
    if args.retriever != "bm25":
        if evidence is None:
            raise InputError("retriever", "--retriever minilm|both needs --evidence")
        texts = sweep_dense_texts(
            text, **splitter_fields(args), unit=args.unit, encoding=args.encoding,
            size=args.size, overlap=args.overlap, evidence_jsonl=evidence,
        )  # fmt: skip
        vectors = embed_native(texts, cache=args.cache, command="sweep")
    result = sweep_text(
        text,
        **splitter_fields(args),
        unit=args.unit,
        encoding=args.encoding,
        size=args.size,
        overlap=args.overlap,
        evidence_jsonl=evidence,
        top_k=args.top_k,
        fit=True,
        vectors=vectors,
    )
    write_json(result.to_json())
    errors = len(result.evidence["errors"]) if result.evidence is not None else 0
    if errors:
        noun = "line" if errors == 1 else "lines"
        print(
            f"python -m pyapp sweep: {errors:,} evidence {noun} not used: see evidence.errors"
            " in the output",
            file=sys.stderr,
        )
    return 0
