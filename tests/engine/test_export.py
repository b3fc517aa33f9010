"""The export document: schema-valid, deterministic, and equal to a stored golden file."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.chunking import chunk_text
from pyapp.core.export import document, dumps, indented
from pyapp.core.params import parse_params

GOLDEN = Path(__file__).parent / "golden"
MIXED = "Overlap  keeps\tboundaries.\r\nZwölf Wörter 🦜 und 日本語のテキスト, e\u0301 ok?\n"


def schema() -> dict[str, Any]:
    text = resources.files("pyapp").joinpath("schema", "chunks.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@pytest.mark.parametrize(
    ("text", "params"),
    [
        (
            "one two three four five six seven eight nine ten",
            {"unit": "word", "size": 4, "overlap": 1},
        ),
        (MIXED, {"unit": "char", "size": 9, "overlap": 3}),
        (MIXED, {"unit": "token", "size": 5, "overlap": "20%"}),
        (MIXED, {"unit": "token", "size": 5, "overlap": 2, "encoding": "cl100k_base"}),
        ("", {"unit": "word", "size": 3, "overlap": 0}),
        ("w " * 300, {"unit": "word", "size": 1, "overlap": 0}),
    ],
)
def test_every_export_validates_against_the_schema(text: str, params: dict[str, Any]) -> None:
    doc = document(chunk_text(text, parse_params(**params)))
    jsonschema.validate(doc, schema())


def test_the_schema_rejects_a_document_missing_a_field() -> None:
    doc = document(chunk_text("a b c", parse_params(unit="word", size=2, overlap=1)))
    del doc["chunks"][0]["fresh_text"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema())


def test_keys_come_in_the_documented_order() -> None:
    doc = document(chunk_text("a b c", parse_params(unit="word", size=2, overlap=1)))
    assert list(doc) == [
        "schema",
        "params",
        "summary",
        "bom_removed",
        "text",
        "boundaries",
        "chunks",
        "capped",
    ]
    assert list(doc["text"]) == ["sha256", "bytes", "chars", "line_breaks"]
    assert list(doc["params"]) == [
        "unit",
        "encoding",
        "size",
        "overlap",
        "tokens_per_unit",
        "price_per_million",
        "model",
        "max_tokens",
        "special_tokens",
    ]
    assert list(doc["summary"]) == [
        "units",
        "chunks",
        "stride",
        "processed_units",
        "repeated_units",
        "extra_volume",
        "inflation",
        "limit_inflation",
        "estimated_tokens",
        "estimated_cost",
        "input_bytes",
        "input_chars",
        "max_tokens_alone",
        "chunks_over_limit",
    ]


@pytest.mark.parametrize(
    ("golden", "unit", "size", "overlap", "encoding", "model"),
    [
        ("mixed_word_size_4_overlap_1.json", "word", 4, 1, None, None),
        ("mixed_char_size_9_overlap_3.json", "char", 9, 3, None, None),
        ("mixed_token_o200k_size_5_overlap_2.json", "token", 5, 2, None, None),
        ("mixed_token_llama3_size_5_overlap_2.json", "token", 5, 2, "llama3", None),
        ("mixed_token_qwen2_size_5_overlap_2.json", "token", 5, 2, "qwen2", None),
        ("mixed_token_tekken_size_5_overlap_2.json", "token", 5, 2, "tekken", None),
        (
            "mixed_token_bert_size_5_overlap_2_model_all-MiniLM-L6-v2_max_6.json",
            "token", 5, 2, None, ("all-MiniLM-L6-v2", 6),
        ),
    ],
)  # fmt: skip
def test_export_text_equals_the_golden_file_named_for_its_parameters(
    golden: str,
    unit: str,
    size: int,
    overlap: int,
    encoding: str | None,
    model: tuple[str, int] | None,
) -> None:
    params = parse_params(
        unit=unit,
        size=size,
        overlap=overlap,
        encoding=encoding,
        model=model[0] if model else None,
        max_tokens=model[1] if model else None,
    )
    text = dumps(chunk_text(MIXED, params))
    if os.environ.get("PYAPP_WRITE_GOLDEN") == "1":  # after a deliberate format change
        (GOLDEN / golden).write_text(text, "utf-8")
    assert text == (GOLDEN / golden).read_text("utf-8")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=25,
)


@given(JSON_VALUES)
def test_the_fast_writer_writes_what_json_dumps_writes(value: object) -> None:
    assert indented(value) == json.dumps(value, ensure_ascii=False, indent=2)
