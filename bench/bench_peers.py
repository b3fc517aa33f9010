#!/usr/bin/env python3
"""pyapp's chunker against its peers, natively, in one process and one run.

    .venv/bin/pip install langchain-text-splitters chonkie   # bench-only
    .venv/bin/python bench/bench_peers.py [--repeat 5] [--write]

Every chunker cuts the same texts into windows of 512 o200k_base tokens with 64 of
overlap, from the same tiktoken encoding (built from the same pinned ranks as the
engine's; nothing is downloaded). Per text and chunker it prints:

* **time** against bare tiktoken ``encode`` of the same text in the same run (best of
  ``--repeat``): pyapp's export (``chunk_text``, tokens_alone and the sentence check
  included), pyapp's export without the sentence check, pyapp's page view
  (``handle`` op ``chunk`` with ``"checks": false``, capped at 256 chunks as the page
  is), that view and then its ``checks`` call (the sentence check and the download's
  size, which the page asks for in the background), LangChain's
  ``TokenTextSplitter`` with and without ``add_start_index``, and Chonkie's
  ``TokenChunker``;
* **exact offsets**: chunks for which ``text[start:end] == chunk text``, per chunker
  that reports offsets (LangChain reports a start; the end is start + len);
* **U+FFFD**: chunks whose text holds a replacement character, i.e. a window cut
  inside a character that the chunker decoded lossily.

Texts: the real documents of :mod:`documents` (the Debian Reference in English,
Chinese and Japanese, GPL-2+, read from the Debian packages when installed: the same
texts as the tokenizer rows), 1 MB of English (the engine benchmark's), an
emoji-heavy text (a 4-byte character every few words, so windows cut inside
characters), and a repeated text (the same paragraph over and over, where offsets
recovered by ``str.find`` go wrong).
``--section recursive`` times instead the recursive splitter against LangChain's own
``RecursiveCharacterTextSplitter.split_text`` with the same settings, on the same
texts: in characters (1,000 with 200 of overlap) and in o200k_base tokens (512 with
64) against ``from_tiktoken_encoder``; each row checks that the chunk lists are equal.
The anchor is LangChain's time in the same run.

``--write`` replaces the section of bench/RESULTS.md (between its markers).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tiktoken  # noqa: E402
from bench_engine import english  # noqa: E402
from documents import SOURCE, real_documents  # noqa: E402
from results import put_section  # noqa: E402

from pyapp.core import tokenizers  # noqa: E402
from pyapp.core.cache import forget_texts  # noqa: E402
from pyapp.core.chunking import chunk_text  # noqa: E402
from pyapp.core.params import parse_params  # noqa: E402
from pyapp.core.units import _last_encoded  # noqa: E402
from pyapp.web.api import handle  # noqa: E402

SIZE, OVERLAP, ENCODING = 512, 64, "o200k_base"

Chunks = list[tuple[str, int | None, int | None]]  # (text, start, end); None: not reported


def the_encoding() -> tiktoken.Encoding:
    """tiktoken's o200k_base from the engine's pinned ranks (get_encoding would download)."""
    return tiktoken.Encoding(
        ENCODING,
        pat_str=tokenizers.PAT_STR[ENCODING],
        mergeable_ranks=tokenizers.load_ranks(ENCODING),
        special_tokens=tokenizers.SPECIAL_TOKENS[ENCODING],
    )


def texts() -> dict[str, str]:
    base = english(990_000)
    words = base.split(" ")
    emoji = " ".join(w + ("🦜" if i % 5 == 0 else "") for i, w in enumerate(words[:120_000]))
    paragraph = (
        "Overlap repeats the end of one chunk at the start of the next. "
        "A sentence cut by one window is found whole in the next one. "
    )
    real = {f"{name} (Debian Reference)": text for name, text in real_documents().items()}
    return {
        **real,
        "English, 1 MB": base,
        "emoji every fifth word": emoji[:900_000],
        "one paragraph, repeated": (paragraph * 8000)[:900_000],
    }


def fresh(text: str, n: int) -> str:
    """The text with a different last character each run: no per-text cache helps."""
    return text[:-1] + "abcdefghij"[n % 10]


def seen_first(text: str) -> None:
    """Forget every text: the engine meets ``text`` for the first time."""
    forget_texts()
    _last_encoded.clear()  # nor does it re-encode around an edit of the last text


def pyapp_export(text: str, *, boundaries: bool) -> Chunks:
    seen_first(text)
    params = parse_params(unit="token", size=SIZE, overlap=OVERLAP, caps=False)
    report = chunk_text(text, params, boundaries=boundaries)
    return [(c.text, c.char_start, c.char_end) for c in report.chunks]


REQUEST = {"unit": "token", "size": SIZE, "overlap": OVERLAP}


def pyapp_view(text: str) -> Chunks:
    """The call the page makes at each edit: the view, its checks left for later."""
    seen_first(text)
    answer = json.loads(
        handle(json.dumps({"op": "chunk", "text": text, "checks": False, **REQUEST}))
    )
    assert answer["ok"], answer
    return []  # capped on these texts: the page's view holds no chunk texts


def pyapp_view_then_checks(text: str) -> Chunks:
    """The view, then the checks call the page makes after it (the sentence check and the
    download's size), as the page makes them: the same text, one after the other."""
    pyapp_view(text)
    answer = json.loads(handle(json.dumps({"op": "checks", "text": text, **REQUEST})))
    assert answer["ok"], answer
    return []


def peers(encoding: tiktoken.Encoding) -> dict[str, Callable[[str], Chunks]]:
    from chonkie import TokenChunker
    from langchain_text_splitters import TokenTextSplitter

    tiktoken.get_encoding = lambda name: encoding  # LangChain asks tiktoken by name

    with_start = TokenTextSplitter(
        encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP, add_start_index=True
    )
    without_start = TokenTextSplitter(
        encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP
    )
    chonkie = TokenChunker(tokenizer=encoding, chunk_size=SIZE, chunk_overlap=OVERLAP)

    def langchain_start(text: str) -> Chunks:
        out: Chunks = []
        for doc in with_start.create_documents([text]):
            start = doc.metadata.get("start_index", -1)
            out.append((doc.page_content, start, start + len(doc.page_content)))
        return out

    def langchain_plain(text: str) -> Chunks:
        return [(piece, None, None) for piece in without_start.split_text(text)]

    def chonkie_chunks(text: str) -> Chunks:
        return [(c.text, c.start_index, c.end_index) for c in chonkie.chunk(text)]

    return {
        "LangChain TokenTextSplitter, add_start_index": langchain_start,
        "LangChain TokenTextSplitter": langchain_plain,
        "Chonkie TokenChunker": chonkie_chunks,
    }


def timed(fn: Callable[[str], Any], text: str, repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for n in range(repeat):
        variant = fresh(text, n)
        began = time.perf_counter()
        result = fn(variant)
        best = min(best, time.perf_counter() - began)
    return best, result


def check(text: str, chunks: Chunks) -> tuple[str, int]:
    """("exact / with offsets" or "–", chunks holding U+FFFD)."""
    with_offsets = [(t, s, e) for t, s, e in chunks if s is not None]
    replacement = sum("\ufffd" in t for t, _, _ in chunks)
    if not with_offsets:
        return "–", replacement
    exact = sum(s is not None and s >= 0 and text[s:e] == t for t, s, e in with_offsets)
    return f"{exact:,} / {len(with_offsets):,}", replacement


def recursive_table(encoding: tiktoken.Encoding, repeat: int) -> str:
    """The recursive splitter against LangChain's, one row per text and length unit."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from pyapp.core.recursive import split
    from pyapp.core.tokenizers import get_tokenizer

    tiktoken.get_encoding = lambda name: encoding  # LangChain asks tiktoken by name
    count = get_tokenizer(ENCODING).count
    settings = {
        "characters, 1,000 / 200": (
            RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200),
            lambda t: split(t, size=1000, overlap=200),
        ),
        "o200k_base tokens, 512 / 64 (from_tiktoken_encoder)": (
            RecursiveCharacterTextSplitter.from_tiktoken_encoder(
                encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP
            ),
            lambda t: split(t, size=SIZE, overlap=OVERLAP, length=count),
        ),
    }
    rows = []
    for name, text in texts().items():
        for label, (theirs, ours) in settings.items():
            lc_time, lc_chunks = timed(theirs.split_text, text, repeat)
            our_time, _ = timed(ours, text, repeat)
            same = [text[a:b] for a, b in ours(text)] == theirs.split_text(text)
            rows.append(
                f"| {name} | {label} | {lc_time * 1000:,.0f} ms | {our_time * 1000:,.0f} ms"
                f" | {our_time / lc_time:.2f}× | {len(lc_chunks):,} | {'yes' if same else 'NO'} |"
            )
    return "\n".join(
        [
            f"| text | length unit, size / overlap | LangChain split_text (best of {repeat})"
            " | pyapp recursive split | × LangChain | chunks | equal lists |",
            "|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS.md")
    parser.add_argument("--section", choices=("peers", "recursive"), default="peers")
    args = parser.parse_args()
    encoding = the_encoding()
    if args.section == "recursive":
        table = recursive_table(encoding, args.repeat)
        print(table)
        if args.write:
            write(
                table, args.repeat, name="bench_peers recursive",
                title="## The recursive splitter against LangChain's (native)",
                what="LangChain's RecursiveCharacterTextSplitter and pyapp's recursive splitter"
                " with the same settings, one tiktoken encoding for both.",
            )  # fmt: skip
        return
    encoding.encode_ordinary("warm")
    tokenizers.get_tokenizer(ENCODING).encode("warm")
    rows: list[str] = []
    chunkers: dict[str, Callable[[str], Chunks]] = {
        "pyapp export (tokens_alone, sentence check)": lambda t: pyapp_export(t, boundaries=True),
        "pyapp export without the sentence check": lambda t: pyapp_export(t, boundaries=False),
        "pyapp page view (the chunk op, capped; its checks follow)": pyapp_view,
        "pyapp page view, then its checks (in the background)": pyapp_view_then_checks,
        **peers(encoding),
    }
    for name, text in texts().items():
        anchor, _ = timed(encoding.encode_ordinary, text, args.repeat)
        tokens = len(encoding.encode_ordinary(text))
        rows.append(f"| **{name}** ({len(text.encode()):,} bytes, {tokens:,} tokens) "
                    f"| bare tiktoken encode {anchor * 1000:,.0f} ms | 1.00× | | |")  # fmt: skip
        for label, chunker in chunkers.items():
            seconds, _ = timed(chunker, text, args.repeat)
            exact, replacement = check(text, chunker(text))
            rows.append(
                f"| {label} | {seconds * 1000:,.0f} ms | {seconds / anchor:.2f}× "
                f"| {exact} | {replacement:,} |"
            )
    header = f"| chunker | time (best of {args.repeat}) | × bare tiktoken | exact offsets"
    table = "\n".join(
        [
            header + " | chunks with U+FFFD |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )  # fmt: skip
    print(table)
    if args.write:
        write(table, args.repeat)


def write(
    table: str,
    repeat: int,
    *,
    name: str = "bench_peers",
    title: str = "## The chunker against its peers (native)",
    what: str = "windows of 512 o200k_base tokens with 64 of overlap, one tiktoken encoding"
    " for every chunker.",
) -> None:
    import os

    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    section = "\n".join(
        [
            title,
            "",
            f"Written by `python bench/bench_peers.py --write`: {when}, CPython"
            f" {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} when"
            f" written; every time the best of {repeat}, each text changed in its last"
            f" character between runs so no cache helps; {what}",
            *(
                [f"Real texts: {SOURCE}, each cut to its first 1,000,000 bytes."]
                if real_documents()
                else []
            ),
            "",
            table,
        ]
    )
    put_section(name, section)


if __name__ == "__main__":
    main()
