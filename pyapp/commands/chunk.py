"""``python -m pyapp chunk [FILE|-] --unit ... --size N --overlap N|P%``: print the export JSON."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import InputError
from ..export import dumps
from ..params import ENCODINGS, UNITS, Params, parse_params
from ..report import chunk_text

__all__ = ["add_parser", "read_text", "run"]


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "chunk",
        help="chunk one text and print the export JSON",
        description="Chunk FILE (or stdin) into fixed windows and print the pyapp.chunks/2 JSON.",
    )
    parser.add_argument(
        "file", nargs="?", default="-", metavar="FILE", help="UTF-8 text; - is stdin"
    )
    parser.add_argument("--unit", choices=UNITS, default="word", help="unit to count (word)")
    parser.add_argument("--size", required=True, metavar="N", help="window size in units")
    parser.add_argument(
        "--overlap", default="0", metavar="N|P%", help="overlap in units, or a percent of --size"
    )
    parser.add_argument(
        "--encoding", choices=ENCODINGS, default=None, help="token encoding (o200k_base)"
    )
    parser.add_argument(
        "--tokens-per-unit", default=None, metavar="R", help="token estimate per unit (preset)"
    )
    parser.add_argument("--price", default="1", metavar="P", help="price per million tokens (1)")
    parser.add_argument(
        "--no-caps", action="store_true", help="lift the 256-chunk and 200,000-unit caps"
    )
    parser.set_defaults(run=run)


def read_text(path: str) -> str:
    """The UTF-8 text of ``path`` (``-`` is stdin), or a one-line reason it cannot be read."""
    name = "stdin" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as handle:
                data = handle.read()
    except OSError as exc:
        raise InputError("file", f"cannot read {name} ({exc.strerror}): check the path") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            "file",
            f"{name} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}):"
            " convert it to UTF-8 first",
        ) from None


def params_from_args(args: argparse.Namespace, *, caps: bool) -> Params:
    """The chunking parameters from the flags `chunk` and `corpus` share."""
    return parse_params(
        unit=args.unit,
        encoding=args.encoding,
        size=args.size,
        overlap=args.overlap,
        tokens_per_unit=args.tokens_per_unit,
        price_per_million=args.price,
        caps=caps,
    )


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args, caps=not args.no_caps)
    report = chunk_text(read_text(args.file), params)
    out = memoryview(dumps(report).encode("utf-8"))
    while out:  # one large write to a pipe can be cut short without an error: go on
        out = out[sys.stdout.buffer.write(out) :]
    sys.stdout.flush()
    return 0
