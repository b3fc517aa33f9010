"""The speeds the test suite no longer asserts, measured here (a script, not a test).

    python bench/bench_guards.py [--repeat N]

The tests keep what each of these proves (the answer is right, the input is refused,
nothing hangs) with bounds that only catch a hang; how fast each one is lives here,
as a ratio to an anchor timed in the same run, since the machine is shared and noisy.
The anchor is the least any linear pass can do: a plain-Python loop that looks at
every character of the same input once (for handle()'s refusals: handle() answering
a small valid request). Each row also names the bound the test used to assert.

How long an input waits while the page's worker tokenizes a megabyte is row 5 of
``bench/bench_site.py`` (the longest main-thread task in token mode); the suite now
checks only that the work runs off the page's thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from machine import machine  # noqa: E402

from pyapp.core.chunking import chunk_text, segment  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402
from pyapp.core.sentences import SentenceUnits, split_sentences  # noqa: E402
from pyapp.core.tokenizers import get_tokenizer  # noqa: E402
from pyapp.planning.sweep import sweep_text  # noqa: E402
from pyapp.web.api import handle  # noqa: E402

PROSE = ("Sentence number one is here. Another one follows! Does it end? " * 16_000)[:1_000_000]
DOTS = "." * 200_000 + "x"
#: The huge numbers tests/engine/test_hardening.py types into every numeric field.
HUGE = ("1e99999999", "-1e5000", "1e1000000", "1e3000000", "1e309", "1" + "0" * 4300, "9" * 5000)
FIELDS = {
    "chunk": ("size", "overlap", "tokens_per_unit", "price_per_million"),
    "sweep": ("size", "overlap"),
    "size": ("documents", "avg_tokens", "size", "dim"),
    "budget": ("window", "top_k", "size"),
}
BASE = {
    "chunk": {"text": "one two three four", "size": 2},
    "sweep": {"text": "one two three four", "size": 2},
    "size": {"documents": 10, "avg_tokens": 100, "size": 32},
    "budget": {"window": 8192, "top_k": 5, "size": 512},
}


def timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return best


def look_at_each(text: str) -> int:
    """The anchor: one plain-Python look at every character."""
    seen = 0
    for char in text:
        if char in ".!?":
            seen += 1
    return seen


def worst_refusal() -> None:
    for op, fields in FIELDS.items():
        for field in fields:
            for huge in HUGE:
                answer = json.loads(handle(json.dumps({"op": op, **BASE[op], field: huge})))
                assert answer["ok"] is False, (op, field)


def sentence_check() -> None:
    seg = segment(PROSE, parse_params(unit="word", size=64))
    index = SentenceUnits.of(PROSE, seg)
    for overlap in range(0, 32, 4):
        index.cut_count(size=64, overlap=overlap)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    args = parser.parse_args()
    repeat = args.repeat
    get_tokenizer("o200k_base")  # rank loading is bench_engine.py's row
    small = json.dumps({"op": "chunk", **BASE["chunk"]})
    refusals = sum(len(fields) for fields in FIELDS.values()) * len(HUGE)
    rows = [
        # (what, seconds, anchor seconds, the bound a test used to assert)
        (
            f"{refusals} huge numbers refused by handle()",
            timed(worst_refusal, repeat),
            timed(lambda: [handle(small) for _ in range(refusals)], repeat),
            f"1 s each ({refusals} x 1 s)",
        ),
        (
            "200,001 dots split into sentences",
            timed(lambda: split_sentences(DOTS), repeat),
            timed(lambda: look_at_each(DOTS), repeat),
            "1 s",
        ),
        (
            "1 MB sentence check, 8 overlaps",
            timed(sentence_check, repeat),
            timed(lambda: look_at_each(PROSE), repeat),
            "3 s",
        ),
        (
            "1 MB sweep, char 512/15% (16 rows)",
            timed(lambda: sweep_text(PROSE, unit="char", size=512, overlap="15%"), 1),
            timed(lambda: look_at_each(PROSE), repeat),
            "5 s",
        ),
        (
            "1,000,000 x 'a' chunked in token mode (tiktoken)",
            timed(
                lambda: chunk_text(
                    "a" * 1_000_000, parse_params(unit="token", size=512, overlap=64)
                ),
                1,
            ),
            timed(lambda: look_at_each("a" * 1_000_000), repeat),
            "5 s",
        ),
    ]
    print(f"bench_guards on {machine()}, best of {repeat}")
    print(f"{'measure':<50} {'seconds':>9} {'anchor s':>9} {'x anchor':>9}  old test bound")
    for label, seconds, anchor, bound in rows:
        print(f"{label:<50} {seconds:>9.3f} {anchor:>9.3f} {seconds / anchor:>9.1f}  {bound}")
    print(
        "anchor: a plain-Python look at each character of the same input"
        " (refusals: handle() answering a small valid request as often)"
    )


if __name__ == "__main__":
    main()
