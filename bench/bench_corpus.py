"""Benchmark ``python -m pyapp corpus``: local pool, Dask, JSONL and Parquet, against
bare tiktoken, all on one generated corpus and in one run.

Generates a deterministic corpus (default 200 MB of English-like prose in a few
thousand ``.txt``/``.md`` files), the same documents as one JSONL file and as one
Parquet file, then measures, in interleaved rounds (best of ``--repeat``):

1. **bare tiktoken, 1 process**: read each file, decode, ``len(encode_ordinary(text))``;
   the encoding built before the clock starts (the anchor for every ratio);
2. **bare tiktoken, N processes**: the same loop split over a ``multiprocessing``
   pool of ``--workers`` processes (started and warmed before the clock): the ideal
   the engines aim at;
3. **corpus --engine local** on the folder: the whole command (interpreter start-up
   included), and its ``timing.startup_seconds`` (the worker pool);
4. **corpus --engine dask** on the folder: a local cluster of ``--workers`` processes;
   the cluster's start-up (``timing.startup_seconds``) reported on its own, and the
   run without it compared with the local pool (target: within 1.3x);
5. **corpus --engine local** on the JSONL file and on the Parquet file (each split
   between the workers), the same documents.

Every method must count the same tokens, and the local and Dask runs must print
the same JSON apart from ``timing``. The figures go to the corpus section of
``bench/RESULTS.md`` (``--no-write`` to only print).

    python bench/bench_corpus.py [--mb 200] [--workers N] [--repeat 2] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

from pyapp.core.tokenizers import PAT_STR, SPECIAL_TOKENS, load_ranks  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"

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


def write_records(files: list[Path], jsonl: Path, parquet: Path) -> None:
    """The same documents, one JSONL line / one Parquet row each (row groups of 1,000)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = [path.read_text(encoding="utf-8") for path in files]
    with open(jsonl, "w", encoding="utf-8") as handle:
        for n, text in enumerate(texts):
            handle.write(json.dumps({"id": n, "text": text}, ensure_ascii=False) + "\n")
    table = pa.table({"id": list(range(len(texts))), "text": texts})
    pq.write_table(table, parquet, row_group_size=1000)


def _encoder(encoding: str) -> Callable[[str], list[int]]:
    import tiktoken

    enc = tiktoken.Encoding(
        encoding,
        pat_str=PAT_STR[encoding],
        mergeable_ranks=load_ranks(encoding),
        special_tokens=SPECIAL_TOKENS[encoding],
    )
    enc.encode_ordinary("warm up")
    return enc.encode_ordinary


def _count_files(paths: list[str], encoding: str) -> int:
    encode = _ENCODE.get(encoding) or _ENCODE.setdefault(encoding, _encoder(encoding))
    return sum(len(encode(Path(p).read_bytes().decode("utf-8"))) for p in paths)


_ENCODE: dict[str, Callable[[str], list[int]]] = {}


def _warm(encoding: str) -> bool:
    _ENCODE.setdefault(encoding, _encoder(encoding))
    return True


#: CPU seconds (user + system) of each command, its workers and cluster included.
CPU: dict[str, float] = {}


def cli(*args: str | Path, name: str) -> tuple[dict[str, Any], str, float]:
    """The command's JSON, its exact stdout and its wall time; its CPU time (every
    process it started, reaped, included) goes to :data:`CPU` under ``name``."""
    command = [sys.executable, "-m", "pyapp", "corpus", *map(str, args), "--no-progress"]
    began = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - began
        process.returncode = os.waitstatus_to_exitcode(status)
        assert process.returncode == 0, command
        out.seek(0)
        stdout = out.read().decode("utf-8")
    cpu = usage.ru_utime + usage.ru_stime
    CPU[name] = min(CPU.get(name, float("inf")), cpu)
    return json.loads(stdout), stdout, seconds


def without_timing(stdout: str) -> str:
    return stdout[: stdout.rindex('  "timing"')]


def write_results(lines: list[str]) -> None:
    """Replaces the corpus section of RESULTS.md (or adds it at the end)."""
    put_section("bench_corpus", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200.0, help="corpus size in MB (200)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--encoding", default="o200k_base")
    parser.add_argument("--repeat", type=int, default=2, help="rounds; best of each (2)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    args = parser.parse_args()
    began_all = time.perf_counter()
    flags = ["--encoding", args.encoding, "--workers", str(args.workers)]

    with tempfile.TemporaryDirectory(prefix="pyapp-bench-") as tmp:
        folder = Path(tmp) / "corpus"
        folder.mkdir()
        began = time.perf_counter()
        n_files, n_bytes = make_corpus(folder, megabytes=args.mb)
        files = sorted(folder.rglob("*.*"))
        jsonl, parquet = Path(tmp) / "corpus.jsonl", Path(tmp) / "corpus.parquet"
        write_records(files, jsonl, parquet)
        sizes = (
            f"JSONL {jsonl.stat().st_size / 1e6:.1f} MB, Parquet {parquet.stat().st_size / 1e6:.1f}"
        )
        print(
            f"corpus: {n_files:,} files, {n_bytes / 1e6:.1f} MB; {sizes} MB"
            f" (generated in {time.perf_counter() - began:.1f} s)"
        )
        names = [str(p) for p in files]
        shares = [names[i :: args.workers] for i in range(args.workers)]
        _warm(args.encoding)
        context = multiprocessing.get_context("fork")
        best: dict[str, float] = {}
        seen: dict[str, Any] = {}

        def keep(name: str, seconds: float) -> None:
            best[name] = min(best.get(name, float("inf")), seconds)

        with context.Pool(args.workers) as pool:
            pool.map(_warm, [args.encoding] * args.workers)
            for round_ in range(args.repeat):
                start, cpu_start = time.perf_counter(), time.process_time()
                tokens = _count_files(names, args.encoding)
                keep("bare1", time.perf_counter() - start)
                keep("bare1_cpu", time.process_time() - cpu_start)
                start = time.perf_counter()
                tokens_n = sum(pool.starmap(_count_files, [(s, args.encoding) for s in shares]))
                keep("bareN", time.perf_counter() - start)
                assert tokens_n == tokens

                local, local_out, wall = cli(folder, *flags, name="local")
                keep("local", wall)
                timing = local["timing"]
                keep("local_start", timing["startup_seconds"])
                keep("local_rest", wall - timing["startup_seconds"] - timing["shutdown_seconds"])
                dask, dask_out, wall = cli(folder, *flags, "--engine", "dask", name="dask")
                keep("dask", wall)
                timing = dask["timing"]
                keep("dask_start", timing["startup_seconds"])
                keep("dask_stop", timing["shutdown_seconds"])
                keep("dask_rest", wall - timing["startup_seconds"] - timing["shutdown_seconds"])
                assert local["units"] == dask["units"] == tokens, (local["units"], tokens)
                assert without_timing(local_out) == without_timing(dask_out)

                from_jsonl, _, wall = cli(jsonl, *flags, name="jsonl")
                keep("jsonl", wall)
                from_parquet, _, wall = cli(parquet, *flags, name="parquet")
                keep("parquet", wall)
                for doc in (from_jsonl, from_parquet):
                    assert doc["units"] == tokens and doc["documents"] == n_files, doc["units"]
                    assert doc["errors_total"] == 0
                seen = {"tokens": tokens, "local": local}
                print(f"round {round_ + 1}: " + ", ".join(f"{k} {v:.2f}" for k, v in best.items()))

    tokens = seen["tokens"]
    local = seen["local"]
    bare = best["bare1"]
    load = os.getloadavg()[0]

    def rate(seconds: float) -> str:
        return f"{tokens / seconds / 1e6:.2f} M"

    cpu_ratio = CPU["dask"] / CPU["local"]
    rows = [
        ("bare tiktoken, 1 process (anchor)", best["bare1"], best["bare1_cpu"],
         "encoding built before the clock"),
        (f"bare tiktoken, {args.workers} processes", best["bareN"], None,
         "pool warm before the clock"),
        ("corpus --engine local, folder", best["local"], CPU["local"],
         f"whole command; pool start-up {best['local_start']:.2f} s"),
        ("  the same without the pool's start-up and shut-down", best["local_rest"], None, ""),
        ("corpus --engine dask, folder", best["dask"], CPU["dask"],
         f"whole command; cluster start-up {best['dask_start']:.2f} s (workers' tokenizers"
         f" built), shut-down {best['dask_stop']:.2f} s; CPU {cpu_ratio:.2f}x the local pool's"),
        ("  the same without the cluster's start-up and shut-down", best["dask_rest"], None,
         f"{best['dask_rest'] / best['local_rest']:.2f}x the local pool's time, both without"
         " start-up and shut-down (target: within 1.3x)"),
        ("corpus --engine local, one JSONL file", best["jsonl"], CPU["jsonl"],
         "the same documents"),
        ("corpus --engine local, one Parquet file", best["parquet"], CPU["parquet"],
         f"{best['parquet'] / best['jsonl']:.2f}x the JSONL run's time"),
    ]  # fmt: skip
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "## Corpus benchmark results",
        "",
        "Written by `python bench/bench_corpus.py` from one run: every row the best of"
        f" {args.repeat} interleaved rounds, ratios against bare tiktoken in the same run."
        " CPU is user + system time of the command and every process it started (workers,"
        " cluster): on a shared machine it moves less than wall time.",
        "",
        f"- Machine: {machine()}; load average {load:.2f} at the end (the machine is shared).",
        f"- Date: {when}. Took {time.perf_counter() - began_all:,.0f} s.",
        f"- Corpus: {n_files:,} files, {n_bytes / 1e6:.1f} MB of English-like prose; the same"
        f" documents as one JSONL file and one Parquet file. {tokens:,} {args.encoding} tokens;"
        f" {local['chunks']:,} chunks at 512/15%; stored tokens {local['stored_tokens_actual']:,}.",
        f"- Workers: {args.workers} (local pool and local Dask cluster alike). Every run counted"
        " the same tokens; the local and Dask JSON were identical apart from `timing`.",
        "",
        "| run | wall s | CPU s | tokens/s (wall) | vs bare tiktoken, 1 process (wall) | note |",
        "|---|---|---|---|---|---|",
        *(
            f"| {name} | {seconds:.2f} | {'–' if cpu is None else f'{cpu:.2f}'} | {rate(seconds)}"
            f" | {bare / seconds:.2f}x | {note} |"
            for name, seconds, cpu, note in rows
        ),
    ]
    print("\n".join(lines))
    if not args.no_write:
        write_results(lines)
        print(f"\nwritten to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
