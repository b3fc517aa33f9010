"""BERT uncased WordPiece (``bert-base-uncased``) in pure Python, as the Rust
``tokenizers`` library encodes it, with each token's place in the text as typed.

The pipeline is ``BertNormalizer`` (clean text, pad Chinese characters, strip accents,
lowercase), ``BertPreTokenizer`` (split on whitespace, isolate punctuation) and the
WordPiece model (greedy longest match, ``##`` continuations, ``[UNK]`` for a word it
cannot cover or longer than 100 characters). Three details make it exact:

1. Only Cc, Cf, Co and Cs are control characters (removed); unassigned characters
   are kept and become ``[UNK]``.
2. Every character class comes from the generated table (the reference asked code
   point by code point), never from this Python's ``unicodedata``.
3. Lowercasing is per character, with no final-sigma rule.

Special-token text such as ``[CLS]`` is plain text here: ``[``, ``cls``, ``]``.

Each character of the normalized text comes from one character of the original
(accents stripped and case folded in place, a Chinese character padded with spaces),
so a token's span in the original runs from the character its first letter came
from to the one its last came from. (When the marks of several characters are
reordered together, rare outside musical notation, each of them spans the whole
reordered run.)

>>> wp = WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, ",": 4, "é": 5, "e": 6})
>>> wp.encode_chars("UnAffable, É x")
([1, 2, 3, 4, 6, 0], [0, 2, 5, 9, 11, 13], [2, 5, 9, 10, 12, 14])
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, chain, repeat
from typing import Final

from ._normalize import normalizer
from ._tables import RangeSet, code_ranges, combining_class, table

__all__ = ["MAX_WORD_CHARS", "WordPiece", "read_vocab"]

#: ``max_input_chars_per_word`` of bert-base-uncased: a longer word is one ``[UNK]``.
MAX_WORD_CHARS: Final = 100
UNK: Final = "[UNK]"
PREFIX: Final = "##"

_MEMO_MAX: Final = 1 << 17
_CODE_POINTS: Final = 0x110000
#: A code point's kind in ``WordPiece._kind`` (0: its own normalized text).
_SPECIAL: Final = 1
_PLAIN_PAD: Final = 2
#: The kinds a character is learnt for, in a text translated by ``WordPiece._kind``.
_LOOKED_AT: Final = re.compile(f"[{chr(_SPECIAL)}{chr(_PLAIN_PAD)}]")


def _paint(table_: bytearray, ranges: list[list[int]], value: int) -> None:
    """Sets ``value`` for every code point of ``ranges`` (``[start, end)`` pairs)."""
    for start, end in ranges:
        table_[start:end] = bytes([value]) * (end - start)


def read_vocab(data: bytes) -> dict[str, int]:
    """``vocab.txt`` as ``{token: id}``: one token a line, the id is the line number."""
    return {line.rstrip("\r"): index for index, line in enumerate(data.decode("utf-8").split("\n"))
            if line or index == 0}  # fmt: skip


class _Origin:
    """Where each normalized character comes from in the original: itself (neither
    list given), the original character ``bisect(cum, p) - 1`` (``cum[i]`` is where
    character ``i``'s normalized text begins), or ``[start[p], end[p])``."""

    def __init__(
        self,
        *,
        cum: list[int] | None = None,
        start: list[int] | None = None,
        end: list[int] | None = None,
    ) -> None:
        self._cum, self._start, self._end = cum, start, end

    def starts(self, at: list[int]) -> list[int]:
        """Original starts of the normalized characters at ``at``."""
        if self._cum is not None:
            cum = self._cum
            return [bisect_right(cum, p) - 1 for p in at]
        if self._start is not None:
            start = self._start
            return [start[p] for p in at]
        return at

    def ends(self, after: list[int]) -> list[int]:
        """Original ends of the normalized characters just before ``after``."""
        if self._cum is not None:
            cum = self._cum
            return [bisect_right(cum, p - 1) for p in after]
        if self._end is not None:
            end = self._end
            return [end[p - 1] for p in after]
        return after


class WordPiece:
    def __init__(self, vocab: dict[str, int]) -> None:
        self._vocab = vocab
        self._unk = vocab[UNK]
        bert = table()["bert"]
        self._drop, self._space = RangeSet(bert["drop"]), RangeSet(bert["space"])
        self._pad, self._strip = RangeSet(bert["pad"]), RangeSet(bert["strip"])
        self._lower = {
            int(code, 16): "".join(chr(int(x, 16)) for x in parts.split())
            for code, parts in bert["lower"].items()
        }
        self._norm = normalizer()
        # Code points any stage changes (or that are marks): every other one is its
        # own normalized text.
        special: set[int] = set()
        for key in ("drop", "space", "strip"):
            for start, end in bert[key]:
                special.update(range(start, end))
        special.update(self._lower)
        special.update(self._norm.decomposable())
        special.update(self._norm.marks())
        pad: set[int] = set()
        for start, end in bert["pad"]:
            pad.update(range(start, end))
        # A padded character no other stage changes, nor a mark: its text is itself
        # between two spaces (which no stage changes either), with no surviving mark.
        plain_pad = pad - special if self._alone_of(ord(" ")) == " " else set()
        # The same sets as a table indexed by code point (one byte each, the whole of
        # Unicode; _PLAIN_PAD, _SPECIAL or 0): a text of many distinct characters
        # learns each with one index, not a bisection in a method call.
        kinds = bytearray(_CODE_POINTS)
        _paint(kinds, code_ranges(special | pad), _SPECIAL)
        _paint(kinds, code_ranges(plain_pad), _PLAIN_PAD)
        self._kind = bytes(kinds)
        # The pre-tokenizer's class of every code point, for str.translate: w
        # (whitespace, over punctuation), p (punctuation), o (other).
        word_codes = bytearray(b"o" * _CODE_POINTS)
        _paint(word_codes, bert["punctuation"], ord("p"))
        _paint(word_codes, bert["whitespace"], ord("w"))
        self._word_table = bytes(word_codes)
        # The characters learnt; of those, the ones normalized to another text (their
        # code -> it, for str.translate), the length of each normalized to other than
        # one character, and those bringing a mark that survives stripping (then marks
        # of neighbours may reorder around it). Any other character is its own text.
        self._seen: set[str] = set()
        self._changed: dict[int, str] = {}
        self._length: dict[str, int] = {}
        self._survivor_chars: set[str] = set()
        self._words = re.compile("o+|p")
        self._memo: dict[str, list[tuple[int, int]]] = {}

    # ---- normalization
    def _stage1(self, code: int) -> str:
        char = chr(code)
        if code in self._drop:
            return ""
        if code in self._space:
            return " "
        if code in self._pad:
            return f" {char} "
        return char

    def _stage3(self, char: str) -> str:
        code = ord(char)
        if code in self._strip:
            return ""
        return self._lower.get(code, char)

    def _decomposed(self, code: int) -> str:
        """Stage 1, then NFD, of one character alone (each decomposition is already in
        canonical order)."""
        decompose = self._norm.decomposition
        return "".join(decompose(ord(c)) or c for c in self._stage1(code))

    def _alone_of(self, code: int) -> str:
        """The normalized text of one character alone, stage by stage."""
        return "".join(self._stage3(d) for d in self._decomposed(code))

    def _learn(self, code: int) -> None:
        """Learns a character some stage changes (or a mark): its normalized text, and whether
        it brings a surviving mark."""
        char = chr(code)
        decomposed = self._decomposed(code)
        done = [self._stage3(d) for d in decomposed]
        normalized = "".join(done)
        if normalized != char:
            self._changed[code] = normalized
        if len(normalized) != 1:
            self._length[char] = len(normalized)
        if any(part and combining_class(ord(d)) for d, part in zip(decomposed, done, strict=True)):
            self._survivor_chars.add(char)

    def normalize(self, text: str) -> tuple[str, _Origin]:
        """``(normalized text, where each of its characters comes from)``."""
        chars = set(text)
        new = chars - self._seen
        if new:  # only characters some stage changes (or marks) are looked at one by one
            joined = "".join(new)
            for match in _LOOKED_AT.finditer(joined.translate(self._kind)):
                char = joined[match.start()]
                code = ord(char)
                if self._kind[code] == _PLAIN_PAD:
                    self._changed[code] = f" {char} "
                    self._length[char] = 3
                else:
                    self._learn(code)
            self._seen |= new
        if not self._survivor_chars.isdisjoint(chars):
            return self._normalize_around_survivors(text, chars)
        normalized = text.translate(self._changed)
        if self._length.keys().isdisjoint(chars):
            return normalized, _Origin()
        counts = map(self._length.get, text, repeat(1))
        return normalized, _Origin(cum=list(accumulate(counts, initial=0)))

    def _breaks_runs(self, code: int) -> bool:
        """Whether this character (after stage 1 and NFD) begins with a starter: marks
        are never reordered across it."""
        decomposed = self._decomposed(code)
        return bool(decomposed) and not combining_class(ord(decomposed[0]))

    def _normalize_around_survivors(self, text: str, chars: set[str]) -> tuple[str, _Origin]:
        """Character by character (each learnt, its text alone), except the runs of
        marks around a surviving mark, which are normalized stage by stage
        (:meth:`_normalize_exactly`)."""
        survivors = sorted(self._survivor_chars & chars)
        windows: list[tuple[int, int]] = []
        for match in re.finditer("[" + "".join(map(re.escape, survivors)) + "]", text):
            index = match.start()
            if windows and index < windows[-1][1]:
                continue
            lo = index
            while lo > 0 and not self._breaks_runs(ord(text[lo])):
                lo -= 1
            hi = index + 1
            while hi < len(text) and not self._breaks_runs(ord(text[hi])):
                hi += 1
            if windows and lo <= windows[-1][1]:
                lo = windows[-1][0]
                windows.pop()
            windows.append((lo, hi))
        parts: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        at = 0
        for lo, hi in [*windows, (len(text), len(text))]:
            if at < lo:  # each character's text alone, as many origins as it has characters
                segment = text[at:lo]
                parts.append(segment.translate(self._changed))
                counts = list(map(self._length.get, segment, repeat(1)))
                starts.extend(chain.from_iterable(map(repeat, range(at, lo), counts)))
                ends.extend(chain.from_iterable(map(repeat, range(at + 1, lo + 1), counts)))
            if lo < hi:
                done, origin = self._normalize_exactly(text[lo:hi])
                parts.append(done)
                starts.extend(lo + s for s in origin.starts(list(range(len(done)))))
                ends.extend(lo + e for e in origin.ends(list(range(1, len(done) + 1))))
            at = hi
        return "".join(parts), _Origin(start=starts, end=ends)

    def _normalize_exactly(self, text: str) -> tuple[str, _Origin]:
        """Stage by stage, reordering marks across characters as NFD does."""
        chars: list[str] = []
        owner: list[int] = []
        for index, char in enumerate(text):
            for d in self._decomposed(ord(char)):
                chars.append(d)
                owner.append(index)
        start, end = owner[:], [o + 1 for o in owner]
        i = 0
        while i < len(chars):
            if not combining_class(ord(chars[i])):
                i += 1
                continue
            j = i
            while j < len(chars) and combining_class(ord(chars[j])):
                j += 1
            order = sorted(range(i, j), key=lambda k: combining_class(ord(chars[k])))
            if order != list(range(i, j)):
                chars[i:j] = [chars[k] for k in order]
                low, high = min(owner[i:j]), max(owner[i:j]) + 1
                start[i:j] = [low] * (j - i)
                end[i:j] = [high] * (j - i)
            i = j
        out: list[str] = []
        out_start: list[int] = []
        out_end: list[int] = []
        for d, s, e in zip(chars, start, end, strict=True):
            done = self._stage3(d)
            out.append(done)
            out_start.extend([s] * len(done))
            out_end.extend([e] * len(done))
        return "".join(out), _Origin(start=out_start, end=out_end)

    # ---- pre-tokenizer and model
    def _word_codes(self, normalized: str) -> str:
        """``normalized`` with each character replaced by its class: w, p or o."""
        return normalized.translate(self._word_table)

    def _pieces(self, word: str) -> list[tuple[int, int]]:
        """``[(id, characters), ...]`` of one word."""
        if len(word) > MAX_WORD_CHARS:
            return [(self._unk, len(word))]
        vocab = self._vocab
        out: list[tuple[int, int]] = []
        start = 0
        n = len(word)
        while start < n:
            end = n
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else PREFIX + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return [(self._unk, n)]
            out.append((found, end - start))
            start = end
        return out

    def encode_chars(self, text: str) -> tuple[list[int], list[int], list[int]]:
        """Token ids and each token's ``[start, end)`` in code points of ``text``."""
        normalized, origin = self.normalize(text)
        memo = self._memo
        ids: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        for match in self._words.finditer(self._word_codes(normalized)):
            at, stop = match.span()
            word = normalized[at:stop]
            pieces = memo.get(word)
            if pieces is None:
                pieces = self._pieces(word)
                if len(memo) < _MEMO_MAX:
                    memo[word] = pieces
            for token, length in pieces:
                ids.append(token)
                starts.append(at)
                at += length
                ends.append(at)
        return ids, origin.starts(starts), origin.ends(ends)

    def encode(self, text: str) -> list[int]:
        return self.encode_chars(text)[0]
