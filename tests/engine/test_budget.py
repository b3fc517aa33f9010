"""Context budget: reference 000's inequality and reference 004's top-k ceiling."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.errors import InputError
from pyapp.planning.budget import check_budget


def test_reference_000_five_chunks_of_512_fit_with_7592_available() -> None:
    budget = check_budget(window=8192, system=500, question=100, top_k=5, size=512)
    assert (budget.available, budget.retrieved, budget.fits) == (7592, 2560, True)


def test_reference_000_eight_chunks_of_1024_overflow() -> None:
    budget = check_budget(window=8192, system=500, question=100, top_k=8, size=1024)
    assert (budget.retrieved, budget.fits) == (8192, False)
    assert budget.left == 7592 - 8192


def test_reference_004_eight_chunks_of_512_fit_a_4096_window_and_twelve_do_not() -> None:
    assert check_budget(window=4096, top_k=8, size=512).chunks_in_window == 8
    assert check_budget(window=4096, top_k=8, size=512).fits
    assert not check_budget(window=4096, top_k=12, size=512).fits


def test_reserved_answer_space_comes_out_of_the_available_tokens() -> None:
    budget = check_budget(window=8192, system=500, question=100, answer=1000, top_k=5, size=512)
    assert budget.available == 6592
    assert budget.max_top_k == 12


def test_a_prompt_larger_than_the_window_leaves_no_room_and_no_top_k() -> None:
    budget = check_budget(window=1000, system=900, question=200, top_k=1, size=10)
    assert budget.available == -100
    assert (budget.fits, budget.max_top_k) == (False, 0)


def test_budget_document_has_the_issues_field_names_and_derivations() -> None:
    doc = check_budget(window=8192, system=500, question=100, top_k=5, size=512).to_json()
    for key in ("available", "retrieved", "fits", "max_top_k", "chunks_in_window"):
        assert doc["derivation"][key]["value"] == doc[key]
    assert doc["derivation"]["available"]["inputs"] == "8192 - 500 - 100 - 0"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"window": 0}, "window"),
        ({"system": -1}, "system"),
        ({"question": "ten"}, "question"),
        ({"answer": "1.5"}, "answer"),
        ({"top_k": -1}, "top_k"),
        ({"size": 0}, "size"),
    ],
)
def test_bad_budget_input_names_the_field_to_fix(change: dict[str, object], field: str) -> None:
    base: dict[str, object] = {"window": 8192, "system": 500, "question": 100, "top_k": 5}
    with pytest.raises(InputError) as caught:
        check_budget(**{**base, "size": 512, **change})
    assert caught.value.field == field


@given(
    window=st.integers(1, 20000),
    prompt=st.integers(0, 20000),
    size=st.integers(1, 3000),
)
def test_max_top_k_is_the_largest_k_that_fits(window: int, prompt: int, size: int) -> None:
    k = check_budget(window=window, system=prompt, top_k=0, size=size).max_top_k
    assert k >= 0
    if k:
        assert check_budget(window=window, system=prompt, top_k=k, size=size).fits
    assert not check_budget(window=window, system=prompt, top_k=k + 1, size=size).fits


def test_the_budget_op_answers_reference_000_and_names_a_missing_field() -> None:
    import json

    from pyapp.web.api import handle

    request = {"op": "budget", "window": "8192", "system": 500, "question": 100}
    answer = json.loads(handle(json.dumps({**request, "top_k": 5, "size": 512})))
    assert answer["ok"] and answer["result"]["available"] == 7592 and answer["result"]["fits"]
    missing = json.loads(handle(json.dumps({**request, "top_k": 5})))
    assert (missing["ok"], missing["error"]["field"]) == (False, "size")
