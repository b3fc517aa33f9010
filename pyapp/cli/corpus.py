"""``python -m pyapp corpus PATH... [--unit U] [--size C] [--overlap O]``: count a corpus."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InputError
from .common import add_chunking_flags, params_from_args, write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "corpus",
        help="chunk every document of a corpus exactly and print the totals",
        description=(
            "Count every document under PATH (files, folders of .txt/.md, .jsonl with a"
            ' "text" field per line) and print the pyapp.corpus/1 JSON. Unreadable files'
            " and lines are listed under errors; the rest still counts."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    add_chunking_flags(parser, unit="token", size="512", overlap="15%")
    parser.add_argument(
        "--workers", type=int, default=None, metavar="N", help="worker processes (every core)"
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="never show the progress bar on stderr"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..planning.corpus import count_corpus

    params = params_from_args(args, caps=False)
    if args.workers is not None and args.workers < 1:
        raise InputError("workers", f"--workers must be at least 1, got {args.workers}")
    totals = count_corpus(
        args.paths, params, workers=args.workers, progress=False if args.no_progress else None
    )
    if totals.documents == 0:
        if totals.errors:
            path, line, reason = totals.errors[0]
            where = path if line is None else f"{path} line {line}"
            more = totals.errors_total - 1
            also = f" (and {more} more)" if more else ""
            raise InputError(
                "paths", f"nothing could be counted: {where}: {reason}{also}: check the paths"
            )
        raise InputError(
            "paths",
            "no documents found (.txt or .md files, or JSONL lines with a text field):"
            " check the paths",
        )
    write_json(totals.to_json(params))
    if totals.errors_total:
        print(
            f"python -m pyapp corpus: {totals.errors_total} file(s) or line(s) not counted:"
            " see errors in the output",
            file=sys.stderr,
        )
    return 0
