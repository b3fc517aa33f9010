"""The ranges of the size and overlap sliders, for the settings a view was made with.

Every value a slider can reach is one the engine accepts with the other setting
unchanged: the overlap stays below the size, and the size above the overlap (in
percent mode, above the size at which the percentage rounds to the whole chunk).
The size slider reaches the text's length, where one chunk holds everything, up to
:data:`~pyapp.facts.SLIDER_SIZE_MAX`, and always the size in use.

>>> from ..core.params import parse_params
>>> words = slider_ranges(117, parse_params(unit="word", size=40, overlap=8))
>>> words["size"], words["overlap"]
({'low': 9, 'high': 117, 'value': 40}, {'low': 0, 'high': 39, 'value': 8, 'percent': False})
>>> share = parse_params(unit="word", size=40, overlap="15", overlap_mode="percent")
>>> slider_ranges(117, share)["size"], slider_ranges(117, share)["overlap"]["high"]
({'low': 1, 'high': 117, 'value': 40}, 98)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ..core.params import Params
from ..facts import BOUNDS, SLIDER_SIZE_MAX
from ..figures import number

__all__ = ["slider_ranges"]


def smallest_size_for_percent(percent: Fraction) -> int:
    """The smallest size at which ``percent`` of it, rounded half up, is below it.

    ``round_half_up(p * s / 100) < s`` holds exactly when ``p * s / 100 + 1/2 < s``,
    that is when ``s > 50 / (100 - p)``.

    >>> smallest_size_for_percent(Fraction(0)), smallest_size_for_percent(Fraction(50))
    (1, 2)
    """
    return math.floor(Fraction(50) / (100 - percent)) + 1


def largest_percent_below(size: int) -> int:
    """The largest whole percentage of ``size`` that rounds (half up) below ``size``.

    ``p < 100 - 50 / size``, by the same reasoning as :func:`smallest_size_for_percent`.

    >>> largest_percent_below(40), largest_percent_below(1), largest_percent_below(512)
    (98, 49, 99)
    """
    return math.ceil(100 - Fraction(50, size)) - 1


def slider_ranges(units: int, params: Params) -> dict[str, Any]:
    """``{"size": {low, high, value}, "overlap": {low, high, value, percent}}`` for the
    page's sliders, ``value`` being where each one stands.

    The overlap slider counts in percent when the overlap was given as a percentage.
    """
    size_high = int(BOUNDS["size"].high)
    overlap: dict[str, Any]
    if params.overlap_percent is None:
        size_low = params.overlap + 1
        overlap = {"low": 0, "high": params.size - 1, "value": params.overlap, "percent": False}
    else:
        size_low = smallest_size_for_percent(params.overlap_percent)
        overlap = {
            "low": 0,
            "high": largest_percent_below(params.size),
            "value": number(params.overlap_percent),
            "percent": True,
        }
    high = min(max(params.size, min(units, SLIDER_SIZE_MAX)), size_high)
    return {"size": {"low": size_low, "high": high, "value": params.size}, "overlap": overlap}
