"""The engine's one rule for remembering work per text.

The page asks again about the same text whenever only a setting changes, so
each step that depends on the text alone (segmenting, encoding, finding
sentences, counting words) keeps its answers for the last
:data:`~pyapp.facts.TEXTS_HELD` texts: as many as the ``text`` op holds.

>>> calls = []
>>> @per_text
... def length(text: str) -> int:
...     calls.append(text)
...     return len(text)
>>> length("abc"), length("abc"), calls
(3, 3, ['abc'])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from ..facts import TEXTS_HELD

__all__ = ["forget_texts", "per_text"]

P = ParamSpec("P")
R = TypeVar("R")


#: Every per-text memo, so that all of them can be emptied at once.
_memos: list[functools._lru_cache_wrapper[object]] = []


def per_text(function: Callable[P, R]) -> Callable[P, R]:
    """Remember ``function``'s answers for the last :data:`~pyapp.facts.TEXTS_HELD`
    argument tuples (its arguments must be hashable; callers only read the answers)."""
    memo = functools.lru_cache(maxsize=TEXTS_HELD)(function)
    _memos.append(memo)
    cached: Callable[P, R] = memo  # type: ignore[assignment]
    return functools.wraps(function)(cached)


def forget_texts() -> None:
    """Empty every per-text memo (benchmarks measure a text seen for the first time)."""
    for memo in _memos:
        memo.cache_clear()
