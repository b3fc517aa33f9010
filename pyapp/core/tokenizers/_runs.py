"""Long whitespace runs taken out of tiktoken's regex, cut where the pattern cuts them.

tiktoken 0.14 runs each pattern with fancy-regex, whose backtracking stack holds
one entry per character that ``\\s+(?!\\S)`` consumes and is capped at a million:
a run of about 1,000,000 spaces or tabs (no line break) makes it panic
(``PanicException: StackOverflow``, a ``BaseException``). The line-break branch
(``\\s*[\\r\\n]+``) and cl100k_base's possessive ``\\s++$`` need no stack.

:func:`bounded_encode` finds every whitespace run longer than ``longest_run``
characters and works out, from the pattern, the one piece of it that would reach
``\\s+(?!\\S)`` (or cl100k_base's ``\\s++$``). That piece is merged by itself
(tiktoken's ``encode_single_piece``: the same merge the regex's pieces get) and the
text around it goes to ``encode_ordinary``. The cuts are where the pattern puts
piece boundaries anyway, and each side is pre-tokenized as it would be in the
whole text, so the ids are the same. For a maximal whitespace run ``[a, b)``:

* **After the last line break** ``L`` in the run (``L + 1``, when it is inside the
  run): the line-break branch, or a punctuation piece's ``[\\r\\n]*`` tail, ends
  exactly there, in the whole text and in the text cut there.
* **At the run's start** ``a`` when the run holds no line break: no piece takes a
  trailing space or tab, and ``text[a - 1]`` is not whitespace, so nothing before
  ``a`` looks past it.
* **Before the run's last character** ``b - 1`` when text follows: ``\\s+(?!\\S)``
  leaves that character to the next piece (a word or punctuation may take it).
  Cut there, the piece before matches the end of the text instead, with the
  same extent.
* **cl100k_base at the end of the text**: ``\\s++$`` takes the whole run from its
  start, or from after the line breaks a punctuation piece took (``[\\r\\n]*+``,
  when ``text[a - 1]`` is punctuation: in cl100k_base no word ends in a mark).

The parity tests compare this with tiktoken itself (with ``longest_run`` lowered to
a few characters, so tiktoken can run the same texts whole) and with the pure
pre-tokenizer, on every encoding.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Final

from ._tables import bpe_atom, bpe_classes

if TYPE_CHECKING:
    import tiktoken

__all__ = ["LONGEST_RUN", "bounded_count", "bounded_encode", "long_pieces"]

#: Whitespace runs up to this many characters go to tiktoken's regex as they are
#: (it overflows at about 1,000,000).
LONGEST_RUN: Final = 1 << 12


@functools.cache
def _whitespace_class() -> str:
    """``[...]`` of the code points tiktoken's ``\\s`` matches (from the table)."""
    classes = bpe_classes()
    ranges: list[tuple[int, int]] = []
    bounds = [*classes.starts, 0x110000]
    for i, atom in enumerate(classes.values):
        if classes.holds(atom, "S"):
            ranges.append((bounds[i], bounds[i + 1] - 1))
    return "[" + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in ranges) + "]"


def _punctuation(char: str) -> bool:
    """``[^\\s\\p{L}\\p{N}]``, by the table."""
    classes = bpe_classes()
    atom = bpe_atom(ord(char))
    return not (classes.holds(atom, "S") or classes.holds(atom, "L") or classes.holds(atom, "N"))


@functools.cache
def _matchers() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """One whitespace character; a run from here on; a run that ends where the search ends."""
    ws = _whitespace_class()
    return re.compile(ws), re.compile(f"{ws}+"), re.compile(f"{ws}+\\Z")


def _long_runs(text: str, longest_run: int) -> Iterator[tuple[int, int]]:
    """``(a, b)`` of each maximal whitespace run of more than ``longest_run``
    characters. Such a run holds a multiple of ``longest_run + 1``, so only the
    characters there are looked at first: prose costs a slice and a few matches.

    >>> list(_long_runs("ab" + " " * 5 + "c d" + "\\t" * 4, 3))
    [(2, 7), (10, 14)]
    """
    one, forward, backward = _matchers()
    step = longest_run + 1
    end = 0
    for hit in one.finditer(text[::step]):
        at = hit.start() * step
        if at < end:
            continue  # inside the run found last
        # The run began after the sample before this one (else that one found it).
        began = backward.search(text, max(end, at - longest_run), at + 1)
        start = began.start() if began is not None else at
        ran = forward.match(text, at)
        end = ran.end() if ran is not None else at + 1
        if end - start > longest_run:
            yield start, end


def long_pieces(
    name: str, text: str, *, longest_run: int = LONGEST_RUN
) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each piece of ``text``, under ``name``'s pattern, made of
    more than ``longest_run`` whitespace characters with no line break after its
    first (the pieces tiktoken's regex cannot match), in order.

    >>> list(long_pieces("o200k_base", "a" + " " * 9 + "b", longest_run=4))
    [(1, 9)]
    >>> list(long_pieces("o200k_base", "a\\n" + " " * 9, longest_run=4))
    [(2, 11)]
    >>> list(long_pieces("cl100k_base", "a\\n" + " " * 9, longest_run=4))
    [(1, 11)]
    """
    size = len(text)
    for a, b in _long_runs(text, longest_run):
        if name == "cl100k_base" and b == size:
            start = a
            if a and _punctuation(text[a - 1]):  # its [\r\n]*+ takes the leading line breaks
                while start < b and text[start] in "\r\n":
                    start += 1
            end = b
        else:
            last_break = max(text.rfind("\n", a, b), text.rfind("\r", a, b))
            start = last_break + 1 if last_break >= 0 else a
            end = b if b == size else b - 1
        if end - start > longest_run:
            yield start, end


def _segments(name: str, text: str, longest_run: int) -> Iterator[tuple[int, int, bool]]:
    """``(start, end, alone)`` covering ``text`` in order: ``alone`` for a long
    whitespace piece (merged by itself), else text for ``encode_ordinary``."""
    pos = 0
    for start, end in long_pieces(name, text, longest_run=longest_run):
        if pos < start:
            yield pos, start, False
        yield start, end, True
        pos = end
    if pos < len(text):
        yield pos, len(text), False


def bounded_encode(
    encoding: tiktoken.Encoding, name: str, *, longest_run: int = LONGEST_RUN
) -> Callable[[str], list[int]]:
    """``encoding.encode_ordinary``, with every long whitespace piece (:func:`long_pieces`)
    merged by itself instead of reaching the regex."""
    encode = encoding.encode_ordinary
    single: Callable[[bytes], list[int]] = encoding._encode_single_piece

    def encode_bounded(text: str) -> list[int]:
        if len(text) <= longest_run:
            return encode(text)
        out: list[int] = []
        for start, end, alone in _segments(name, text, longest_run):
            piece = text[start:end]
            out += single(piece.encode("utf-8")) if alone else encode(piece)
        return out

    return encode_bounded


def bounded_count(
    encoding: tiktoken.Encoding, name: str, *, longest_run: int = LONGEST_RUN
) -> Callable[[str], int]:
    """``len(bounded_encode(...)(text))`` without a list of ids: tiktoken's 4-byte
    buffer (a 64 MiB document would otherwise hold millions of int objects)."""
    single: Callable[[bytes], list[int]] = encoding._encode_single_piece
    to_buffer = encoding._core_bpe.encode_to_tiktoken_buffer
    no_special: frozenset[str] = frozenset()

    def ordinary(text: str) -> int:
        # With no special token allowed, special-token text is ordinary text.
        return memoryview(to_buffer(text, no_special)).nbytes // 4

    def count_bounded(text: str) -> int:
        if len(text) <= longest_run:
            return ordinary(text)
        return sum(
            len(single(text[start:end].encode("utf-8"))) if alone else ordinary(text[start:end])
            for start, end, alone in _segments(name, text, longest_run)
        )

    return count_bounded
