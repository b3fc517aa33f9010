"""``python -m pyapp COMMAND ...``: the engine on the command line.

Each command lives in its own module under :mod:`pyapp.commands` and exposes
``add_parser(subparsers)``, which registers its sub-parser and sets
``run=<function(args) -> int>`` as a default. To add a command, write such a
module and list it in :data:`COMMANDS`.

Bad input, argparse's complaints included, is one line on stderr that says what
to change, and exit status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from .commands import budget, chunk, corpus, size, sweep
from .errors import EngineError

__all__ = ["COMMANDS", "Parser", "build_parser", "main"]

#: The sub-commands, in the order ``--help`` lists them.
COMMANDS: list[ModuleType] = [chunk, size, budget, sweep, corpus]

EXIT_BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message}: see {self.prog} --help\n")


def build_parser() -> Parser:
    parser = Parser(prog="python -m pyapp", description="Exact fixed-window chunking.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except EngineError as exc:
        print(f"{parser.prog} {args.command}: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return status
