"""Okapi BM25 over the chunks of one setting: would a plain lexical retriever bring
the evidence back?

Written in pure Python on purpose: the engine runs in Pyodide, in the page's
worker, where the numpy-based BM25 libraries (``rank_bm25``, ``bm25s``) cannot be
installed from the site's own wheels, and a few lists and dicts do the job.

It is a lexical baseline, not anyone's embedding retriever: it shows whether a
chunk boundary keeps the evidence retrievable at all, not how good a retriever is.

**Terms** (:func:`terms`): the runs of word characters (Python's Unicode ``\\w``:
letters, digits, underscore) of the text, each lower-cased with ``str.lower``;
everything else separates terms. A Chinese or Japanese character (CJK ideographs,
hiragana, katakana) is a term on its own, since those scripts put no spaces
between words. A chunk's terms are the terms of its own text, so a word its
window cuts in two is a shorter term there (``evid`` is not ``evidence``).

**Score** of chunk ``d`` for a question ``q`` (``k1 = 1.2``, ``b = 0.75``)::

    sum over the question's terms t (repeats count):
        idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

with ``N`` chunks, ``n(t)`` the chunks holding ``t``, ``|d|`` the chunk's terms and
``avgdl`` their mean. This ``idf`` (Lucene's) is never negative; the classic
``ln((N - n + 0.5) / (n + 0.5))`` goes negative for a term in more than half of a
handful of chunks, which would rank a chunk lower for holding the question's words.

**Ranks.** A chunk sharing no term with the question scores 0 and is not
retrieved at all (no rank). The others are ranked by score, highest first; equal
scores by chunk index. Every question's scores are summed in the order of its
terms, so the same input gives the same ranks natively and in the browser.

>>> docs = [terms("The cat sat."), terms("The dog sat on the cat."), terms("A bird.")]
>>> docs[1]
['the', 'dog', 'sat', 'on', 'the', 'cat']
>>> scores = bm25_scores(docs, terms("dog"))
>>> [round(s, 4) for s in scores]
[0.0, 0.7782, 0.0]
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, and_, eq, gt, itemgetter, lt, mul, neg, not_, sub, truediv
from typing import Final

from .cache import per_text

__all__ = [
    "B",
    "K1",
    "ChunkIndex",
    "Ranking",
    "TermIndex",
    "bm25_scores",
    "rank_of",
    "term_index",
    "terms",
    "top",
]

K1: Final = 1.2
B: Final = 0.75

_CJK: Final = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B to G
)
#: One term: a run of word characters that are not CJK, or one CJK character. The
#: capturing group makes ``split`` return separators and terms alternately.
_TERM: Final = re.compile(rf"((?:(?![{_CJK}])\w)+|[{_CJK}])")
#: The fast path for texts without CJK (most): plain word runs.
_WORD: Final = re.compile(r"(\w+)")
_HAS_CJK: Final = re.compile(rf"[{_CJK}]")


def _pattern(text: str) -> re.Pattern[str]:
    return _TERM if _HAS_CJK.search(text) else _WORD


def terms(text: str) -> list[str]:
    """The lower-cased terms of ``text``, in order.

    >>> terms("Überall: DON'T stop_here 3.14 日本語です")
    ['überall', 'don', 't', 'stop_here', '3', '14', '日', '本', '語', 'で', 'す']
    """
    return [t.lower() for t in _pattern(text).split(text)[1::2]]


@dataclass(frozen=True, slots=True)
class TermIndex:
    """Every term of a text: ``starts[i]``, ``ends[i]`` (code points) and ``terms[i]``
    (lower-cased). Terms never overlap, so both offset lists increase. ``places``
    lists each term's indices ``i``, in order."""

    text: str
    starts: list[int]
    ends: list[int]
    terms: list[str]
    places: dict[str, list[int]]


@per_text
def term_index(text: str) -> TermIndex:
    """The :class:`TermIndex` of ``text``, kept per text (one regex split, offsets by
    summing the piece lengths)."""
    pieces = _pattern(text).split(text)
    offsets = list(accumulate(map(len, pieces), initial=0))
    found = [t.lower() for t in pieces[1::2]]
    places: dict[str, list[int]] = {}
    for i, term in enumerate(found):
        places.setdefault(term, []).append(i)
    return TermIndex(text, offsets[1::2], offsets[2::2], found, places)


_K1_PLUS_1: Final = K1 + 1

#: :class:`ChunkIndex` keeps a question term's weights as a list over every chunk
#: (summed at C speed) when the term is in at least a quarter of the chunks, as long
#: as such lists hold at most this many numbers in all; other terms keep
#: ``(chunk, weight)`` pairs.
DENSE_BUDGET: Final = 1_000_000
#: A question is scored chunk by chunk (only the chunks holding one of its terms)
#: when those pairs number at most the chunks over this; else over every chunk at once.
SPARSE_EVERY: Final = 4
#: A question scored over every chunk reads every score about this many times more
#: to rank them (the k-th best, the chunks above it and tied with it, and each of two
#: ranks' count of better chunks): the measured cost of those passes, in units of one
#: term's weights summed over every chunk.
RANK_PASSES: Final = 6
#: A question scored from its terms' chunks alone costs about this many steps per
#: (term, chunk) pair: merged into a dict of scores, then ranked from it, in Python,
#: where a step over every chunk is a C loop's (measured at 1 MB, 100,000 chunks).
SPARSE_STEPS: Final = 8


def _weight(idf: float, tf: int, norm: float) -> float:
    """One term's share of a chunk's score; ``norm = k1 * (1 - b + b * |d| / avgdl)``."""
    return idf * (tf * _K1_PLUS_1) / (tf + norm)


def _weights(idf: float, tfs: Sequence[int], norms: Sequence[float]) -> list[float]:
    """:func:`_weight` of each ``(tf, norm)`` pair, at C speed (the same arithmetic:
    a chunk without the term gets exactly 0.0)."""
    shares = map(mul, repeat(idf), map(mul, tfs, repeat(_K1_PLUS_1)))
    return list(map(truediv, shares, map(add, tfs, norms)))


def _idf(chunks: int, holding: int) -> float:
    return math.log(1 + (chunks - holding + 0.5) / (holding + 0.5))


def _norms(lengths: Sequence[int]) -> list[float]:
    total = sum(lengths)
    if not total:
        return [K1 for _ in lengths]
    avgdl = total / len(lengths)
    return [K1 * (1 - B + B * length / avgdl) for length in lengths]


def bm25_scores(documents: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """The score of every document for ``query``, straight from the formula: the
    reference that :class:`ChunkIndex` must equal."""
    counts = [Counter(doc) for doc in documents]
    norms = _norms([len(doc) for doc in documents])
    scores = [0.0] * len(documents)
    for term in query:
        holding = sum(1 for c in counts if term in c)
        if not holding:
            continue
        idf = _idf(len(documents), holding)
        for k, c in enumerate(counts):
            tf = c.get(term, 0)
            if tf:
                scores[k] += _weight(idf, tf, norms[k])
    return scores


class ChunkIndex:
    """BM25 over chunks given as code-point spans of one text, in order (their starts,
    and their ends, never decrease), for a fixed set of question terms
    (``vocabulary``): only those terms' frequencies are counted.

    A chunk's terms are the text's terms inside its span, where a term cut by either
    edge of the span is the cut part (lower-cased on its own). The text's terms and
    where each occurs are found once per text (:func:`term_index`); a chunk's length
    is then two bisections. A question term's chunks come from where it occurs: the
    chunks holding an occurrence whole are a run (two bisections), counted at C
    speed; a term a chunk's edge cuts is that chunk's cut part instead, and the cut
    parts of every chunk are cut and looked up at C speed. No chunk text is built,
    and nothing is done once per chunk in Python.

    :meth:`ranking` answers one question from the chunks holding its terms only
    (an inverted index), unless they are most of the chunks.
    """

    def __init__(
        self, index: TermIndex, spans: Sequence[tuple[int, int]], vocabulary: set[str]
    ) -> None:
        text, starts, ends = index.text, index.starts, index.ends
        n = self.chunks = len(spans)
        firsts = list(map(itemgetter(0), spans))
        lasts = list(map(itemgetter(1), spans))
        # Chunk k meets terms [los[k], his[k]): the first ending after its start, up to
        # the first starting at or after its end. Both lists never decrease.
        los = list(map(bisect_right, repeat(ends, n), firsts))
        his = list(map(bisect_left, repeat(starts, n), lasts))
        self.lengths = lengths = list(map(sub, his, los))
        counts = {term: self._whole(index, term, firsts, lasts) for term in vocabulary}
        cut: dict[str, list[int]] = {}
        for k, part in self._cut_parts(text, starts, ends, firsts, lasts, los, his, vocabulary):
            cut.setdefault(part, []).append(k)
        for part, chunks in cut.items():
            counts[part].update(chunks)
        norms = _norms(lengths)
        self._sparse: dict[str, tuple[list[int], list[float]]] = {}
        self._dense: dict[str, list[float]] = {}
        budget = DENSE_BUDGET
        for term in sorted(vocabulary):
            tally = counts[term]
            if not tally:
                continue
            idf = _idf(n, len(tally))
            if 4 * len(tally) >= n and budget >= n:
                budget -= n
                self._dense[term] = _weights(idf, list(map(tally.get, range(n), repeat(0))), norms)
                continue
            chunks = sorted(tally)
            tfs = list(map(tally.__getitem__, chunks))
            self._sparse[term] = chunks, _weights(idf, tfs, list(map(norms.__getitem__, chunks)))

    @staticmethod
    def _whole(index: TermIndex, term: str, firsts: list[int], lasts: list[int]) -> Counter[int]:
        """Per chunk, how many occurrences of ``term`` it holds whole: occurrence ``i``
        is whole in the chunks from the first ending at or after its end to the last
        starting at or before its start."""
        places = index.places.get(term, [])
        first = map(bisect_left, repeat(lasts), map(index.ends.__getitem__, places))
        stop = map(bisect_right, repeat(firsts), map(index.starts.__getitem__, places))
        return Counter(chain.from_iterable(map(range, first, stop)))

    @staticmethod
    def _cut_parts(
        text: str,
        starts: list[int],
        ends: list[int],
        firsts: list[int],
        lasts: list[int],
        los: list[int],
        his: list[int],
        vocabulary: set[str],
    ) -> Iterator[tuple[int, str]]:
        """``(chunk, part)`` for every term an edge of a chunk cuts whose cut part
        (lower-cased) is a question term. A chunk's first term is cut when it starts
        before the chunk, its last when it ends after it; one term cut by both edges
        is one part."""
        n = len(firsts)
        head = [*starts, len(text) + 1]  # head[lo]: where the chunk's first term starts
        tail = [-1, *ends]  # tail[hi]: where its last term ends
        cut_first = list(map(lt, map(head.__getitem__, los), firsts))
        cut_last = list(map(gt, map(tail.__getitem__, his), lasts))
        # The first term's part: from the chunk's start to the term's end or the chunk's.
        stops = map(
            min, map(ends.__getitem__, compress(los, cut_first)), compress(lasts, cut_first)
        )
        cuts = map(slice, compress(firsts, cut_first), stops)
        parts = list(map(str.lower, map(text.__getitem__, cuts)))
        wanted = list(map(vocabulary.__contains__, parts))
        chunks = compress(compress(range(n), cut_first), wanted)
        yield from zip(chunks, compress(parts, wanted), strict=True)
        # The last term's part, unless it is the first term and counted just now.
        alone = map(eq, map(sub, his, repeat(1)), los)
        own = list(map(and_, cut_last, map(not_, map(and_, alone, cut_first))))
        begins = map(starts.__getitem__, map(sub, compress(his, own), repeat(1)))
        cuts = map(slice, begins, compress(lasts, own))
        parts = list(map(str.lower, map(text.__getitem__, cuts)))
        wanted = list(map(vocabulary.__contains__, parts))
        chunks = compress(compress(range(n), own), wanted)
        yield from zip(chunks, compress(parts, wanted), strict=True)

    def scores(self, query: Sequence[str]) -> list[float]:
        """Every chunk's score for ``query`` (its terms, from :func:`terms`). Each
        chunk's sum runs in the order of the query's terms, whichever form a term's
        weights are kept in (adding the 0.0 of an absent term changes nothing)."""
        scores = [0.0] * self.chunks
        run: list[list[float]] = []  # dense terms in a row: summed in one C pass
        zeros = True  # nothing added yet: a first dense run starts from its own weights

        def flush(scores: list[float]) -> list[float]:
            nonlocal zeros
            if run:
                # One pass of nested maps: each chunk's sum still in the query's order.
                # (Not sum(): since Python 3.12 it compensates, and Pyodide's is 3.14.)
                # 0.0 + w is w exactly, so the all-zero start is left out.
                summed: Iterable[float] = run[0] if zeros else map(add, scores, run[0])
                for dense in run[1:]:
                    summed = map(add, summed, dense)
                scores = list(summed)
                run.clear()
                zeros = False
            return scores

        for term in query:
            dense = self._dense.get(term)
            if dense is not None:
                run.append(dense)
                continue
            if term not in self._sparse:
                continue
            scores = flush(scores)
            zeros = False
            chunks, weights = self._sparse[term]
            # scores[k] += weight for each of the term's chunks, at C speed.
            added = map(add, map(scores.__getitem__, chunks), weights)
            deque(map(scores.__setitem__, chunks, added), maxlen=0)
        return flush(scores)

    def pairs(self, query: Sequence[str]) -> int:
        """The cost of :meth:`ranking` for ``query`` and of ranking its chunks, in
        (term, chunk) steps. Scored from the chunks holding its terms alone,
        :data:`SPARSE_STEPS` per such (term, chunk) pair; scored over every chunk, one
        per pair, every chunk once per term kept over every chunk, and every chunk
        :data:`RANK_PASSES` times more (the top ``k`` and two ranks read every score)."""
        dense, sparse = self._held(query)
        if not self._full(dense, sparse):
            return SPARSE_STEPS * sparse
        return sparse + (dense + RANK_PASSES) * self.chunks

    def _held(self, query: Sequence[str]) -> tuple[int, int]:
        """The query's terms kept over every chunk, and the chunks of the others."""
        dense = sum(map(self._dense.__contains__, query))
        sparse = sum(len(self._sparse[t][0]) for t in query if t in self._sparse)
        return dense, sparse

    def _full(self, dense: int, sparse: int) -> bool:
        """Whether a query is scored over every chunk: it has a term kept so, or its
        other terms' chunks are more than a :data:`SPARSE_EVERY` th of them."""
        return self.chunks > 0 and (dense > 0 or SPARSE_EVERY * sparse > self.chunks)

    def ranking(self, query: Sequence[str]) -> Ranking:
        """The chunks' ranking for ``query``: from the chunks holding its terms alone
        when they are few (:meth:`pairs`), else from every chunk's score. Either way
        the same scores, summed in the same order."""
        if self._full(*self._held(query)):
            return Ranking(full=self.scores(query))
        held = [self._sparse[term] for term in query if term in self._sparse]
        if not held:
            return Ranking(found={})
        # The first term's weights are its chunks' scores (0.0 + w is w), taken at C speed.
        found = dict(zip(*held[0], strict=True))
        get = found.get
        for chunks, weights in held[1:]:
            # found[k] = get(k, 0.0) + weight for each of the term's chunks (each once).
            found.update(zip(chunks, map(add, map(get, chunks, repeat(0.0)), weights), strict=True))
        return Ranking(found=found)


@dataclass(frozen=True, slots=True)
class Ranking:
    """The chunks' ranking for one question: every chunk's score (``full``), or the
    scores of the chunks holding one of its terms (``found``; any other scores 0).
    :meth:`top` and :meth:`rank_of` answer as :func:`top` and :func:`rank_of` do on
    the full list."""

    full: list[float] | None = None
    found: dict[int, float] | None = None

    def top(self, k: int) -> list[int]:
        if self.full is not None:
            return top(self.full, k)
        found = self.found or {}
        best = heapq.nlargest(k, zip(found.values(), map(neg, found), strict=True))
        return [-negative for score, negative in best if score > 0]

    def rank_of(self, first: int, last: int) -> int | None:
        if self.full is not None:
            return rank_of(self.full, first, last)
        found = self.found or {}
        if last - first < len(found):
            run = [(found[k], -k) for k in range(first, last + 1) if k in found]
        else:
            run = [(s, -k) for k, s in found.items() if first <= k <= last]
        if not run:
            return None
        score, negative = max(run)
        if score <= 0:
            return None
        tied = compress(found.keys(), map(score.__eq__, found.values()))
        higher = sum(map(score.__lt__, found.values()))
        return 1 + higher + sum(map((-negative).__gt__, tied))


def top(scores: Sequence[float], k: int) -> list[int]:
    """The first ``k`` retrieved chunks, best first (score > 0 only; ties by index).

    >>> top([0.5, 0.0, 2.0, 0.5], 3)
    [2, 0, 3]
    """
    if k <= 0 or not scores:
        return []
    # The k-th best score; every chunk better than it (fewer than k), best first (a
    # stable sort: ties by index); then the chunks scoring it, by index. All in C.
    least = max(heapq.nlargest(k, scores)[-1], math.ulp(0))  # a 0 is not retrieved
    better = compress(range(len(scores)), map(least.__lt__, scores))
    chosen = sorted(better, key=scores.__getitem__, reverse=True)
    tied = compress(range(len(scores)), map(least.__eq__, scores))
    return chosen + list(islice(tied, k - len(chosen)))


def rank_of(scores: Sequence[float], first: int, last: int) -> int | None:
    """The rank (1-based) of the best-ranked chunk among ``first .. last``, or ``None``
    when none of them is retrieved.

    >>> rank_of([0.5, 0.0, 2.0, 0.5], 3, 3), rank_of([0.5, 0.0, 2.0, 0.5], 1, 1)
    (3, None)
    """
    run = scores[first : last + 1]
    score = max(run)
    if score <= 0:
        return None
    best = first + run.index(score)
    return 1 + sum(map(score.__lt__, scores)) + scores[:best].count(score)
