"""``python -m pyapp budget --window W --top-k K --size C ...``: do the chunks fit?"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..budget import check_budget

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "budget",
        help="check that top-k chunks fit the context window",
        description=(
            "Check k * C <= window - system - question - answer and print the pyapp.budget/1 JSON."
        ),
    )
    parser.add_argument("--window", required=True, metavar="T", help="context window in tokens")
    parser.add_argument("--system", default="0", metavar="T", help="system prompt tokens (0)")
    parser.add_argument("--question", default="0", metavar="T", help="question tokens (0)")
    parser.add_argument(
        "--answer", default="0", metavar="T", help="tokens reserved for the answer (0)"
    )
    parser.add_argument("--top-k", required=True, metavar="K", help="chunks retrieved per query")
    parser.add_argument("--size", required=True, metavar="C", help="chunk size in tokens")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    budget = check_budget(
        window=args.window,
        system=args.system,
        question=args.question,
        answer=args.answer,
        top_k=args.top_k,
        size=args.size,
    )
    sys.stdout.write(json.dumps(budget.to_json(), ensure_ascii=False, indent=2) + "\n")
    return 0
