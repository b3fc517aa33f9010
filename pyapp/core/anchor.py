"""Re-anchoring: where each imported chunk lies in the text, found by one documented rule.

For each chunk, in the file's order, with ``previous`` the interval of the last chunk
placed (none before the first):

1. **given**: the chunk claims a start (and maybe an end), and ``text[start:start +
   len(chunk)] == chunk`` (and the end, if claimed, is ``start + len(chunk)``): kept,
   unless it is ``previous``'s own interval.
2. **corrected**: otherwise, the first exact occurrence that starts at or after
   ``previous``'s start, other than ``previous``'s own interval (a chunk repeated
   twice in a row is two places, not one).
3. **normalized**: otherwise, the same search with whitespace ignored on both sides
   (a stripped, collapsed or re-joined chunk, ``\\r\\n`` read as ``\\n``) and with the
   replacement characters (U+FFFD) at the chunk's two ends standing for one character
   outside ASCII there (a token window cut inside a character, decoded with
   ``errors="replace"``, holds part of it). The interval runs from the first to the
   last character matched, cut characters included, widened by the chunk's own
   leading and trailing whitespace where the text has the same there; it starts at
   or after the previous chunk's start.
4. **missing**: otherwise; listed, never fatal, and it does not move ``previous``.

A chunk with no claimed start skips step 1. Every step searches forward from the
previous chunk's start, so repeated text resolves the same way every time.
Offsets are code points, as Python slices them.

>>> text = "one two. one two. three"
>>> placed = anchor(text, ["one two.", "one two.", "three"], [0, 0, 99])
>>> [(a.verdict, a.start, a.end) for a in placed]
[('given', 0, 8), ('corrected', 9, 17), ('corrected', 18, 23)]
>>> [(a.verdict, a.start, a.end) for a in anchor("a  b\\r\\nc", ["a b\\nc", "zzz"], [None, None])]
[('normalized', 0, 7), ('missing', None, None)]
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..facts import VERDICTS

__all__ = ["VERDICTS", "Anchored", "Squeezed", "anchor"]


_REPLACEMENT: Final = "\ufffd"


@dataclass(frozen=True, slots=True, kw_only=True)
class Anchored:
    """One chunk placed: ``text[start:end]`` is the chunk (``given``, ``corrected``) or
    the stretch it matches up to whitespace (``normalized``); both ``None`` when
    ``missing``. ``given_start`` and ``given_end`` are what the file claimed."""

    index: int
    verdict: str
    start: int | None
    end: int | None
    given_start: int | None
    given_end: int | None

    @property
    def found(self) -> bool:
        return self.start is not None

    @property
    def offset_wrong(self) -> bool:
        """The file claimed a start, and it did not hold the chunk."""
        return self.given_start is not None and self.verdict != "given"


class Squeezed:
    """The text with its whitespace left out, and where each kept character was, so a
    chunk can be found up to whitespace with one ``str.find``.

    >>> s = Squeezed("a b\\n c")
    >>> s.text, s.find("bc", 0)
    ('abc', (2, 6))
    """

    __slots__ = ("positions", "text")

    def __init__(self, text: str) -> None:
        kept: list[str] = []
        positions: list[int] = []
        for i, ch in enumerate(text):
            if not ch.isspace():
                kept.append(ch)
                positions.append(i)
        self.text = "".join(kept)
        self.positions = positions

    def find(
        self,
        needle: str,
        start: int,
        *,
        avoid: tuple[int, int] | None = None,
        cut_head: bool = False,
        cut_tail: bool = False,
    ) -> tuple[int, int] | None:
        """The first ``needle`` (no whitespace in it) starting at or after code point
        ``start`` of the text, as an interval of the text; never ``avoid``. With
        ``cut_head`` (``cut_tail``) the match must follow (precede) a character outside
        ASCII, which the interval takes in: the character a cut token held part of."""
        if not needle:
            return None
        positions, n = self.positions, len(needle)
        at = bisect_left(positions, start)
        while True:
            k = self.text.find(needle, at)
            if k < 0:
                return None
            at = k + 1
            first, last = k, k + n - 1
            if cut_head:
                if k == 0 or self.text[k - 1].isascii():
                    continue
                first = k - 1
            if cut_tail:
                if last + 1 >= len(self.text) or self.text[last + 1].isascii():
                    continue
                last += 1
            found = (positions[first], positions[last] + 1)
            if found != avoid and found[0] >= start:
                return found


def _core(chunk: str) -> tuple[str, bool, bool]:
    """The chunk with its whitespace left out and the replacement characters at its ends,
    and whether there were any at its head and at its tail."""
    squeezed = "".join(chunk.split())
    core = squeezed.strip(_REPLACEMENT)
    return core, squeezed[:1] == _REPLACEMENT, squeezed[-1:] == _REPLACEMENT


def _edges(text: str, chunk: str, found: tuple[int, int], from_: int) -> tuple[int, int]:
    """A whitespace-blind match widened by the chunk's own leading and trailing
    whitespace, where the text has the same there."""
    start, end = found
    head = chunk[: len(chunk) - len(chunk.lstrip())]
    tail = chunk[len(chunk.rstrip()) :]
    if head and start - len(head) >= from_ and text.startswith(head, start - len(head)):
        start -= len(head)
    if tail and text.startswith(tail, end):
        end += len(tail)
    return start, end


def anchor(
    text: str,
    chunks: Sequence[str],
    starts: Sequence[int | None],
    ends: Sequence[int | None] | None = None,
) -> list[Anchored]:
    """Each chunk placed on ``text`` by the rule in the module docstring (deterministic:
    the same inputs give the same intervals)."""
    squeezed: Squeezed | None = None
    out: list[Anchored] = []
    previous: tuple[int, int] | None = None
    for index, chunk in enumerate(chunks):
        given = starts[index]
        given_end = ends[index] if ends is not None else None
        n = len(chunk)
        if (
            n
            and given is not None
            and given >= 0
            and text.startswith(chunk, given)
            and (given_end is None or given_end == given + n)
            and previous != (given, given + n)
        ):
            verdict, place = "given", (given, given + n)
        else:
            verdict, place = "missing", None
            from_ = previous[0] if previous else 0
            if n:
                k = text.find(chunk, from_)
                if k >= 0 and previous == (k, k + n):
                    k = text.find(chunk, k + 1)
                if k >= 0:
                    verdict, place = "corrected", (k, k + n)
            if place is None:
                core, cut_head, cut_tail = _core(chunk)
                if core:
                    if squeezed is None:
                        squeezed = Squeezed(text)
                    found = squeezed.find(
                        core, from_, avoid=previous, cut_head=cut_head, cut_tail=cut_tail
                    )
                    if found is not None:
                        verdict, place = "normalized", _edges(text, chunk, found, from_)
        if place is not None:
            previous = place
        out.append(
            Anchored(
                index=index,
                verdict=verdict,
                start=place[0] if place else None,
                end=place[1] if place else None,
                given_start=given,
                given_end=given_end,
            )
        )
    return out
