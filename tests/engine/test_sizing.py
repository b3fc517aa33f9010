"""Index sizing: reference 003's calculator, with actual stored tokens beside nominal."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.errors import InputError
from pyapp.planning.sizing import size_index

REFERENCE_003 = {
    "documents": 500,
    "avg_tokens": 1200,
    "size": 512,
    "overlap": "15%",
    "top_k": 5,
    "budget": 128000,
}


def real_chunk_lengths(length: int, size: int, overlap: int) -> list[int]:
    """Reference 002's spans(), deliberately naive."""
    out, start = [], 0
    while start < length:
        end = min(start + size, length)
        out.append(end - start)
        if end == length:
            break
        start += size - overlap
    return out


def test_reference_003_default_example_reproduces() -> None:
    doc = size_index(**REFERENCE_003).to_json()
    assert doc["index_entries"] == 1500
    assert doc["chunks_per_document"] == 3
    assert doc["retrieved_tokens_per_query"] == 2560
    assert doc["budget_share"] == 0.02
    assert doc["budget_left"] == 125440
    assert doc["stored_tokens_nominal"] == 768000
    assert doc["inflation_nominal"] == 1.28


def test_reference_003_actual_stored_tokens_count_the_partial_last_chunk() -> None:
    sizing = size_index(**REFERENCE_003)
    assert real_chunk_lengths(1200, 512, 77) == [512, 512, 330]
    assert sizing.stored_tokens_actual == 500 * (512 + 512 + 330) == 677000
    assert sizing.inflation_actual == Fraction(677000, 600000)


def test_percent_overlap_rounds_half_up_to_whole_tokens() -> None:
    sizing = size_index(**REFERENCE_003)
    assert (sizing.overlap, sizing.stride) == (77, 435)
    assert sizing.limit_inflation == Fraction(512, 435)


def test_stride_derivation_says_reference_003s_fractional_stride_gives_the_same_count() -> None:
    note = size_index(**REFERENCE_003).derivation()["stride"]["note"]
    assert "435.2" in note and "the same chunk count" in note


def test_stride_derivation_says_when_the_fractional_stride_would_change_the_count() -> None:
    # 15% of 10 is 1.5 -> 2, stride 8: 1 + ceil(17 / 8) = 4; stride 8.5 gives 1 + ceil(2) = 3.
    sizing = size_index(documents=1, avg_tokens=27, size=10, overlap="15%")
    assert sizing.chunks_per_document == 4
    assert "3 chunks per document instead of 4" in sizing.derivation()["stride"]["note"]


def test_whole_unit_overlap_has_no_rounding_note() -> None:
    derivation = size_index(documents=1, avg_tokens=1500, size=512, overlap=76).derivation()
    assert "note" not in derivation["stride"] and "overlap" not in derivation


def test_documents_shorter_than_a_chunk_become_one_smaller_entry() -> None:
    sizing = size_index(documents=10, avg_tokens=100, size=512, overlap="15%", top_k=3)
    assert sizing.effective_chunk == 100
    assert sizing.index_entries == 10
    assert sizing.retrieved_tokens_per_query == 300
    assert sizing.stored_tokens_nominal == sizing.stored_tokens_actual == 1000
    assert sizing.inflation_nominal == sizing.inflation_actual == 1


def test_top_k_is_capped_at_the_number_of_entries() -> None:
    sizing = size_index(documents=1, avg_tokens=600, size=512, overlap=0, top_k=5)
    assert (sizing.index_entries, sizing.top_k_used) == (2, 2)
    assert sizing.retrieved_tokens_per_query == 2 * 512


def test_budget_left_goes_negative_when_retrieval_overflows_the_budget() -> None:
    sizing = size_index(documents=100, avg_tokens=5000, size=1024, top_k=10, budget=8000)
    assert sizing.budget_left == 8000 - 10240
    assert sizing.budget_share == Fraction(10240, 8000)


def test_vector_bytes_are_entries_times_dimension_times_bytes_per_value() -> None:
    assert size_index(**REFERENCE_003, dim=1536).vector_bytes == 1500 * 1536 * 4
    assert size_index(**REFERENCE_003, dim=1024, bytes_per_value="0.125").vector_bytes == 192000
    assert size_index(**REFERENCE_003).to_json()["vector_bytes"] is None


def test_fractional_average_document_length_is_accepted() -> None:
    sizing = size_index(documents=2, avg_tokens="1200.5", size=512, overlap=77)
    assert sizing.chunks_per_document == 3
    assert sizing.stored_tokens_actual == 2 * (Fraction(24010, 20) + 2 * 77)


def test_size_document_has_the_issues_field_names() -> None:
    doc = size_index(**REFERENCE_003, dim=8).to_json()
    for key in (
        "stride",
        "chunks_per_document",
        "index_entries",
        "retrieved_tokens_per_query",
        "budget_share",
        "budget_left",
        "stored_tokens_nominal",
        "stored_tokens_actual",
        "inflation_nominal",
        "inflation_actual",
        "limit_inflation",
        "vector_bytes",
    ):
        assert key in doc
        assert doc["derivation"][key]["value"] == doc[key]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"documents": 0}, "documents"),
        ({"documents": "2.5"}, "documents"),
        ({"avg_tokens": 0}, "avg_tokens"),
        ({"avg_tokens": "many"}, "avg_tokens"),
        ({"size": 0}, "size"),
        ({"overlap": "100%"}, "overlap"),
        ({"overlap": 512}, "overlap"),
        ({"top_k": 0}, "top_k"),
        ({"budget": -1}, "budget"),
        ({"dim": "0"}, "dim"),
        ({"bytes_per_value": 0}, "bytes_per_value"),
    ],
)
def test_bad_sizing_input_names_the_field_to_fix(change: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as caught:
        size_index(**{**REFERENCE_003, **change})
    assert caught.value.field == field
    assert ":" in caught.value.message


@given(
    documents=st.integers(1, 50),
    length=st.integers(1, 3000),
    size=st.integers(1, 600),
    data=st.data(),
)
def test_actual_stored_tokens_equal_the_sum_of_real_chunk_lengths(
    documents: int, length: int, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    sizing = size_index(documents=documents, avg_tokens=length, size=size, overlap=overlap)
    lengths = real_chunk_lengths(length, size, overlap)
    assert sizing.chunks_per_document == len(lengths)
    assert sizing.stored_tokens_actual == documents * sum(lengths)
    assert sizing.stored_tokens_nominal == documents * len(lengths) * min(size, length)
    assert sizing.stored_tokens_actual <= sizing.stored_tokens_nominal


def test_the_size_op_answers_reference_003_and_names_a_bad_field() -> None:
    import json

    from pyapp.web.api import handle

    request = {"op": "size", **REFERENCE_003, "documents": "500", "dim": ""}
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"] and answer["result"]["stored_tokens_actual"] == 677000
    bad = json.loads(handle(json.dumps({**request, "avg_tokens": "-3"})))
    assert (bad["ok"], bad["error"]["field"]) == (False, "avg_tokens")


SIZED_MARKDOWN = (
    "# Title\n\nIntro paragraph with some words.\n\n## Part one\n\n"
    + "Text of part one, a sentence that keeps going. " * 12
    + "\n\n```\ncode block\n```\n\n## Part two\n\nMore text.\n"
)


def test_the_size_op_measures_the_recursive_splitters_real_chunks_not_the_formula() -> None:
    import json

    from langchain_text_splitters import Language, RecursiveCharacterTextSplitter
    from references import reference

    from pyapp.web.api import handle

    request = {
        "op": "size", "documents": 7, "size": 32, "overlap": 8, "top_k": 3, "dim": 4,
        "splitter": "recursive", "separators_preset": "markdown", "unit": "token",
        "encoding": "cl100k_base", "text": SIZED_MARKDOWN,
    }  # fmt: skip
    result = json.loads(handle(json.dumps(request)))["result"]
    encode = reference("cl100k_base")  # the reference tokenizer, offline
    splitter = RecursiveCharacterTextSplitter(
        length_function=lambda text: len(encode(text)),
        chunk_size=32,
        chunk_overlap=8,
        separators=RecursiveCharacterTextSplitter.get_separators_for_language(Language.MARKDOWN),
        is_separator_regex=True,
    )
    lengths = [len(encode(chunk)) for chunk in splitter.split_text(SIZED_MARKDOWN)]
    assert result["chunks_per_document"] == len(lengths)
    assert result["index_entries"] == 7 * len(lengths)
    assert result["stored_tokens_actual"] == 7 * sum(lengths)
    assert result["params"]["avg_tokens"] == len(encode(SIZED_MARKDOWN))
    assert result["retrieved_tokens_per_query"] == 3 * max(lengths)  # 7 copies of the longest
    assert result["vector_bytes"] == 7 * len(lengths) * 4 * 4
    assert result["measured"]["from"] == "the chunks of the text, not the formula"
    assert result["measured"]["splitter"]["name"] == "recursive"
    assert "measured from the chunks" in result["derivation"]["stored_tokens_actual"]["note"]
    fixed = json.loads(handle(json.dumps({**request, "splitter": "fixed", "avg_tokens": 1})))
    assert "measured" not in fixed["result"]
    char = json.loads(handle(json.dumps({**request, "unit": "char"})))
    assert char["ok"] is False and char["error"]["field"] == "unit"
