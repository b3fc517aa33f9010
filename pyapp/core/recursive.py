"""LangChain's ``RecursiveCharacterTextSplitter``, exact, with offsets by construction.

The algorithm is that of ``langchain-text-splitters`` (``character.py``
``_split_text`` and ``base.py`` ``_merge_splits``), step for step, on intervals of
the source instead of strings:

1. Take the first separator that occurs in the piece (``""``: every character);
   split the piece at its matches, keeping the separator at the start or end of
   a split, or dropping it; drop empty splits.
2. Walk the splits: one shorter than the size joins the run of good splits; a
   longer one first flushes the run (merged), then is split again with the
   remaining separators, or kept whole when none are left.
3. Merge a run as LangChain does: add up each split's length (and the separator's,
   between splits, when separators are dropped), never measuring the joined text;
   emit a chunk when the next split would pass the size, then drop splits from its
   front while the total is over the overlap (or the next split still does not fit).
4. Strip whitespace from each chunk (on by default) and drop empty ones.

Every chunk is an interval ``[start, end)`` of the text, known from the splits that
make it up, so ``text[start:end]`` is the chunk, by construction: nothing is searched
for afterwards (LangChain's ``add_start_index`` searches, and is wrong on repeats).

**Where this differs from LangChain, deliberately** (the chunk boundaries and every
length decision are LangChain's):

* with the separator dropped (``keep_separator`` none), LangChain joins the splits
  of a chunk with the separator string itself. A chunk here is the source between
  its first and last split, so where the source had a run of separators between
  two splits of one chunk (``"a\\n\\n\\n\\nb"`` split at ``"\\n\\n"``) it keeps the
  run, and a regex separator stays what it matched (LangChain inserts the regex's
  own source, such as ``\\n#{1,6} ``): LangChain's chunk is then not in the text at
  all, and has no offsets;
* a separator regex with a capturing group is refused (write ``(?:...)``):
  LangChain's split pairs the groups up wrongly and loses or repeats text;
* in tokens, text that looks like a special token (``<|endoftext|>``) is counted
  as the text it is; ``from_tiktoken_encoder`` raises on it.

>>> text = "One two three four. Five six seven."
>>> [(a, b, text[a:b]) for a, b in split(text, size=16, overlap=8)][:3]
[(0, 13, 'One two three'), (8, 19, 'three four.'), (14, 28, 'four. Five six')]
>>> text = "para one\\n\\npara two is longer\\n\\nthree"
>>> [text[a:b] for a, b in split(text, size=20, overlap=0)]
['para one', 'para two is longer', 'three']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from ..errors import InputError
from ..facts import SEPARATOR_PRESETS

__all__ = ["DEFAULT_SEPARATORS", "Keep", "RecursiveSettings", "check_separators", "split"]

Keep = Literal["start", "end", "none"]

DEFAULT_SEPARATORS: Final = SEPARATOR_PRESETS["default"]


@dataclass(frozen=True, slots=True, kw_only=True)
class RecursiveSettings:
    """The recursive splitter's settings besides the size, overlap and unit."""

    separators: tuple[str, ...] = DEFAULT_SEPARATORS
    #: The preset the separators came from (``None``: typed or the default).
    preset: str | None = None
    is_separator_regex: bool = False
    keep_separator: Keep = "start"
    strip_whitespace: bool = True


@lru_cache(maxsize=256)
def _pattern(separator: str, regex: bool) -> re.Pattern[str]:
    return re.compile(separator if regex else re.escape(separator))


def check_separators(separators: Sequence[str], *, regex: bool) -> None:
    """Refuse separators that cannot be used, naming the fix."""
    if not separators:
        raise InputError(
            "separators", "the separator list is empty: give at least one separator (\"\" splits"
            " every character)",
        )  # fmt: skip
    for i, separator in enumerate(separators):
        if not isinstance(separator, str):
            raise InputError("separators", f"separator {i + 1} must be a string")
        if not regex:
            continue
        try:
            pattern = re.compile(separator)
        except re.error as err:
            raise InputError(
                "separators",
                f"separator {i + 1} ({separator!r}) is not a valid regular expression: {err}",
            ) from None
        if pattern.groups:
            raise InputError(
                "separators",
                f"separator {i + 1} ({separator!r}) has a capturing group: write (?:...)"
                " instead, so the split keeps every character",
            )


def _splits(
    text: str, start: int, end: int, separator: str, regex: bool, keep: Keep
) -> list[tuple[int, int]]:
    """LangChain's ``_split_text_with_regex`` of ``text[start:end]``, as intervals.

    A regex is searched in the piece itself, as LangChain does (so ``^``, ``\\b``
    and lookbehinds see the piece's edges); a literal is searched in place."""
    if not separator:
        return [(i, i + 1) for i in range(start, end)]
    pattern = _pattern(separator, regex)
    if regex:
        base, matches = start, pattern.finditer(text[start:end])
    else:
        base, matches = 0, pattern.finditer(text, start, end)
    out: list[tuple[int, int]] = []
    at = start - base
    for match in matches:
        a, b = match.span()
        if keep == "none":
            out.append((at, a))
            at = b
        elif keep == "start":
            out.append((at, a))
            at = a
        else:
            out.append((at, b))
            at = b
    out.append((at, end - base))
    return [(base + a, base + b) for a, b in out if b > a]


def _found(text: str, start: int, end: int, separator: str, regex: bool) -> bool:
    pattern = _pattern(separator, regex)
    if regex:
        return pattern.search(text[start:end]) is not None
    return pattern.search(text, start, end) is not None


def split(
    text: str,
    *,
    size: int,
    overlap: int,
    settings: RecursiveSettings | None = None,
    length: Callable[[str], int] | None = None,
) -> list[tuple[int, int]]:
    """The chunks of ``text`` as code-point intervals, in order; ``length`` measures a
    piece of text (default: code points, as ``len``)."""
    the = settings or RecursiveSettings()
    measure = length or len
    chars = length is None
    regex, keep, strip = the.is_separator_regex, the.keep_separator, the.strip_whitespace
    chunks: list[tuple[int, int]] = []

    def emit(a: int, b: int) -> None:
        """``_join_docs``: the chunk, stripped when asked, dropped when empty."""
        if strip:
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
        if b > a:
            chunks.append((a, b))

    def merge(splits: list[tuple[int, int]], lengths: list[int], separator_len: int) -> None:
        """``_merge_splits``: the chunk so far is ``splits[first:k]``, ``total`` long."""
        total = 0
        first = 0
        for k, d_len in enumerate(lengths):
            if k > first and total + d_len + separator_len > size:
                emit(splits[first][0], splits[k - 1][1])
                while total > overlap or (
                    total + d_len + (separator_len if k > first else 0) > size and total > 0
                ):
                    total -= lengths[first] + (separator_len if k - first > 1 else 0)
                    first += 1
            total += d_len + (separator_len if k > first else 0)
        if len(lengths) > first:
            emit(splits[first][0], splits[-1][1])

    def recurse(start: int, end: int, separators: Sequence[str]) -> None:
        """``_split_text`` of ``text[start:end]``."""
        separator = separators[-1]
        rest: Sequence[str] = ()
        for i, s in enumerate(separators):
            if not s:
                separator = s
                break
            if _found(text, start, end, s, regex):
                separator = s
                rest = separators[i + 1 :]
                break
        separator_len = 0 if keep != "none" else measure(separator)
        good: list[tuple[int, int]] = []
        good_lengths: list[int] = []
        for a, b in _splits(text, start, end, separator, regex, keep):
            n = b - a if chars else measure(text[a:b])
            if n < size:
                good.append((a, b))
                good_lengths.append(n)
                continue
            if good:
                merge(good, good_lengths, separator_len)
                good, good_lengths = [], []
            if rest:
                recurse(a, b, rest)
            else:
                chunks.append((a, b))  # LangChain keeps such a split as it is, unstripped
        if good:
            merge(good, good_lengths, separator_len)

    if text:
        recurse(0, len(text), the.separators)
    return chunks
