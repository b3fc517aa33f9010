"""``python -m pyapp evidence FILE --evidence EVIDENCE.jsonl [--unit ...] [--size N]
[--overlap N|P%] [--encoding ...] [--top-k K]``: print the evidence document.

A line of the evidence file that cannot be used is listed under ``errors`` (and
counted in one line on stderr); the others still count and the exit status is 0.
The command fails (one line on stderr, exit 2, nothing on stdout) when the text or
the settings are bad, when the evidence file cannot be read, is not UTF-8 or is
over the size limit, when no line of it can be used (which is what a file that
is not JSON Lines at all comes to), and when a line does not fit FILE: an offset
past its end, a quote that differs from FILE at its offsets, or a ``text`` line
naming another text (the evidence was made on another text, or on this one with
its line breaks changed: checking it would check other passages).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..core.evidence_export import SCHEMA, dumps
from ..core.evidence_report import check_evidence
from ..core.params import parse_whole
from ..errors import InputError
from ..facts import CHUNK_DEFAULTS, EVIDENCE_DEFAULTS, MAX_EVIDENCE_ITEMS
from .common import add_chunking_flags, params_from_args, read_text, write_text

__all__ = ["add_parser", "read_evidence_file", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "evidence",
        help="which chunks hold each evidence passage whole, and does BM25 retrieve it",
        description=(
            f"Check the evidence passages of FILE (or stdin) and print the {SCHEMA} JSON:"
            " per passage whether one chunk holds it whole, the smallest overlap at this"
            " size that keeps every passage whole, and, for passages with a question,"
            " where a BM25 retriever ranks the chunks that hold it. EVIDENCE is JSON"
            ' Lines: {"id": ..., "start": ..., "end": ...} or {"id": ..., "quote": ...},'
            f' optionally with "question"; at most {MAX_EVIDENCE_ITEMS:,} lines. Lines'
            " that cannot be used are listed under errors; the rest still counts."
        ),
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    parser.add_argument(
        "--evidence",
        required=True,
        metavar="EVIDENCE",
        help="JSON Lines file of evidence passages (offsets in code points of FILE)",
    )
    add_chunking_flags(
        parser,
        unit=CHUNK_DEFAULTS["unit"],
        size=CHUNK_DEFAULTS["size"],
        overlap=CHUNK_DEFAULTS["overlap"],
        estimate=False,
    )
    parser.add_argument(
        "--top-k",
        default=EVIDENCE_DEFAULTS["top_k"],
        metavar="K",
        help=f"chunks retrieved per question ({EVIDENCE_DEFAULTS['top_k']})",
    )
    parser.set_defaults(run=run)


def read_evidence_file(path: str) -> str:
    """The evidence file's text; its problems blame ``--evidence``, not FILE."""
    try:
        return read_text(path)
    except InputError as exc:
        raise InputError("evidence", exc.message) from None


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args, caps=True)
    top_k = parse_whole("top_k", args.top_k)
    if args.file == "-" and args.evidence == "-":
        raise InputError("evidence", "FILE and --evidence cannot both be stdin: name a file")
    text = read_text(args.file)
    source = read_evidence_file(args.evidence)
    report = check_evidence(text, params, jsonl=source, top_k=top_k, fit=True)
    write_text(dumps(report))
    if report.errors:
        noun = "line" if len(report.errors) == 1 else "lines"
        print(
            f"python -m pyapp evidence: {len(report.errors):,} evidence {noun} not used:"
            " see errors in the output",
            file=sys.stderr,
        )
    return 0
