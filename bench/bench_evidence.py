"""Evidence at scale (a script, not a test): many quotes and many questions over the
engine benchmark's 1,000,000 bytes of English, natively.

    python bench/bench_evidence.py [--repeat N] [--write]

``python build.py bench`` runs it after the site table. Every row is the best of
``--repeat`` runs (CPU time of this process, so other work on the machine weighs
less), with its ratio to anchors measured in the same run:

* ``find``: one ``str.find`` of an absent string over the text (one scan in C);
* ``walk``: one Python ``for`` loop over the text's code points (one pass in Python).

Quote rows time reading the evidence (``parse_jsonl``: every quote found once), and
beside them the per-quote search the engine used before (two ``str.find`` per quote,
as many scans as quotes). Question rows time the evidence check of one setting with
the text's segmentation and terms already known (what a re-check costs), BM25
included; a row over one of the retrieval check's limits (its chunks, or its (term,
chunk) steps) says it was skipped, in the time it takes to say so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engine import TARGET_BYTES, WORDS, english, evidence_lines  # noqa: E402
from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

from pyapp.core import evidence, evidence_report  # noqa: E402
from pyapp.core.evidence_report import check_evidence  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402


def best(fn: Callable[[], object], repeat: int) -> float:
    out = float("inf")
    for _ in range(repeat):
        began = time.process_time()
        fn()
        out = min(out, time.process_time() - began)
    return out


def quote_sets(text: str) -> dict[str, list[str]]:
    rng = random.Random(3)
    absent = [" ".join(rng.choice(WORDS) for _ in range(6)) + f" zq{i}" for i in range(10_000)]
    present, short = [], []
    for _ in range(10_000):
        at = rng.randrange(0, len(text) - 200)
        present.append(text[at : at + rng.randrange(20, 120)])
        short.append(text[at : at + rng.randrange(1, 16)])
    return {
        "10,000 absent quotes": absent,
        "10,000 quotes of 20-119 code points": present,
        "10,000 quotes of 1-15 code points": short,
    }


def per_quote_search(text: str, quotes: list[str]) -> int:
    """The earlier way: a search of the text for each quote, and one more for a second."""
    once = 0
    for q in quotes:
        first = text.find(q)
        if first >= 0 and text.find(q, first + 1) < 0:
            once += 1
    return once


def rows(repeat: int) -> tuple[float, float, list[tuple[str, float, str]]]:
    text = english(TARGET_BYTES)
    find = best(lambda: text.find("\x00absent"), max(repeat, 5))
    walk = best(lambda: [c for c in text], repeat)
    out: list[tuple[str, float, str]] = []
    for label, quotes in quote_sets(text).items():
        lines = "\n".join(json.dumps({"id": i, "quote": q}) for i, q in enumerate(quotes))

        def read(lines: str = lines) -> object:
            evidence.parse_jsonl.cache_clear()  # type: ignore[attr-defined]
            return evidence.parse_jsonl(text, lines)

        out.append((f"read {label}", best(read, repeat), ""))
        old = best(lambda q=quotes: per_quote_search(text, q), 1)  # type: ignore[misc]
        out.append(("the same, one search per quote (before)", old, ""))
    for unit, size, overlap, asked in (
        ("word", 40, 8, 2000),
        ("word", 40, 8, 300),  # about the most questions its step limit accepts
        ("word", 512, 64, 2000),
        ("word", 5, 0, 100),
        ("char", 20, 0, 60),  # 50,000 chunks: the chunk limit, and about the most questions
        ("char", 10, 0, 500),
        ("char", 1, 0, 500),
        ("word", 1, 0, 200),
    ):
        lines = evidence_lines(text, items=asked, questions=asked)
        params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
        check_evidence(text, params, jsonl=lines, top_k=5)  # the text's own work, once

        def check(params: object = params, lines: str = lines) -> object:
            evidence_report._check.cache_clear()  # type: ignore[attr-defined]
            return check_evidence(text, params, jsonl=lines, top_k=5)  # type: ignore[arg-type]

        seconds = best(check, repeat)
        report = check_evidence(text, params, jsonl=lines, top_k=5)
        skipped = report.retrieval.skipped or ""
        note = "skipped: over the chunk limit" if "chunks, over" in skipped else ""
        note = "skipped: over the step limit" if "steps" in skipped else note
        label = f"check {asked:,} questions, {unit} {size}/{overlap}"
        out.append((label, seconds, note))
    return find, walk, out


def table(find: float, walk: float, measured: list[tuple[str, float, str]]) -> str:
    lines = [
        "| measure | seconds (CPU) | × find | × walk | note |",
        "|---|---|---|---|---|",
        f"| anchor find: one `str.find` over the text | {find:.4f} | 1 | – | |",
        f"| anchor walk: one Python loop over the text | {walk:.3f} | – | 1 | |",
    ]
    for label, seconds, note in measured:
        lines.append(
            f"| {label} | {seconds:.3f} | {seconds / find:,.0f} | {seconds / walk:.1f} | {note} |"
        )
    return "\n".join(lines)


def write(text: str, repeat: int) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = "\n".join(
        [
            "## Evidence at scale: many quotes and questions (native)",
            "",
            f"Written by `python bench/bench_evidence.py --write`: {when}, CPython"
            f" {platform.python_version()}, {machine()}, load average"
            f" {os.getloadavg()[0]:.1f} when written; best of {repeat} (CPU time), 1,000,000"
            " bytes of English. Check rows: one setting with the text's segmentation and terms"
            " already known (a re-check), BM25 included.",
            "",
            text,
        ]
    )
    put_section("bench_evidence", section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--write", action="store_true", help="put the rows into bench/RESULTS.md")
    args = parser.parse_args()
    shown = table(*rows(args.repeat))
    print(shown)
    if args.write:
        write(shown, args.repeat)


if __name__ == "__main__":
    main()
