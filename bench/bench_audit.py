#!/usr/bin/env python3
"""The audit of another tool's chunks, natively, against that tool making them.

    .venv/bin/python bench/bench_audit.py [--repeat 3] [--kb 600]

LangChain's ``TokenTextSplitter`` (cl100k_base, 256 tokens, 32 of overlap,
``add_start_index``) and ``RecursiveCharacterTextSplitter`` (1,000 characters, 200 of
overlap) cut the same English text (the engine benchmark's, ``--kb`` kB; its chunk
file stays under the chunks-file limit); the anchor is that splitter's own
``create_documents`` in the same run. Timed, best of ``--repeat``: reading the file
and re-anchoring every chunk (``chunking_of_file``), and the whole audit document
with the all-MiniLM-L6-v2 lens and sizes in cl100k_base tokens (``audit_text`` then
``dumps``), each as a ratio to the anchor. Nothing is downloaded: the tiktoken
encoding is built from the engine's pinned ranks.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tiktoken  # noqa: E402
from bench_engine import english  # noqa: E402

from pyapp.core.audit import Measure, audit_document, audit_text, chunking_of_file, dumps  # noqa: E402
from pyapp.core.lens import parse_lens  # noqa: E402
from pyapp.core.tokenizers import PAT_STR, load_ranks  # noqa: E402


def best(repeat: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kb", type=int, default=600)
    args = parser.parse_args()
    encoding = tiktoken.Encoding(
        "cl100k_base", pat_str=PAT_STR["cl100k_base"],
        mergeable_ranks=load_ranks("cl100k_base"), special_tokens={},
    )  # fmt: skip
    tiktoken.get_encoding = lambda name: encoding  # LangChain asks tiktoken by name
    from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

    text = english(args.kb * 1000)
    splitters = {
        "TokenTextSplitter 256/32": TokenTextSplitter(
            encoding_name="cl100k_base", chunk_size=256, chunk_overlap=32, add_start_index=True
        ),
        "RecursiveCharacterTextSplitter 1000/200": RecursiveCharacterTextSplitter(
            chunk_size=1000, chunk_overlap=200, add_start_index=True
        ),
    }
    lens = parse_lens(model="all-MiniLM-L6-v2")
    measure = Measure(unit="token", encoding="cl100k_base")
    print(f"| splitter ({args.kb} kB) | chunks | its own run | re-anchor | × | whole audit | × |")
    print("|---|---|---|---|---|---|---|")
    for name, splitter in splitters.items():
        docs = splitter.create_documents([text])
        source = json.dumps([d.model_dump() for d in docs], ensure_ascii=False)
        anchor = best(args.repeat, lambda s=splitter: s.create_documents([text]))
        placed = best(args.repeat, lambda s=source: chunking_of_file(text, s))
        whole = best(
            args.repeat,
            lambda s=source: dumps(audit_document(audit_text(text, s, measure=measure, lens=lens))),
        )
        report = audit_text(text, source, measure=measure, lens=lens)
        print(
            f"| {name} | {len(docs):,} | {anchor * 1000:,.0f} ms | {placed * 1000:,.0f} ms"
            f" | {placed / anchor:.2f} | {whole * 1000:,.0f} ms | {whole / anchor:.2f} |"
        )
        print(f"|   {report.anchoring_sentence()} | | | | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
