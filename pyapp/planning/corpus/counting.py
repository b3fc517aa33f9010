"""Unit counters for whole documents, in memory that does not grow per unit.

A corpus document can be tens of megabytes, so no counter here builds a list
with one entry per unit:

* ``word``: ``str.split()`` over slices of :data:`SLICE` code points, minus one
  for every slice edge that falls inside a word (both neighbours not
  whitespace); the same count as :func:`pyapp.core.units.word_count`;
* ``char``: ``len(text)``;
* ``token``: tiktoken's encoder writes the ids into a buffer of 4-byte integers
  and only its length is read (a Python ``list`` of ids would take about 36 bytes
  a token); another backend falls back to ``len(encode(text))``.

The counter for a ``(unit, encoding)`` is built once per process
(:func:`counter_for`) and kept: a worker builds its tokenizer once, not per
document.

>>> count_words("one two " * 20_000, slice_size=7)
40000
>>> counter_for("char", None)("naïve")
5
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

from ...core.units import word_count

__all__ = ["SLICE", "count_words", "counter_for", "warm"]

#: Code points per slice when counting words: the transient list of words from
#: one slice stays well under a megabyte.
SLICE: Final = 1 << 16

Counter = Callable[[str], int]

_built: dict[tuple[str, str | None], Counter] = {}
_lock = threading.Lock()


def count_words(text: str, *, slice_size: int = SLICE) -> int:
    """``len(text.split())``, counted slice by slice.

    >>> count_words("ab cd", slice_size=1), count_words("  a  b ", slice_size=2)
    (2, 2)
    """
    if len(text) <= slice_size:
        return word_count(text)
    total = 0
    inside = False  # the previous slice ended inside a word
    for start in range(0, len(text), slice_size):
        piece = text[start : start + slice_size]
        total += word_count(piece)
        if inside and not piece[0].isspace():
            total -= 1  # one word across the edge, counted in both slices
        inside = not piece[-1].isspace()
    return total


def _token_counter(encoding: str) -> Counter:
    from ...core.tokenizers import get_tokenizer

    # Natively tiktoken, counted from its 4-byte buffer (no list of ids), with long
    # whitespace runs kept out of its regex (pyapp.core.tokenizers._runs).
    return get_tokenizer(encoding).count


def counter_for(unit: str, encoding: str | None) -> Counter:
    """The unit counter, built on first use in this process and kept."""
    key = (unit, encoding)
    with _lock:
        counter = _built.get(key)
        if counter is None:
            if unit == "word":
                counter = count_words
            elif unit == "char":
                counter = len
            else:
                if encoding is None:
                    raise ValueError("token units need an encoding")
                counter = _token_counter(encoding)
            _built[key] = counter
    return counter


def warm(unit: str, encoding: str | None) -> bool:
    """Builds the counter now (a worker's start-up), so no part waits for it."""
    counter_for(unit, encoding)
    return True
