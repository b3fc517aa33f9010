"""Benchmark ``python -m pyapp corpus`` against a bare tiktoken encode loop.

Generates a deterministic corpus (default 50 MB of English-like prose in a few
thousand ``.txt``/``.md`` files) in a temporary folder, then measures, in the
same run and over the same files:

1. **bare tiktoken**: one process reads each file, decodes it and counts
   ``len(encoding.encode_ordinary(text))``; the encoding is built before the
   clock starts (from the same bundled ranks, so nothing is downloaded);
2. **pyapp corpus, in process** (``workers=1``): the same work plus the full
   chunk accounting, single process: the overhead of the accounting itself;
3. **pyapp corpus, CLI** (``python -m pyapp corpus DIR --workers N``): wall
   clock of the whole command, interpreter start-up and rank loading included.

It prints tokens per second for each and the ratios to bare tiktoken, plus the
core count and load average (the machine may be shared), and checks that every
method counted the same tokens.

    python bench/bench_corpus.py [--mb 50] [--workers N] [--encoding o200k_base]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyapp.core.params import parse_params
from pyapp.core.tokenizers import PAT_STR, SPECIAL_TOKENS, load_ranks
from pyapp.planning.corpus import count_corpus

VOCABULARY = (
    "the of and to in a is that for it as was with be by on not he this are or his from at"
    " which but have an they you were her she there been one all we their has would when if"
    " so no will more can out up into do time only about other than then also could chunk"
    " window overlap retrieval embedding vector index token budget context model document"
    " sentence paragraph boundary evidence query answer prompt system storage inflation"
)
WORDS = VOCABULARY.split()
ENDS = [".", ".", ".", ".", "?", "!", "...", "?!"]


def _sentences(rng: random.Random, count: int) -> list[str]:
    """A pool of English-like sentences (with some numbers and paragraph breaks)."""
    out: list[str] = []
    for _ in range(count):
        words = rng.choices(WORDS, k=rng.randint(4, 30))
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), str(rng.randint(0, 99999)))
        if rng.random() < 0.1:
            words[rng.randrange(len(words))] += ","
        end = rng.choice(ENDS)
        out.append(" ".join(words).capitalize() + end)
    return out


def make_corpus(folder: Path, *, megabytes: float, seed: int = 5) -> tuple[int, int]:
    """Write the corpus; return ``(files, bytes)``. Same seed, same bytes."""
    rng = random.Random(seed)
    pool = _sentences(rng, 5000)
    target = int(megabytes * 1_000_000)
    written = files = 0
    while written < target:
        sub = folder / f"part{files % 16:02d}"
        sub.mkdir(exist_ok=True)
        paragraphs = [
            " ".join(rng.choices(pool, k=rng.randint(2, 12))) for _ in range(rng.randint(1, 20))
        ]
        data = ("\n\n".join(paragraphs) + "\n").encode("utf-8")
        suffix = ".md" if files % 5 == 0 else ".txt"
        (sub / f"doc{files:06d}{suffix}").write_bytes(data)
        written += len(data)
        files += 1
    return files, written


def bare_tiktoken(files: list[Path], encoding: str) -> Callable[[], int]:
    """The bare loop, its encoding built before any clock starts."""
    import tiktoken

    enc = tiktoken.Encoding(
        encoding,
        pat_str=PAT_STR[encoding],
        mergeable_ranks=load_ranks(encoding),
        special_tokens=SPECIAL_TOKENS[encoding],
    )
    encode = enc.encode_ordinary
    encode("warm up")

    def run() -> int:
        tokens = 0
        for path in files:
            tokens += len(encode(path.read_bytes().decode("utf-8")))
        return tokens

    return run


def cli(paths: list[str], workers: int, encoding: str) -> Any:
    command = [sys.executable, "-m", "pyapp", "corpus", *paths, "--no-progress"]
    command += ["--workers", str(workers), "--encoding", encoding]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    began = time.perf_counter()
    result = action()
    return result, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="corpus size in MB (50)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--encoding", default="o200k_base")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; best of each (3)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pyapp-bench-") as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        began = time.perf_counter()
        n_files, n_bytes = make_corpus(folder, megabytes=args.mb)
        print(
            f"corpus: {n_files:,} files, {n_bytes / 1e6:.1f} MB"
            f" (generated in {time.perf_counter() - began:.1f} s)"
        )
        files = sorted(folder.rglob("*.*"))
        bare_run = bare_tiktoken(files, args.encoding)
        params = parse_params(unit="token", encoding=args.encoding, size=512, overlap="15%")
        count_corpus([str(files[0])], params, workers=1, progress=False)  # ranks warm
        one_file = [str(files[0])]

        # Interleaved rounds, best of each: a shared machine's load drifts.
        best = {"bare": float("inf"), "single": float("inf"), "cli": float("inf")}
        best["start"] = float("inf")
        tokens, doc = 0, None
        for _ in range(args.repeat):
            tokens, seconds = timed(bare_run)
            best["bare"] = min(best["bare"], seconds)
            totals, seconds = timed(
                lambda: count_corpus([str(folder)], params, workers=1, progress=False)
            )
            assert totals.units == tokens, (totals.units, tokens)
            best["single"] = min(best["single"], seconds)
            doc, seconds = timed(lambda: cli([str(folder)], args.workers, args.encoding))
            assert doc["units"] == tokens and doc["documents"] == n_files, doc
            assert doc["errors_total"] == 0
            best["cli"] = min(best["cli"], seconds)
            _, seconds = timed(lambda: cli(one_file, args.workers, args.encoding))
            best["start"] = min(best["start"], seconds)

        load = os.getloadavg()[0]
        print(f"cores: {os.cpu_count()}, load average {load:.2f} (shared); best of {args.repeat}")
        bare = tokens / best["bare"]
        single = tokens / best["single"]
        whole = tokens / best["cli"]
        rest = best["cli"] - best["start"]
        print(f"tokens: {tokens:,}")
        print(f"bare tiktoken loop, 1 process   {best['bare']:6.2f} s {bare:12,.0f} tokens/s")
        print(
            f"pyapp corpus in process, 1 proc {best['single']:6.2f} s {single:12,.0f} tokens/s"
            f"  ratio {single / bare:.2f}  (full accounting, ranks warm)"
        )
        print(
            f"pyapp corpus CLI, {args.workers} workers    {best['cli']:6.2f} s {whole:12,.0f}"
            f" tokens/s  ratio {whole / bare:.2f}  (whole command, start-up included)"
        )
        if rest > 0:
            steady = tokens / rest
            print(
                f"  start-up {best['start']:.2f} s (same command on one file);"
                f" without it {steady:,.0f} tokens/s, ratio {steady / bare:.2f}"
            )
        else:
            print(f"  start-up {best['start']:.2f} s: too noisy to subtract at this corpus size")
        assert doc is not None
        print(
            f"  {doc['chunks']:,} chunks, stored tokens actual {doc['stored_tokens_actual']:,}"
            f" / nominal {doc['stored_tokens_nominal']:,}"
        )


if __name__ == "__main__":
    main()
