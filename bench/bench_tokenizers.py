#!/usr/bin/env python3
"""The pure tokenizer (what the page runs in Pyodide), natively, against each
encoding's reference library on the same text in the same run.

    python bench/bench_tokenizers.py [--repeat 3] [--write] [--only o200k_base,...]

Texts: the real documents of :mod:`documents` (Debian Reference in English, Chinese
and Japanese) and five repetitive shapes of 1,000,000 bytes, each one piece for the
pre-tokenizers. Per encoding and text: the reference's encode (best of ``--repeat``),
the pure path's encode with every memo empty (a fresh tokenizer each time, best of
``--repeat``: the page meets a text once, later settings reuse the result), and the
ratio. The ids are checked equal. References: tiktoken (o200k_base, cl100k_base, and
llama3 and qwen2 with their patterns, qwen2 after the Rust NFC), mistral-common
(tekken), Hugging Face ``tokenizers`` (bert-base-uncased). tiktoken's regex
overflows its stack on a megabyte of spaces, so that row's reference is tiktoken's
merge of the one piece (``_encode_single_piece``), the pre-tokenizer skipped.

Targets: at most 3x on the real documents, 5x on the shapes. ``python build.py
bench`` runs it after the site benchmark; ``--write`` replaces its section of
bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from documents import INSTALL, SOURCE, real_documents, shapes  # noqa: E402
from machine import machine  # noqa: E402

from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.tokenizers._pretokenize import pieces  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
START, END = "<!-- bench_tokenizers: start -->", "<!-- bench_tokenizers: end -->"
ENCODINGS = ("o200k_base", "cl100k_base", "llama3", "qwen2", "tekken", "bert-base-uncased")
REAL_TARGET, SHAPE_TARGET = 3.0, 5.0

Encode = Callable[[str], list[int]]
#: (encoding, text, bytes, reference label, reference s, pure s, target)
Row = tuple[str, str, int, str, float, float, float]


def best(fn: Callable[[], object], repeat: int) -> float:
    seconds = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        seconds = min(seconds, time.perf_counter() - began)
    return seconds


def fresh_pure(name: str) -> Encode:
    """A new pure tokenizer of ``name``: every memo empty (the ranks stay loaded)."""
    if name == "bert-base-uncased":
        return tokenizers._wordpiece_tokenizer("pure").encode_ordinary
    return tokenizers._bpe_tokenizer(name, "pure").encode_ordinary


def reference(name: str, text: str) -> tuple[str, Encode]:
    """The reference library's encode for ``text`` (see the module docstring)."""
    from references import reference as library

    label = {
        "bert-base-uncased": "HF tokenizers",
        "tekken": "mistral-common",
        "qwen2": "Rust NFC + tiktoken",
    }.get(name, "tiktoken")
    if name != "bert-base-uncased" and set(text) == {" "} and len(text) > 100_000:
        import tiktoken

        assert len(list(pieces(name, text))) == 1, "the run is one piece"
        encoding = tiktoken.Encoding(
            name,
            pat_str=tokenizers.PAT_STR[name],
            mergeable_ranks=tokenizers.load_ranks(name),
            special_tokens={},
        )
        offset = 1000 if name == "tekken" else 0
        return "tiktoken, the one piece's merge", lambda t: [
            i + offset for i in encoding._encode_single_piece(t.encode())
        ]
    return label, library(name)


def rows(repeat: int, only: tuple[str, ...]) -> tuple[list[Row], dict[str, int]]:
    documents = real_documents()
    if not documents:
        print(f"no real documents: {INSTALL}", file=sys.stderr)
    texts = {**{f"{k} (Debian Reference)": v for k, v in documents.items()}, **shapes()}
    sizes = {name: len(text.encode()) for name, text in texts.items()}
    out: list[Row] = []
    for name in only:
        fresh_pure(name)("warm")  # vocabulary read and tables built: not timed
        for label, text in texts.items():
            ref_label, ref = reference(name, text)
            expected = ref(text)
            ref_s = best(lambda ref=ref, text=text: ref(text), repeat)  # type: ignore[misc]
            pure_s = float("inf")
            for _ in range(repeat):
                encode = fresh_pure(name)
                began = time.perf_counter()
                got = encode(text)
                pure_s = min(pure_s, time.perf_counter() - began)
            assert got == expected, f"{name} on {label}: the pure ids differ"
            target = SHAPE_TARGET if label.startswith("1 MB") else REAL_TARGET
            out.append((name, label, sizes[label], ref_label, ref_s, pure_s, target))
            print(
                f"{name:<18} {label:<30} ref {ref_s:7.3f} s  pure {pure_s:7.3f} s"
                f"  {pure_s / ref_s:5.2f}x",
                flush=True,
            )
    return out, sizes


def table(found: list[Row]) -> list[str]:
    lines = [
        "| encoding | text | reference (same run) | pure, memos empty | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, label, _, ref_label, ref_s, pure_s, target in found:
        ratio = pure_s / ref_s
        lines.append(
            f"| {name} | {label} | {ref_s * 1000:,.0f} ms ({ref_label}) | {pure_s * 1000:,.0f} ms"
            f" | {ratio:.2f}x | ≤ {target:g}x | {'yes' if ratio <= target else 'no'} |"
        )
    return lines


def write(found: list[Row], sizes: dict[str, int], repeat: int, took: float) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    described = ", ".join(f"{name} {size:,} bytes" for name, size in sizes.items())
    section = "\n".join(
        [
            START,
            "## The pure tokenizer against the reference libraries (native)",
            "",
            f"Written by `python bench/bench_tokenizers.py --write` (run by `python build.py"
            f" bench`): {when}, CPython {platform.python_version()}; {machine()}; load"
            f" average {os.getloadavg()[0]:.1f} at the end (the machine is shared). Took"
            f" {took:.0f} s. Every time the best of {repeat}; the pure path with every memo"
            " empty (a fresh tokenizer each time); ids checked equal to the reference's.",
            "",
            f"- Real text: {SOURCE}, read at bench time, each cut to its first 1,000,000"
            f" bytes. Texts: {described}.",
            "- The shapes are one piece each; tiktoken's regex overflows its stack on the"
            " megabyte of spaces, so that row's reference is tiktoken's merge of the piece.",
            "",
            *table(found),
            END,
        ]
    )
    current = RESULTS.read_text("utf-8") if RESULTS.exists() else ""
    if START in current and END in current:
        before, rest = current.split(START, 1)
        current = before + section + rest.split(END, 1)[1]
    else:
        current = current.rstrip() + "\n\n" + section + "\n"
    RESULTS.write_text(current, "utf-8")
    print(f"written to {RESULTS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--write", action="store_true", help="replace the section of RESULTS.md")
    parser.add_argument("--only", default=",".join(ENCODINGS), help="comma-separated encodings")
    args = parser.parse_args()
    began = time.perf_counter()
    found, sizes = rows(args.repeat, tuple(args.only.split(",")))
    for line in table(found):
        print(line)
    if args.write:
        write(found, sizes, args.repeat, time.perf_counter() - began)


if __name__ == "__main__":
    main()
