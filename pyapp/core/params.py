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

import json
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
    FIELD_DEFAULTS,
    KEEP_SEPARATOR,
    MAX_DIGITS,
    MAX_EXPONENT,
    MAX_QUOTE,
    NO_WORD_UNIT,
    OVERLAP_MODES,
    PRESETS,
    SEPARATOR_PRESETS,
    SPLITTERS,
    UNITS,
    Bound,
    grouped,
)
from ..figures import round_half_up
from ..models import MODELS
from .recursive import RecursiveSettings, check_separators

__all__ = [
    "Params",
    "Unit",
    "parse_encoding",
    "parse_model",
    "parse_number",
    "parse_overlap",
    "parse_params",
    "parse_recursive",
    "parse_splitter",
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


def parse_model(model: object) -> str | None:
    """A model preset's name (``None`` when empty), or an error listing the known ones."""
    if model is None or model == "":
        return None
    if isinstance(model, str) and model in MODELS:
        return model
    raise InputError("model", f"unknown model {quote(model)}: choose one of {', '.join(MODELS)}")


def parse_overlap(
    overlap: object, *, size: int, mode: object = FIELD_DEFAULTS["overlap_mode"]
) -> tuple[int, Fraction | None]:
    """``(overlap in whole units, the percentage typed or None)``.

    An ``overlap`` string ending in ``%`` is a percentage whatever ``mode`` says; a
    percentage of ``size`` is rounded half up to whole units. The overlap must be
    smaller than the size.

    >>> parse_overlap("15%", size=512), parse_overlap(2, size=8)
    ((77, Fraction(15, 1)), (2, None))
    """
    the_mode = mode if mode is not None else FIELD_DEFAULTS["overlap_mode"]
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
    if the_mode not in OVERLAP_MODES:
        raise InputError(
            "overlap_mode",
            f"unknown overlap mode {quote(the_mode)}: use {' or '.join(OVERLAP_MODES)}",
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
    #: The price per million tokens: typed, else the model preset's where it lists one;
    #: ``None`` when there is none (no cost is estimated then, rather than a made-up one).
    price_per_million: Fraction | None
    caps: bool = True
    #: The percentage the overlap was given as, or ``None`` when given in units.
    overlap_percent: Fraction | None = None
    #: The model preset chosen (:mod:`pyapp.models`), or ``None``.
    model: str | None = None
    #: The model's maximum input in tokens, its special tokens included (from the
    #: preset or typed); ``None`` without a model and without a typed maximum.
    max_tokens: int | None = None
    #: Tokens the model adds to every input (``[CLS]`` and ``[SEP]``: 2).
    special_tokens: int = 0
    #: The chunker (:data:`~pyapp.facts.SPLITTERS`), and the recursive splitter's
    #: settings (``None`` for the fixed window).
    splitter: str = "fixed"
    recursive: RecursiveSettings | None = None
    #: ``splitter == "imported"``: the chunking made elsewhere (an imported chunks file,
    #: re-anchored: a :class:`~pyapp.core.chunkings.Chunking`), used as it is.
    imported: object = None

    @property
    def stride(self) -> int:
        return self.size - self.overlap


def parse_params(
    *,
    unit: object = FIELD_DEFAULTS["unit"],
    encoding: object = None,
    size: object,
    overlap: object = FIELD_DEFAULTS["overlap"],
    overlap_mode: object = FIELD_DEFAULTS["overlap_mode"],
    tokens_per_unit: object = None,
    price_per_million: object = None,
    caps: bool = True,
    model: object = None,
    max_tokens: object = None,
    splitter: object = FIELD_DEFAULTS["splitter"],
    separators_preset: object = None,
    separators: object = None,
    separator_regex: object = None,
    keep_separator: object = None,
    strip: object = None,
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
    the_model = parse_model(model)
    preset = MODELS[the_model] if the_model is not None else None
    if preset is not None and (encoding is None or encoding == ""):
        encoding = preset.encoding
    the_unit = parse_unit(unit)
    the_splitter = parse_splitter(splitter)
    if the_splitter == "recursive" and the_unit not in SPLITTERS["recursive"]["units"]:
        raise InputError(
            "unit", f"the recursive splitter has no {the_unit} unit: {NO_WORD_UNIT}; choose"
            " characters or tokens",
        )  # fmt: skip
    recursive = (
        parse_recursive(
            preset=separators_preset,
            separators=separators,
            regex=separator_regex,
            keep=keep_separator,
            strip=strip,
        )
        if the_splitter == "recursive"
        else None
    )
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
    if price_per_million is None or (
        isinstance(price_per_million, str) and not price_per_million.strip()
    ):
        price = (
            preset.price_per_million.value
            if preset is not None and preset.price_per_million is not None
            else None
        )
    else:
        price = parse_number("price_per_million", price_per_million)
    if max_tokens is None or (isinstance(max_tokens, str) and not max_tokens.strip()):
        the_max = preset.max_tokens.value if preset is not None else None
    else:
        the_max = parse_whole("max_tokens", max_tokens)
    specials = preset.special_tokens.value if preset is not None else 0
    if the_max is not None and the_max <= specials:
        raise InputError(
            "max_tokens",
            f"maximum input tokens ({the_max}) must be more than the model's {specials}"
            " special tokens: raise it",
        )
    return Params(
        unit=the_unit,
        encoding=the_encoding,
        size=the_size,
        overlap=the_overlap,
        tokens_per_unit=tpu,
        price_per_million=price,
        caps=caps,
        overlap_percent=percent,
        model=the_model,
        max_tokens=the_max,
        special_tokens=specials,
        splitter=the_splitter,
        recursive=recursive,
    )


def parse_splitter(splitter: object) -> str:
    """``fixed`` (the default, also when empty) or ``recursive``."""
    if splitter is None or splitter == "":
        return FIELD_DEFAULTS["splitter"]
    if isinstance(splitter, str) and splitter in SPLITTERS:
        return splitter
    raise InputError(
        "splitter", f"unknown splitter {quote(splitter)}: choose one of {', '.join(SPLITTERS)}"
    )


def _flag(field: str, value: object, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    raise InputError(field, f"{field_name(field)} must be true or false, got {quote(value)}")


def parse_recursive(
    *, preset: object, separators: object, regex: object, keep: object, strip: object
) -> RecursiveSettings:
    """The recursive splitter's settings: a preset's separators (regular expressions,
    as ``from_language`` makes them) or a typed list (a JSON list of strings, or a
    list), where a kept separator goes, and whether chunks are stripped.

    >>> parse_recursive(preset="python", separators=None, regex=None, keep=None, strip=None)
    ... # doctest: +ELLIPSIS
    RecursiveSettings(separators=('\\nclass ', ...), preset='python', is_separator_regex=True, ...)
    >>> try:
    ...     parse_recursive(preset=None, separators='["a", 1]', regex=None, keep=None, strip=None)
    ... except InputError as err:
    ...     print(err)
    separator 2 must be a string, got 1: write each separator as a JSON string
    """
    if preset is not None and preset != "" and separators is not None:
        raise InputError("separators", "give a separators preset or a separator list, not both")
    if separators is not None:
        listed = separators
        if isinstance(separators, str):
            try:
                listed = json.loads(separators)
            except ValueError:
                raise InputError(
                    "separators",
                    f"separators must be a JSON list of strings, got {quote(separators)}:"
                    ' write for example ["\\n\\n", "\\n", " ", ""]',
                ) from None
        if not isinstance(listed, list):
            raise InputError(
                "separators", f"separators must be a list of strings, got {quote(separators)}"
            )
        for i, item in enumerate(listed):
            if not isinstance(item, str):
                raise InputError(
                    "separators",
                    f"separator {i + 1} must be a string, got {quote(item)}:"
                    " write each separator as a JSON string",
                )
        the_separators = tuple(listed)
        the_preset = None
        is_regex = _flag("separator_regex", regex, False)
    else:
        name = "default" if preset is None or preset == "" else preset
        if not isinstance(name, str) or name not in SEPARATOR_PRESETS:
            raise InputError(
                "separators_preset",
                f"unknown separators preset {quote(preset)}: choose one of"
                f" {', '.join(SEPARATOR_PRESETS)}",
            )
        the_separators = SEPARATOR_PRESETS[name]
        the_preset = name
        is_regex = _flag("separator_regex", regex, name != "default")
    check_separators(the_separators, regex=is_regex)
    the_keep = FIELD_DEFAULTS["keep_separator"] if keep is None or keep == "" else keep
    if the_keep not in KEEP_SEPARATOR:
        raise InputError(
            "keep_separator",
            f"unknown keep-separator choice {quote(keep)}: choose one of"
            f" {', '.join(KEEP_SEPARATOR)}",
        )
    return RecursiveSettings(
        separators=the_separators,
        preset=the_preset,
        is_separator_regex=is_regex,
        keep_separator=the_keep,
        strip_whitespace=_flag("strip", strip, True),
    )
