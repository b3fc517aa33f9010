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

from ..core.params import parse_whole
from ..facts import BOUNDS, BUDGET_DEFAULTS
from ..figures import Derivation

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

    def derivation(self) -> dict[str, dict[str, Any]]:
        """Formula, the inputs put in, and the value, for every figure."""
        w, s, q, a, k, c = (
            self.window, self.system, self.question, self.answer, self.top_k, self.size
        )  # fmt: skip
        d = Derivation()
        d.add("available", "window - system - question - answer", f"{w} - {s} - {q} - {a}",
              self.available)  # fmt: skip
        d.add("retrieved", "k * C", f"{k} * {c}", self.retrieved)
        d.add("fits", "k * C <= available", f"{self.retrieved} <= {self.available}", self.fits)
        d.add("left", "available - k * C", f"{self.available} - {self.retrieved}", self.left)
        d.add(
            "max_top_k",
            "floor(max(0, available) / C)",
            f"floor({max(0, self.available)} / {c})",
            self.max_top_k,
        )
        d.add("chunks_in_window", "floor(window / C)", f"floor({w} / {c})", self.chunks_in_window)
        return d.to_json()

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


def check_budget(
    *,
    window: object,
    system: object = BUDGET_DEFAULTS["system"],
    question: object = BUDGET_DEFAULTS["question"],
    answer: object = BUDGET_DEFAULTS["answer"],
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
    size | size must be at least 1, got 0: enter a whole number from 1 to 10,000,000
    """
    return Budget(
        window=parse_whole("window", window),
        system=parse_whole("system", system),
        question=parse_whole("question", question),
        answer=parse_whole("answer", answer),
        top_k=parse_whole("top_k", top_k, bound=BOUNDS["budget_top_k"]),
        size=parse_whole("size", size),
    )
