"""Chroma's range metrics against hand computations: overlapping chunks, a passage
split over three chunks, two passages under one question, and the dense ranking that
feeds them, through the evidence report and its document."""

from __future__ import annotations

import json
from fractions import Fraction
from importlib import resources
from itertools import starmap

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyapp.core.dense import DIMENSION, normalize, text_key
from pyapp.core.evidence_export import document
from pyapp.core.evidence_report import Vectors, check_evidence, dense_texts
from pyapp.core.params import parse_params
from pyapp.core.range_metrics import (
    _InOrder,
    precision_omega,
    question_scores,
    range_metrics,
    union,
)
from pyapp.errors import InputError

# Size 10, overlap 4 (stride 6) over 30 code points.
CHUNKS = [(0, 10), (6, 16), (12, 22), (18, 28), (24, 30)]
A, B, C = (9, 17), (25, 28), (0, 4)  # A touches chunks 0, 1, 2 and none holds it whole
TEXT = "abcdefghijklmnopqrstuvwxyz0123"


def test_one_question_with_a_passage_split_over_three_chunks_and_a_second_passage() -> None:
    # Retrieved: chunks 1 and 4. A inside [6,16): 9..16 = 7; B inside [24,30): 3.
    s = question_scores([A, B], [CHUNKS[1], CHUNKS[4]])
    assert s.recall == Fraction(10, 11)  # 10 of the 8 + 3 evidence code points
    assert s.precision == Fraction(10, 16)  # over 10 + 6 retrieved
    assert s.iou == Fraction(10, 17)  # over 16 retrieved + 16..17 of A left out
    # Every chunk touches A or B: the union [0,30) holds the 11 evidence code points.
    assert precision_omega([A, B], CHUNKS) == Fraction(11, 30)


def test_overlap_counts_every_time_a_chunk_is_retrieved() -> None:
    # Chunks 1 and 2 share [12,16): A is 9..17 inside their union, 8 of 8, over 20.
    s = question_scores([A], [CHUNKS[1], CHUNKS[2]])
    assert (s.recall, s.precision, s.iou) == (1, Fraction(7 + 1, 20), Fraction(8, 20))


def test_a_question_whose_chunks_miss_its_evidence_scores_zero() -> None:
    s = question_scores([C], [CHUNKS[2], CHUNKS[3]])
    assert (s.recall, s.precision, s.iou) == (0, 0, 0)  # iou: 0 over 20 + 4
    assert precision_omega([C], CHUNKS) == Fraction(4, 10)  # chunk 0 alone touches it


def test_nothing_retrieved_is_precision_zero_not_a_division_by_zero() -> None:
    s = question_scores([C], [])
    assert (s.recall, s.precision, s.iou) == (0, 0, 0)


def test_a_chunk_ending_where_the_passage_begins_touches_it_as_in_chroma() -> None:
    chunks = [(0, 5), (5, 10), (10, 15)]
    # max(starts) <= min(ends): both neighbours touch [5,10), with nothing in common.
    assert precision_omega([(5, 10)], chunks) == Fraction(5, 15)
    assert precision_omega([(6, 9)], chunks) == Fraction(3, 5)


def test_overlapping_passages_of_one_question_sum_their_lengths() -> None:
    # [0,6) and [3,9): 9 code points of evidence in the union, 12 in the sum.
    s = question_scores([(0, 6), (3, 9)], [(0, 10)])
    assert (s.recall, s.precision, s.iou) == (Fraction(9, 12), Fraction(9, 10), Fraction(9, 10))


def test_the_mean_and_population_std_over_the_questions() -> None:
    m = range_metrics(["q1", "q2"], [[A, B], [C]], [[CHUNKS[1], CHUNKS[4]], [CHUNKS[2]]], CHUNKS)
    assert m.stat("recall").mean == Fraction(5, 11)
    assert m.stat("recall").std == pytest.approx(5 / 11, abs=1e-15)
    assert m.stat("precision").mean == Fraction(5, 16)
    assert m.stat("iou").mean == Fraction(5, 17)
    omega = m.stat("precision_omega")
    assert (omega.mean, omega.std) == (Fraction(23, 60), pytest.approx(1 / 60, abs=1e-15))


def test_union_merges_spans_that_meet() -> None:
    assert union(CHUNKS) == [(0, 30)]
    assert union([(9, 17), (25, 28), (0, 4)]) == [(0, 4), (9, 17), (25, 28)]


def _basis(i: int) -> list[float]:
    return [1.0 if d == i else 0.0 for d in range(DIMENSION)]


def _mix(*weights: tuple[int, float]) -> list[float]:
    out = [0.0] * DIMENSION
    for i, w in weights:
        out[i] = w
    return normalize(out)


LINES = "\n".join(
    json.dumps({"id": name, "start": a, "end": b, "question": q})
    for name, (a, b), q in (("a", A, "q1"), ("b", B, "q1"), ("c", C, "q2"))
)
PARAMS = parse_params(unit="char", size=10, overlap=4)


def _vectors() -> Vectors:
    chunk_texts = list(starmap(lambda a, b: TEXT[a:b], CHUNKS))
    vectors = {text_key(t): _basis(i) for i, t in enumerate(chunk_texts)}
    vectors[text_key("q1")] = _mix((0, 0.1), (1, 0.9), (4, 0.5))  # ranks 1, 4, 0, ...
    vectors[text_key("q2")] = _mix((2, 0.8), (3, 0.6))  # ranks 2, 3, then 0, 1, 4 (ties)
    return Vectors(vectors)


def test_the_dense_check_ranks_by_cosine_and_scores_each_question_once() -> None:
    assert dense_texts(TEXT, PARAMS, jsonl=LINES) == [TEXT[a:b] for a, b in CHUNKS] + ["q1", "q2"]
    report = check_evidence(
        TEXT, PARAMS, jsonl=LINES, top_k=2, retriever="minilm", vectors=_vectors()
    )
    assert report.retrieval is None and report.dense is not None
    ranks = [(r.dense.rank_whole, r.dense.rank_touching) for r in report.items if r.dense]
    # a: split (no whole rank), chunk 1 first; b: whole in 3 and 4, chunk 4 second;
    # c: whole in chunk 0, which ties at 0 with 1 and 4 and comes first of them: third.
    assert ranks == [(None, 1), (2, 2), (3, 3)]
    assert report.dense.recall_at_k == Fraction(1, 3)
    doc = document(report)
    metrics = doc["dense_retrieval"]["range_metrics"]
    assert [q["question"] for q in metrics["per_question"]] == ["q1", "q2"]
    assert metrics["recall"]["mean"] == 5 / 11
    assert metrics["precision"]["mean"] == (10 / 16 + 0) / 2
    assert metrics["iou"]["mean"] == (10 / 17 + 0) / 2
    assert metrics["precision_omega"]["mean"] == 23 / 60
    assert doc["retrieval"] is None and doc["retriever"] == "minilm"
    schema = json.loads(
        resources.files("pyapp").joinpath("schema", "evidence.schema.json").read_text("utf-8")
    )
    jsonschema.validate(doc, schema)


def test_both_retrievers_share_precision_omega_and_keep_their_own_ranks() -> None:
    report = check_evidence(
        TEXT, PARAMS, jsonl=LINES, top_k=2, retriever="both", vectors=_vectors()
    )
    assert report.retrieval is not None and report.dense is not None
    bm25, dense = report.retrieval.range_metrics, report.dense.range_metrics
    assert bm25 is not None and dense is not None
    assert bm25.omegas == dense.omegas
    # BM25: no chunk shares a term with "q1" or "q2", so nothing is retrieved.
    assert all(s.precision == 0 for s in bm25.scores)


def test_a_dense_check_without_its_embeddings_is_refused() -> None:
    with pytest.raises(InputError, match="needs the embeddings"):
        check_evidence(TEXT, PARAMS, jsonl=LINES, top_k=2, retriever="minilm")
    with pytest.raises(InputError, match="unknown retriever 'dpr'"):
        check_evidence(TEXT, PARAMS, jsonl=LINES, top_k=2, retriever="dpr")
    partial = Vectors({text_key("q1"): _basis(0)})
    with pytest.raises(InputError, match="not given"):
        check_evidence(TEXT, PARAMS, jsonl=LINES, top_k=2, retriever="both", vectors=partial)


@st.composite
def chunks_in_order(draw: st.DrawFn) -> list[tuple[int, int]]:
    """Spans whose starts and ends never decrease, as a chunking's are (empty ones,
    repeats, gaps and overlaps included)."""
    out: list[tuple[int, int]] = []
    start = end = 0
    for _ in range(draw(st.integers(0, 12))):
        start += draw(st.integers(0, 6))
        end = max(end, start) + draw(st.integers(0, 8))
        out.append((start, end))
    return out


@settings(max_examples=300, deadline=None)
@given(
    chunks=chunks_in_order(),
    evidence=st.lists(
        st.tuples(st.integers(0, 90), st.integers(1, 12)).map(lambda p: (p[0], p[0] + p[1])),
        min_size=1,
        max_size=4,
    ),
)
def test_precision_omega_by_bisection_equals_the_scan_of_every_chunk(
    chunks: list[tuple[int, int]], evidence: list[tuple[int, int]]
) -> None:
    in_order = _InOrder.of(chunks)
    assert in_order is not None
    assert precision_omega(evidence, chunks, in_order) == precision_omega(evidence, chunks)
    assert range_metrics(["q"], [evidence], [chunks[:1]], chunks).omegas == (
        precision_omega(evidence, chunks),
    )


def test_chunks_out_of_order_are_scanned_whole() -> None:
    chunks = [(10, 20), (0, 5), (3, 30)]
    assert _InOrder.of(chunks) is None
    assert precision_omega([(4, 11)], chunks) == Fraction(7, 30)
