"""BM25: a textbook computation by hand, then the chunk index against the formula."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core import bm25
from pyapp.core.bm25 import ChunkIndex, bm25_scores, rank_of, term_index, terms, top
from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params

#: Three documents, 9 terms, so avgdl = 3.
D0, D1, D2 = "apple banana apple", "banana cherry", "cherry cherry cherry date"


def test_a_tiny_corpus_scores_as_computed_by_hand() -> None:
    # N = 3, avgdl = 9 / 3 = 3, k1 = 1.2, b = 0.75; query "apple cherry".
    # idf(apple)  = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8/3) = 0.980829...
    # idf(cherry) = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.470004...
    # D0: apple tf 2, |d| 3: norm = 1.2 * (0.25 + 0.75 * 3/3) = 1.2
    #     ln(8/3) * 2 * 2.2 / (2 + 1.2) = ln(8/3) * 11/8 = 1.348640...
    # D1: cherry tf 1, |d| 2: norm = 1.2 * (0.25 + 0.75 * 2/3) = 0.9
    #     ln(1.6) * 2.2 / 1.9 = ln(1.6) * 22/19 = 0.544215...
    # D2: cherry tf 3, |d| 4: norm = 1.2 * (0.25 + 0.75 * 4/3) = 1.5
    #     ln(1.6) * 6.6 / 4.5 = ln(1.6) * 22/15 = 0.689339...
    scores = bm25_scores([terms(D0), terms(D1), terms(D2)], terms("Apple? CHERRY!"))
    expected = [math.log(8 / 3) * 11 / 8, math.log(1.6) * 22 / 19, math.log(1.6) * 22 / 15]
    assert scores == pytest.approx(expected, rel=1e-12)
    assert [round(s, 6) for s in scores] == [1.34864, 0.544215, 0.689339]
    assert top(scores, 5) == [0, 2, 1]


def test_the_chunk_index_gives_the_textbook_scores_for_spans_of_one_text() -> None:
    text = f"{D0}. {D1}. {D2}."
    spans = [(0, len(D0)), (len(D0) + 2, len(D0) + 2 + len(D1)), (len(D0) + len(D1) + 4, len(text))]
    assert [text[a:b].rstrip(".") for a, b in spans] == [D0, D1, D2]
    index = ChunkIndex(term_index(text), spans, {"apple", "cherry"})
    query = terms("apple cherry")
    assert index.scores(query) == bm25_scores([terms(D0), terms(D1), terms(D2)], query)


def test_a_term_in_every_chunk_still_counts_for_a_little() -> None:
    # The classic idf ln((N - n + 0.5) / (n + 0.5)) is negative here; Lucene's is not.
    scores = bm25_scores([["x", "a"], ["x"], ["x", "b"]], ["x"])
    assert all(s > 0 for s in scores)


def test_repeated_question_terms_count_each_time() -> None:
    docs = [terms(D0), terms(D1), terms(D2)]
    once, twice = bm25_scores(docs, ["cherry"]), bm25_scores(docs, ["cherry", "cherry"])
    assert twice == [2 * s for s in once]


def test_terms_are_lower_cased_word_runs_and_cjk_characters_one_by_one() -> None:
    assert terms("Fish-and-chips, 42 ÉTÉ; snake_case") == [
        "fish", "and", "chips", "42", "été", "snake_case",
    ]  # fmt: skip
    assert terms("東京タワーはOKです") == ["東", "京", "タ", "ワ", "ー", "は", "ok", "で", "す"]
    assert terms("...!?") == []


def test_a_chunk_that_shares_no_term_is_not_retrieved_and_ties_go_by_index() -> None:
    scores = [0.0, 1.5, 1.5, 3.0, 0.0]
    assert top(scores, 10) == [3, 1, 2]
    assert [rank_of(scores, k, k) for k in range(5)] == [None, 2, 3, 1, None]
    assert rank_of(scores, 0, 2) == 2  # the best-ranked of chunks 0..2


#: (FREQUENT_EVERY, DENSE_BUDGET): as shipped; every term counted in every chunk, its
#: weights kept dense or sparse; every term counted occurrence by occurrence.
PATHS = [(4, 1_000_000), (10**9, 1_000_000), (10**9, 0), (0, 1_000_000)]


@pytest.mark.parametrize(("every", "budget"), PATHS)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab ABcé日.\n")), max_size=60),
    unit=st.sampled_from(["word", "char", "token"]),
    size=st.integers(1, 12),
    data=st.data(),
)
def test_chunk_index_scores_equal_the_formula_on_each_chunks_own_text(
    every: int, budget: int, text: str, unit: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    query = data.draw(st.lists(st.sampled_from(["a", "b", "ab", "abc", "é", "日", "zz"])))
    chunks = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap, caps=False))
    spans = [(c.char_start, c.char_end) for c in chunks.chunks]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bm25, "SPARSE_EVERY", every)
        patch.setattr(bm25, "DENSE_BUDGET", budget)
        index = ChunkIndex(term_index(text), spans, set(query))
        ranking = index.ranking(query)
    documents = [terms(c.text) for c in chunks.chunks]
    assert index.lengths == [len(d) for d in documents]
    scores = bm25_scores(documents, query)
    assert index.scores(query) == scores
    # The ranking, from the chunks holding a question term or from every chunk, ranks
    # exactly as a brute force over the full list of scores does.
    n = len(scores)
    order = sorted((i for i in range(n) if scores[i] > 0), key=lambda i: (-scores[i], i))
    for k in (1, 2, n + 1):
        assert ranking.top(k) == top(scores, k) == order[:k]
    for first in range(n):
        for last in range(first, n):
            held = [order.index(i) + 1 for i in range(first, last + 1) if i in order]
            best = min(held) if held else None
            assert ranking.rank_of(first, last) == rank_of(scores, first, last) == best


def test_a_question_few_chunks_answer_is_ranked_from_those_chunks_alone() -> None:
    # 2,000 one-word chunks; "rare" is in 3 of them, "common" in every one.
    words = ["rare" if i % 700 == 5 else "common" for i in range(2000)]
    text = " ".join(words)
    at = 0
    spans = []
    for w in words:
        spans.append((at, at + len(w)))
        at += len(w) + 1
    index = ChunkIndex(term_index(text), spans, {"rare", "common"})
    ranking = index.ranking(["rare"])
    # An inverted index: the three chunks holding the term, never a list of 2,000.
    assert index.pairs(["rare"]) == 3 * bm25.SPARSE_STEPS
    assert ranking.full is None and sorted(ranking.found or {}) == [5, 705, 1405]
    assert ranking.top(5) == [5, 705, 1405] and ranking.rank_of(700, 710) == 2
    # A question that most chunks answer is scored over every chunk at once: its cost
    # is "rare"'s 3 chunks, "common"'s weights over all 2,000, and the ranking's passes.
    assert index.pairs(["rare", "common"]) == 3 + (1 + bm25.RANK_PASSES) * 2000
    assert index.ranking(["rare", "common"]).full is not None


def test_the_retrieval_check_is_skipped_naming_its_limit_before_scoring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pyapp.core import evidence_report
    from pyapp.core.evidence_report import check_evidence

    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa " * 20
    lines = "\n".join(
        json.dumps({"id": i, "start": 0, "end": 5 + 6 * i, "question": "alpha beta?"})
        for i in range(3)
    )
    params = parse_params(unit="word", size=2, overlap=1)
    monkeypatch.setattr(evidence_report, "MAX_RETRIEVAL_PAIRS", 100)
    monkeypatch.setattr(bm25.ChunkIndex, "ranking", None)  # scoring would fail
    report = check_evidence(text, params, jsonl=lines, top_k=2)
    assert report.retrieval.recall_at_k is None
    assert report.retrieval.skipped == (
        "the retrieval check would take 3,819 (term, chunk) steps for 3 questions over"
        " 199 chunks, over its 100 limit: raise the size, or check fewer questions at a time"
    )


def test_the_retrieval_check_is_skipped_past_its_chunk_limit_before_indexing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pyapp.core import evidence_report
    from pyapp.core.evidence_report import check_evidence

    text = "alpha beta gamma delta epsilon " * 10
    lines = json.dumps({"id": 1, "start": 0, "end": 5, "question": "alpha?"})
    monkeypatch.setattr(evidence_report, "MAX_RETRIEVAL_CHUNKS", 49)
    monkeypatch.setattr(evidence_report, "ChunkIndex", None)  # indexing would fail
    report = check_evidence(
        text, parse_params(unit="word", size=1, overlap=0), jsonl=lines, top_k=2
    )
    assert report.retrieval.recall_at_k is None
    assert report.retrieval.skipped == (
        "the retrieval check indexes every chunk, and this setting has 50 chunks, over its"
        " 49 limit: raise the size"
    )
    assert report.items[0].status == "whole"  # coverage is still computed
