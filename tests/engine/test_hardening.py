"""The engine's door against hostile requests: every string given to ``handle()`` gets
a JSON object back, at once (never a hang), with no traceback in it; huge numbers are refused before
any arithmetic, in every numeric field of every op."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyapp.facts import BOUNDS, MAX_QUOTE
from pyapp.web.api import OPS, handle

#: Only catches a hang: a refusal takes milliseconds, the worst case before the fix
#: (a price of 1e99999999) took hours. How fast a refusal is, is not asserted here.
HANG_S = 30.0

BASE: dict[str, dict[str, Any]] = {
    "chunk": {"text": "one two three four", "size": 2},
    "export": {"text": "one two three four", "size": 2},
    "sweep": {"text": "one two three four", "size": 2},
    "counts": {"text": "one two"},
    "size": {"documents": 10, "avg_tokens": 100, "size": 32},
    "budget": {"window": 8192, "top_k": 5, "size": 512},
}

NUMERIC_FIELDS: dict[str, tuple[str, ...]] = {
    "chunk": ("size", "overlap", "tokens_per_unit", "price_per_million"),
    "export": ("size", "overlap", "tokens_per_unit", "price_per_million"),
    "sweep": ("size", "overlap"),
    "size": ("documents", "avg_tokens", "size", "overlap", "top_k", "budget", "dim",
             "bytes_per_value"),
    "budget": ("window", "system", "question", "answer", "top_k", "size"),
}  # fmt: skip

HUGE_TEXTS = (
    "1e99999999",
    "-1e5000",
    "1e1000000",
    "1e3000000",
    "1e309",
    "1" + "0" * 4300,
    "9" * 5000,
)


def answer(request_json: str) -> tuple[dict[str, Any], float]:
    began = time.perf_counter()
    text = handle(request_json)
    seconds = time.perf_counter() - began
    assert "Traceback" not in text
    parsed = json.loads(text)
    assert isinstance(parsed, dict) and isinstance(parsed.get("ok"), bool)
    return parsed, seconds


@pytest.mark.parametrize(
    ("op", "field"), [(op, field) for op, fields in NUMERIC_FIELDS.items() for field in fields]
)
@pytest.mark.parametrize("huge", HUGE_TEXTS, ids=lambda text: text[:12])
def test_a_huge_typed_number_is_refused_at_once_in_every_field_of_every_op(
    op: str, field: str, huge: str
) -> None:
    parsed, waited = answer(json.dumps({"op": op, **BASE[op], field: huge}))
    assert parsed["ok"] is False
    assert parsed["error"]["field"] == field, parsed
    assert "bug" not in parsed["error"]["message"], parsed
    assert len(parsed["error"]["message"]) < 300
    assert waited < HANG_S  # a hang bound, not a speed


@pytest.mark.parametrize(
    ("op", "field"), [(op, field) for op, fields in NUMERIC_FIELDS.items() for field in fields]
)
@pytest.mark.parametrize(
    "raw_number", ["1" + "0" * 4000, "-" + "9" * 4000, "1e400", "-1e400", "1e309"]
)
def test_a_huge_json_number_is_refused_without_being_printed(
    op: str, field: str, raw_number: str
) -> None:
    fields = ", ".join(f'"{key}": {json.dumps(value)}' for key, value in BASE[op].items())
    parsed, waited = answer(f'{{"op": "{op}", {fields}, "{field}": {raw_number}}}')
    assert parsed["ok"] is False and parsed["error"]["field"] == field, parsed
    assert "0" * 50 not in parsed["error"]["message"]
    assert waited < HANG_S  # a hang bound, not a speed


def test_a_json_integer_past_python_s_digit_limit_is_a_clear_error() -> None:
    parsed, _ = answer('{"op": "chunk", "text": "a", "size": 1' + "0" * 5000 + "}")
    assert parsed["ok"] is False and "not valid JSON" in parsed["error"]["message"]


@pytest.mark.parametrize(
    ("field", "inside", "outside"),
    [
        ("size", "10000000", "10000001"),
        ("overlap", "9999999", "10000000"),
        ("price_per_million", "1000000", "1000000.5"),
        ("tokens_per_unit", "10000", "10001"),
    ],
)
def test_each_chunk_field_accepts_its_documented_range_and_no_more(
    field: str, inside: str, outside: str
) -> None:
    request = {"op": "chunk", "text": "a b", "size": "10000000", "overlap": "0", field: inside}
    ok, _ = answer(json.dumps(request))
    assert ok["ok"], ok
    refused, _ = answer(json.dumps({**request, field: outside}))
    assert refused["ok"] is False and refused["error"]["field"] == field
    assert f"{BOUNDS[field].high:,}".split(".")[0] in refused["error"]["message"]


def test_a_ten_megabyte_op_name_gets_a_short_answer() -> None:
    parsed, waited = answer(json.dumps({"op": "x" * 10_000_000}))
    assert parsed["ok"] is False and parsed["error"]["field"] == "op"
    assert len(json.dumps(parsed)) < 1_000
    assert "x" * (MAX_QUOTE + 1) not in parsed["error"]["message"]
    assert waited < HANG_S  # a hang bound, not a speed


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_json_is_an_error_answer_not_a_recursion_error(depth: int) -> None:
    parsed, _ = answer("[" * depth + "]" * depth)
    assert parsed["ok"] is False


def test_counts_refuses_a_unit_that_is_not_a_unit() -> None:
    parsed, _ = answer(json.dumps({"op": "counts", "text": "a b", "unit": {"a": 1}}))
    assert parsed["ok"] is False and parsed["error"]["field"] == "unit"


def test_an_unknown_text_ref_is_an_answer_saying_to_send_the_text_again() -> None:
    parsed, _ = answer(json.dumps({"op": "chunk", "text_ref": "nope" * 1000, "size": 4}))
    assert parsed["ok"] is False and parsed["error"]["field"] == "text_ref"
    assert len(parsed["error"]["message"]) < 300


# ---------------------------------------------------------------- the property

HOSTILE_NUMBERS = st.sampled_from(
    ["1e99999999", "-1e5000", "1e309", "NaN", "inf", "0x10", "1/0", "4/3", "", "  ", "½", "١٢"]
)
JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**60), max_value=10**60),
    st.floats(allow_nan=False, allow_infinity=False),
    HOSTILE_NUMBERS,
    st.text(max_size=40),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    sorted(
        {
            "text", "text_ref", "ref", "unit", "encoding", "size", "overlap", "overlap_mode",
            "tokens_per_unit", "price_per_million", "documents", "avg_tokens", "top_k",
            "budget", "dim", "bytes_per_value", "window", "system", "question", "answer",
        }
    )
)  # fmt: skip
OPS_AND_JUNK = st.one_of(st.sampled_from(sorted(OPS)), JSON_VALUES)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    op=OPS_AND_JUNK,
    base=st.sampled_from(sorted(BASE)),
    changes=st.dictionaries(FIELDS, JSON_VALUES, max_size=5),
)
def test_any_request_gets_a_json_object_never_a_hang_and_no_traceback(
    op: object, base: str, changes: dict[str, object]
) -> None:
    request = {**BASE[base], **changes, "op": op}
    parsed, waited = answer(json.dumps(request))
    assert waited < HANG_S  # a hang bound, not a speed, request
    if not parsed["ok"]:
        message = parsed["error"]["message"]
        assert isinstance(message, str) and message
        assert "this is a bug" not in message, (request, message)


@settings(max_examples=200)
@given(st.text(max_size=200))
def test_any_string_at_all_gets_a_json_object(request_json: str) -> None:
    parsed, waited = answer(request_json)
    assert waited < HANG_S  # a hang bound, not a speed
