"""The three units a text is measured in, and how a run of units maps back to the text.

Each segmentation knows its unit count ``count`` and, for a window of units
``[start, end)``, the code-point and UTF-8 byte range it covers (:meth:`edges`).

* ``word``: maximal runs of non-whitespace, exactly ``str.split()``'s words.
* ``char``: code points (Python ``str`` indices).
* ``token``: tokenizer tokens; see :class:`Tokens` for multi-byte characters.

Offsets contract, for every window: ``text[char_start:char_end]`` is the window's
text, and for word and char units ``text.encode()[byte_start:byte_end]`` is its
UTF-8. Nothing here recovers an offset by searching the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Final, Protocol

from ..errors import InputError
from .cache import per_text
from .tokenizers import Backend, get_tokenizer
from .tokenizers.local import Spans, splice

__all__ = [
    "ASCII_SPACES",
    "BOM",
    "CharToByte",
    "Chars",
    "Segmentation",
    "Tokens",
    "Words",
    "byte_offsets",
    "strip_bom",
    "utf8_length",
    "word_count",
]

#: ``\S+`` over ``str`` agrees with ``str.isspace`` on every code point (tested).
WORD: Final = re.compile(r"\S+")

#: UTF-8 continuation bytes (``10xxxxxx``): never the start of a character.
_CONTINUATION: Final = bytes(range(0x80, 0xC0))


def utf8_length(text: str) -> int:
    """UTF-8 length of ``text``; an unpaired surrogate is bad input, not a crash.

    >>> utf8_length("naïve €")
    10
    """
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InputError(
            "text",
            f"text has an unpaired surrogate U+{ord(text[exc.start]):04X} at character"
            f" {exc.start}, which UTF-8 cannot hold: remove it or paste the text again",
        ) from None


#: The byte-order mark. At the very start of a text it says how the file was
#: encoded and is not text: every reader drops it there (and says it did).
BOM: Final = "\ufeff"


def strip_bom(text: str) -> tuple[str, bool]:
    """``(text without a leading byte-order mark, whether one was removed)``.

    >>> strip_bom("\ufeffhello"), strip_bom("a\ufeffb")
    (('hello', True), ('a\ufeffb', False))
    """
    if text.startswith(BOM):
        return text[1:], True
    return text, False


#: ASCII bytes to ``b" "`` where ``str.split()`` splits (the six usual whitespace
#: characters and the four separators ``\x1c``-``\x1f``), every other byte to ``b"x"``.
ASCII_SPACES: Final = bytes(
    0x20 if byte in b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f" else 0x78 for byte in range(256)
)


def word_count(text: str) -> int:
    """Words as ``str.split()`` counts them. An ASCII text (most) is counted without
    building the words: each word starts where a space is followed by anything else,
    about four times faster on a megabyte.

    >>> word_count("  one\\u00a0two\\tthree  "), word_count("a\\x1cb c "), word_count("")
    (3, 3, 0)
    """
    if not text.isascii():
        return len(text.split())
    marks = text.encode("ascii").translate(ASCII_SPACES)
    return marks.count(b" x") + marks.startswith(b"x")


def byte_offsets(text: str, offsets: Sequence[int]) -> list[int]:
    """UTF-8 byte offsets of the sorted code-point ``offsets``, in one pass.

    >>> byte_offsets("añ€b", [0, 2, 3, 4])
    [0, 3, 6, 7]
    """
    if text.isascii():
        return list(offsets)
    out: list[int] = []
    char = byte = 0
    for offset in offsets:
        if offset >= char:
            byte += len(text[char:offset].encode("utf-8", "surrogatepass"))
        else:
            byte -= len(text[offset:char].encode("utf-8", "surrogatepass"))
        char = offset
        out.append(byte)
    return out


class Segmentation(Protocol):
    count: int

    def edges(self, start: int, end: int) -> tuple[int, int, int, int]:
        """``(char_start, char_end, byte_start, byte_end)`` of units ``[start, end)``."""
        ...

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        """``(char_start, char_end)`` of units ``[start, end)``, without byte work."""
        ...


class CharToByte:
    """Code-point offset -> UTF-8 byte offset, walking from the previous answer.

    Chunk edges arrive nearly in order, so the total work is about the length of
    the chunks, and nothing is computed for text no chunk reaches.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self.ascii = text.isascii()
        self._char = 0
        self._byte = 0

    def __call__(self, char: int) -> int:
        if self.ascii:
            return char
        if char >= self._char:
            self._byte += len(self._text[self._char : char].encode("utf-8"))
        else:
            self._byte -= len(self._text[char : self._char].encode("utf-8"))
        self._char = char
        return self._byte


class _ByteToChar:
    """UTF-8 byte offset -> code-point offset, rounding down or up inside a character."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.data = data
        self.ascii = data.isascii()
        self._byte = 0
        self._char = 0

    def _starts_before(self, byte: int) -> int:
        """How many characters start before ``byte``."""
        data = self._data
        if byte >= self._byte:
            self._char += len(data[self._byte : byte].translate(None, _CONTINUATION))
        else:
            self._char -= len(data[byte : self._byte].translate(None, _CONTINUATION))
        self._byte = byte
        return self._char

    def floor(self, byte: int) -> int:
        """The character that contains ``byte`` (or starts at it)."""
        if self.ascii:
            return byte
        chars = self._starts_before(byte)
        inside = byte < len(self._data) and self._data[byte] & 0xC0 == 0x80
        return chars - 1 if inside else chars

    def ceil(self, byte: int) -> int:
        """The first character boundary at or after ``byte``."""
        if self.ascii:
            return byte
        return self._starts_before(byte)


class Chars:
    """Code points: unit ``i`` is ``text[i]``.

    >>> Chars("añb").edges(1, 3)
    (1, 3, 1, 4)
    """

    def __init__(self, text: str) -> None:
        self.count = len(text)
        self._to_byte = CharToByte(text)

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        return start, end

    def edges(self, start: int, end: int) -> tuple[int, int, int, int]:
        return start, end, self._to_byte(start), self._to_byte(end)


class Words:
    """Non-whitespace runs, located lazily: only as far as a window asks.

    >>> w = Words("  one two\\n three ")
    >>> w.count, w.edges(1, 3)
    (3, (6, 16, 6, 16))
    """

    def __init__(self, text: str) -> None:
        self.count = word_count(text)
        self._to_byte = CharToByte(text)
        self._matches: Iterator[re.Match[str]] = WORD.finditer(text)
        self._starts: list[int] = []
        self._ends: list[int] = []

    def _locate(self, upto: int) -> None:
        """Find the spans of words ``[0, upto)``."""
        missing = upto - len(self._starts)
        if missing > 0:
            for match in islice(self._matches, missing):
                start, end = match.span()
                self._starts.append(start)
                self._ends.append(end)

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        self._locate(end)
        return self._starts[start], self._ends[end - 1]

    def edges(self, start: int, end: int) -> tuple[int, int, int, int]:
        char_start, char_end = self.char_span(start, end)
        return char_start, char_end, self._to_byte(char_start), self._to_byte(char_end)

    def bounds(self, upto: int) -> tuple[list[int], list[int]]:
        """The start and end offsets of (at least) words ``[0, upto)``: the lists
        this segmentation keeps, shared, so read them only."""
        self._locate(upto)
        return self._starts, self._ends


class Tokens:
    """Tokenizer tokens, with byte offsets taken from each token's own place in the text.

    For byte-level BPE (every encoding but WordPiece, after qwen2's NFC) tokens tile
    the text, and a token boundary can fall inside a multi-byte character (a 4-byte
    emoji may be split over two tokens). The rule: **byte offsets are exact** (the
    token bytes); **char offsets are widened to whole characters**: ``char_start``
    is the character holding the first byte and ``char_end`` the boundary just after
    the last byte, so ``text[char_start:char_end]`` contains every byte of the
    window. Where an encoding normalizes the text first, a token's bytes are those
    of the characters it came from; WordPiece tokens hold no whitespace, so a window
    starts at its first token's first character and ends after its last token's.

    >>> t = Tokens("hello world", encoding="o200k_base", backend="tiktoken")
    >>> t.count, t.edges(1, 2)
    (2, (5, 11, 5, 11))
    """

    def __init__(self, text: str, *, encoding: str, backend: Backend | None = None) -> None:
        self.ids, self._starts, self._ends = _encode(text, encoding, backend)
        self.count = len(self.ids)
        self._to_char = _ByteToChar(text.encode("utf-8"))

    def byte_start(self, unit: int) -> int:
        return self._starts[unit]

    def byte_starts(self) -> list[int]:
        """Every token's first byte (a plain list, so ``bisect`` runs in C)."""
        return self._starts

    def byte_ends(self) -> list[int]:
        """Every token's end byte: the list this segmentation keeps, shared, so read it only."""
        return self._ends

    def char_span(self, start: int, end: int) -> tuple[int, int]:
        return self._to_char.floor(self._starts[start]), self._to_char.ceil(self._ends[end - 1])

    def edges(self, start: int, end: int) -> tuple[int, int, int, int]:
        byte_start, byte_end = self._starts[start], self._ends[end - 1]
        return self._to_char.floor(byte_start), self._to_char.ceil(byte_end), byte_start, byte_end

    def char_bounds(self, firsts: list[int], lasts: list[int]) -> tuple[list[int], list[int]]:
        """For sorted token indices: where each token of ``firsts`` begins and each of
        ``lasts`` ends, in code points widened to whole characters (as :meth:`char_span`).

        >>> t = Tokens("a 🦜🦜 b", encoding="o200k_base", backend="tiktoken")
        >>> [t.char_span(k, k + 1) for k in range(4)]  # tokens 2 and 3 share the first 🦜
        [(0, 1), (1, 3), (2, 3), (2, 3)]
        >>> t.char_bounds([0, 2, 3], [1, 2])
        ([0, 2, 2], [3, 3])
        """
        starts, ends = self._starts, self._ends
        if self._to_char.ascii:
            return [starts[k] for k in firsts], [ends[k] for k in lasts]
        data = self._to_char.data
        floor, ceil = _ByteToChar(data), _ByteToChar(data)  # each walks forward only
        return [floor.floor(starts[k]) for k in firsts], [ceil.ceil(ends[k]) for k in lasts]

    def breaks(self, start: int, end: int, *, char_start: int) -> list[int]:
        """Code-point offsets, relative to ``char_start``, where tokens ``[start, end)`` begin.

        A token that begins inside a character breaks at that character's start;
        repeated offsets are dropped.
        """
        if self._to_char.ascii:  # a byte per character; offsets never decrease
            out = [s - char_start for s in self._starts[start:end]]
            return [o for i, o in enumerate(out) if i == 0 or o != out[i - 1]]
        out = []
        for unit in range(start, end):
            offset = self._to_char.floor(self._starts[unit]) - char_start
            if not out or out[-1] != offset:
                out.append(offset)
        return out


#: The text each encoding (and backend) encoded last, with its spans: the next text
#: is usually that one after a keystroke, and is then re-encoded only around the edit.
_last_encoded: dict[tuple[str, Backend | None], tuple[str, Spans]] = {}


@per_text
def _encode(text: str, encoding: str, backend: Backend | None) -> Spans:
    """Token ids and each token's byte start and end, kept per text. A text that
    differs from the last one encoded in one stretch (typing, a pasted sentence) is
    re-encoded only between the safe places around the change
    (:func:`~pyapp.core.tokenizers.local.splice`): exact, and a keystroke in a
    megabyte costs a few tokens instead of the whole text."""
    encode_spans = get_tokenizer(encoding, backend=backend).encode_spans
    previous = _last_encoded.get((encoding, backend))
    spans = None
    if previous is not None:
        old, old_spans = previous
        spans = splice(old, text, old_spans, encoding=encoding, encode_spans=encode_spans)
    if spans is None:
        spans = encode_spans(text)
    _last_encoded[(encoding, backend)] = (text, spans)
    return spans
