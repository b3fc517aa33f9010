"""The evidence report of one setting, its document, the evidence op and the sweep's
evidence columns: schema-valid, equal to each other, and equal to separate runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core import evidence_report
from pyapp.core.bm25 import bm25_scores, terms
from pyapp.core.chunking import chunk_text
from pyapp.core.evidence_export import document, dumps, evidence_jsonl
from pyapp.core.evidence_report import check_evidence
from pyapp.core.params import parse_params
from pyapp.errors import InputError
from pyapp.planning.sweep import sweep_text
from pyapp.web.api import handle

TEXT = (
    "The harbour opened in 1820. Ships brought tea and cotton. "
    "The customs house burned in 1901 and was rebuilt in stone. "
    "Today the harbour serves ferries and a museum of the old trade."
)
LINES = "\n".join(
    [
        '{"id": "opened", "quote": "The harbour opened in 1820.", "question": "When did the harbour open?"}',  # noqa: E501
        '{"id": "fire", "quote": "customs house burned in 1901", "question": "What burned in 1901?"}',  # noqa: E501
        '{"id": "today", "quote": "serves ferries", "question": "What does the harbour serve today?"}',  # noqa: E501
        '{"id": "plain", "quote": "Ships brought tea"}',
        '{"id": "bad", "quote": "harbour"}',
    ]
)


def schema() -> dict[str, Any]:
    text = resources.files("pyapp").joinpath("schema", "evidence.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def report_of(unit: str = "word", size: int = 8, overlap: int = 2, **kw: Any) -> Any:
    params = parse_params(unit=unit, size=size, overlap=overlap)
    return check_evidence(TEXT, params, jsonl=kw.pop("jsonl", LINES), top_k=kw.pop("k", 2))


@pytest.mark.parametrize("unit", ["word", "char", "token"])
def test_every_document_validates_against_the_schema(unit: str) -> None:
    for size, overlap in ((8, 2), (40, 10), (3, 0)):
        jsonschema.validate(document(report_of(unit, size, overlap)), schema())


def test_the_schema_rejects_an_item_without_a_status() -> None:
    doc = document(report_of())
    del doc["evidence"][0]["status"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema())


def test_keys_come_in_the_documented_order() -> None:
    doc = document(report_of())
    assert list(doc) == [
        "schema", "params", "bom_removed", "text", "summary", "retrieval", "evidence", "errors",
        "capped",
    ]  # fmt: skip
    assert list(doc["evidence"][0]) == [
        "id", "line", "start", "end", "question", "unit_start", "unit_end", "units",
        "longer_than_size", "status", "whole_in", "touches", "retrieval",
    ]  # fmt: skip


def test_the_summary_counts_whole_items_and_the_line_that_failed() -> None:
    doc = document(report_of())
    s = doc["summary"]
    assert s["items"] == 4
    assert s["evidence_whole"] + s["evidence_split"] == 4
    assert s["evidence_coverage"] == s["evidence_whole"] / 4
    assert [(e["line"], e["id"]) for e in doc["errors"]] == [(5, "bad")]
    assert "occurs 2 times" in doc["errors"][0]["message"]
    # Words 0..32, size 8, overlap 2: windows [0,8) [6,14) [12,20) [18,26) [24,32) [30,33).
    got = {
        i["id"]: (i["unit_start"], i["unit_end"], i["whole_in"], i["touches"])
        for i in doc["evidence"]
    }
    assert got == {
        "opened": (0, 5, [0], [0]),  # "The harbour opened in 1820."
        "fire": (11, 16, [], [1, 2]),  # "customs house burned in 1901": cut by both
        "today": (24, 26, [3, 4], [3, 4]),  # "serves ferries"
        "plain": (5, 8, [0], [0, 1]),  # "Ships brought tea"
    }
    assert [i["status"] for i in doc["evidence"]] == ["whole", "split", "whole", "whole"]
    # Overlap 0 (stride 8) keeps all four whole: [8,16) holds words 11..15.
    assert (s["min_overlap_for_evidence"], s["chunks_at_min_overlap"]) == (0, 5)
    assert (s["processed_units_at_min_overlap"], s["extra_volume_at_min_overlap"]) == (33, 0)


def test_the_retrieval_figures_follow_from_bm25_over_the_chunk_texts() -> None:
    report = report_of(k=2)
    chunks = chunk_text(TEXT, report.params).chunks
    documents = [terms(c.text) for c in chunks]
    recalled = 0
    contexts: list[int] = []
    for result in report.items:
        item = result.item
        if item.question is None:
            assert result.retrieval is None
            continue
        scores = bm25_scores(documents, terms(item.question))
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
        holding = [
            c.index for c in chunks if c.start <= result.unit_start < result.unit_end <= c.end
        ]
        touching = [
            c.index for c in chunks if c.start < result.unit_end and result.unit_start < c.end
        ]
        rank_whole = next((r for r, i in enumerate(order, 1) if i in holding), None)
        rank_touching = next((r for r, i in enumerate(order, 1) if i in touching), None)
        assert result.retrieval is not None
        assert (result.retrieval.rank_whole, result.retrieval.rank_touching) == (
            rank_whole,
            rank_touching,
        )
        top = [chunks[i] for i in order[:2]]
        units = [u for c in top for u in range(c.start, c.end)]
        assert result.retrieval.context_units == len(units)
        assert result.retrieval.context_repeated_units == len(units) - len(set(units))
        recalled += rank_whole is not None and rank_whole <= 2
        contexts.append(len(units))
    assert report.retrieval.questions == 3
    assert report.retrieval.recall_at_k == Fraction(recalled, 3)
    assert report.retrieval.context_units == Fraction(sum(contexts), 3)


def test_overlapping_retrieved_chunks_are_counted_as_repetition() -> None:
    text = "alpha beta gamma delta epsilon alpha"
    line = '{"id": 1, "quote": "gamma delta", "question": "alpha gamma delta"}'
    report = check_evidence(text, parse_params(unit="word", size=4, overlap=3), jsonl=line, top_k=3)
    # Stride 1: windows [0,4) [1,5) [2,6); all three match, each 4 words long and
    # their union is the 6 words, so 12 units in the context, 6 of them repeats.
    assert report.items[0].retrieval is not None
    assert report.items[0].retrieval.context_units == 12
    assert report.items[0].retrieval.context_repeated_units == 6


def test_without_questions_the_retrieval_check_says_so() -> None:
    report = report_of(jsonl='{"id": 1, "quote": "Ships brought tea"}')
    assert report.retrieval.questions == 0
    assert report.retrieval.skipped == "no evidence item has a question"
    assert document(report)["retrieval"]["recall_at_k"] is None


@pytest.fixture
def uncached() -> Iterator[None]:
    """Reports computed fresh, and none kept: for tests that patch a limit."""
    evidence_report._check.cache_clear()  # type: ignore[attr-defined]
    yield
    evidence_report._check.cache_clear()  # type: ignore[attr-defined]


def test_a_setting_over_the_retrieval_limit_is_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, uncached: None
) -> None:
    monkeypatch.setattr(evidence_report, "MAX_RETRIEVAL_UNITS", 10)
    report = report_of(size=7, overlap=1)
    assert report.retrieval.questions == 3 and report.retrieval.recall_at_k is None
    assert report.retrieval.skipped is not None
    # 33 words, size 7, overlap 1: 6 windows, 33 + 5 * 1 = 38 processed.
    assert "processes 38 words, over its 10 limit" in report.retrieval.skipped
    assert all(r.retrieval is None for r in report.items)
    assert report.whole + (len(report.items) - report.whole) == 4  # coverage still counted


def test_too_many_listed_chunks_leave_the_lists_out_and_keep_the_figures(
    monkeypatch: pytest.MonkeyPatch, uncached: None
) -> None:
    full = document(report_of())
    monkeypatch.setattr(evidence_report, "MAX_EVIDENCE_LISTED", 3)
    evidence_report._check.cache_clear()  # type: ignore[attr-defined]
    capped = document(report_of())
    listed = sum(len(i["whole_in"]) + len(i["touches"]) for i in full["evidence"])
    assert capped["capped"] == {"cap": "listed_chunks", "value": listed, "limit": 3}
    assert all(i["whole_in"] is None and i["touches"] is None for i in capped["evidence"])
    assert capped["summary"] == full["summary"]
    assert [i["status"] for i in capped["evidence"]] == [i["status"] for i in full["evidence"]]
    jsonschema.validate(capped, schema())


def test_a_byte_order_mark_is_not_text_and_offsets_count_after_it() -> None:
    params = parse_params(unit="char", size=10, overlap=2)
    line = '{"id": 1, "start": 0, "end": 3}'
    with_bom = check_evidence("\ufeffabcdef", params, jsonl=line, top_k=5)
    plain = check_evidence("abcdef", params, jsonl=line, top_k=5)
    assert with_bom.bom_removed and not plain.bom_removed
    assert with_bom.items == plain.items


def test_a_text_over_the_limit_is_refused_before_the_evidence_is_read() -> None:
    with pytest.raises(InputError) as caught:
        check_evidence("x" * 1_000_001, parse_params(size=4), jsonl="oops", top_k=5)
    assert caught.value.field == "text"


# ---------------------------------------------------------------------- the op
def ask(**request: Any) -> dict[str, Any]:
    base = {"op": "evidence", "text": TEXT, "unit": "word", "size": 8, "overlap": 2}
    answer: dict[str, Any] = json.loads(handle(json.dumps(base | request)))
    return answer


def test_the_op_serves_the_document_its_derivation_and_card_marks() -> None:
    answer = ask(evidence_jsonl=LINES, top_k=2)
    assert answer["ok"], answer
    result = answer["result"]
    doc = document(report_of(k=2))
    assert {key: result[key] for key in doc} == json.loads(json.dumps(doc))
    assert result["derivation"]["evidence_coverage"]["value"] == doc["summary"]["evidence_coverage"]
    assert (
        result["derivation"]["min_overlap_for_evidence"]["value"]
        == (doc["summary"]["min_overlap_for_evidence"])
    )
    assert len(result["card_marks"]) == doc["summary"]["chunks"]


def test_card_marks_cover_exactly_the_evidence_in_each_cards_shown_text() -> None:
    result = ask(evidence_jsonl=LINES, unit="char", size=30, overlap=5)["result"]
    chunks = json.loads(handle(json.dumps(
        {"op": "chunk", "text": TEXT, "unit": "char", "size": 30, "overlap": 5}
    )))["result"]["chunks"]  # fmt: skip
    for card, marks in zip(chunks, result["card_marks"], strict=True):
        shown = card["repeated_prefix"] + card["fresh_text"]
        for a, b, position in marks:
            item = result["evidence"][position]
            assert shown[a:b] in TEXT[item["start"] : item["end"]]
            assert card["char_start"] + a >= item["start"]
            assert card["char_start"] + b <= item["end"]
        touched = {p for _, _, p in marks}
        assert touched == {
            p for p, i in enumerate(result["evidence"]) if card["index"] in i["touches"]
        }


def test_the_ops_export_is_the_command_lines_text_and_its_jsonl_reads_back() -> None:
    result = ask(evidence_jsonl=LINES, top_k=2, export=True)["result"]
    report = report_of(k=2)
    assert result["filename"] == "evidence-word-8-2.json"
    assert result["json"] == dumps(report)
    assert result["jsonl"] == evidence_jsonl(report)
    again = ask(evidence_jsonl=result["jsonl"], top_k=2, export=True)["result"]
    assert json.loads(again["json"])["evidence"] == json.loads(result["json"])["evidence"]


def test_a_list_of_items_gives_the_same_document_as_its_json_lines() -> None:
    items = [json.loads(line) for line in LINES.splitlines()]
    by_list = ask(evidence=items, export=True)["result"]["json"]
    by_lines = ask(evidence_jsonl=LINES, export=True)["result"]["json"]
    assert by_list == by_lines


def test_a_held_text_gives_the_same_answer_as_the_text_itself() -> None:
    handle(json.dumps({"op": "text", "ref": "ev1", "text": TEXT}))
    by_ref = json.loads(handle(json.dumps({
        "op": "evidence", "text_ref": "ev1", "size": 8, "overlap": 2, "evidence_jsonl": LINES,
        "export": True,
    })))  # fmt: skip
    assert by_ref["result"]["json"] == ask(evidence_jsonl=LINES, export=True)["result"]["json"]


@pytest.mark.parametrize(
    ("request_", "field", "message"),
    [
        ({"evidence_jsonl": "nope"}, "evidence", "no evidence item could be used: line 1"),
        ({"evidence": "nope"}, "evidence", "evidence must be a list of items"),
        ({"evidence_jsonl": 5}, "evidence", "evidence_jsonl must be JSON Lines text"),
        ({}, "evidence", "give the evidence either as JSON Lines or as a list"),
        ({"evidence": [], "evidence_jsonl": ""}, "evidence", "either as JSON Lines or as a"),
        ({"evidence_jsonl": "x" * 1_000_001}, "evidence", "over the 1,000,000-byte limit"),
        ({"evidence": [], "top_k": 0}, "top_k", "top-k must be at least 1"),
        ({"evidence": [], "export": "yes"}, "export", "export must be true or false"),
        ({"evidence": [], "overlap": 8}, "overlap", "must be smaller than size"),
    ],
)
def test_bad_requests_are_answered_inline_naming_the_field(
    request_: dict[str, Any], field: str, message: str
) -> None:
    answer = ask(**request_)
    assert answer["ok"] is False
    assert answer["error"]["field"] == field
    assert message in answer["error"]["message"]


# ---------------------------------------------------------------------- the sweep
def test_the_sweep_has_evidence_columns_only_when_evidence_is_given() -> None:
    plain = sweep_text(TEXT, size=8, overlap=2).to_json()
    assert "evidence" not in plain and "evidence_whole" not in plain["rows"][0]
    with_evidence = sweep_text(TEXT, size=8, overlap=2, evidence_jsonl=LINES, top_k=2).to_json()
    assert with_evidence["evidence"]["items"] == 4
    assert with_evidence["evidence"]["questions"] == 3
    assert [e["line"] for e in with_evidence["evidence"]["errors"]] == [5]
    for row, base in zip(with_evidence["rows"], plain["rows"], strict=True):
        assert {key: row[key] for key in base} == base


@pytest.mark.parametrize("unit", ["word", "char", "token"])
@given(size=st.integers(2, 30), data=st.data())
def test_every_sweep_row_equals_a_separate_evidence_check(
    unit: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    top_k = data.draw(st.integers(1, 4))
    sweep = sweep_text(
        TEXT, unit=unit, size=size, overlap=overlap, evidence_jsonl=LINES, top_k=top_k
    )
    for row in sweep.rows:
        params = parse_params(unit=unit, size=row["size"], overlap=row["overlap"])
        single = document(check_evidence(TEXT, params, jsonl=LINES, top_k=top_k))
        assert row["evidence_whole"] == single["summary"]["evidence_whole"]
        assert row["evidence_coverage"] == single["summary"]["evidence_coverage"]
        assert row["recall_at_k"] == single["retrieval"]["recall_at_k"]


def test_the_sweep_op_takes_the_same_evidence_fields() -> None:
    request = {"op": "sweep", "text": TEXT, "size": 8, "overlap": 2, "evidence_jsonl": LINES}
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"]
    assert answer["result"] == sweep_text(TEXT, size=8, overlap=2, evidence_jsonl=LINES).to_json()
    bad = json.loads(handle(json.dumps({**request, "evidence_jsonl": "nope"})))
    assert (bad["ok"], bad["error"]["field"]) == (False, "evidence")


def test_the_protocols_example_document_is_what_the_engine_prints() -> None:
    from pathlib import Path

    protocol = (Path(__file__).parents[2] / "docs" / "protocol.md").read_text("utf-8")
    section = protocol.split("### The document (`python -m pyapp evidence` prints exactly this)")[1]
    example = json.loads(section.split("```json")[1].split("```")[0])
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    line = '{"id": "g", "quote": "gamma delta epsilon", "question": "Where is gamma?"}'
    params = parse_params(unit="word", size=4, overlap=1)
    assert example == document(check_evidence(text, params, jsonl=line, top_k=1))
