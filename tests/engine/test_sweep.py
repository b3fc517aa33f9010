"""Overlap sweep: one engine call whose rows equal separate single runs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyapp.core.chunking import chunk_text
from pyapp.core.params import parse_params
from pyapp.errors import InputError
from pyapp.planning.sweep import sweep_text

TEXT = "One two three. Four five six. Seven eight nine ten."


def single_run(text: str, unit: str, size: int, overlap: int) -> dict[str, object]:
    """What a separate chunk run reports, cut sentences by brute force over its chunks."""
    from pyapp.core.sentences import split_sentences

    report = chunk_text(text, parse_params(unit=unit, size=size, overlap=overlap, caps=False))
    s = report.summary
    cut = sum(
        1
        for a, b in split_sentences(text)
        if not any(c.char_start <= a and b <= c.char_end for c in report.chunks)
    )
    return {
        "chunks": s.chunks,
        "processed_units": s.processed_units,
        "repeated_units": s.repeated_units,
        "inflation": None if s.inflation is None else float(s.inflation),
        "limit_inflation": float(s.limit_inflation),
        "stride": s.stride,
        "cut": cut,
    }


def test_the_overlap_series_runs_from_zero_to_half_the_size_in_whole_units() -> None:
    rows = [r for r in sweep_text(TEXT, size=4, overlap=1).rows if r["series"] == "overlap"]
    assert [(r["overlap"], r["chunks"], r["cut"]) for r in rows] == [
        (0, 3, 2),
        (1, 3, 0),
        (2, 4, 0),
    ]
    assert [r["current"] for r in rows] == [False, True, False]


def test_the_overlap_series_has_eleven_rows_when_the_size_allows_it() -> None:
    rows = [r for r in sweep_text(TEXT, unit="char", size=100).rows if r["series"] == "overlap"]
    assert [r["overlap"] for r in rows] == list(range(0, 55, 5))
    assert [r["overlap_percent"] for r in rows] == list(range(0, 55, 5))


def test_the_current_overlap_joins_the_series_when_it_is_not_a_multiple_of_five_percent() -> None:
    rows = [r for r in sweep_text(TEXT, unit="char", size=100, overlap=7).rows]
    overlaps = [r["overlap"] for r in rows if r["series"] == "overlap"]
    assert 7 in overlaps and overlaps == sorted(overlaps)


def test_a_size_of_one_only_sweeps_overlap_zero() -> None:
    rows = sweep_text(TEXT, unit="char", size=1).rows
    assert {r["overlap"] for r in rows} == {0}


def test_the_size_series_keeps_the_overlap_share() -> None:
    rows = [r for r in sweep_text(TEXT, unit="char", size=40, overlap="25%").rows]
    sizes = [(r["size"], r["overlap"]) for r in rows if r["series"] == "size"]
    assert sizes == [(20, 5), (30, 8), (40, 10), (60, 15), (80, 20)]


def test_a_percent_overlap_is_swept_from_the_percentage_not_the_rounded_units() -> None:
    # 15% of 512 is 76.8 -> 77; at 256 the share gives 38.4 -> 38, not 77/2 = 38.5 -> 39.
    rows = sweep_text(TEXT, unit="char", size=512, overlap="15%").rows
    assert (256, 38) in [(r["size"], r["overlap"]) for r in rows if r["series"] == "size"]


def test_the_sweep_reports_units_and_sentences_once() -> None:
    doc = sweep_text(TEXT, size=4).to_json()
    assert (doc["units"], doc["sentences"]) == (10, 3)
    assert doc["params"] == {"unit": "word", "encoding": None, "size": 4, "overlap": 0}


def test_bad_sweep_input_is_refused_like_chunk_input() -> None:
    with pytest.raises(InputError) as caught:
        sweep_text(TEXT, size=4, overlap=4)
    assert caught.value.field == "overlap"


TEXTS = st.text(alphabet=st.sampled_from(list("ab c.!?。\n日🦜")), max_size=60)


@pytest.mark.parametrize("unit", ["word", "char", "token"])
@given(text=TEXTS, size=st.integers(1, 16), data=st.data())
def test_every_sweep_row_equals_a_separate_single_run(
    unit: str, text: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    result = sweep_text(text, unit=unit, size=size, overlap=overlap)
    for row in result.rows:
        assert 0 <= row["overlap"] < row["size"]
        single = single_run(text, unit, row["size"], row["overlap"])
        assert {key: row[key] for key in single} == single


def test_the_sweep_op_returns_the_same_rows_as_the_engine() -> None:
    import json

    from pyapp.web.api import handle

    request = {"op": "sweep", "text": TEXT, "unit": "word", "size": "4", "overlap": "25%"}
    answer = json.loads(handle(json.dumps(request)))
    assert answer["ok"]
    assert answer["result"] == sweep_text(TEXT, unit="word", size="4", overlap="25%").to_json()
    too_big = json.loads(handle(json.dumps({**request, "text": "x" * 1_000_001})))
    assert (too_big["ok"], too_big["error"]["field"]) == (False, "text")


def test_a_byte_order_mark_is_not_swept_as_text() -> None:
    text = "\ufeffabc def"
    assert sweep_text(text, unit="char", size=3).units == 7
    assert (
        sweep_text(text, unit="char", size=3).rows == sweep_text(text[1:], unit="char", size=3).rows
    )
