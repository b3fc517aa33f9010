"""Typed chunking parameters, parsed once at the edge from numbers or raw field strings.

Every value that arrives from the page or the command line goes through
:func:`parse_params`; everything past it works with a validated :class:`Params`.
Numbers are exact :class:`fractions.Fraction` values, so ``4/3`` stays ``4/3``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from .errors import InputError, field_name

__all__ = [
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "UNITS",
    "Params",
    "Unit",
    "parse_params",
    "preset_tokens_per_unit",
]

Unit = Literal["word", "char", "token"]
UNITS: Final = ("word", "char", "token")
ENCODINGS: Final = ("o200k_base", "cl100k_base")
DEFAULT_ENCODING: Final = "o200k_base"

#: The English preset (OpenAI's rule of thumb): 4/3 tokens per word, 1/4 per code point.
_PRESETS: Final[dict[str, Fraction]] = {
    "word": Fraction(4, 3),
    "char": Fraction(1, 4),
    "token": Fraction(1),
}


def preset_tokens_per_unit(unit: Unit) -> Fraction:
    """The tokens-per-unit preset for ``unit``.

    >>> preset_tokens_per_unit("word"), preset_tokens_per_unit("char")
    (Fraction(4, 3), Fraction(1, 4))
    """
    return _PRESETS[unit]


@dataclass(frozen=True, slots=True, kw_only=True)
class Params:
    """One validated configuration. ``overlap`` is always in whole units here."""

    unit: Unit
    encoding: str | None
    size: int
    overlap: int
    tokens_per_unit: Fraction
    price_per_million: Fraction
    caps: bool = True

    @property
    def stride(self) -> int:
        return self.size - self.overlap


def _describe(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def _parse_number(field: str, value: object, *, what: str) -> Fraction:
    """An exact non-negative-agnostic number from a JSON number or a typed string."""
    name = field_name(field)
    if value is None:
        raise InputError(field, f"{name} is missing: enter {what}")
    if isinstance(value, bool):
        raise InputError(field, f"{name} must be a number, got {str(value).lower()}: enter {what}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(field, f"{name} must be a finite number: enter {what}")
        return Fraction(repr(value))
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise InputError(field, f"{name} is empty: enter {what}")
        try:
            number = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise InputError(
                field, f"{name} must be a number, got {_describe(value)}: enter {what}"
            ) from None
        return number
    raise InputError(field, f"{name} must be a number, got {type(value).__name__}: enter {what}")


def _parse_whole(field: str, value: object, *, what: str) -> int:
    number = _parse_number(field, value, what=what)
    if number.denominator != 1:
        raise InputError(
            field,
            f"{field_name(field)} must be a whole number, got {_describe(value)}: enter {what}",
        )
    return int(number)


def _round_half_up(value: Fraction) -> int:
    """Round to the nearest integer, halves going up.

    >>> [_round_half_up(Fraction(n, 2)) for n in (3, 5, 7)], _round_half_up(Fraction(12, 5))
    ([2, 3, 4], 2)
    """
    return math.floor(value + Fraction(1, 2))


def parse_params(
    *,
    unit: object = "word",
    encoding: object = None,
    size: object,
    overlap: object = 0,
    overlap_mode: object = "units",
    tokens_per_unit: object = None,
    price_per_million: object = 1,
    caps: bool = True,
) -> Params:
    """Validate raw parameters (numbers, or the strings typed into fields).

    An ``overlap`` string ending in ``%`` is a percentage whatever ``overlap_mode`` says.
    A percentage of ``size`` is rounded half up to whole units.

    >>> p = parse_params(unit="word", size="4", overlap="1")
    >>> p.size, p.overlap, p.stride, p.tokens_per_unit
    (4, 1, 3, Fraction(4, 3))
    >>> parse_params(unit="char", size=512, overlap="15%").overlap
    77
    >>> try:
    ...     parse_params(unit="word", size=4, overlap=4)
    ... except InputError as err:
    ...     print(err.field, "|", err)
    overlap | overlap (4) must be smaller than size (4): lower the overlap or raise the size
    """
    if unit not in UNITS:
        raise InputError(
            "unit",
            f"unknown unit {_describe(unit)}: choose one of {', '.join(UNITS)}",
        )
    the_unit: Unit = unit

    the_encoding: str | None = None
    if the_unit == "token":
        if encoding is None or encoding == "":
            the_encoding = DEFAULT_ENCODING
        elif isinstance(encoding, str) and encoding in ENCODINGS:
            the_encoding = encoding
        else:
            raise InputError(
                "encoding",
                f"unknown encoding {_describe(encoding)}: choose one of {', '.join(ENCODINGS)}",
            )

    the_size = _parse_whole("size", size, what="a whole number of units, 1 or more")
    if the_size < 1:
        raise InputError("size", f"size must be at least 1, got {the_size}: raise the size")

    mode = overlap_mode if overlap_mode is not None else "units"
    if isinstance(overlap, str) and overlap.strip().endswith("%"):
        mode = "percent"
        overlap = overlap.strip()[:-1]
    if mode == "percent":
        percent = _parse_number("overlap", overlap, what="a percentage from 0 up to below 100")
        if percent < 0:
            raise InputError(
                "overlap", f"overlap must not be negative, got {percent}%: use 0% or more"
            )
        the_overlap = _round_half_up(percent * the_size / 100)
        if the_overlap >= the_size:
            raise InputError(
                "overlap",
                f"overlap {str(overlap).strip()}% of size {the_size} rounds to"
                f" {the_overlap}, which must be smaller than size ({the_size}):"
                " lower the overlap or raise the size",
            )
    elif mode == "units":
        the_overlap = _parse_whole("overlap", overlap, what="a whole number of units, 0 or more")
        if the_overlap < 0:
            raise InputError(
                "overlap", f"overlap must not be negative, got {the_overlap}: use 0 or more"
            )
        if the_overlap >= the_size:
            raise InputError(
                "overlap",
                f"overlap ({the_overlap}) must be smaller than size ({the_size}):"
                " lower the overlap or raise the size",
            )
    else:
        raise InputError(
            "overlap_mode", f"unknown overlap mode {_describe(overlap_mode)}: use units or percent"
        )

    if the_unit == "token":
        # Token mode counts real tokens: one token per unit, exactly.
        tpu = Fraction(1)
    elif tokens_per_unit is None or (
        isinstance(tokens_per_unit, str) and not tokens_per_unit.strip()
    ):
        tpu = preset_tokens_per_unit(the_unit)
    else:
        tpu = _parse_number("tokens_per_unit", tokens_per_unit, what="a ratio of 0 or more")
        if tpu < 0:
            raise InputError(
                "tokens_per_unit", f"tokens per unit must not be negative, got {tpu}: use 0 or more"
            )

    price = _parse_number(
        "price_per_million", price_per_million, what="a price per million tokens, 0 or more"
    )
    if price < 0:
        raise InputError(
            "price_per_million",
            f"price per million tokens must not be negative, got {price}: use 0 or more",
        )

    return Params(
        unit=the_unit,
        encoding=the_encoding,
        size=the_size,
        overlap=the_overlap,
        tokens_per_unit=tpu,
        price_per_million=price,
        caps=caps,
    )
