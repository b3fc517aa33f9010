"""Exact numbers at the edges: how a figure is rounded, written to JSON, shown in a
derivation, and how a derivation is built. One rule each, used everywhere.

A leaf module: it imports no other part of the engine.

>>> number(Fraction(12)), number(Fraction(1, 5)), number(None)
(12, 0.2, None)
>>> show(Fraction(384, 5)), show(Fraction(4, 3)), show(Fraction(12, 10**6)), show(7)
('76.8', '4/3', '0.000012', '7')
>>> round_half_up(Fraction(5, 2)), round_half_up(Fraction(12, 5))
(3, 2)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Final

__all__ = ["Derivation", "number", "round_half_up", "show"]

#: ``show`` writes a decimal when it has at most this many digits after the point.
SHOW_DECIMALS: Final = 12


def number(value: Fraction | int | None) -> int | float | None:
    """JSON's number for an exact value: integers stay integers, other fractions
    become the nearest float, ``None`` stays ``null``."""
    if value is None or isinstance(value, int):
        return value
    if value.denominator == 1:
        return int(value.numerator)
    return float(value)


def round_half_up(value: Fraction) -> int:
    """The nearest integer, halves going up (``76.8`` -> ``77``, ``2.5`` -> ``3``)."""
    return math.floor(value + Fraction(1, 2))


def _decimal_places(denominator: int) -> int | None:
    """How many decimals ``1/denominator`` needs, or ``None`` if it never ends."""
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    return max(twos, fives) if denominator == 1 else None


def show(value: Fraction | int) -> str:
    """A number as a person would type it: an integer, a short exact decimal, or
    ``n/d`` when the decimal would not end (or be too long to read)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    places = _decimal_places(value.denominator)
    if places is None or places > SHOW_DECIMALS:
        return f"{value.numerator}/{value.denominator}"
    scaled = abs(value.numerator) * (10**places // value.denominator)
    whole, frac = divmod(scaled, 10**places)
    sign = "-" if value < 0 else ""
    return f"{sign}{whole}.{frac:0{places}d}".rstrip("0")


class Derivation:
    """How each figure was derived: ``{key: {"formula", "inputs", "value"[, "note"]}}``,
    the formula in symbols, the same with this configuration's numbers, the value.

    >>> d = Derivation()
    >>> d.add("stride", "C - O", "512 - 77", 435)
    >>> d.to_json()
    {'stride': {'formula': 'C - O', 'inputs': '512 - 77', 'value': 435}}
    """

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Any]] = {}

    def add(
        self,
        key: str,
        formula: str,
        inputs: str,
        value: Fraction | int | None,
        note: str | None = None,
    ) -> None:
        entry: dict[str, Any] = {"formula": formula, "inputs": inputs, "value": number(value)}
        if note is not None:
            entry["note"] = note
        self._entries[key] = entry

    def to_json(self) -> dict[str, dict[str, Any]]:
        return dict(self._entries)
