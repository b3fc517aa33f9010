"""Corpus: every document counted exactly, streamed, errors listed, both cores used."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.planning.corpus import count_corpus, iter_batches, nearest_rank

DOCS = {
    "a.txt": "Hello world. Again and again, the same words.",
    "sub/b.md": "# Title\n\nSome body text here, with 日本語 and 🦜.",
    "sub/deeper/c.txt": "",
    "sub/deeper/d.txt": "word " * 40,
}
JSONL_DOCS = ["one two three four five", "Zwölf Wörter\r\nund mehr"]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    for name, text in DOCS.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    lines = [json.dumps({"text": t, "id": i}) for i, t in enumerate(JSONL_DOCS)]
    lines[1:1] = ["", "not json", '{"id": 7}', '["text"]']
    (tmp_path / "sub" / "e.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 au lait")
    (tmp_path / "ignored.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return tmp_path


def every_document() -> list[str]:
    return [*DOCS.values(), *JSONL_DOCS]


def expected(unit: str, size: int, overlap: int) -> dict[str, int]:
    """Totals from a separate chunk run per document (chunk lists built, caps off)."""
    totals = {"documents": 0, "units": 0, "chunks": 0, "processed_units": 0, "nominal": 0}
    params = parse_params(unit=unit, size=size, overlap=overlap, caps=False)
    for text in every_document():
        report = chunk_text(text, params)
        totals["documents"] += 1
        totals["units"] += report.summary.units
        totals["chunks"] += len(report.chunks)
        totals["processed_units"] += sum(c.end - c.start for c in report.chunks)
        totals["nominal"] += len(report.chunks) * min(size, report.summary.units)
    return totals


@pytest.mark.parametrize("unit", ["token", "word", "char"])
def test_corpus_totals_equal_the_sum_of_separate_runs_per_document(corpus: Path, unit: str) -> None:
    params = parse_params(unit=unit, size=4, overlap=1, tokens_per_unit=1)
    doc = count_corpus([str(corpus)], params, workers=1).to_json(params)
    want = expected(unit, 4, 1)
    assert doc["documents"] == want["documents"] == 6
    assert doc["units"] == want["units"]
    assert doc["chunks"] == want["chunks"]
    assert doc["processed_units"] == doc["stored_tokens_actual"] == want["processed_units"]
    assert doc["repeated_units"] == want["processed_units"] - want["units"]
    assert doc["stored_tokens_nominal"] == want["nominal"]
    assert doc["estimated_cost"] == pytest.approx(want["processed_units"] / 1e6)


def test_unreadable_files_and_lines_are_listed_with_the_reason_and_the_rest_counts(
    corpus: Path,
) -> None:
    params = parse_params(unit="token", size=4)
    doc = count_corpus([str(corpus), str(corpus / "missing.txt")], params, workers=1).to_json(
        params
    )
    assert doc["documents"] == 6
    reasons = {(Path(e["path"]).name, e["line"]): e["reason"] for e in doc["errors"]}
    assert reasons == {
        ("bad.txt", None): "not UTF-8 (byte 0xe9 at offset 3): convert it to UTF-8",
        ("e.jsonl", 3): "not JSON (Expecting value: line 1 column 1 (char 0))",
        ("e.jsonl", 4): 'no string field "text"',
        ("e.jsonl", 5): 'no string field "text"',
        ("missing.txt", None): "no such file or folder",
    }
    assert doc["errors_total"] == 5


def test_folders_hold_only_txt_md_and_jsonl_but_a_named_file_is_read_as_text(
    corpus: Path,
) -> None:
    params = parse_params(unit="word", size=4)
    named = count_corpus([str(corpus / "ignored.csv")], params, workers=1)
    assert (named.documents, named.units) == (1, 2)


def test_chunks_per_document_spread_uses_the_nearest_rank(corpus: Path) -> None:
    params = parse_params(unit="word", size=4, overlap=1)
    doc = count_corpus([str(corpus)], params, workers=1).to_json(params)
    counts = sorted(
        chunk_text(t, parse_params(unit="word", size=4, overlap=1, caps=False)).summary.chunks
        for t in every_document()
    )
    spread = doc["chunks_per_document"]
    assert spread["min"] == counts[0] == 0
    assert spread["max"] == counts[-1] == 13
    assert spread["median"] == counts[math.ceil(0.5 * len(counts)) - 1]
    assert spread["p95"] == counts[math.ceil(0.95 * len(counts)) - 1]


def test_two_worker_processes_count_exactly_what_one_process_counts(corpus: Path) -> None:
    params = parse_params(unit="token", size=8, overlap="25%")
    one = count_corpus([str(corpus)], params, workers=1).to_json(params)
    two = count_corpus([str(corpus)], params, workers=2, batch_bytes=16).to_json(params)
    assert one == two


def test_an_empty_corpus_counts_nothing_and_divides_by_nothing(tmp_path: Path) -> None:
    params = parse_params(unit="token", size=4)
    doc = count_corpus([str(tmp_path)], params, workers=1).to_json(params)
    assert (doc["documents"], doc["units"], doc["inflation"]) == (0, 0, None)
    assert doc["chunks_per_document"]["median"] is None


def test_batches_stay_near_the_batch_size_so_memory_stays_flat(corpus: Path) -> None:
    problems: list[tuple[str, int | None, str]] = []
    batches = list(iter_batches([str(corpus)], problems, batch_bytes=40))
    assert len(batches) > 2
    for batch in batches:
        assert sum(len(item[2]) for item in batch[:-1]) < 40


@given(st.lists(st.integers(0, 30), min_size=1, max_size=60), st.integers(0, 100))
def test_nearest_rank_matches_the_sorted_list_definition(values: list[int], percent: int) -> None:
    histogram: dict[int, int] = {}
    for value in values:
        histogram[value] = histogram.get(value, 0) + 1
    ordered = sorted(values)
    assert (
        nearest_rank(histogram, percent)
        == ordered[max(1, math.ceil(percent * len(values) / 100)) - 1]
    )
