"""No price, no cost: a model that lists no price, or an empty price field, gives no
estimated cost, instead of one at a made-up $1 per million tokens."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from pyapp.core.audit import Measure
from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.facts import CHUNK_DEFAULTS
from pyapp.planning.corpus.report import render
from pyapp.web.api import handle

TEXT = "one two three four five six seven eight nine ten"


def chunk(**fields: Any) -> dict[str, Any]:
    answer = json.loads(handle(json.dumps({"op": "chunk", "text": TEXT, **fields})))
    assert answer["ok"], answer
    result: dict[str, Any] = answer["result"]
    return result


def test_the_page_default_price_is_blank() -> None:
    assert CHUNK_DEFAULTS["price_per_million"] == ""


@pytest.mark.parametrize("price", [None, "", "   "])
def test_no_price_and_no_model_gives_no_cost(price: str | None) -> None:
    result = chunk(unit="word", size=4, overlap=1, price_per_million=price)
    assert result["params"]["price_per_million"] is None
    assert result["summary"]["estimated_cost"] is None
    assert result["summary"]["estimated_tokens"] is not None  # the tokens are still counted
    derived = result["derivation"]["estimated_cost"]
    assert derived["value"] is None and "no price" in derived["formula"]


def test_a_model_with_no_listed_price_shows_no_cost() -> None:
    result = chunk(unit="token", size=4, overlap=1, model="all-MiniLM-L6-v2", price_per_million="")
    assert result["params"]["model"] == "all-MiniLM-L6-v2"
    assert result["summary"]["estimated_cost"] is None


def test_a_listed_price_or_a_typed_one_gives_the_cost() -> None:
    listed = parse_params(unit="token", size=4, overlap=1, model="text-embedding-3-small")
    assert listed.price_per_million == Fraction(1, 50)
    report = chunk_text(TEXT, listed)
    assert report.summary.estimated_cost == report.summary.estimated_tokens / 50 / 1_000_000
    typed = chunk(unit="word", size=4, overlap=1, tokens_per_unit=1, price_per_million="2")
    assert typed["summary"]["estimated_cost"] == pytest.approx(12 * 2 / 1_000_000)
    free = chunk(unit="word", size=4, overlap=1, price_per_million="0")  # a price of 0 is one
    assert free["summary"]["estimated_cost"] == 0


def test_the_export_says_null_for_no_price() -> None:
    answer = json.loads(handle(json.dumps({"op": "export", "text": TEXT, "size": 4})))
    doc = json.loads(answer["result"]["json"])
    assert doc["params"]["price_per_million"] is None
    assert doc["summary"]["estimated_cost"] is None


def test_the_audit_measure_without_a_price_estimates_no_cost() -> None:
    assert Measure.parse(price_per_million="").price_per_million is None
    assert Measure.parse(price_per_million="3").price_per_million == 3


def test_the_corpus_report_page_says_no_price_was_given() -> None:
    doc = {
        "schema": "pyapp.corpus/2", "documents": 0, "units": 0, "chunks": 0,
        "params": {"unit": "word", "encoding": None, "size": 4, "overlap": 1,
                   "tokens_per_unit": 1, "price_per_million": None},
        "input": {"text_field": "text", "id_field": None}, "processed_units": 0,
        "repeated_units": 0, "inflation": None, "inflation_nominal": None,
        "stored_tokens_actual": 0, "stored_tokens_nominal": 0, "estimated_cost": None,
        "chunks_per_document": {"one_chunk": 0, "one_chunk_share": None, "histogram": []},
        "units_per_document": {"min": None, "max": None, "mean": None, "empty": 0,
                               "histogram": []},
        "largest_documents": [], "boms_removed": 0, "input_bytes": 0, "errors_total": 0,
        "errors": [], "skipped_total": 0, "skipped": [],
    }  # fmt: skip
    page = render(doc)
    assert "no price given" in page
    assert "$1" not in page
