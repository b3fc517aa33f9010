"""Unicode NFD and NFC as the Rust ``tokenizers`` normalizers do them, from the table.

Decompositions, combining classes and compositions all come from the generated
table (``scripts/make_unicode_tables.py`` asks the reference normalizers), never
from this Python's ``unicodedata``, whose Unicode version depends on where the
engine runs. The algorithms are the standard ones (UAX #15): decompose, order each
run of marks by combining class (a stable sort), then compose each mark with the
last starter unless it is blocked.

:func:`nfc_regions` keeps track of where the text changed: Qwen2 encodes the NFC
of a text, and its tokens must map back to offsets in the text as typed.

>>> normalizer().nfc("e\\u0301") == "\\u00e9", normalizer().nfd("\\u00e9") == "e\\u0301"
(True, True)
>>> nfc_regions("cafe\\u0301 ok")
('café ok', [(3, 5, 3, 4)])
"""

from __future__ import annotations

import functools
import re
from typing import Final

from ._tables import code_ranges, combining_class, table

__all__ = ["Normalizer", "nfc_regions", "normalizer"]

_S_BASE, _L_BASE, _V_BASE, _T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_L_COUNT, _V_COUNT, _T_COUNT = 19, 21, 28
_N_COUNT: Final = _V_COUNT * _T_COUNT
#: The first code point past the Basic Multilingual Plane.
_ASTRAL: Final = 0x10000
_S_COUNT: Final = _L_COUNT * _N_COUNT


def _char_class(ranges: list[list[int]]) -> str:
    """A regex character class of ``[start, end)`` ranges, written with escapes."""
    parts = []
    for start, end in ranges:
        if end - start == 1:
            parts.append(f"\\U{start:08x}")
        else:
            parts.append(f"\\U{start:08x}-\\U{end - 1:08x}")
    return "[" + "".join(parts) + "]"


class Normalizer:
    def __init__(self) -> None:
        data = table()["normalization"]
        self._decompositions: dict[int, str] = {
            int(code, 16): "".join(chr(int(x, 16)) for x in parts.split())
            for code, parts in data["decompositions"].items()
        }
        self._compositions: dict[tuple[int, int], int] = {
            (first, second): composite for first, second, composite in data["compositions"]
        }
        nonzero: set[int] = set()
        for (start, value), (end, _) in zip(
            data["combining_classes"], data["combining_classes"][1:] + [[0x110000, 0]], strict=True
        ):
            if value:
                nonzero.update(range(start, end))
        self._nonzero = nonzero
        self._marks = re.compile(_char_class(code_ranges(nonzero)) + "{2,}")
        #: Each character NFD changes, found in C: a text is mostly characters it keeps.
        self._decomposable = re.compile(_char_class(code_ranges(self.decomposable())))
        self._nfd_table: dict[str, str] = {}
        seconds = {second for _, second in self._compositions}
        seconds.update(range(_V_BASE, _V_BASE + _V_COUNT))
        seconds.update(range(_T_BASE + 1, _T_BASE + _T_COUNT))
        changed = {
            code for code in self._decompositions if self._compose(self.nfd(chr(code))) != chr(code)
        }  # singletons and excluded composites (composed whole: the runs are not known yet)
        #: Code points that may change under NFC or join the character before them.
        unstable = nonzero | seconds | changed
        self._unstable = re.compile(_char_class(code_ranges(unstable)) + "+")
        #: A run of them after the character before it (a starter that NFC keeps, or
        #: none): what NFC composes, each run on its own (see :meth:`nfc`).
        self._composable = re.compile(".?" + self._unstable.pattern, re.DOTALL)
        self._unstable_chars = frozenset(map(chr, unstable))
        #: Those below U+10000 or any character past U+FFFF: ``re`` tests a class of
        #: such ranges with one bitmap lookup (the unstable ranges past U+FFFF it
        #: would test one by one, some twenty times slower).
        self._unstable_or_astral = re.compile(
            _char_class([*code_ranges({c for c in unstable if c < _ASTRAL}), [_ASTRAL, 0x110000]])
        )

    def decomposable(self) -> set[int]:
        """Every code point NFD changes."""
        return set(self._decompositions) | set(range(_S_BASE, _S_BASE + _S_COUNT))

    def marks(self) -> set[int]:
        """Every code point whose combining class is not 0."""
        return set(self._nonzero)

    # ---- decomposition
    def decomposition(self, code: int) -> str | None:
        """The full canonical decomposition of one code point, or ``None``."""
        s = code - _S_BASE
        if 0 <= s < _S_COUNT:
            lead, vowel = _L_BASE + s // _N_COUNT, _V_BASE + (s % _N_COUNT) // _T_COUNT
            t = s % _T_COUNT
            return chr(lead) + chr(vowel) + (chr(_T_BASE + t) if t else "")
        return self._decompositions.get(code)

    def nfd(self, text: str) -> str:
        """The canonical decomposition of ``text``, marks in canonical order."""
        decomposed = self._decomposable.sub(self._decompose, text)
        return self._marks.sub(self._order, decomposed)

    def _decompose(self, match: re.Match[str]) -> str:
        char = match.group()
        got = self._nfd_table.get(char)
        if got is None:
            got = self._nfd_table[char] = self.decomposition(ord(char)) or char
        return got

    @staticmethod
    def _order(match: re.Match[str]) -> str:
        return "".join(sorted(match.group(), key=lambda c: combining_class(ord(c))))

    # ---- composition
    def _compose_pair(self, first: int, second: int) -> int | None:
        l_index, v_index = first - _L_BASE, second - _V_BASE
        if 0 <= l_index < _L_COUNT and 0 <= v_index < _V_COUNT:
            return _S_BASE + (l_index * _V_COUNT + v_index) * _T_COUNT
        s_index, t_index = first - _S_BASE, second - _T_BASE
        if 0 <= s_index < _S_COUNT and s_index % _T_COUNT == 0 and 0 < t_index < _T_COUNT:
            return first + t_index
        return self._compositions.get((first, second))

    def _compose(self, decomposed: str) -> str:
        out: list[int] = []
        starter = -1  # index in out of the last starter
        last_class = -1  # class of the last character kept; -1 before any
        for char in decomposed:
            code = ord(char)
            klass = combining_class(code) if code in self._nonzero else 0
            if starter >= 0 and (last_class < klass or last_class == 0 and len(out) - 1 == starter):
                composite = self._compose_pair(out[starter], code)
                if composite is not None:
                    out[starter] = composite
                    continue
            if klass == 0:
                starter = len(out)
            last_class = klass
            out.append(code)
        return "".join(map(chr, out))

    def nfc(self, text: str) -> str:
        """The canonical composition of ``text``. Only runs of characters that may
        change or join the one before them are composed, each with the character
        before it: any other character is a starter that NFC keeps and that joins
        nothing before it, so no composition reaches back past it."""
        return self._composable.sub(self._compose_match, self.nfd(text))

    def _compose_match(self, match: re.Match[str]) -> str:
        return self._compose(match.group())

    def unstable_runs(self, text: str) -> list[tuple[int, int]]:
        """Spans ``[a, b)`` outside which NFC leaves ``text`` as it is, and which it
        normalizes independently: a starter followed by characters that may change or
        join it."""
        if text.isascii():  # no ASCII character changes or joins another under NFC
            return []
        # Most text: one scan finds none; after a character past U+FFFF, the set of
        # the text's characters says.
        found = self._unstable_or_astral.search(text)
        if found is None:
            return []
        if found.group() >= chr(_ASTRAL) and self._unstable_chars.isdisjoint(set(text)):
            return []
        return [
            (start - 1 if start else start, end)
            for start, end in (match.span() for match in self._unstable.finditer(text))
        ]


@functools.cache
def normalizer() -> Normalizer:
    return Normalizer()


def nfc_regions(text: str) -> tuple[str, list[tuple[int, int, int, int]]]:
    """``(NFC of text, changed regions)``; each region is ``(start, end, nfc_start,
    nfc_end)`` in code points of the text and of its NFC."""
    norm = normalizer()
    runs = norm.unstable_runs(text)
    if not runs:
        return text, []
    parts: list[str] = []
    regions: list[tuple[int, int, int, int]] = []
    at = 0
    out_length = 0
    for start, end in runs:
        parts.append(text[at:start])
        out_length += start - at
        piece = text[start:end]
        done = norm.nfc(piece)
        if done != piece:
            regions.append((start, end, out_length, out_length + len(done)))
        parts.append(done)
        out_length += len(done)
        at = end
    parts.append(text[at:])
    return "".join(parts), regions
