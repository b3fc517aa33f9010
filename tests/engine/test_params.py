"""Parameters arrive as numbers or raw field strings; each bad one is refused with a hint."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyapp.core.params import parse_params
from pyapp.errors import InputError


def test_overlap_equal_to_size_is_refused_with_a_hint() -> None:
    with pytest.raises(InputError) as caught:
        parse_params(unit="word", size=512, overlap=512)
    assert caught.value.field == "overlap"
    assert str(caught.value) == (
        "overlap (512) must be smaller than size (512): lower the overlap or raise the size"
    )


@pytest.mark.parametrize(
    ("changes", "field", "fragment"),
    [
        ({"size": ""}, "size", "size is empty"),
        ({"size": "abc"}, "size", "size must be a number, got 'abc'"),
        ({"size": "4.5"}, "size", "size must be a whole number, got '4.5'"),
        ({"size": 0}, "size", "size must be at least 1, got 0"),
        ({"size": None}, "size", "size is missing"),
        ({"size": True}, "size", "size must be a number, got true"),
        ({"size": float("nan")}, "size", "finite"),
        ({"overlap": "-1"}, "overlap", "must not be negative"),
        ({"overlap": "1.5"}, "overlap", "overlap must be a whole number"),
        ({"overlap": "100%"}, "overlap", "rounds to 4, which must be smaller than size (4)"),
        ({"overlap": "-5%"}, "overlap", "must not be negative"),
        ({"overlap": "x%"}, "overlap", "must be a number"),
        ({"overlap_mode": "ratio"}, "overlap_mode", "use units or percent"),
        ({"unit": "sentence"}, "unit", "choose one of word, char, token"),
        ({"unit": "token", "encoding": "gpt2"}, "encoding", "choose one of o200k_base"),
        ({"tokens_per_unit": "-1"}, "tokens_per_unit", "tokens per unit must not be negative"),
        ({"tokens_per_unit": "lots"}, "tokens_per_unit", "tokens per unit must be a number"),
        (
            {"price_per_million": "-0.5"},
            "price_per_million",
            "price per million tokens must not be negative",
        ),
        ({"price_per_million": [1]}, "price_per_million", "price per million tokens must be"),
    ],
)
def test_each_bad_field_is_named_and_told_what_to_change(
    changes: dict[str, object], field: str, fragment: str
) -> None:
    raw: dict[str, object] = {"unit": "word", "size": "4", "overlap": "1"} | changes
    with pytest.raises(InputError) as caught:
        parse_params(**raw)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert fragment in caught.value.message
    assert ":" in caught.value.message  # the part after the colon says what to do
    # Worded for people: the API's field name (kept in `field`) is not in the message.
    assert "_" not in caught.value.message.split(":")[0], caught.value.message


def test_typed_strings_are_read_like_numbers() -> None:
    p = parse_params(
        unit="char", size=" 12 ", overlap="3", tokens_per_unit="0.3", price_per_million="2.5"
    )
    assert (p.size, p.overlap, p.tokens_per_unit, p.price_per_million) == (
        12,
        3,
        Fraction(3, 10),
        Fraction(5, 2),
    )


def test_an_empty_ratio_means_the_preset_and_token_mode_is_exactly_one_token_per_unit() -> None:
    assert parse_params(unit="word", size=4, tokens_per_unit="").tokens_per_unit == Fraction(4, 3)
    assert parse_params(unit="token", size=4, tokens_per_unit="9").tokens_per_unit == 1


def test_encoding_is_ignored_outside_token_mode_and_defaults_to_o200k() -> None:
    assert parse_params(unit="word", size=4, encoding="nonsense").encoding is None
    assert parse_params(unit="token", size=4).encoding == "o200k_base"
    assert parse_params(unit="token", size=4, encoding="cl100k_base").encoding == "cl100k_base"


@pytest.mark.parametrize(
    ("percent", "size", "units"),
    [("25%", 10, 3), ("24.9", 10, 2), ("15%", 512, 77), ("0%", 7, 0), ("50%", 3, 2), ("10%", 5, 1)],
)
def test_percent_overlap_rounds_half_up_to_whole_units(percent: str, size: int, units: int) -> None:
    p = parse_params(unit="char", size=size, overlap=percent, overlap_mode="percent")
    assert p.overlap == units
