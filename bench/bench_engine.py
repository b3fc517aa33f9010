"""Engine benchmark (a script, not a test): 1,000,000 bytes of English, every unit.

    python bench/bench_engine.py [--repeat N]

Measures, natively and in one run:
* the full result per unit: the export with caps lifted (every chunk, JSON text)
  and the page's capped view (summary, derivations, overview);
* token mode with rank loading timed on its own, on both backends;
* tiktoken's own encode of the same text, the anchor for the ratios;
* per newer encoding (bert-base-uncased, llama3, qwen2, tekken): the first load
  (vocabulary read and hash-checked, Unicode table, pure encoder built, one short
  encode), then 1 MB on the pure path (what Pyodide runs) cold and again (a later
  recompute), each against the encoding's native reference library on the same
  text in the same run (HF tokenizers, tiktoken, mistral-common).
* the evidence check of one setting per unit (1,000 evidence items, 100 of them
  with a question, so BM25 included), cold (the text seen for the first time:
  segmenting, term finding and quote search included) and warm (another overlap),
  against its own anchor: a plain-Python loop over every item and every window
  that checks containment only (``--evidence-only`` runs just these rows); and
  the overlap sweep with that evidence, once (every row checks coverage and runs
  BM25), against the same loop over every row's windows.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.chunking import chunk_text  # noqa: E402
from pyapp.core.export import dumps  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402
from pyapp.web.api import handle  # noqa: E402

TARGET_BYTES = 1_000_000
VOCABULARY = """
the of and to in a is that for it as was with be by on not he this are or his from at which
but have an they you were her she there been one all we their has would when if so chunk
overlap window retrieval embedding document token boundary sentence evidence index vector
budget context query answer model stride size unit paragraph section heading
"""
WORDS = VOCABULARY.split()


def english(n_bytes: int, *, seed: int = 1) -> str:
    """Deterministic English-like prose of exactly ``n_bytes`` ASCII bytes."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < n_bytes:
        words = [rng.choice(WORDS) for _ in range(rng.randrange(6, 18))]
        sentence = " ".join(words).capitalize() + rng.choice([". ", ". ", ", ", "? ", ".\n\n"])
        parts.append(sentence)
        total += len(sentence)
    return "".join(parts)[:n_bytes]


def timed(
    fn: Callable[[], object], repeat: int, *, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The best of ``repeat`` runs of ``fn``, in seconds of ``clock``."""
    best = float("inf")
    for _ in range(repeat):
        began = clock()
        fn()
        best = min(best, clock() - began)
    return best


def evidence_lines(text: str, *, items: int = 1000, questions: int = 100, seed: int = 7) -> str:
    """``items`` evidence lines over ``text`` (offsets, a fifth of them as quotes that
    occur once), the first ``questions`` with a question made of some of the
    passage's words and some other words."""
    rng = random.Random(seed)
    lines: list[str] = []
    while len(lines) < items:
        start = rng.randrange(0, len(text) - 400)
        end = start + rng.randrange(20, 400)
        passage = text[start:end]
        if passage.isspace():
            continue
        item: dict[str, object] = {"id": f"e{len(lines)}", "start": start, "end": end}
        if len(lines) % 5 == 4 and text.count(passage) == 1:
            item = {"id": item["id"], "quote": passage}
        if len(lines) < questions:
            words = passage.split()
            asked = rng.sample(words, min(4, len(words))) + rng.sample(WORDS, 3)
            item["question"] = " ".join(asked) + "?"
        lines.append(json.dumps(item))
    return "\n".join(lines)


def evidence_rows(text: str, repeat: int) -> list[tuple[str, float, float]]:
    """(label, seconds, seconds of the containment-only anchor) per unit."""
    from pyapp.core import bm25, evidence, evidence_report, units
    from pyapp.core.chunking import _segment
    from pyapp.core.coverage import item_units
    from pyapp.core.evidence_report import check_evidence
    from pyapp.core.windows import spans
    from pyapp.planning.sweep import sweep_text

    lines = evidence_lines(text)
    rows: list[tuple[str, float, float]] = []
    for unit in ("word", "char", "token"):
        params = parse_params(unit=unit, size=512, overlap=64)
        warm_params = parse_params(unit=unit, size=512, overlap=96)

        def clear() -> None:
            for cached in (units._encode, _segment, bm25.term_index, evidence.parse_jsonl):
                cached.cache_clear()  # type: ignore[attr-defined]
            evidence_report._check.cache_clear()  # type: ignore[attr-defined]

        def cold(params: object = params) -> object:
            clear()
            return check_evidence(text, params, jsonl=lines, top_k=5)  # type: ignore[arg-type]

        def warm(params: object = warm_params) -> object:
            evidence_report._check.cache_clear()  # type: ignore[attr-defined]
            return check_evidence(text, params, jsonl=lines, top_k=5)  # type: ignore[arg-type]

        cold_seconds = timed(cold, repeat)
        report = check_evidence(text, params, jsonl=lines, top_k=5)
        assert len(report.items) == 1000 and report.retrieval.questions == 100
        warm_seconds = timed(warm, repeat)

        seg = _segment(text, unit, params.encoding, None)
        found = evidence.parse_jsonl(text, lines).items
        needed = item_units(text, seg, [(i.start, i.end) for i in found]).spans

        def containment_only(
            size: int, overlap: int, needed: list[tuple[int, int]] = needed
        ) -> int:
            """The anchor: every item against every window, containment only."""
            windows = spans(seg.count, size=size, overlap=overlap)  # noqa: B023
            whole = 0
            for a, b in needed:
                for start, end in windows:
                    if start <= a and b < end:
                        whole += 1
                        break
            return whole

        assert containment_only(512, 64) == report.whole
        anchor = timed(lambda: containment_only(512, 64), repeat)  # noqa: B023
        warm_anchor = timed(lambda: containment_only(512, 96), repeat)  # noqa: B023
        rows.append((f"{unit}: evidence check, cold (512/64)", cold_seconds, anchor))
        rows.append((f"{unit}: evidence check, warm (512/96)", warm_seconds, warm_anchor))

        sweep = sweep_text(text, unit=unit, size=512, overlap=64, evidence_jsonl=lines)
        settings = [(row["size"], row["overlap"]) for row in sweep.rows]
        sweep_seconds = timed(
            lambda: sweep_text(text, unit=unit, size=512, overlap=64, evidence_jsonl=lines),  # noqa: B023
            1,
        )
        sweep_anchor = timed(lambda: [containment_only(*s) for s in settings], 1)  # noqa: B023
        rows.append(
            (f"{unit}: sweep, {len(settings)} rows, with evidence", sweep_seconds, sweep_anchor)
        )
    return rows


def print_evidence(text: str, repeat: int, *, write: bool) -> None:
    rows = evidence_rows(text, repeat)
    print(
        f"evidence: 1,000 items (a fifth as quotes), 100 with a question, top-k 5; best of {repeat}"
    )
    print(f"{'measure':<48} {'seconds':>9} {'anchor s':>9} {'x anchor':>9}")
    for label, seconds, anchor in rows:
        print(f"{label:<48} {seconds:>9.3f} {anchor:>9.3f} {seconds / anchor:>9.1f}")
    print("anchor: a plain-Python loop over every item and window checking containment only")
    if write:
        write_results(rows, repeat)


RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTION = "<!-- bench_engine.py -->"


def write_results(rows: list[tuple[str, float, float]], repeat: int) -> None:
    """Replace (or add) this script's section at the end of RESULTS.md; the site
    benchmark rewrites the rest of the file and carries this section over."""
    import datetime
    import os
    import platform

    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        SECTION,
        "## Engine: evidence check (native)",
        "",
        "Written by `python bench/bench_engine.py --evidence-only --write`: best of"
        f" {repeat}, natively (CPython {platform.python_version()}, {os.cpu_count()} CPUs,"
        f" load average {os.getloadavg()[0]:.1f} when written), {when}. Text: the engine"
        " benchmark's 1,000,000 bytes of English; 1,000 evidence items (a fifth as"
        " quotes), 100 with a question; top-k 5. Cold: the text seen for the first time"
        " (segmenting, BM25 terms and quote search included); warm: another overlap of"
        " the same text; sweep: all its rows, once. Anchor (same run): a plain-Python"
        " loop over every item and every window that checks containment only (for the"
        " sweep, over every row's windows). Target: under 1 s for one setting, BM25"
        " included (the sweep has no target).",
        "",
        "| measure | seconds | containment-only anchor | ratio | under 1 s |",
        "|---|---|---|---|---|",
    ]
    for label, seconds, anchor in rows:
        met = "–" if "sweep" in label else "yes" if seconds < 1 else "no"
        lines.append(
            f"| {label} | {seconds:.3f} | {anchor:.3f} | {seconds / anchor:.1f}x | {met} |"
        )
    kept = RESULTS.read_text("utf-8") if RESULTS.exists() else ""
    head = kept[: kept.index(SECTION)].rstrip("\n") if SECTION in kept else kept.rstrip("\n")
    RESULTS.write_text(head + "\n\n" + "\n".join(lines) + "\n", "utf-8")
    print(f"written to {RESULTS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    parser.add_argument("--evidence-only", action="store_true", help="only the evidence-check rows")
    parser.add_argument(
        "--write", action="store_true", help="put the evidence rows into bench/RESULTS.md"
    )
    args = parser.parse_args()
    text = english(TARGET_BYTES)
    assert len(text.encode()) == TARGET_BYTES
    if args.evidence_only:
        print_evidence(text, args.repeat, write=args.write)
        return
    rows: list[tuple[str, float]] = []

    began = time.perf_counter()
    ranks = tokenizers.load_ranks("o200k_base")
    rows.append(("load o200k ranks (bundled, hash-checked)", time.perf_counter() - began))
    began = time.perf_counter()
    native = tokenizers.get_tokenizer("o200k_base", backend="tiktoken")
    rows.append(("build tiktoken.Encoding from them", time.perf_counter() - began))
    began = time.perf_counter()
    pure = tokenizers.get_tokenizer("o200k_base", backend="pure")
    rows.append(("build pure encoder from them", time.perf_counter() - began))
    del ranks

    anchor = timed(lambda: native.encode(text), args.repeat)
    rows.append(("tiktoken encode_ordinary (anchor)", anchor))
    rows.append(("pure encode, cold piece memo (heap merge)", timed(lambda: pure.encode(text), 1)))

    from pyapp.core import units

    for unit in ("word", "char", "token"):
        params = parse_params(unit=unit, size=512, overlap=64, caps=False)

        def export(params: object = params) -> str:
            units._encode.cache_clear()
            return dumps(chunk_text(text, params))  # type: ignore[arg-type]

        rows.append((f"{unit}: full export, no caps (512/64)", timed(export, args.repeat)))

        def view(unit: str = unit) -> str:
            units._encode.cache_clear()
            request = {"op": "chunk", "unit": unit, "size": 512, "overlap": 64, "text": text}
            return handle(json.dumps(request))

        rows.append((f"{unit}: page view via handle (capped)", timed(view, args.repeat)))

    def pure_token() -> str:
        units._encode.cache_clear()
        params = parse_params(unit="token", size=512, overlap=64, caps=False)
        return dumps(chunk_text(text, params, backend="pure"))

    rows.append(("token (pure backend): full export, no caps", timed(pure_token, 1)))
    one_piece = "a" * TARGET_BYTES
    rows.append(("1,000,000 x 'a', tiktoken encode", timed(lambda: native.encode(one_piece), 1)))
    rows.append(("1,000,000 x 'a', pure encode", timed(lambda: pure.encode(one_piece), 1)))

    encoding_rows = per_encoding(text)

    print(
        f"text: {TARGET_BYTES:,} bytes, {len(text.split()):,} words, "
        f"{len(native.encode(text)):,} o200k tokens; best of {args.repeat} unless one-shot"
    )
    print(f"{'measure':<48} {'seconds':>9} {'x tiktoken':>11}")
    for label, seconds in rows:
        print(f"{label:<48} {seconds:>9.3f} {seconds / anchor:>11.1f}")
    print()
    print(
        f"{'encoding':<18} {'first load':>10} {'reference':>10} {'pure cold':>10}"
        f" {'pure again':>10} {'x reference':>12}"
    )
    for name, load, reference_s, cold, again in encoding_rows:
        print(
            f"{name:<18} {load:>10.3f} {reference_s:>10.3f} {cold:>10.3f} {again:>10.3f}"
            f" {again / reference_s:>12.1f}"
        )
    print()
    print_evidence(text, args.repeat, write=args.write)


def per_encoding(text: str) -> list[tuple[str, float, float, float, float]]:
    """First load, reference encode, pure encode cold and again, per newer encoding."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engine"))
    from references import reference

    rows = []
    for name in ("bert-base-uncased", "llama3", "qwen2", "tekken"):
        tokenizers.get_tokenizer.cache_clear()
        tokenizers.load_ranks.cache_clear()
        began = time.perf_counter()
        pure = tokenizers.get_tokenizer(name, backend="pure")
        pure.encode("warm")
        load = time.perf_counter() - began
        ref = reference(name)
        reference_s = timed(lambda ref=ref: ref(text), 3)
        cold = timed(lambda pure=pure: pure.encode(text), 1)
        again = timed(lambda pure=pure: pure.encode(text), 3)
        assert pure.encode(text) == ref(text), name
        rows.append((name, load, reference_s, cold, again))
    return rows


if __name__ == "__main__":
    main()
