"""``python -m pyapp audit TEXT --chunks FILE``: re-anchor a chunks file made by another
tool on its text, and print the audit (``pyapp.audit/1``) as JSON.

The chunks file is JSON or JSON Lines in one of the shapes :mod:`pyapp.core.imported`
recognizes (LangChain, Chonkie, LlamaIndex, Haystack, plain strings, this tool's
export), or any other with ``--text-field`` and ``--start-field``. A chunk that cannot
be found is listed, never fatal; a file that cannot be read as chunks is one line on
stderr and exit 2. The summary of the anchoring is said on stderr too.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import Any

from ..core.audit import Measure, audit_document, audit_text, dumps
from ..core.imported import decode_chunks_file
from ..core.lens import Lens, parse_lens
from ..core.params import parse_whole
from ..errors import InputError
from ..facts import ENCODINGS, EVIDENCE_DEFAULTS, MAX_CHUNKS_FILE_BYTES, MEASURE_UNIT, UNITS
from ..models import MODELS
from .common import read_text, shown_path, write_text

__all__ = [
    "add_lens_flags",
    "add_parser",
    "lens_from_args",
    "measure_from_args",
    "read_chunks_file",
    "run",
]


def add_lens_flags(parser: argparse.ArgumentParser) -> None:
    """The measuring unit, the embedding model (the truncation lens), the price and the
    evidence file, shared by ``audit`` and ``compare``."""
    parser.add_argument(
        "--unit",
        choices=tuple(UNITS),
        default=MEASURE_UNIT,
        help=f"unit the chunk sizes are counted in ({MEASURE_UNIT})",
    )
    parser.add_argument(
        "--encoding",
        choices=tuple(ENCODINGS),
        default=None,
        help="encoding of --unit token (o200k_base)",
    )
    parser.add_argument(
        "--model",
        choices=tuple(MODELS),
        default=None,
        help="embedding model whose truncation to show",
    )
    parser.add_argument(
        "--model-encoding",
        choices=tuple(ENCODINGS),
        default=None,
        metavar="ENCODING",
        help="a custom model's encoding (with --max-tokens)",
    )
    parser.add_argument(
        "--max-tokens",
        default=None,
        metavar="N",
        help="the model's maximum input, its special tokens included",
    )
    parser.add_argument(
        "--special-tokens",
        default=None,
        metavar="N",
        help="special tokens the model adds (the preset's; 2 for bert-base-uncased, else 0)",
    )
    parser.add_argument(
        "--price",
        default=None,
        metavar="P",
        help="price per million stored tokens (none: no cost is estimated)",
    )
    parser.add_argument(
        "--evidence",
        default=None,
        metavar="EVIDENCE",
        help="JSON Lines evidence passages, as `evidence` reads them",
    )
    top_k = EVIDENCE_DEFAULTS["top_k"]
    parser.add_argument("--top-k", default=top_k, metavar="K",
                        help=f"chunks retrieved per question ({top_k})")  # fmt: skip


def add_parser(subparsers: argparse._SubParsersAction[Any]) -> None:
    parser = subparsers.add_parser(
        "audit",
        help="re-anchor another tool's chunks on their text and show what the model drops",
        description=(
            "Read the chunks FILE another tool made of TEXT (JSON or JSON Lines: LangChain,"
            " Chonkie, LlamaIndex, Haystack, Unstructured, a list of strings, or this tool's"
            " export),"
            " place each chunk on the text (its own offset where it holds the chunk, else"
            " the first occurrence from the previous chunk's start, else up to whitespace),"
            " and print every figure of that chunking as JSON."
        ),
    )
    parser.add_argument(
        "file", metavar="TEXT", help="the UTF-8 text the chunks were made from; - is stdin"
    )
    parser.add_argument(
        "--chunks", required=True, metavar="FILE", help="the chunks file (JSON or JSON Lines)"
    )
    parser.add_argument(
        "--text-field",
        default=None,
        metavar="PATH",
        help="the field holding each chunk's text (dotted)",
    )
    parser.add_argument(
        "--start-field",
        default=None,
        metavar="PATH",
        help="the field holding each chunk's start (dotted)",
    )
    add_lens_flags(parser)
    parser.set_defaults(run=run)  # fmt: skip


def read_chunks_file(path: str, *, field: str = "chunks") -> str:
    """A chunks file's text, reading at most one byte past its limit."""
    name = "stdin" if path == "-" else shown_path(path)
    try:
        if path == "-":
            if sys.stdin is None:
                raise InputError(field, "stdin is closed: name the chunks file")
            data = sys.stdin.buffer.read(MAX_CHUNKS_FILE_BYTES + 1)
        else:
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise InputError(field, f"{name} is not a regular file: give a chunks file")
            with open(path, "rb") as handle:
                data = handle.read(MAX_CHUNKS_FILE_BYTES + 1)
    except InputError:
        raise
    except OSError as exc:
        raise InputError(
            field, f"cannot read {name} ({exc.strerror or type(exc).__name__}): check the path"
        ) from None
    try:
        return decode_chunks_file(data, name=name)
    except InputError as exc:
        raise InputError(field, exc.message) from None


def measure_from_args(args: argparse.Namespace) -> Measure:
    return Measure.parse(unit=args.unit, encoding=args.encoding, price_per_million=args.price)


def lens_from_args(args: argparse.Namespace) -> Lens | None:
    return parse_lens(
        model=args.model,
        encoding=args.model_encoding,
        max_tokens=args.max_tokens,
        special_tokens=args.special_tokens,
    )


def evidence_from_args(args: argparse.Namespace) -> str | None:
    if args.evidence is None:
        return None
    try:
        return read_text(args.evidence)
    except InputError as exc:
        raise InputError("evidence", exc.message) from None


def run(args: argparse.Namespace) -> int:
    if args.file == "-" and args.chunks == "-":
        raise InputError("chunks", "TEXT and --chunks cannot both be stdin: name a file")
    measure = measure_from_args(args)
    lens = lens_from_args(args)
    top_k = parse_whole("top_k", args.top_k)
    text = read_text(args.file)
    source = read_chunks_file(args.chunks)
    report = audit_text(
        text, source, measure=measure, lens=lens, text_field=args.text_field,
        start_field=args.start_field, evidence_jsonl=evidence_from_args(args), top_k=top_k,
    )  # fmt: skip
    write_text(dumps(audit_document(report)))
    print(f"python -m pyapp audit: {report.anchoring_sentence()}", file=sys.stderr)
    if report.figures.lens is not None:
        sentence = report.figures.lens.lens.sentence(
            truncated=report.figures.lens.truncated,
            chunks=len(report.chunking.spans),
            unseen_chars=report.figures.lens.unseen_chars,
        )
        print(f"python -m pyapp audit: {sentence}", file=sys.stderr)
    return 0
