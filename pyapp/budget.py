"""Context budget: do the top-k chunks fit the model's window?

Reference 000's inequality ``k * C <= window - system - question - answer`` and
reference 004's top-k ceiling ``floor(window / C)`` (the chunks that fit an empty
window). All figures are whole tokens.

>>> b = check_budget(window=8192, system=500, question=100, top_k=5, size=512)
>>> b.available, b.retrieved, b.fits, b.max_top_k, b.chunks_in_window
(7592, 2560, True, 14, 16)
>>> check_budget(window=8192, system=500, question=100, top_k=8, size=1024).fits
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import InputError, field_name
from .params import _parse_whole
from .sizing import Derivation

__all__ = ["Budget", "check_budget"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """One context-window plan and its figures."""

    window: int
    system: int
    question: int
    answer: int
    top_k: int
    size: int

    @property
    def available(self) -> int:
        """Tokens left for retrieved chunks; negative when the prompt alone overflows."""
        return self.window - self.system - self.question - self.answer

    @property
    def retrieved(self) -> int:
        return self.top_k * self.size

    @property
    def fits(self) -> bool:
        return self.retrieved <= self.available

    @property
    def max_top_k(self) -> int:
        """The largest k with ``k * C <= available`` (0 when not even one chunk fits)."""
        return max(0, self.available) // self.size

    @property
    def chunks_in_window(self) -> int:
        """Reference 004's ceiling ``floor(window / C)``, ignoring the prompt."""
        return self.window // self.size

    @property
    def left(self) -> int:
        """``available - retrieved``: room to spare, or the overflow when negative."""
        return self.available - self.retrieved

    def derivation(self) -> dict[str, Derivation]:
        w, s, q, a, k, c = (
            self.window,
            self.system,
            self.question,
            self.answer,
            self.top_k,
            self.size,
        )
        return {
            "available": {
                "formula": "window - system - question - answer",
                "inputs": f"{w} - {s} - {q} - {a}",
                "value": self.available,
            },
            "retrieved": {"formula": "k * C", "inputs": f"{k} * {c}", "value": self.retrieved},
            "fits": {
                "formula": "k * C <= available",
                "inputs": f"{self.retrieved} <= {self.available}",
                "value": self.fits,
            },
            "left": {
                "formula": "available - k * C",
                "inputs": f"{self.available} - {self.retrieved}",
                "value": self.left,
            },
            "max_top_k": {
                "formula": "floor(max(0, available) / C)",
                "inputs": f"floor({max(0, self.available)} / {c})",
                "value": self.max_top_k,
            },
            "chunks_in_window": {
                "formula": "floor(window / C)",
                "inputs": f"floor({w} / {c})",
                "value": self.chunks_in_window,
            },
        }

    def to_json(self) -> dict[str, Any]:
        """The ``budget`` command's document."""
        return {
            "schema": "pyapp.budget/1",
            "params": {
                "window": self.window,
                "system": self.system,
                "question": self.question,
                "answer": self.answer,
                "top_k": self.top_k,
                "size": self.size,
            },
            "available": self.available,
            "retrieved": self.retrieved,
            "fits": self.fits,
            "left": self.left,
            "max_top_k": self.max_top_k,
            "chunks_in_window": self.chunks_in_window,
            "derivation": self.derivation(),
        }


def _whole(field: str, value: object, *, least: int, what: str) -> int:
    whole = _parse_whole(field, value, what=what)
    if whole < least:
        raise InputError(
            field, f"{field_name(field)} must be at least {least}, got {whole}: enter {what}"
        )
    return whole


def check_budget(
    *,
    window: object,
    system: object = 0,
    question: object = 0,
    answer: object = 0,
    top_k: object,
    size: object,
) -> Budget:
    """Validate raw inputs (numbers or typed strings) and return the :class:`Budget`.

    A prompt larger than the window is not an error: ``available`` goes negative,
    ``fits`` is false and ``max_top_k`` is 0, which is what the page should show.

    >>> check_budget(window=4096, top_k=12, size=512).chunks_in_window
    8
    >>> from pyapp.errors import InputError
    >>> try:
    ...     check_budget(window=4096, top_k=1, size=0)
    ... except InputError as err:
    ...     print(err.field, "|", err.message)
    size | size must be at least 1, got 0: enter the chunk size in tokens, 1 or more
    """
    return Budget(
        window=_whole("window", window, least=1, what="the context window in tokens, 1 or more"),
        system=_whole("system", system, least=0, what="the system prompt in tokens, 0 or more"),
        question=_whole("question", question, least=0, what="the question in tokens, 0 or more"),
        answer=_whole(
            "answer", answer, least=0, what="the tokens reserved for the answer, 0 or more"
        ),
        top_k=_whole("top_k", top_k, least=0, what="the number of chunks retrieved, 0 or more"),
        size=_whole("size", size, least=1, what="the chunk size in tokens, 1 or more"),
    )
