"""``python -m pyapp COMMAND ...``: the engine on the command line.

Each command lives in its own module in :mod:`pyapp.cli` and exposes
``add_parser(subparsers)``, which registers its sub-parser and sets
``run=<function(args) -> int>`` as a default. To add a command, write such a
module and list it in :data:`COMMANDS`.

Bad input, argparse's complaints included, is one line on stderr that says what
to change, and exit status 2; never a traceback. Ctrl-C is a quiet exit 130.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from ..errors import EngineError
from . import audit, budget, chunk, compare, corpus, evidence, fit, size, sweep
from .common import shown_path

__all__ = ["COMMANDS", "Parser", "build_parser", "main"]

#: The sub-commands, in the order ``--help`` lists them.
COMMANDS: list[ModuleType] = [chunk, fit, size, budget, sweep, evidence, corpus, audit, compare]

EXIT_BAD_INPUT = 2

#: The exit status after the reader of stdout went away (``| head``): a quiet exit,
#: as if killed by SIGPIPE, which is what Unix tools do.
EXIT_BROKEN_PIPE = 128 + 13

#: The exit status after Ctrl-C (SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 128 + 2

#: The flag that sets an API field, where it is not ``--`` + the field with dashes.
FLAG_FOR_FIELD = {"price_per_million": "--price", "overlap_mode": "--overlap"}


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line and exit 2."""

    def error(self, message: str) -> NoReturn:
        _say(f"{self.prog}: {message}: see {self.prog} --help")
        raise SystemExit(EXIT_BAD_INPUT)


def build_parser() -> Parser:
    parser = Parser(prog="python -m pyapp", description="Exact fixed-window chunking.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def flag_for(parser: argparse.ArgumentParser, command: str, field: str | None) -> str | None:
    """The ``command``'s flag that sets ``field`` (an :class:`EngineError`'s), if it has one.

    >>> parser = build_parser()
    >>> flag_for(parser, "chunk", "price_per_million"), flag_for(parser, "size", "top_k")
    ('--price', '--top-k')
    >>> flag_for(parser, "chunk", "text") is None
    True
    """
    if field is None:
        return None
    flag = FLAG_FOR_FIELD.get(field, "--" + field.replace("_", "-"))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get(command)
            if sub is not None and flag in sub._option_string_actions:
                return flag
    return None


def _quiet_stdout() -> None:
    """Points stdout at /dev/null, so the flush at exit cannot fail a second time."""
    if sys.stdout is None:  # started with stdout closed
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    with contextlib.suppress(OSError, ValueError):
        os.dup2(devnull, sys.stdout.fileno())


def _say(line: str) -> None:
    """One line on stderr, if there is a stderr to say it on."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            print(line, file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return _run(parser, args)
    except KeyboardInterrupt:
        _quiet_stdout()
        return EXIT_INTERRUPTED


def _run(parser: Parser, args: argparse.Namespace) -> int:
    command = f"{parser.prog} {args.command}"
    try:
        status: int = args.run(args)
        if sys.stdout is not None:
            sys.stdout.flush()
    except EngineError as exc:
        flag = flag_for(parser, args.command, exc.field)
        say = exc.message if flag is None or flag in exc.message else f"{flag}: {exc.message}"
        _say(f"{command}: {say}")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        if exc.filename is not None:  # a file the command opened (commands catch most)
            say = f"cannot use {shown_path(exc.filename)} ({why}): check the path"
        else:  # writing stdout: a full disk, /dev/full, a closed descriptor
            _quiet_stdout()
            say = f"cannot write the output ({why}): check where stdout goes"
        _say(f"{command}: {say}")
        return EXIT_BAD_INPUT
    return status
