"""Overlap sweep: how chunks, inflation and cut sentences move with overlap and size.

One call segments the text once and splits it into sentences once; every row is
then closed-form window arithmetic plus an ``O(sentences)`` cut count
(:class:`~pyapp.core.sentences.SentenceUnits`), so no chunk is ever built.

Two series:

* ``overlap``: the current size at overlap 0%, 5%, ... 50% of it, each rounded
  half up to whole units (the engine's rule), duplicates and overlaps ``>= C``
  dropped, plus the current overlap if it is not among them;
* ``size``: the current size × 0.5, 0.75, 1, 1.5 and 2 (rounded half up, at
  least 1, duplicates dropped), each with the current overlap *share*: the
  percentage if the overlap was given as one, else ``O / C``; rounded half up
  and kept below the size.

Each row matches what a separate ``chunk`` run of that configuration reports
(the tests check it).

>>> text = "One two three. Four five six. Seven eight nine ten."
>>> result = sweep_text(text, unit="word", size=4, overlap=1)
>>> [(r["overlap"], r["chunks"], r["cut"]) for r in result.rows if r["series"] == "overlap"]
[(0, 3, 2), (1, 3, 0), (2, 4, 0)]
>>> [(r["size"], r["overlap"], r["chunks"]) for r in result.rows if r["series"] == "size"]
[(2, 1, 9), (3, 1, 5), (4, 1, 3), (6, 2, 2), (8, 2, 2)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from ..core.chunking import check_size, segment, sentence_units
from ..core.params import parse_params
from ..core.sentences import SentenceUnits
from ..core.windows import processed_units, window_count
from ..figures import number, round_half_up

__all__ = ["OVERLAP_PERCENTS", "SIZE_FACTORS", "Sweep", "sweep_text"]

#: Overlap series, in percent of the size.
OVERLAP_PERCENTS: Final = tuple(range(0, 55, 5))
#: Size series, as factors of the current size.
SIZE_FACTORS: Final = (Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2))


@dataclass(frozen=True, slots=True, kw_only=True)
class Sweep:
    params: dict[str, Any]
    units: int
    sentences: int
    rows: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": "pyapp.sweep/1",
            "params": self.params,
            "units": self.units,
            "sentences": self.sentences,
            "rows": self.rows,
        }


def _row(
    series: str, size: int, overlap: int, units: int, index: SentenceUnits, *, current: bool
) -> dict[str, Any]:
    chunks = window_count(units, size=size, overlap=overlap)
    processed = processed_units(units, size=size, overlap=overlap)
    return {
        "series": series,
        "size": size,
        "overlap": overlap,
        "overlap_percent": number(Fraction(100 * overlap, size)),
        "stride": size - overlap,
        "chunks": chunks,
        "processed_units": processed,
        "repeated_units": processed - units,
        "inflation": number(Fraction(processed, units)) if units else None,
        "limit_inflation": number(Fraction(size, size - overlap)),
        "cut": index.cut_count(size=size, overlap=overlap),
        "current": current,
    }


def sweep_text(
    text: str,
    *,
    unit: object = "word",
    encoding: object = None,
    size: object,
    overlap: object = 0,
    overlap_mode: object = "units",
) -> Sweep:
    """Sweep ``text`` around one configuration (validated like ``chunk``'s)."""
    params = parse_params(
        unit=unit, encoding=encoding, size=size, overlap=overlap, overlap_mode=overlap_mode
    )
    check_size(text)
    seg = segment(text, params)
    units = seg.count
    index = sentence_units(text, params)
    c, o = params.size, params.overlap

    percent = params.overlap_percent
    share = percent / 100 if percent is not None else Fraction(o, c)

    rows: list[dict[str, Any]] = []
    overlaps = sorted(
        {o} | {v for p in OVERLAP_PERCENTS if (v := round_half_up(Fraction(p * c, 100))) < c}
    )
    for ov in overlaps:
        rows.append(_row("overlap", c, ov, units, index, current=ov == o))

    seen: set[int] = set()
    for factor in SIZE_FACTORS:
        sz = max(1, round_half_up(c * factor))
        if sz in seen:
            continue
        seen.add(sz)
        ov = o if sz == c else min(sz - 1, round_half_up(share * sz))
        rows.append(_row("size", sz, ov, units, index, current=sz == c))

    return Sweep(
        params={"unit": params.unit, "encoding": params.encoding, "size": c, "overlap": o},
        units=units,
        sentences=len(index.sentences),
        rows=rows,
    )
