"""Typed chunking parameters, parsed once at the edge from numbers or raw field strings.

Every value that arrives from the page or the command line goes through
:func:`parse_params` (or, for the planning calculators, :func:`parse_number`,
:func:`parse_whole` and :func:`parse_overlap`); everything past it works with
validated, exact values. Numbers are :class:`fractions.Fraction`, so ``4/3``
stays ``4/3``.

**Bounds first.** A number is checked for shape and range *before* any
arithmetic: at most :data:`~pyapp.facts.MAX_DIGITS` significant digits and an
exponent within :data:`~pyapp.facts.MAX_EXPONENT`, then the field's range from
:data:`~pyapp.facts.BOUNDS`. So ``1e99999999`` is refused at once instead of
being expanded, and no message ever prints a huge number: it quotes at most
:data:`~pyapp.facts.MAX_QUOTE` characters of what was typed.

>>> try:  # doctest: +ELLIPSIS
...     parse_number("price_per_million", "1e99999999")
... except InputError as err:
...     print(err)
price per million tokens must be at most 1,000,000, got '1e99999999': enter a number from 0 to ...
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal

from ..errors import InputError, field_name
from ..facts import (
    BOUNDS,
    DEFAULT_ENCODING,
    ENCODINGS,
    MAX_DIGITS,
    MAX_EXPONENT,
    MAX_QUOTE,
    PRESETS,
    UNITS,
    Bound,
    grouped,
)
from ..figures import round_half_up

__all__ = [
    "Params",
    "Unit",
    "parse_encoding",
    "parse_number",
    "parse_overlap",
    "parse_params",
    "parse_unit",
    "parse_whole",
    "quote",
]

Unit = Literal["word", "char", "token"]

#: A typed number: a decimal with an optional exponent, or a fraction ``a/b``.
_DECIMAL: Final = re.compile(
    r"(?P<sign>[+-]?)(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?"
)
_RATIO: Final = re.compile(r"(?P<num>[+-]?\d+)\s*/\s*(?P<den>\d+)")


def quote(value: object) -> str:
    """What was typed, for a message: at most :data:`~pyapp.facts.MAX_QUOTE` characters.

    >>> quote("abc"), quote("x" * 50)[-6:], quote(10**5000)
    ("'abc'", "xxxx'…", 'a number of 5001 digits')
    """
    if isinstance(value, str):
        shown = repr(value[:MAX_QUOTE])
        return shown + "…" if len(value) > MAX_QUOTE else shown
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        if abs(value) >= 10**MAX_QUOTE:
            digits = math.floor(math.log10(abs(value))) + 1  # a float log is fine for this
            return f"a number of {digits} digits"
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return f"a {type(value).__name__}"


def _refuse(field: str, why: str, raw: object, enter: str) -> InputError:
    return InputError(field, f"{field_name(field)} {why}, got {quote(raw)}: enter {enter}")


def _beyond(field: str, bound: Bound, raw: object, enter: str, *, negative: bool) -> InputError:
    """The refusal of a value past one end of the field's range."""
    if not negative:
        return _refuse(field, f"must be at most {grouped(bound.high)}", raw, enter)
    if bound.low == 0 and not bound.low_open:
        return _refuse(field, "must not be negative", raw, enter)
    above = "above" if bound.low_open else "at least"
    return _refuse(field, f"must be {above} {grouped(bound.low)}", raw, enter)


def _from_string(field: str, text: str, bound: Bound, raw: object, enter: str) -> Fraction:
    """The exact value of a typed number, refusing any that is out of shape or out of
    range before it is built, so a huge exponent costs nothing."""
    ratio = _RATIO.fullmatch(text)
    if ratio is not None:
        num, den = ratio["num"], ratio["den"]
        if len(num.lstrip("+-").lstrip("0")) > MAX_DIGITS or len(den.lstrip("0")) > MAX_DIGITS:
            raise _refuse(field, f"has more than {MAX_DIGITS} digits", raw, enter)
        if int(den) == 0:
            raise _refuse(field, "divides by zero", raw, enter)
        return Fraction(int(num), int(den))
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match["int"] or match["frac"]):
        raise _refuse(field, "must be a number", raw, enter)
    negative = match["sign"] == "-"
    whole, frac = match["int"] or "", match["frac"] or ""
    significant = (whole + frac).lstrip("0")
    if not significant:
        return Fraction(0)
    exponent_digits = (match["exp"] or "0").lstrip("+-").lstrip("0")
    exponent = int(match["exp"] or "0") if len(exponent_digits) <= 4 else None
    # The power of ten of the leading digit, known before 10 ** exponent is built.
    lead = None if exponent is None else len(significant) - 1 + exponent - len(frac)
    if lead is None or lead > MAX_EXPONENT:
        tiny = exponent is None and (match["exp"] or "").startswith("-")
        if not tiny:
            raise _beyond(field, bound, raw, enter, negative=negative)
    if lead is None or lead < -MAX_EXPONENT or len(significant.rstrip("0")) > MAX_DIGITS:
        raise _refuse(
            field,
            f"has more than {MAX_DIGITS} significant digits or an exponent past ±{MAX_EXPONENT}",
            raw,
            enter,
        )
    assert exponent is not None
    scale = exponent - len(frac)
    mantissa = int(significant)
    value = Fraction(mantissa * 10**scale) if scale >= 0 else Fraction(mantissa, 10**-scale)
    return -value if negative else value


def _in_range(field: str, value: Fraction, bound: Bound, raw: object, enter: str) -> Fraction:
    if value < bound.low or (bound.low_open and value == bound.low):
        raise _beyond(field, bound, raw, enter, negative=True)
    if value > bound.high:
        raise _beyond(field, bound, raw, enter, negative=False)
    if bound.whole and value.denominator != 1:
        raise _refuse(field, "must be a whole number", raw, enter)
    return value


def parse_number(
    field: str, value: object, *, what: str | None = None, bound: Bound | None = None
) -> Fraction:
    """An exact number within ``field``'s bounds (:data:`~pyapp.facts.BOUNDS`), from a
    JSON number or a typed string; anything else is an :class:`InputError` naming the
    field. ``what`` says what to enter instead (default: the field's range).

    >>> parse_number("tokens_per_unit", " 4/3 "), parse_number("price_per_million", "2.5e-1")
    (Fraction(4, 3), Fraction(1, 4))
    >>> for raw in (1e309, "-1e5000", "12 words"):
    ...     try:
    ...         parse_number("size", raw)
    ...     except InputError as err:
    ...         print(err)
    size must be a finite number, got inf: enter a whole number from 1 to 10,000,000
    size must be at least 1, got '-1e5000': enter a whole number from 1 to 10,000,000
    size must be a number, got '12 words': enter a whole number from 1 to 10,000,000
    """
    the_bound = bound if bound is not None else BOUNDS[field]
    kind = "whole number" if the_bound.whole else "number"
    enter = what if what is not None else f"a {kind} {the_bound.describe()}"
    name = field_name(field)
    if value is None:
        raise InputError(field, f"{name} is missing: enter {enter}")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise InputError(field, f"{name} is empty: enter {enter}")
        number = _from_string(field, text, the_bound, value, enter)
    elif isinstance(value, bool):
        raise _refuse(field, "must be a number", value, enter)
    elif isinstance(value, int):
        # Compared before anything else is done with it: a 5,000-digit integer is
        # refused without ever being printed.
        number = Fraction(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _refuse(field, "must be a finite number", value, enter)
        number = Fraction(value)
    else:
        raise _refuse(field, "must be a number", value, enter)
    return _in_range(field, number, the_bound, value, enter)


def parse_whole(
    field: str, value: object, *, what: str | None = None, bound: Bound | None = None
) -> int:
    """:func:`parse_number` for a whole-number field.

    >>> parse_whole("top_k", "5"), parse_whole("documents", 1e3)
    (5, 1000)
    """
    return int(parse_number(field, value, what=what, bound=bound))


def parse_unit(unit: object) -> Unit:
    if not isinstance(unit, str) or unit not in UNITS:
        raise InputError("unit", f"unknown unit {quote(unit)}: choose one of {', '.join(UNITS)}")
    the_unit: Unit = unit  # type: ignore[assignment]  # checked against UNITS just above
    return the_unit


def parse_encoding(encoding: object) -> str:
    """An encoding name (the default when empty), or an error listing the known ones."""
    if encoding is None or encoding == "":
        return DEFAULT_ENCODING
    if isinstance(encoding, str) and encoding in ENCODINGS:
        return encoding
    raise InputError(
        "encoding",
        f"unknown encoding {quote(encoding)}: choose one of {', '.join(ENCODINGS)}",
    )


def parse_overlap(
    overlap: object, *, size: int, mode: object = "units"
) -> tuple[int, Fraction | None]:
    """``(overlap in whole units, the percentage typed or None)``.

    An ``overlap`` string ending in ``%`` is a percentage whatever ``mode`` says; a
    percentage of ``size`` is rounded half up to whole units. The overlap must be
    smaller than the size.

    >>> parse_overlap("15%", size=512), parse_overlap(2, size=8)
    ((77, Fraction(15, 1)), (2, None))
    """
    the_mode = mode if mode is not None else "units"
    if isinstance(overlap, str) and overlap.strip().endswith("%"):
        the_mode = "percent"
        overlap = overlap.strip()[:-1]
    if the_mode == "percent":
        percent = parse_number(
            "overlap",
            overlap,
            bound=BOUNDS["overlap_percent"],
            what="a percentage from 0 up to below 100",
        )
        units = round_half_up(percent * size / 100)
        if units >= size:
            raise InputError(
                "overlap",
                f"overlap {quote(overlap)}% of size {size} rounds to {units}, which must be"
                f" smaller than size ({size}): lower the overlap or raise the size",
            )
        return units, percent
    if the_mode != "units":
        raise InputError(
            "overlap_mode",
            f"unknown overlap mode {quote(the_mode)}: use units or percent",
        )
    units = parse_whole("overlap", overlap)
    if units >= size:
        raise InputError(
            "overlap",
            f"overlap ({units}) must be smaller than size ({size}):"
            " lower the overlap or raise the size",
        )
    return units, None


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
    #: The percentage the overlap was given as, or ``None`` when given in units.
    overlap_percent: Fraction | None = None

    @property
    def stride(self) -> int:
        return self.size - self.overlap


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
    the_unit = parse_unit(unit)
    the_encoding = parse_encoding(encoding) if the_unit == "token" else None
    the_size = parse_whole("size", size)
    the_overlap, percent = parse_overlap(overlap, size=the_size, mode=overlap_mode)
    if the_unit == "token":
        tpu = Fraction(1)  # token mode counts real tokens: one token per unit, exactly
    elif tokens_per_unit is None or (
        isinstance(tokens_per_unit, str) and not tokens_per_unit.strip()
    ):
        tpu = PRESETS[the_unit]
    else:
        tpu = parse_number("tokens_per_unit", tokens_per_unit)
    price = parse_number("price_per_million", price_per_million)
    return Params(
        unit=the_unit,
        encoding=the_encoding,
        size=the_size,
        overlap=the_overlap,
        tokens_per_unit=tpu,
        price_per_million=price,
        caps=caps,
        overlap_percent=percent,
    )
