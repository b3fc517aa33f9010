"""The summary of one configuration, in closed form, and how each figure is derived.

Every figure is exact arithmetic on ``U`` (units in the text), ``C`` (size) and
``O`` (overlap), so it costs nothing proportional to the text. Each derivation
entry is ``{"formula", "inputs", "value"}``: the formula in symbols, the same with
this configuration's numbers, and the JSON value.

>>> from .params import parse_params
>>> p = parse_params(unit="word", size=4, overlap=1, tokens_per_unit=1)
>>> s = summarize(units=10, params=p, input_bytes=48, input_chars=48)
>>> s.chunks, s.processed_units, s.repeated_units, s.extra_volume
(3, 12, 2, Fraction(1, 5))
>>> derive(s, p)["chunks"]
{'formula': '1 + ceil(max(0, U - C) / S)', 'inputs': '1 + ceil(max(0, 10 - 4) / 3)', 'value': 3}
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..facts import UNITS
from ..figures import Derivation, show
from .chunkings import Chunking, FixedWindows
from .params import Params
from .windows import repeated_units, window_count

__all__ = ["Summary", "cost_of", "derive", "summarize", "summarize_chunking"]


def cost_of(tokens: Fraction | int, price_per_million: Fraction | None) -> Fraction | None:
    """What ``tokens`` cost at ``price_per_million`` dollars, or ``None`` with no price
    (a model that lists none, or an empty field): no cost is shown rather than one at a
    made-up price.

    >>> cost_of(500_000, Fraction(2)), cost_of(500_000, None)
    (Fraction(1, 1), None)
    """
    return None if price_per_million is None else tokens * price_per_million / 1_000_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """Unrounded figures. Ratios over ``units`` are ``None`` when there are no units."""

    units: int
    chunks: int
    #: The fixed window's stride and ``C / (C - O)``; ``None`` for another splitter,
    #: whose chunks do not move by a fixed stride.
    stride: int | None
    processed_units: int
    repeated_units: int
    extra_volume: Fraction | None
    inflation: Fraction | None
    limit_inflation: Fraction | None
    estimated_tokens: Fraction
    #: ``None`` when no price is given (:attr:`Params.price_per_million`).
    estimated_cost: Fraction | None
    input_bytes: int
    input_chars: int
    #: Token mode: the most tokens any chunk's text is when encoded by itself, and how
    #: many chunks are over the limit that way (``None``: not token mode, or not
    #: counted because the result is past the processed-units cap).
    max_tokens_alone: int | None = None
    chunks_over_limit: int | None = None


def summarize(*, units: int, params: Params, input_bytes: int, input_chars: int) -> Summary:
    """The summary figures in closed form (nothing proportional to the text)."""
    size, overlap = params.size, params.overlap
    chunks = window_count(units, size=size, overlap=overlap)
    repeated = repeated_units(units, size=size, overlap=overlap)
    processed = units + repeated
    tokens = processed * params.tokens_per_unit
    return Summary(
        units=units,
        chunks=chunks,
        stride=params.stride,
        processed_units=processed,
        repeated_units=repeated,
        extra_volume=Fraction(repeated, units) if units else None,
        inflation=Fraction(processed, units) if units else None,
        limit_inflation=Fraction(size, params.stride),
        estimated_tokens=tokens,
        estimated_cost=cost_of(tokens, params.price_per_million),
        input_bytes=input_bytes,
        input_chars=input_chars,
    )


def summarize_chunking(
    chunking: Chunking, *, units: int, params: Params, input_bytes: int, input_chars: int
) -> Summary:
    """The summary of any chunking: the fixed window's in closed form
    (:func:`summarize`), another's from its intervals: the processed units are the
    chunks' lengths added up, the repeated units the overlaps its boundaries got."""
    if isinstance(chunking, FixedWindows):
        return summarize(
            units=units, params=params, input_bytes=input_bytes, input_chars=input_chars
        )
    processed = chunking.processed
    repeated = sum(chunking.overlaps)
    tokens = processed * params.tokens_per_unit
    return Summary(
        units=units,
        chunks=chunking.count,
        stride=None,
        processed_units=processed,
        repeated_units=repeated,
        extra_volume=Fraction(repeated, units) if units else None,
        inflation=Fraction(processed, units) if units else None,
        limit_inflation=None,
        estimated_tokens=tokens,
        estimated_cost=cost_of(tokens, params.price_per_million),
        input_bytes=input_bytes,
        input_chars=input_chars,
    )


def _derive_ratios(s: Summary, d: Derivation) -> None:
    """The two ratios to the text's length, alike for every splitter."""
    u = s.units
    undefined = "undefined for 0 units"
    d.add(
        "extra_volume", "repeated / U", f"{s.repeated_units} / {u}" if u else undefined,
        s.extra_volume,
    )  # fmt: skip
    d.add(
        "inflation", "processed / U", f"{s.processed_units} / {u}" if u else undefined, s.inflation
    )


def _derive_measured(s: Summary, p: Params, d: Derivation) -> None:
    """The figures of a chunking that is not a fixed window: counted from its chunks."""
    d.add("chunks", "N = the chunks the splitter made", f"N = {s.chunks}", s.chunks)
    d.add("stride", "none: the chunks do not move by a fixed stride", "-", None)
    d.add(
        "processed_units", "sum over chunks of each chunk's length",
        f"sum of {s.chunks} lengths", s.processed_units,
    )  # fmt: skip
    d.add(
        "repeated_units", "sum over boundaries of the overlap each got",
        f"sum of {max(0, s.chunks - 1)} overlaps", s.repeated_units,
    )  # fmt: skip
    _derive_ratios(s, d)
    d.add("limit_inflation", "none: C / (C - O) is the fixed window's", "-", None)


def derive(summary: Summary, params: Params) -> dict[str, dict[str, Any]]:
    """Formula, the numbers put in, and the value, for every summary figure."""
    s, p = summary, params
    if p.splitter != "fixed":
        return _derive_rest(s, p, _measured_head(s, p))
    u, n, c, o, st = s.units, s.chunks, p.size, p.overlap, p.stride
    empty = "0 for empty text"
    d = Derivation()
    d.add("units", f"U = {UNITS[p.unit].measure} in the text", f"U = {u}", u)
    if u == 0:
        d.add("chunks", empty, "U = 0", n)
    else:
        d.add("chunks", "1 + ceil(max(0, U - C) / S)", f"1 + ceil(max(0, {u} - {c}) / {st})", n)
    d.add("stride", "S = C - O", f"{c} - {o}", st)
    if n:
        d.add("processed_units", "U + (N - 1) * O", f"{u} + ({n} - 1) * {o}", s.processed_units)
        d.add("repeated_units", "(N - 1) * O", f"({n} - 1) * {o}", s.repeated_units)
    else:
        d.add("processed_units", empty, "U = 0", s.processed_units)
        d.add("repeated_units", empty, "U = 0", s.repeated_units)
    _derive_ratios(s, d)
    d.add("limit_inflation", "C / (C - O)", f"{c} / ({c} - {o})", s.limit_inflation)
    return _derive_rest(s, p, d)


def _measured_head(s: Summary, p: Params) -> Derivation:
    d = Derivation()
    d.add("units", f"U = {UNITS[p.unit].measure} in the text", f"U = {s.units}", s.units)
    _derive_measured(s, p, d)
    return d


def _derive_rest(s: Summary, p: Params, d: Derivation) -> dict[str, dict[str, Any]]:
    """The figures every chunking derives alike: tokens, cost, the re-encoded counts."""
    c = p.size
    d.add(
        "estimated_tokens",
        "processed * tokens_per_unit",
        f"{s.processed_units} * {show(p.tokens_per_unit)}",
        s.estimated_tokens,
    )
    if p.price_per_million is None:
        d.add("estimated_cost", "no price given", "enter a price per million tokens", None)
    else:
        d.add(
            "estimated_cost",
            "estimated_tokens * price_per_million / 1,000,000",
            f"{show(s.estimated_tokens)} * {show(p.price_per_million)} / 1,000,000",
            s.estimated_cost,
        )
    if p.max_tokens is not None:
        limit_formula = "chunks with tokens_alone + special tokens > the model's maximum input"
        limit_inputs = f"tokens_alone + {p.special_tokens} > {p.max_tokens}"
    else:
        limit_formula, limit_inputs = "chunks with tokens_alone > C", f"tokens_alone > {c}"
    if s.max_tokens_alone is None:
        why = (
            "token mode only"
            if p.unit != "token"
            else "not counted past the processed-units cap (lift the caps to count it)"
        )
        d.add("max_tokens_alone", "max over chunks of tokens_alone", why, None)
        d.add("chunks_over_limit", limit_formula, why, None)
    else:
        d.add(
            "max_tokens_alone",
            "max over chunks of tokens_alone (each chunk's text encoded by itself)",
            f"max over {s.chunks} chunks",
            s.max_tokens_alone,
        )
        d.add("chunks_over_limit", limit_formula, limit_inputs, s.chunks_over_limit)
    d.add("input_bytes", "UTF-8 bytes of the text", f"{s.input_bytes}", s.input_bytes)
    d.add("input_chars", "code points in the text", f"{s.input_chars}", s.input_chars)
    return d.to_json()
