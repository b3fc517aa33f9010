"""What every command shares: the chunking flags, reading the input text with a
bound, and writing JSON to stdout whole.

>>> parser = argparse.ArgumentParser()
>>> add_chunking_flags(parser, unit="word", size=None, overlap="0")
>>> args = parser.parse_args(["--size", "4", "--overlap", "1"])
>>> params_from_args(args, caps=True).stride
3
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from typing import Any

from ..core.params import Params, parse_params
from ..errors import InputError
from ..facts import (
    DEFAULT_ENCODING,
    ENCODINGS,
    FIELD_DEFAULTS,
    KEEP_SEPARATOR,
    MAX_BYTES,
    SEPARATOR_PRESETS,
    SPLITTERS,
    UNITS,
    over_byte_limit,
)
from ..models import MODELS
from ..paths import shown_path

__all__ = [
    "add_chunking_flags",
    "add_splitter_flags",
    "params_from_args",
    "read_text",
    "shown_path",
    "splitter_fields",
    "write_json",
    "write_text",
]


def add_chunking_flags(
    parser: argparse.ArgumentParser,
    *,
    unit: str,
    size: str | None,
    overlap: str,
    estimate: bool = True,
) -> None:
    """``--unit --size --overlap --encoding`` (and ``--tokens-per-unit --price`` when
    ``estimate``), with this command's defaults (``size=None``: required)."""
    parser.add_argument(
        "--unit", choices=tuple(UNITS), default=unit, help=f"unit to count ({unit})"
    )
    if size is None:
        parser.add_argument("--size", required=True, metavar="N", help="window size in units")
    else:
        parser.add_argument(
            "--size", default=size, metavar="N", help=f"window size in units ({size})"
        )
    parser.add_argument(
        "--overlap",
        default=overlap,
        metavar="N|P%",
        help=f"overlap in units, or a percent of --size ({overlap.replace('%', '%%')})",
    )
    parser.add_argument(
        "--encoding",
        choices=tuple(ENCODINGS),
        default=None,
        help=f"token encoding (the model's, else {DEFAULT_ENCODING})",
    )
    parser.add_argument(
        "--model",
        choices=tuple(MODELS),
        default=None,
        help="model preset: sets the encoding, --max-tokens and --price (each overridable)",
    )
    parser.add_argument(
        "--max-tokens",
        default=None,
        metavar="N",
        help="model's maximum input in tokens, its special tokens included (the model's)",
    )
    add_splitter_flags(parser)
    if estimate:
        parser.add_argument(
            "--tokens-per-unit", default=None, metavar="R", help="token estimate per unit (preset)"
        )
        parser.add_argument(
            "--price",
            default=None,
            metavar="P",
            help="price per million tokens (the model's where it lists one; none: no cost)",
        )


def add_splitter_flags(parser: argparse.ArgumentParser) -> None:
    """``--splitter`` and the recursive splitter's settings."""
    parser.add_argument(
        "--splitter",
        choices=tuple(SPLITTERS),
        default=FIELD_DEFAULTS["splitter"],
        help="fixed window, or LangChain's RecursiveCharacterTextSplitter"
        f" ({FIELD_DEFAULTS['splitter']})",
    )
    parser.add_argument(
        "--separators-preset",
        choices=tuple(SEPARATOR_PRESETS),
        default=None,
        help="recursive: LangChain's from_language separators (regular expressions), or its"
        f" default list ({FIELD_DEFAULTS['separators_preset']})",
    )
    parser.add_argument(
        "--separators",
        default=None,
        metavar="JSON-LIST",
        help='recursive: the separators in order, as a JSON list (["\\n\\n", "\\n", " ", ""])',
    )
    parser.add_argument(
        "--separator-regex",
        action="store_true",
        default=None,
        help="recursive: --separators are regular expressions (is_separator_regex)",
    )
    parser.add_argument(
        "--keep-separator",
        choices=KEEP_SEPARATOR,
        default=None,
        help="recursive: keep each separator at the start of the next split (LangChain's"
        f" True), at the end, or drop it ({FIELD_DEFAULTS['keep_separator']})",
    )
    parser.add_argument(
        "--no-strip",
        action="store_true",
        help="recursive: keep whitespace at the chunks' edges (strip_whitespace=False)",
    )


def splitter_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The recursive splitter's flags as parse_params' fields; refused with the fixed
    window, which has no separators."""
    given = {
        "--separators-preset": getattr(args, "separators_preset", None),
        "--separators": getattr(args, "separators", None),
        "--separator-regex": getattr(args, "separator_regex", None),
        "--keep-separator": getattr(args, "keep_separator", None),
        "--no-strip": getattr(args, "no_strip", False) or None,
    }
    splitter = getattr(args, "splitter", FIELD_DEFAULTS["splitter"])
    if splitter != "recursive":
        named = [flag for flag, value in given.items() if value is not None]
        if named:
            raise InputError(
                "splitter", f"{named[0]} is a setting of the recursive splitter: add"
                " --splitter recursive, or leave it out",
            )  # fmt: skip
    return {
        "splitter": splitter,
        "separators_preset": given["--separators-preset"],
        "separators": given["--separators"],
        "separator_regex": given["--separator-regex"],
        "keep_separator": given["--keep-separator"],
        "strip": False if given["--no-strip"] else None,
    }


def params_from_args(args: argparse.Namespace, *, caps: bool) -> Params:
    """The chunking parameters from :func:`add_chunking_flags`' flags."""
    return parse_params(
        **splitter_fields(args),
        unit=args.unit,
        encoding=args.encoding,
        size=args.size,
        overlap=args.overlap,
        tokens_per_unit=getattr(args, "tokens_per_unit", None),
        price_per_million=getattr(args, "price", None),
        caps=caps,
        model=getattr(args, "model", None),
        max_tokens=getattr(args, "max_tokens", None),
    )


def _too_big(name: str) -> InputError:
    """Read one byte past the limit: the size is known to be at least that."""
    return InputError("text", over_byte_limit(name, f"{MAX_BYTES + 1:,} bytes or more"))


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` is stdin), reading at most one byte past the limit,
    so a huge file or an endless pipe (``yes |``, ``< /dev/zero``) is refused at once
    in bounded memory. A named file must be a regular file: a named pipe would wait
    for a writer and a device may never end; stdin may be anything."""
    name = "stdin" if path == "-" else shown_path(path)
    try:
        if path == "-":
            if sys.stdin is None:  # started with stdin closed (`<&-`)
                raise InputError("file", "stdin is closed: give a FILE or pipe the text in")
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            # Looked at before it is opened: opening a named pipe waits for a writer.
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise InputError(
                    "file",
                    f"{name} is not a regular file (a folder, pipe or device): give a text"
                    " file, or pipe the text in and give - for stdin",
                )
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
    except InputError:
        raise
    except OSError as exc:
        raise InputError(
            "file", f"cannot read {name} ({exc.strerror or type(exc).__name__}): check the path"
        ) from None
    except ValueError:  # a stdin closed while running reads as a closed file
        raise InputError("file", "stdin is closed: give a FILE or pipe the text in") from None
    if len(data) > MAX_BYTES:
        raise _too_big(name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            "file",
            f"{name} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}):"
            " convert it to UTF-8 first",
        ) from None


def write_text(text: str) -> None:
    """All of ``text`` to stdout as UTF-8: a pipe may take a large write in parts."""
    stream = sys.stdout.buffer if sys.stdout is not None else None
    if stream is None:
        raise OSError(9, "stdout is closed")
    out = memoryview(text.encode("utf-8"))
    while out:
        written = stream.write(out)
        out = out[written if written is not None else len(out) :]
    stream.flush()


def write_json(document: Any) -> None:
    """``document`` as indented JSON (no ASCII escaping) and a newline, to stdout."""
    write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
