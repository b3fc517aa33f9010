"""The sweep's dense columns: each row equals a separate evidence check of its setting,
the embeddings are shared across settings through the cache, and a cancelled sweep
keeps what it embedded, so the rerun embeds only the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyapp.core.dense import BATCH, Cancelled, embed_texts, plan
from pyapp.core.evidence_export import document
from pyapp.core.evidence_report import Vectors, check_evidence, dense_texts
from pyapp.core.params import parse_params
from pyapp.embedder import DirStore, LazyEmbedder
from pyapp.planning.sweep import grid, sweep_dense_texts, sweep_text

TEXT = (
    "The harbour opened in 1820. Ships brought tea and cloth from the east. "
    "A fire burned the customs house in 1901; it was rebuilt in stone. "
    "Today the harbour serves ferries and a small fishing fleet."
)
LINES = "\n".join(
    json.dumps({"id": i, "quote": q, "question": question})
    for i, (q, question) in enumerate(
        [
            ("A fire burned the customs house", "What happened to the customs house?"),
            ("serves ferries", "What uses the harbour now?"),
        ]
    )
)
SETTING = {"unit": "word", "size": 8, "overlap": 2}


def test_every_dense_row_equals_a_separate_evidence_check(tmp_path: Path) -> None:
    texts = sweep_dense_texts(TEXT, **SETTING, evidence_jsonl=LINES)
    params = parse_params(**SETTING)
    settings = grid(params)
    # Each setting's chunks and both questions, each distinct text once.
    every = {
        t
        for _, size, overlap in settings
        for t in dense_texts(
            TEXT, parse_params(unit="word", size=size, overlap=overlap), jsonl=LINES
        )
    }
    assert set(texts) == every and len(texts) == len(every)
    vectors = Vectors(embed_texts(texts, LazyEmbedder(), DirStore(tmp_path)))
    result = sweep_text(TEXT, **SETTING, evidence_jsonl=LINES, top_k=2, vectors=vectors)
    assert len(result.rows) == len(settings)
    for row in result.rows:
        alone = check_evidence(
            TEXT,
            parse_params(unit="word", size=row["size"], overlap=row["overlap"]),
            jsonl=LINES, top_k=2, retriever="minilm", vectors=vectors,
        )  # fmt: skip
        dense = document(alone)["dense_retrieval"]
        assert row["dense_recall_at_k"] == dense["recall_at_k"]
        assert row["dense_iou"] == dense["range_metrics"]["iou"]["mean"]
    # The cache serves every setting on a second sweep: no model call at all.
    again = LazyEmbedder()
    assert embed_texts(texts, again, DirStore(tmp_path)) == vectors.vectors
    assert again.calls == 0


RECURSIVE = [
    {"splitter": "recursive", "unit": "char", "size": 60, "overlap": 15},
    {"splitter": "recursive", "unit": "token", "encoding": "bert-base-uncased", "size": 14,
     "overlap": 4, "separators_preset": "markdown"},
]  # fmt: skip


@pytest.mark.parametrize("setting", RECURSIVE, ids=["char", "token"])
def test_the_recursive_splitters_dense_rows_equal_separate_evidence_checks(
    tmp_path: Path, setting: dict[str, object]
) -> None:
    texts = sweep_dense_texts(TEXT, **setting, evidence_jsonl=LINES)
    settings = grid(parse_params(**setting))
    every = {
        t
        for _, size, overlap in settings
        for t in dense_texts(
            TEXT, parse_params(**{**setting, "size": size, "overlap": overlap}), jsonl=LINES
        )  # fmt: skip
    }
    assert set(texts) == every and len(texts) == len(every)
    # The splitter's own chunks: not the fixed window's texts at the same settings.
    fixed = {k: v for k, v in setting.items() if k not in ("splitter", "separators_preset")}
    assert every != set(sweep_dense_texts(TEXT, **fixed, evidence_jsonl=LINES))
    vectors = Vectors(embed_texts(texts, LazyEmbedder(), DirStore(tmp_path)))
    result = sweep_text(TEXT, **setting, evidence_jsonl=LINES, top_k=2, vectors=vectors)
    assert len(result.rows) == len(settings)
    recalls = set()
    for row in result.rows:
        at = parse_params(**{**setting, "size": row["size"], "overlap": row["overlap"]})
        alone = document(
            check_evidence(TEXT, at, jsonl=LINES, top_k=2, retriever="minilm", vectors=vectors)
        )["dense_retrieval"]
        assert row["dense_recall_at_k"] == alone["recall_at_k"]
        assert row["dense_iou"] == alone["range_metrics"]["iou"]["mean"]
        recalls.add(row["dense_iou"])
    assert len(recalls) > 1  # the settings differ, and so do their figures


def test_a_cancelled_sweep_keeps_what_it_embedded_and_the_rerun_does_the_rest(
    tmp_path: Path,
) -> None:
    texts = sweep_dense_texts(TEXT, **SETTING, evidence_jsonl=LINES)
    store = DirStore(tmp_path)
    first = LazyEmbedder()
    seen: list[tuple[int, int]] = []
    with pytest.raises(Cancelled) as stopped:
        embed_texts(
            texts, first, store, progress=lambda d, t: seen.append((d, t)),
            cancelled=lambda: first.calls >= 2,
        )  # fmt: skip
    assert first.calls == 2 and stopped.value.total == len(texts)
    assert seen[-1][0] == stopped.value.done == first.rows <= 2 * BATCH
    kept = len(list((tmp_path / store.root.name).glob("*/*.f64")))
    assert kept == first.rows
    before = plan(texts, store)
    assert len(before.held) == first.rows and len(before.missing) == len(texts) - first.rows
    rest = LazyEmbedder()
    embed_texts(texts, rest, store)
    assert rest.rows == len(texts) - first.rows


def test_the_dense_columns_need_evidence() -> None:
    with pytest.raises(ValueError, match="need evidence"):
        sweep_text(TEXT, **SETTING, vectors=Vectors({}))
