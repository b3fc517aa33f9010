"""Model presets: the encoding, maximum input, embedding dimension and example price of
common embedding models and of a few open LLMs (for context budgets), each figure with
its source, read from ``models.json`` (the one data file they live in).

A preset only sets defaults: every figure can be overridden (``--encoding``,
``--max-tokens``, ``--price``, ``--dim``; the API's ``encoding``, ``max_tokens``,
``price_per_million``). ``max_tokens`` is the model's limit *with* its special tokens:
a chunk fits when its tokens encoded alone plus ``special_tokens`` (``[CLS]`` and
``[SEP]`` for BERT models) are at most ``max_tokens``.

This module is a leaf (standard library only), so ``build.py`` can read it.

>>> MODELS["all-MiniLM-L6-v2"].encoding, MODELS["all-MiniLM-L6-v2"].max_tokens.value
('bert-base-uncased', 256)
>>> MODELS["text-embedding-3-small"].price_per_million.value
Fraction(1, 50)
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any, Final, Generic, TypeVar

from .figures import show

__all__ = [
    "MODELS",
    "NO_OFFLINE_TOKENIZER",
    "Figure",
    "Model",
    "models",
    "truncate_to_model",
]

V = TypeVar("V", int, Fraction)


@dataclass(frozen=True, slots=True)
class Figure(Generic[V]):
    """One figure and where it comes from."""

    value: V
    source: str
    url: str
    date: str

    def to_json(self) -> dict[str, Any]:
        """``value`` as a JSON number and ``typed`` as a field shows it (``0.02``, exact).

        >>> Figure(Fraction(1, 50), "s", "u", "d").to_json()["typed"]
        '0.02'
        """
        value: Any = self.value if isinstance(self.value, int) else float(self.value)
        return {
            "value": value,
            "typed": show(self.value),
            "source": self.source,
            "url": self.url,
            "date": self.date,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Model:
    name: str
    label: str
    #: ``"embedding"`` or ``"llm"`` (a context window, for the budget panel).
    kind: str
    encoding: str
    max_tokens: Figure[int]
    special_tokens: Figure[int]
    dimension: Figure[int] | None
    price_per_million: Figure[Fraction] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "encoding": self.encoding,
            "max_tokens": self.max_tokens.to_json(),
            "special_tokens": self.special_tokens.to_json(),
            "dimension": self.dimension.to_json() if self.dimension else None,
            "price_per_million": (
                self.price_per_million.to_json() if self.price_per_million else None
            ),
        }

    @property
    def kept_tokens(self) -> int:
        """How many of a text's own tokens the model reads: ``max_tokens`` less its
        ``special_tokens``; the rest is cut off (see :func:`truncate_to_model`)."""
        return self.max_tokens.value - self.special_tokens.value


def truncate_to_model(ids: Sequence[int], model: Model) -> list[int]:
    """The tokens of a text (encoded alone, without special tokens) that ``model`` reads:
    the first :attr:`Model.kept_tokens`. The one truncation rule: the embedder feeds
    these, wrapped in the special tokens, to the model, and the truncation lens shows
    the same cut.

    >>> minilm = MODELS["all-MiniLM-L6-v2"]
    >>> len(truncate_to_model(range(300), minilm)), truncate_to_model([7, 8], minilm)
    (254, [7, 8])
    """
    return list(ids[: model.kept_tokens])


def _figure(raw: dict[str, Any] | None, kind: type) -> Any:
    if raw is None:
        return None
    value = Fraction(raw["value"]) if kind is Fraction else int(raw["value"])
    return Figure(value, raw["source"], raw["url"], raw["date"])


@functools.cache
def _data() -> dict[str, Any]:
    text = resources.files("pyapp").joinpath("models.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def models() -> dict[str, Model]:
    """Every preset, in the order the page lists them."""
    return {
        raw["name"]: Model(
            name=raw["name"],
            label=raw["label"],
            kind=raw["kind"],
            encoding=raw["encoding"],
            max_tokens=_figure(raw["max_tokens"], int),
            special_tokens=_figure(raw["special_tokens"], int),
            dimension=_figure(raw["dimension"], int),
            price_per_million=_figure(raw["price_per_million"], Fraction),
        )
        for raw in _data()["models"]
    }


MODELS: Final = models()
#: What the page says of models with no public offline tokenizer.
NO_OFFLINE_TOKENIZER: Final[str] = _data()["no_offline_tokenizer"]
