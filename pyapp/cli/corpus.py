"""``python -m pyapp corpus PATH... [--engine local|dask] [--report FILE]``: count a corpus.

Prints the ``pyapp.corpus/2`` JSON; ``--report`` also writes a self-contained
HTML page of the same figures. SIGTERM and SIGHUP stop the run (its workers or
cluster included) and exit ``128 + the signal``; Ctrl-C exits 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ..errors import InputError
from .common import add_chunking_flags, params_from_args, write_json
from .output_file import check_output, write_output

__all__ = ["add_parser", "run"]

SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "corpus",
        help="chunk every document of a corpus exactly and print the totals",
        description=(
            "Count every document under PATH (files, folders of .txt/.md, .jsonl with a"
            ' "text" field per line, .parquet with a "text" column, and their .gz forms;'
            " local paths or fsspec URLs) and print the pyapp.corpus/2 JSON. Unreadable"
            " files and lines are listed under errors; the rest still counts."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or URLs")
    add_chunking_flags(parser, unit="token", size="512", overlap="15%")
    parser.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: worker processes on this machine (default); dask: a Dask cluster",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help=f"with --engine dask: the cluster's scheduler (default: ${SCHEDULER_ENV},"
        " else a local cluster)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes, on this machine or in the local Dask cluster (every core;"
        " at most twice the cores)",
    )
    parser.add_argument(
        "--text-column",
        default="text",
        metavar="NAME",
        help="the text field of a JSONL record or column of a Parquet file (text)",
    )
    parser.add_argument(
        "--id-column",
        default=None,
        metavar="NAME",
        help="the id field or column, shown for the largest documents (none)",
    )
    parser.add_argument(
        "--report", default=None, metavar="FILE", help="also write an HTML report to FILE"
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="never show the progress bar on stderr"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..planning.corpus import Stopped, count_corpus

    params = params_from_args(args, caps=False)
    scheduler = args.scheduler
    if scheduler is None and args.engine == "dask":
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if args.report is not None:
        check_output(args.report, field="report", what="the report")
    try:
        result = count_corpus(
            args.paths,
            params,
            engine=args.engine,
            workers=args.workers,
            scheduler=scheduler,
            text_field=args.text_column,
            id_field=args.id_column,
            progress=False if args.no_progress else None,
        )
    except Stopped as stopped:
        return 128 + stopped.signum
    totals = result.totals
    if totals.documents == 0:
        doc = result.to_json()
        if doc["errors"]:
            first = doc["errors"][0]
            where = first["path"]
            if first["line"] is not None:
                where += f" line {first['line']}"
            elif first["row"] is not None:
                where += f" row {first['row']}"
            more = totals.errors_total - 1
            also = f" (and {more} more)" if more else ""
            raise InputError(
                "paths",
                f"nothing could be counted: {where}: {first['reason']}{also}: check the paths",
            )
        raise InputError(
            "paths",
            "no documents found (.txt or .md files, JSONL lines or Parquet rows with a"
            f" {args.text_column!r} field): check the paths",
        )
    doc = result.to_json()
    if args.report is not None:
        from ..planning.corpus.report import render

        write_output(args.report, render(doc), field="report", what="the report")
    write_json(doc)
    if totals.errors_total:
        print(
            f"python -m pyapp corpus: {totals.errors_total} file(s) or line(s) not counted:"
            " see errors in the output",
            file=sys.stderr,
        )
    return 0
