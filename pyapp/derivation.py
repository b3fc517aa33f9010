"""How each summary figure was derived, so the page can show its working.

Each entry is ``{"formula", "inputs", "value"}``: the formula in symbols, the same
formula with this configuration's numbers, and the JSON value.

>>> from .params import parse_params
>>> from .report import summarize
>>> p = parse_params(unit="word", size=4, overlap=1, tokens_per_unit=1)
>>> d = derive(summarize(units=10, params=p, input_bytes=48, input_chars=48), p)
>>> d["chunks"]
{'formula': '1 + ceil(max(0, U - C) / S)', 'inputs': '1 + ceil(max(0, 10 - 4) / 3)', 'value': 3}
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .export import number
from .params import Params
from .report import Summary

__all__ = ["derive"]

_UNIT_NAMES = {"word": "words", "char": "code points", "token": "tokens"}


def _show(value: Fraction | int) -> str:
    """A fraction as the user would type it: ``4/3``, ``0.25``, ``12``."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    shown = number(value)
    return (
        f"{value.numerator}/{value.denominator}" if Fraction(repr(shown)) != value else repr(shown)
    )


def derive(summary: Summary, params: Params) -> dict[str, dict[str, Any]]:
    s, p = summary, params
    u, n, c, o, st = s.units, s.chunks, p.size, p.overlap, s.stride
    tpu, price = _show(p.tokens_per_unit), _show(p.price_per_million)

    def entry(formula: str, inputs: str, value: Fraction | int | None) -> dict[str, Any]:
        return {"formula": formula, "inputs": inputs, "value": number(value)}

    chunks = (
        entry("0 for empty text", "U = 0", n)
        if u == 0
        else entry("1 + ceil(max(0, U - C) / S)", f"1 + ceil(max(0, {u} - {c}) / {st})", n)
    )
    ratio_note = "undefined for 0 units"
    return {
        "units": entry(f"U = {_UNIT_NAMES[p.unit]} in the text", f"U = {u}", u),
        "chunks": chunks,
        "stride": entry("S = C - O", f"{c} - {o}", st),
        "processed_units": entry(
            "U + (N - 1) * O" if n else "0 for empty text",
            f"{u} + ({n} - 1) * {o}" if n else "U = 0",
            s.processed_units,
        ),
        "repeated_units": entry(
            "(N - 1) * O" if n else "0 for empty text",
            f"({n} - 1) * {o}" if n else "U = 0",
            s.repeated_units,
        ),
        "extra_volume": entry(
            "repeated / U", f"{s.repeated_units} / {u}" if u else ratio_note, s.extra_volume
        ),
        "inflation": entry(
            "processed / U", f"{s.processed_units} / {u}" if u else ratio_note, s.inflation
        ),
        "limit_inflation": entry("C / (C - O)", f"{c} / ({c} - {o})", s.limit_inflation),
        "estimated_tokens": entry(
            "processed * tokens_per_unit", f"{s.processed_units} * {tpu}", s.estimated_tokens
        ),
        "estimated_cost": entry(
            "estimated_tokens * price_per_million / 1,000,000",
            f"{_show(s.estimated_tokens)} * {price} / 1,000,000",
            s.estimated_cost,
        ),
        "input_bytes": entry("UTF-8 bytes of the text", f"{s.input_bytes}", s.input_bytes),
        "input_chars": entry("code points in the text", f"{s.input_chars}", s.input_chars),
    }
