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
from pyapp.core.units import word_count
from pyapp.planning.corpus import count_corpus, nearest_rank
from pyapp.planning.corpus.accumulator import (
    LARGEST_KEPT,
    Problem,
    Raw,
    Settings,
    Where,
    accumulate,
    length_bin,
    merge,
)
from pyapp.planning.corpus.counting import count_words
from pyapp.planning.corpus.output import length_bins
from pyapp.planning.corpus.sources import group, list_paths

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
    params = parse_params(unit=unit, size=4, overlap=1, tokens_per_unit=1, price_per_million=1)
    doc = count_corpus([str(corpus)], params, workers=1).to_json()
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
    doc = count_corpus([str(corpus), str(corpus / "missing.txt")], params, workers=1).to_json()
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


def test_folders_hold_only_known_suffixes_but_a_named_file_is_read_as_text(
    corpus: Path,
) -> None:
    params = parse_params(unit="word", size=4)
    named = count_corpus([str(corpus / "ignored.csv")], params, workers=1)
    assert (named.totals.documents, named.totals.units) == (1, 2)
    whole = count_corpus([str(corpus)], params, workers=1).to_json()
    assert "ignored.csv" not in json.dumps(whole)


def test_chunks_per_document_spread_uses_the_nearest_rank(corpus: Path) -> None:
    params = parse_params(unit="word", size=4, overlap=1)
    doc = count_corpus([str(corpus)], params, workers=1).to_json()
    counts = sorted(
        chunk_text(t, parse_params(unit="word", size=4, overlap=1, caps=False)).summary.chunks
        for t in every_document()
    )
    spread = doc["chunks_per_document"]
    assert spread["min"] == counts[0] == 0
    assert spread["max"] == counts[-1] == 13
    assert spread["median"] == counts[math.ceil(0.5 * len(counts)) - 1]
    assert spread["p95"] == counts[math.ceil(0.95 * len(counts)) - 1]
    histogram = {e["chunks"]: e["documents"] for e in spread["histogram"]}
    assert histogram == {k: counts.count(k) for k in set(counts)}
    assert spread["one_chunk"] == counts.count(1)
    assert spread["one_chunk_share"] == counts.count(1) / len(counts)
    assert doc["units_per_document"]["empty"] == counts.count(0) == 1


def test_the_largest_documents_are_listed_most_units_first_with_where_they_are(
    corpus: Path,
) -> None:
    params = parse_params(unit="word", size=4, overlap=1)
    doc = count_corpus([str(corpus)], params, workers=1).to_json()
    largest = [(Path(e["path"]).name, e["line"], e["units"]) for e in doc["largest_documents"]]
    assert largest == [
        ("d.txt", None, 40),
        ("b.md", None, 10),
        ("a.txt", None, 8),
        ("e.jsonl", 1, 5),
        ("e.jsonl", 6, 4),
        ("c.txt", None, 0),
    ]
    assert doc["units_per_document"]["min"] == 0
    assert doc["units_per_document"]["max"] == 40


def test_two_worker_processes_count_exactly_what_one_process_counts(corpus: Path) -> None:
    params = parse_params(unit="token", size=8, overlap="25%")
    one = count_corpus([str(corpus)], params, workers=1).to_json(timing=False)
    two = count_corpus([str(corpus)], params, workers=2, part_bytes=16).to_json(timing=False)
    assert one == two


def test_an_empty_corpus_counts_nothing_and_divides_by_nothing(tmp_path: Path) -> None:
    params = parse_params(unit="token", size=4)
    doc = count_corpus([str(tmp_path)], params, workers=1).to_json()
    assert (doc["documents"], doc["units"], doc["inflation"]) == (0, 0, None)
    assert doc["chunks_per_document"]["median"] is None
    assert doc["chunks_per_document"]["one_chunk_share"] is None


def test_parts_stay_near_the_part_size_so_each_worker_reads_a_bounded_share(
    corpus: Path,
) -> None:
    listing = list_paths([str(corpus)])
    parts = group(listing.files, part_bytes=40)
    assert len(parts) > 2
    for part in parts:
        assert sum(piece.size for piece in part[:-1]) < 40
    assert sum(piece.size for part in parts for piece in part) == listing.total_bytes


def test_the_timing_fields_are_the_only_ones_that_differ_between_runs(corpus: Path) -> None:
    params = parse_params(unit="word", size=4)
    first = count_corpus([str(corpus)], params, workers=1).to_json()
    second = count_corpus([str(corpus)], params, workers=1).to_json()
    assert set(first["timing"]) == {
        "listing_seconds",
        "startup_seconds",
        "count_seconds",
        "shutdown_seconds",
        "seconds",
    }
    first.pop("timing"), second.pop("timing")
    assert first == second


# ------------------------------------------------------------------ the engine-neutral pair

SETTINGS = Settings(unit="word", encoding=None, size=3, overlap=1, id_field="id")

items = st.one_of(
    st.builds(
        lambda n, words: Raw(Where(f"f{n}.txt"), " ".join(words).encode()),
        st.integers(0, 9),
        st.lists(st.sampled_from(["a", "bb", "ccc"]), max_size=12),
    ),
    st.builds(
        lambda n, line, words: Raw(
            Where(f"g{n}.jsonl", line=line), json.dumps({"text": " ".join(words), "id": n}).encode()
        ),
        st.integers(0, 3),
        st.integers(1, 50),
        st.lists(st.sampled_from(["x", "yy"]), max_size=12),
    ),
    st.builds(lambda n: Problem(Where(f"h{n}.txt"), "cannot read"), st.integers(0, 9)),
)


@given(st.lists(items, max_size=40), st.lists(st.integers(0, 40), max_size=6), st.randoms())
def test_any_split_into_batches_and_any_merge_order_gives_the_same_totals(
    batch: list[Raw | Problem], cuts: list[int], rng: object
) -> None:
    whole = accumulate(batch, SETTINGS)
    edges = sorted({0, len(batch), *(c % (len(batch) + 1) for c in cuts)})
    pieces = [accumulate(batch[a:b], SETTINGS) for a, b in zip(edges, edges[1:], strict=False)]
    rng.shuffle(pieces)  # type: ignore[attr-defined]
    while len(pieces) > 1:  # merge in a random tree
        i = rng.randrange(len(pieces) - 1)  # type: ignore[attr-defined]
        pieces[i : i + 2] = [merge(pieces[i], pieces[i + 1])]
    merged = pieces[0] if pieces else accumulate([], SETTINGS)
    assert merged == whole
    assert len(merged.largest) == min(LARGEST_KEPT, whole.documents)


def test_errors_beyond_the_listed_ones_are_counted_and_the_smallest_places_kept() -> None:
    from pyapp.planning.corpus.accumulator import MAX_LISTED

    problems = [Problem(Where(f"{n:05d}.txt"), "cannot read") for n in range(MAX_LISTED + 50)]
    halves = accumulate(problems[1::2], SETTINGS), accumulate(problems[::2], SETTINGS)
    both = merge(*halves)
    assert both.errors_total == MAX_LISTED + 50
    assert [p.where.path for p in both.errors] == [f"{n:05d}.txt" for n in range(MAX_LISTED)]


@given(st.text(alphabet=" \t\n\u00a0\u2003ab", max_size=300), st.integers(1, 20))
def test_words_counted_slice_by_slice_equal_str_split(text: str, slice_size: int) -> None:
    assert count_words(text, slice_size=slice_size) == word_count(text) == len(text.split())


@given(st.lists(st.integers(0, 10**7), min_size=1, max_size=50))
def test_length_bins_hold_every_document_once_between_their_edges(lengths: list[int]) -> None:
    histogram: dict[int, int] = {}
    for units in lengths:
        histogram[length_bin(units)] = histogram.get(length_bin(units), 0) + 1
    bins = length_bins(histogram)
    assert sum(b["documents"] for b in bins) == len(lengths)
    for b in bins:
        assert b["documents"] == sum(1 for u in lengths if b["from"] <= u <= b["to"])
    assert all(a["to"] + 1 == b["from"] for a, b in zip(bins, bins[1:], strict=False))


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
