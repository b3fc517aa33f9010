"""The truncation lens: one embedding model, chosen apart from the chunk unit, reading
each chunk of a chunking; what it drops, chunk by chunk and over the whole text.

The model is a preset with an offline tokenizer (:data:`~pyapp.models.MODELS`) or a
custom limit for one of the six encodings. Each chunk is counted in that model's
tokenizer, its special tokens included, against its maximum input, and an over-limit
chunk is cut where :func:`~pyapp.core.truncation.model_cut` says its input ends.

>>> lens = parse_lens(model="all-MiniLM-L6-v2")
>>> lens.max_tokens, lens.special_tokens, lens.encoding
(256, 2, 'bert-base-uncased')
>>> text = "one two three four. five six"
>>> lens = parse_lens(encoding="bert-base-uncased", max_tokens=5)
>>> read = read_chunks(text, [(0, 19), (20, 28)], lens)
>>> [(c.tokens, c.cut) for c in read.chunks], read.unseen_chars
([(7, 13), (4, None)], 6)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..figures import number
from ..models import MODELS
from .params import Params, parse_encoding, parse_model, parse_whole, quote
from .truncation import Truncation, model_cut

__all__ = [
    "Lens",
    "LensChunk",
    "LensReport",
    "cut_of",
    "lens_of_params",
    "parse_lens",
    "read_chunks",
]

#: What a model's tokens are called, by encoding, for the page's sentence.
_PIECES = {"bert-base-uncased": "word pieces"}
#: Special tokens a custom limit counts by default, by encoding.
_DEFAULT_SPECIAL = {"bert-base-uncased": 2}
_SPECIAL_NAMES = {"bert-base-uncased": "[CLS] and [SEP]"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Lens:
    """An embedding model's reading: its encoding and its maximum input, special
    tokens included. ``model`` names the preset (``None`` for a custom limit)."""

    model: str | None
    encoding: str
    max_tokens: int
    special_tokens: int

    @property
    def name(self) -> str:
        return self.model or f"a model reading {self.encoding}"

    def sentence(self, *, truncated: int, chunks: int, unseen_chars: int) -> str:
        """What the page says, plainly.

        >>> lens = parse_lens(model="all-MiniLM-L6-v2")
        >>> print(lens.sentence(truncated=41, chunks=230, unseen_chars=8912))
        ... # doctest: +NORMALIZE_WHITESPACE
        all-MiniLM-L6-v2 reads at most 256 word pieces, [CLS] and [SEP] included. 41 of 230
        chunks are longer, and it will never see 8,912 characters of this text.
        """
        pieces = _PIECES.get(self.encoding, f"{self.encoding} tokens")
        special = ""
        if self.special_tokens:
            names = _SPECIAL_NAMES.get(self.encoding)
            special = (
                f", {names} included"
                if names and self.special_tokens == 2
                else f", its {self.special_tokens} special tokens included"
            )
        head = f"{self.name} reads at most {self.max_tokens:,} {pieces}{special}."
        if not truncated:
            return f"{head} Every one of the {chunks:,} chunks fits: it reads them all whole."
        verb = "is" if truncated == 1 else "are"
        unseen = (
            f"it will never see {unseen_chars:,} character{'s' if unseen_chars != 1 else ''}"
            " of this text"
            if unseen_chars
            else "another chunk holds all of what it drops"
        )
        return f"{head} {truncated:,} of {chunks:,} chunks {verb} longer, and {unseen}."

    def to_json(self) -> dict[str, object]:
        return {
            "model": self.model,
            "encoding": self.encoding,
            "max_tokens": self.max_tokens,
            "special_tokens": self.special_tokens,
        }


def parse_lens(
    *,
    model: object = None,
    encoding: object = None,
    max_tokens: object = None,
    special_tokens: object = None,
) -> Lens | None:
    """The lens from a preset (``model``; ``max_tokens`` may override its limit) or a
    custom limit (``encoding`` and ``max_tokens``; ``special_tokens`` defaults to 2 for
    ``bert-base-uncased``, whose models add ``[CLS]`` and ``[SEP]``, else 0). ``None``
    when nothing is chosen."""
    blank = (None, "")
    if model in blank and encoding in blank and max_tokens in blank:
        return None
    the_model = parse_model(model) if model not in blank else None
    if the_model is not None:
        preset = MODELS[the_model]
        the_encoding = preset.encoding if encoding in blank else parse_encoding(encoding)
        limit = (
            preset.max_tokens.value
            if max_tokens in blank
            else parse_whole("max_tokens", max_tokens)
        )
        special = preset.special_tokens.value
    else:
        if encoding in blank or max_tokens in blank:
            raise InputError(
                "max_tokens",
                "a custom model needs an encoding and its maximum input tokens: choose"
                " both, or a model preset",
            )
        the_encoding = parse_encoding(encoding)
        limit = parse_whole("max_tokens", max_tokens)
        special = _DEFAULT_SPECIAL.get(the_encoding, 0)
    if special_tokens not in blank:
        if isinstance(special_tokens, bool) or not isinstance(special_tokens, int | str):
            raise InputError(
                "special_tokens",
                f"special tokens must be a whole number, got {quote(special_tokens)}",
            )
        try:
            special = int(special_tokens)
        except ValueError:
            raise InputError(
                "special_tokens",
                f"special tokens must be a whole number, got {quote(special_tokens)}",
            ) from None
    if not 0 <= special < limit:
        raise InputError(
            "special_tokens",
            f"special tokens ({special}) must be from 0 to below the maximum input ({limit}):"
            " lower them",
        )
    return Lens(model=the_model, encoding=the_encoding, max_tokens=limit, special_tokens=special)


@dataclass(frozen=True, slots=True, kw_only=True)
class LensChunk:
    """One chunk as the model reads it: ``tokens`` with the special tokens; ``cut`` the
    code point of the *text* where its input ends (``None`` when read whole)."""

    tokens: int
    dropped_tokens: int
    cut: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class LensReport:
    lens: Lens
    chunks: tuple[LensChunk | None, ...]
    truncated: int
    dropped_tokens: int
    #: Code points in the chunks' dropped tails, counted once each.
    dropped_chars: int
    #: Of those, the ones no chunk's read part holds: what the model never sees.
    unseen_chars: int

    def to_json(self, chunks: int) -> dict[str, object]:
        return {
            **self.lens.to_json(),
            "truncated_chunks": self.truncated,
            "dropped_tokens": self.dropped_tokens,
            "dropped_chars": self.dropped_chars,
            "unseen_chars": self.unseen_chars,
            "sentence": self.lens.sentence(
                truncated=self.truncated, chunks=chunks, unseen_chars=self.unseen_chars
            ),
            "truncated_share": number(_share(self.truncated, chunks)),
        }


def _share(part: int, whole: int) -> Fraction | None:
    return Fraction(part, whole) if whole else None


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if start >= end:
            continue
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _length(spans: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in spans)


def _minus(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Code points of the union ``a`` outside the union ``b`` (both sorted, disjoint)."""
    left = 0
    j = 0
    for start, end in a:
        covered = 0
        while j < len(b) and b[j][1] <= start:
            j += 1
        k = j
        while k < len(b) and b[k][0] < end:
            covered += min(end, b[k][1]) - max(start, b[k][0])
            k += 1
        left += end - start - covered
    return left


def read_chunks(
    text: str,
    spans: Sequence[tuple[int, int] | None],
    lens: Lens,
    *,
    texts: Sequence[str] | None = None,
) -> LensReport:
    """Each chunk read by ``lens``: a placed chunk is ``text[start:end]``; a chunk with no
    place (``None``) is read from ``texts`` (its own text), with no cut in the text."""
    out: list[LensChunk | None] = []
    read: list[tuple[int, int]] = []
    tails: list[tuple[int, int]] = []
    dropped_tokens = truncated = 0
    for i, span in enumerate(spans):
        body = text[span[0] : span[1]] if span is not None else (texts[i] if texts else None)
        if body is None:
            out.append(None)
            continue
        t: Truncation = model_cut(
            body,
            encoding=lens.encoding,
            max_tokens=lens.max_tokens,
            special_tokens=lens.special_tokens,
        )
        cut = None
        if span is not None:
            if t.cut is not None:
                cut = span[0] + t.cut
                read.append((span[0], cut))
                tails.append((cut, span[1]))
            else:
                read.append(span)
        if t.truncated:
            truncated += 1
            dropped_tokens += t.dropped
        out.append(LensChunk(tokens=t.tokens, dropped_tokens=t.dropped, cut=cut))
    tail_union = _union(tails)
    return LensReport(
        lens=lens,
        chunks=tuple(out),
        truncated=truncated,
        dropped_tokens=dropped_tokens,
        dropped_chars=_length(tail_union),
        unseen_chars=_minus(tail_union, _union(read)),
    )


def lens_of_params(params: Params) -> Lens | None:
    """The lens of the page's Model select: the chosen preset read with the limit the
    settings hold (the preset's, or the one typed over it); ``None`` with no model.

    >>> from .params import parse_params
    >>> lens_of_params(parse_params(unit="char", size=9, model="all-MiniLM-L6-v2"))
    Lens(model='all-MiniLM-L6-v2', encoding='bert-base-uncased', max_tokens=256, special_tokens=2)
    >>> lens_of_params(parse_params(unit="char", size=9)) is None
    True
    """
    if params.model is None or params.max_tokens is None:
        return None
    return Lens(
        model=params.model,
        encoding=MODELS[params.model].encoding,
        max_tokens=params.max_tokens,
        special_tokens=params.special_tokens,
    )


def cut_of(text: str, start: int, end: int, lens: Lens) -> int | None:
    """Where ``lens``'s input ends in chunk ``text[start:end]``, as a code point of the
    *text* (``None`` when it reads the chunk whole): the tail ``[cut, end)`` is dropped.

    >>> lens = parse_lens(encoding="bert-base-uncased", max_tokens=5)
    >>> cut_of("xx one two three four. five six", 3, 22, lens)
    16
    """
    t = model_cut(
        text[start:end],
        encoding=lens.encoding,
        max_tokens=lens.max_tokens,
        special_tokens=lens.special_tokens,
    )
    return None if t.cut is None else start + t.cut
