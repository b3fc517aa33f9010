#!/usr/bin/env python3
"""The pure tokenizer (what the page runs in Pyodide), natively, against each
encoding's reference library on the same text in the same run.

    python bench/bench_tokenizers.py [--repeat 7] [--write] [--only o200k_base,...]

Texts: the real documents of :mod:`documents` (Debian Reference in English, Chinese
and Japanese), five repetitive shapes of 1,000,000 bytes, each one piece for the
pre-tokenizers, and a megabyte of distinct code points (every scalar value once,
from U+0000: each character new to the memos). Per encoding and text: the
reference's encode and the pure path's encode with every memo empty (a fresh
tokenizer each time: the page meets a text once, later settings reuse the result),
run in turn ``--repeat`` times (which goes
first alternates) so that both see the same moments of a shared machine; each the
median of its runs (the best of a few reads the machine's quietest moment, which one
side may get and the other not), and the ratio of the medians.
The ids are checked equal. References: tiktoken (o200k_base, cl100k_base, and
llama3 and qwen2 with their patterns, qwen2 after the Rust NFC), mistral-common
(tekken), Hugging Face ``tokenizers`` (bert-base-uncased). tiktoken's regex
overflows its stack on a megabyte of spaces, so that row's reference is tiktoken's
merge of the one piece (``_encode_single_piece``), the pre-tokenizer skipped.

Targets: at most 3x on the real documents, 5x on the shapes; the distinct code
points are reported, and held to the page's 2 s in Pyodide. ``python build.py
bench`` runs it after the site benchmark; ``--write`` replaces its section of
bench/RESULTS.md.

The same texts in the page's runtime (``--pyodide``, on by default when ``dist/`` is
built): the built site's Pyodide booted in Node with the site's wheels
(``bench/pyodide_tokenizers.mjs``, which runs ``bench/pyodide_rows.py`` there), the
pure tokenizer with every memo empty on each text in every encoding, once: CPU
seconds of that process against the target of 2 s for any 1 MB text, and its wall
time beside them (which also counts the other jobs of a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from operator import truediv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from bench_engine import timed  # noqa: E402
from documents import DISTINCT, INSTALL, LIMIT, SOURCE, distinct, real_documents, shapes  # noqa: E402
from machine import machine  # noqa: E402
from results import put_section  # noqa: E402

from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.tokenizers._pretokenize import pieces  # noqa: E402

ENCODINGS = ("o200k_base", "cl100k_base", "llama3", "qwen2", "tekken", "bert-base-uncased")
REAL_TARGET, SHAPE_TARGET = 3.0, 5.0
#: Seconds the page may take for any 1 MB text in any encoding.
PAGE_TARGET = 2.0
DIST = ROOT / "dist"

Encode = Callable[[str], list[int]]
#: CPU time of this process: on a shared machine it moves far less than wall time
#: (the references and the pure path all run on one thread here).
CLOCK = time.process_time


def best(fn: Callable[[], object], repeat: int) -> float:
    return timed(fn, repeat, clock=CLOCK)


#: (encoding, text, bytes, reference label, reference s, pure s, target)
Row = tuple[str, str, int, str, float, float, float | None]


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


def junction_costs(only: tuple[str, ...]) -> dict[str, float]:
    """CPU seconds to build each BPE vocabulary's junction table (``_bpe.Junctions``)
    and to compile its pre-tokenizer's pattern over code points, which the first text
    with a character outside ASCII pays, once per encoding; the rows above reuse
    them, as the page does after that text."""
    from pyapp.core.tokenizers._bpe import Junctions
    from pyapp.core.tokenizers._pretokenize import Pretokenizer

    out = {}
    for name in only:
        if name != "bert-base-uncased":
            ranks = tokenizers.load_ranks(name)
            re.purge()  # re's own cache would hand back the rows' compiled pattern
            began = CLOCK()
            Junctions(ranks)
            Pretokenizer(name).bmp_regex  # noqa: B018 (compiled on first use)
            out[name] = CLOCK() - began
    return out


def rows(repeat: int, only: tuple[str, ...]) -> tuple[list[Row], dict[str, int]]:
    documents = real_documents()
    if not documents:
        print(f"no real documents: {INSTALL}", file=sys.stderr)
    texts = {
        **{f"{k} (Debian Reference)": v for k, v in documents.items()},
        **shapes(),
        **distinct(),
    }
    sizes = {name: len(text.encode()) for name, text in texts.items()}
    out: list[Row] = []
    for name in only:
        fresh_pure(name)("warm")  # vocabulary read and tables built: not timed
        for label, text in texts.items():
            ref_label, ref = reference(name, text)
            expected = ref(text)
            # Interleaved, so that both see the same moments of a shared machine, which
            # goes first alternating; the median of each (steadier than the best).
            ref_runs: list[float] = []
            pure_runs: list[float] = []
            for round_ in range(repeat):
                encode = fresh_pure(name)
                for side in (0, 1) if round_ % 2 else (1, 0):
                    began = CLOCK()
                    if side:
                        ref(text)
                        ref_runs.append(CLOCK() - began)
                    else:
                        got = encode(text)
                        pure_runs.append(CLOCK() - began)
                        assert got == expected, f"{name} on {label}: the pure ids differ"
            ref_s, pure_s = statistics.median(ref_runs), statistics.median(pure_runs)
            ratios = sorted(map(truediv, pure_runs, ref_runs))
            target = (
                None
                if label == DISTINCT
                else SHAPE_TARGET
                if label.startswith("1 MB")
                else REAL_TARGET
            )
            out.append((name, label, sizes[label], ref_label, ref_s, pure_s, target))
            print(
                f"{name:<18} {label:<30} ref {ref_s:7.3f} s  pure {pure_s:7.3f} s"
                f"  {pure_s / ref_s:5.2f}x (rounds {ratios[0]:.2f}-{ratios[-1]:.2f})",
                flush=True,
            )
    return out, sizes


#: (encoding, text, median s of an edit, the same edit encoded whole, anchor s)
EditRow = tuple[str, str, float, float, float]
EDITS = 7


def edit_rows(only: tuple[str, ...]) -> list[EditRow]:
    """The engine's side of typing into a held megabyte in token mode, as the page
    calls it: each edited text held by the ``text`` op, then the view (``chunk``,
    checks left for later) by its ``text_ref``, on the pure backend; the median over
    :data:`EDITS` one-character edits spread over the text. Beside it, the same edit
    with nothing to splice from (encoded whole), and the anchor: tiktoken encoding
    the whole text in the same run."""
    import json
    import statistics

    from references import reference as library

    from pyapp.core import units
    from pyapp.core.cache import forget_texts
    from pyapp.web import api

    tokenizers.default_backend = lambda: "pure"  # what Pyodide runs
    out: list[EditRow] = []
    for label, whole_text in real_documents().items():
        # Room for the edits under the byte limit (the Japanese text is a full megabyte).
        text = whole_text.encode()[: LIMIT - 64].decode("utf-8", errors="ignore")
        for name in only:
            if name not in ("o200k_base", "bert-base-uncased") and label != "English":
                continue  # the CJK rows for one BPE encoding and WordPiece are enough
            view = {"op": "chunk", "unit": "token", "encoding": name, "size": 512}
            view |= {"overlap": "15%", "checks": False}

            def ask(request: dict[str, object]) -> None:
                answer = json.loads(api.handle(json.dumps(request, ensure_ascii=False)))
                assert answer["ok"], answer

            forget_texts()
            units._last_encoded.clear()
            ask({"op": "text", "ref": "e0", "text": text})
            ask({**view, "text_ref": "e0"})
            edited, spliced, whole = text, [], []
            for k in range(1, EDITS + 1):
                at = len(edited) * k // (EDITS + 1)
                edited = edited[:at] + "x" + edited[at:]
                began = CLOCK()
                ask({"op": "text", "ref": f"e{k}", "text": edited})
                ask({**view, "text_ref": f"e{k}"})
                spliced.append(CLOCK() - began)
            for k in range(EDITS):
                units._last_encoded.clear()  # nothing to splice from
                again = edited[: k + 1] + "y" + edited[k + 1 :]
                began = CLOCK()
                ask({"op": "text", "ref": f"w{k}", "text": again})
                ask({**view, "text_ref": f"w{k}"})
                whole.append(CLOCK() - began)
            ref = library(name)
            anchor = best(lambda ref=ref, text=text: ref(text), 3)  # type: ignore[misc]
            row = (name, label, statistics.median(spliced), statistics.median(whole), anchor)
            out.append(row)
            print(f"edit {name:<18} {label:<9} {row[2]:7.3f} s (whole {row[3]:.3f} s)"
                  f" anchor {anchor:.3f} s", flush=True)  # fmt: skip
    return out


#: (encoding, text, bytes, CPU s in Pyodide, wall s in Pyodide)
PageRow = tuple[str, str, int, float, float]


def pyodide_rows(only: tuple[str, ...]) -> list[PageRow]:
    """Every text of :func:`rows` in every encoding, once each, in the site's Pyodide
    (Node): see the module docstring. Token counts are checked against the native
    pure path's."""
    documents = real_documents()
    texts = {
        **{f"{k} (Debian Reference)": v for k, v in documents.items()},
        **shapes(),
        **distinct(),
    }
    with tempfile.TemporaryDirectory() as folder:
        names = {}
        for k, (label, text) in enumerate(texts.items()):
            names[f"text{k}"] = label
            Path(folder, f"text{k}.txt").write_bytes(text.encode())  # byte for byte
        config = {"encodings": list(only), "repeat": 1}
        Path(folder, "config.json").write_text(json.dumps(config), "utf-8")
        command = ["node", str(ROOT / "bench" / "pyodide_tokenizers.mjs"), str(DIST / "pyodide")]
        command += [str(DIST / "packages"), folder, str(ROOT / "bench" / "pyodide_rows.py")]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the Pyodide run failed:\n{done.stderr[-4000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    out: list[PageRow] = []
    for name in only:
        encode = fresh_pure(name)
        for key, label in names.items():
            row = got[name][key]
            text = texts[label]
            assert row["tokens"] == len(encode(text)), f"{name} on {label}: counts differ"
            out.append((name, label, len(text.encode()), row["cpu"][0], row["wall"][0]))
            print(f"page {name:<18} {label:<30} cpu {row['cpu'][0]:7.3f} s"
                  f"  wall {row['wall'][0]:7.3f} s", flush=True)  # fmt: skip
    return out


def page_table(found: list[PageRow]) -> list[str]:
    lines = [
        "| encoding | text | CPU in Pyodide | wall (shared machine) | target | met |",
        "|---|---|---|---|---|---|",
    ]
    for name, label, _, cpu, wall in found:
        lines.append(
            f"| {name} | {label} | {cpu * 1000:,.0f} ms | {wall * 1000:,.0f} ms"
            f" | ≤ {PAGE_TARGET:g} s | {'yes' if cpu <= PAGE_TARGET else 'no'} |"
        )
    return lines


def edit_table(found: list[EditRow]) -> list[str]:
    lines = [
        "| encoding | 1 MB text | an edit: text op + view, median | the same edit encoded whole"
        " | anchor: reference encode of the text | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for name, label, spliced, whole, anchor in found:
        lines.append(
            f"| {name} | {label} | {spliced * 1000:,.0f} ms | {whole * 1000:,.0f} ms"
            f" | {anchor * 1000:,.0f} ms | {spliced / anchor:.2f}x |"
        )
    return lines


def table(found: list[Row]) -> list[str]:
    lines = [
        "| encoding | text | reference (same run) | pure, memos empty | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, label, _, ref_label, ref_s, pure_s, target in found:
        ratio = pure_s / ref_s
        goal, met = (
            ("–", "–") if target is None else (f"≤ {target:g}x", "yes" if ratio <= target else "no")
        )
        lines.append(
            f"| {name} | {label} | {ref_s * 1000:,.0f} ms ({ref_label}) | {pure_s * 1000:,.0f} ms"
            f" | {ratio:.2f}x | {goal} | {met} |"
        )
    return lines


def write(
    found: list[Row],
    edits: list[EditRow],
    page: list[PageRow],
    junction: dict[str, float],
    sizes: dict[str, int],
    repeat: int,
    took: float,
) -> None:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    described = ", ".join(f"{name} {size:,} bytes" for name, size in sizes.items())
    section = "\n".join(
        [
            "## The pure tokenizer against the reference libraries (native)",
            "",
            f"Written by `python bench/bench_tokenizers.py --write` (run by `python build.py"
            f" bench`): {when}, CPython {platform.python_version()}; {machine()}; load"
            f" average {os.getloadavg()[0]:.1f} at the end (the machine is shared). Took"
            f" {took:.0f} s. Every time the median of {repeat} runs, in CPU seconds of the process"
            " (one thread; on this shared machine wall time moves with the others' jobs); the"
            " pure path with every memo empty (a fresh tokenizer each time), run in turn with"
            " the reference (which goes first alternating), the ratio of the two medians; ids"
            " checked equal to the reference's.",
            "",
            f"- Real text: {SOURCE}, read at bench time, each cut to its first 1,000,000"
            f" bytes. Texts: {described}.",
            "- The shapes are one piece each; tiktoken's regex overflows its stack on the"
            " megabyte of spaces, so that row's reference is tiktoken's merge of the piece.",
            f"- {DISTINCT}: every Unicode scalar value once, in order, cut to a megabyte:"
            " every character is new to the memos, so each is merged (or normalized) on its"
            " own. No target natively; in the page it is held to the 2 s of any 1 MB text.",
            "- Once per encoding, the first text with a character outside ASCII also builds"
            " the vocabulary's junction table (where no token crosses between two characters)"
            " and compiles the pre-tokenizer's pattern over code points, which the rows reuse: "
            + ", ".join(f"{name} {seconds * 1000:,.0f} ms" for name, seconds in junction.items())
            + " (CPU, natively).",
            "",
            *table(found),
            "",
            "### Typing into a held megabyte, token mode: the engine's side (native, pure backend)",
            "",
            f"{EDITS} one-character edits spread over the text, each held by the `text` op and"
            " viewed by its `text_ref` (`chunk`, 512 tokens, 15% overlap, checks left for"
            " later) as the page calls `handle`; the pure backend, as in Pyodide. Beside it"
            " the same edit with nothing to splice from (the whole text encoded again); the"
            " anchor is the reference library encoding the whole text in the same run. The"
            " page's own row (keystroke to figures on screen) is row 9 of the site table."
            " CPU seconds, as above.",
            "",
            *edit_table(edits),
            "",
            "### The same texts in the page's runtime (Pyodide)",
            "",
            "The built site's Pyodide booted in Node with the site's wheels"
            " (`bench/pyodide_tokenizers.mjs`): the pure tokenizer, every memo empty, once"
            " per text and encoding, the vocabulary already read; token counts checked equal"
            " to the native run's. CPU seconds of that process (Node's `process.cpuUsage()`)"
            " against the page's target of 2 s for any 1 MB text; the wall time beside them"
            f" counts the other jobs of this shared machine too (load average"
            f" {os.getloadavg()[0]:.1f} when written).",
            "",
            *(page_table(page) if page else ["Not measured in this run (`dist/` not built)."]),
        ]
    )
    put_section("bench_tokenizers", section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--repeat", type=int, default=7, help="interleaved runs, median of N (default 7)"
    )
    parser.add_argument("--write", action="store_true", help="replace the section of RESULTS.md")
    parser.add_argument("--only", default=",".join(ENCODINGS), help="comma-separated encodings")
    parser.add_argument("--edits-only", action="store_true", help="only the typing rows")
    parser.add_argument(
        "--pyodide",
        action=argparse.BooleanOptionalAction,
        default=(DIST / "pyodide").is_dir(),
        help="also the rows in the site's Pyodide (default: when dist/ is built)",
    )
    parser.add_argument("--pyodide-only", action="store_true", help="only the Pyodide rows")
    args = parser.parse_args()
    if args.write and not real_documents():
        # Its section would lose the real-text rows its targets are set on.
        print(f"bench_tokenizers: --write needs the real documents: {INSTALL}", file=sys.stderr)
        raise SystemExit(2)
    began = time.perf_counter()
    only = tuple(args.only.split(","))
    skip = args.edits_only or args.pyodide_only
    found, sizes = rows(args.repeat, only) if not skip else ([], {})
    edits = edit_rows(only) if not args.pyodide_only else []
    page = pyodide_rows(only) if args.pyodide or args.pyodide_only else []
    junction = junction_costs(only)
    for line in [*table(found), "", *edit_table(edits), "", *page_table(page)]:
        print(line)
    if args.write:
        write(found, edits, page, junction, sizes, args.repeat, time.perf_counter() - began)


if __name__ == "__main__":
    main()
