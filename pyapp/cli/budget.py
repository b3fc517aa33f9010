"""``python -m pyapp budget --window W --top-k K --size C ...``: do the chunks fit?"""

from __future__ import annotations

import argparse
from typing import Any

from ..facts import BUDGET_DEFAULTS as D
from ..models import MODELS
from ..planning.budget import check_budget
from .common import write_json

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "budget",
        help="check that top-k chunks fit the context window",
        description=(
            "Check k * C <= window - system - question - answer and print the pyapp.budget/1 JSON."
        ),
    )
    parser.add_argument(
        "--window", default=None, metavar="T", help="context window in tokens (the model's)"
    )
    parser.add_argument(
        "--model",
        choices=tuple(MODELS),
        default=None,
        help="model preset: sets --window to its maximum input (overridable)",
    )
    parser.add_argument("--system", default=D["system"], metavar="T", help="system prompt tokens")
    parser.add_argument("--question", default=D["question"], metavar="T", help="question tokens")
    parser.add_argument(
        "--answer", default=D["answer"], metavar="T", help="tokens reserved for the answer"
    )
    parser.add_argument("--top-k", required=True, metavar="K", help="chunks retrieved per query")
    parser.add_argument("--size", required=True, metavar="C", help="chunk size in tokens")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    window = args.window
    if window is None and args.model is not None:
        window = MODELS[args.model].max_tokens.value
    budget = check_budget(
        window=window,
        system=args.system,
        question=args.question,
        answer=args.answer,
        top_k=args.top_k,
        size=args.size,
    )
    write_json(budget.to_json())
    return 0
