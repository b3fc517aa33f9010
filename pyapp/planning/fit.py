"""Fit the chunk size to a model: the largest size at which every chunk of this text,
encoded on its own, fits the model's input together with its special tokens.

A model reads ``max_tokens`` tokens, its special tokens included (``[CLS]`` and
``[SEP]`` for BERT models), so ``L = max_tokens - special_tokens`` of the text's own.
A token window of size ``C`` holds ``C`` tokens of the whole text's token stream, but
its text encoded on its own (what the model is sent: ``tokens_alone``) can be longer:
a window that starts inside a word (a WordPiece ``##`` piece, a run of digits a BPE
pattern groups by threes) or inside a character is split differently alone. So the
size ``L`` cannot guarantee the fit on every text, and the fit here is exact for this
text instead: the sizes ``L, L - 1, ...`` are tried in turn, each window's
``tokens_alone`` counted (stopping at the first one over), and the first size with
none over is the answer. At most :data:`FIT_SIZES` sizes and :data:`FIT_WINDOWS`
windows are counted; past either the answer says so.

The recursive splitter measures each chunk in the model's tokens already, so one of
its chunks is over only where a piece has no separator left to split it at; such a
piece is the same at every size, so when size ``L`` leaves one over, no size fits.

>>> from ..core.params import parse_params
>>> p = parse_params(unit="token", size=512, model="all-MiniLM-L6-v2")
>>> fit = fit_size("one two three " * 200, p)
>>> fit.size, fit.limit, fit.current
(254, 254, False)
>>> print(fit.label)
Fit: size 254 so every chunk fits all-MiniLM-L6-v2's 256 tokens
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Final

from ..core.chunking import alone_counts, check_size
from ..core.chunkings import chunking_of, segment
from ..core.params import Params
from ..core.units import strip_bom
from ..core.windows import window_count
from ..errors import InputError
from ..facts import BOUNDS
from ..figures import round_half_up
from ..models import MODELS

__all__ = ["FIT_SIZES", "FIT_WINDOWS", "Fit", "fit_size"]

#: The most sizes the fit tries, from the model's limit down.
FIT_SIZES: Final = 64
#: The most windows whose text the fit encodes on its own, over every size it tries.
FIT_WINDOWS: Final = 200_000


@dataclass(frozen=True, slots=True, kw_only=True)
class Fit:
    """The fit of the size to a model's input limit on one text."""

    model: str | None
    max_tokens: int
    special_tokens: int
    #: The text's own tokens the model reads: ``max_tokens - special_tokens``.
    limit: int
    #: The largest size at which no chunk is over, or ``None`` (then ``reason``).
    size: int | None
    #: The overlap in units at that size (a percentage is taken of that size).
    overlap: int | None
    chunks: int | None
    #: The most tokens a chunk takes on its own at that size.
    largest: int | None
    #: At size ``limit``: the chunks over, and the most tokens a chunk takes on its own.
    over_at_limit: int | None
    largest_at_limit: int | None
    #: How many sizes were tried.
    tried: int
    #: Whether the size asked for is already the fit.
    current: bool
    reason: str | None
    #: What the page's button says, and the sentence beside it.
    label: str
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "special_tokens": self.special_tokens,
            "limit": self.limit,
            "size": self.size,
            "overlap": self.overlap,
            "chunks": self.chunks,
            "largest": self.largest,
            "over_at_limit": self.over_at_limit,
            "largest_at_limit": self.largest_at_limit,
            "tried": self.tried,
            "current": self.current,
            "reason": self.reason,
            "label": self.label,
            "note": self.note,
        }


def _whose(params: Params, max_tokens: int) -> str:
    """``all-MiniLM-L6-v2's 256 tokens``, or ``your input limit of 300 tokens``."""
    model = MODELS.get(params.model) if params.model else None
    if model is not None and model.max_tokens.value == max_tokens:
        return f"{model.name}'s {max_tokens:,} tokens"
    return f"your input limit of {max_tokens:,} tokens"


def _overlap_at(params: Params, size: int) -> int | None:
    """The overlap at ``size``: the units asked for, or the percentage of ``size``
    (rounded half up); ``None`` when it is not below ``size``."""
    if params.overlap_percent is not None:
        overlap = round_half_up(params.overlap_percent * size / 100)
    else:
        overlap = params.overlap
    return overlap if overlap < size else None


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def fit_size(text: str, params: Params) -> Fit:
    """The largest size at which every chunk of ``text`` under ``params`` (its unit
    tokens, its model or typed maximum) fits the model; see the module docstring."""
    if params.unit != "token" or params.encoding is None:
        raise InputError("unit", "the fit counts the model's tokens: choose the token unit")
    if params.max_tokens is None:
        raise InputError(
            "max_tokens", "choose a model, or enter its input limit, to fit the size to it"
        )
    if params.splitter not in ("fixed", "recursive"):
        raise InputError(
            "chunks_ref", "the chunks shown are a file's, with no size to fit: show a splitter's"
        )
    text, _ = strip_bom(text)
    check_size(text)
    max_tokens, specials = params.max_tokens, params.special_tokens
    limit = max_tokens - specials
    whose = _whose(params, max_tokens)
    less = f"{whose} less its {_plural(specials, 'special token')}" if specials else whose
    top = min(limit, int(BOUNDS["size"].high))
    units = segment(text, params).count
    fixed = params.splitter == "fixed"
    tried = work = 0
    over_at_limit: int | None = None
    largest_at_limit: int | None = None
    chunks_at_limit = 0
    found: tuple[int, int, int, int] | None = None  # size, overlap, chunks, largest
    reason: str | None = None
    for size in range(top, 0, -1):
        overlap = _overlap_at(params, size)
        if overlap is None:
            reason = (
                f"the overlap ({params.overlap:,}) is not below size {size:,}: lower the"
                " overlap, then fit the size"
            )
            break
        if tried == FIT_SIZES:
            reason = (
                f"no size from {top:,} down to {size + 1:,} fits every chunk of this text"
                f" ({FIT_SIZES} sizes tried): lower the size by hand and check again"
            )
            break
        chunks = window_count(units, size=size, overlap=overlap)
        if fixed and work + chunks > FIT_WINDOWS:
            reason = (
                f"at size {size:,} this text makes {chunks:,} chunks, more than the"
                f" {FIT_WINDOWS:,} the fit encodes one by one: raise the limit or split the text"
                if not tried
                else f"no size from {top:,} down to {size + 1:,} fits every chunk of this"
                f" text, and trying more would encode over {FIT_WINDOWS:,} chunks: lower the"
                " size by hand and check again"
            )
            break
        tried += 1
        first = size == top
        at = replace(params, size=size, overlap=overlap, caps=False)
        if fixed:
            counts = alone_counts(text, params.encoding, size, overlap)
        else:
            chunking = chunking_of(text, at)
            chunks = chunking.count
            counts = iter(chunking.lengths)
        over = largest = 0
        for n in counts:
            work += 1
            if n > limit:
                over += 1
                if not first:
                    break  # this size does not fit; only the limit's figures are kept
            largest = max(largest, n)
        if first:
            over_at_limit, largest_at_limit, chunks_at_limit = over, largest, chunks
        if not over:
            found = (size, overlap, chunks, largest)
            break
        if not fixed:
            reason = (
                f"at size {size:,}, {over:,} of {chunks:,} chunks"
                f" {'is a piece' if over == 1 else 'are pieces'} with no separator left"
                f" to split them at (the longest is {largest:,} tokens), and they are as"
                " long at every size: no size fits;"
                ' add "" to the separators, or raise the limit'
            )
            break
    if found is None:
        return Fit(
            model=params.model, max_tokens=max_tokens, special_tokens=specials, limit=limit,
            size=None, overlap=None, chunks=None, largest=None, over_at_limit=over_at_limit,
            largest_at_limit=largest_at_limit, tried=tried, current=False, reason=reason,
            label="", note=f"No size fits: {reason}." if reason else "No size fits.",
        )  # fmt: skip
    size, overlap, chunks, largest = found
    label = f"Fit: size {size:,} so every chunk fits {whose}"
    if size == limit:
        note = (
            f"Size {size:,} is {less}. At it every chunk of this text fits, encoded on its"
            f" own (the longest is {_plural(largest, 'token')})."
        )
        if fixed:
            note += (
                " A fixed size cannot guarantee this on every text: a window's text encoded"
                " on its own can take more tokens than the window."
            )
    else:
        assert over_at_limit is not None and largest_at_limit is not None
        note = (
            f"At size {limit:,} ({less}), {over_at_limit:,} of {chunks_at_limit:,}"
            f" chunks re-encode longer on their own (up to {largest_at_limit:,} tokens), so a"
            f" fixed size cannot guarantee the fit. Size {size:,} is the largest at which"
            f" every chunk of this text fits (the longest is {_plural(largest, 'token')})."
        )
    return Fit(
        model=params.model, max_tokens=max_tokens, special_tokens=specials, limit=limit,
        size=size, overlap=overlap, chunks=chunks, largest=largest,
        over_at_limit=over_at_limit, largest_at_limit=largest_at_limit, tried=tried,
        current=params.size == size, reason=None, label=label, note=note,
    )  # fmt: skip
