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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Final

from .cache import per_text

__all__ = [
    "B",
    "K1",
    "ChunkIndex",
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
    (lower-cased). Terms never overlap, so both offset lists increase."""

    text: str
    starts: list[int]
    ends: list[int]
    terms: list[str]


@per_text
def term_index(text: str) -> TermIndex:
    """The :class:`TermIndex` of ``text``, kept per text (one regex split, offsets by
    summing the piece lengths)."""
    pieces = _pattern(text).split(text)
    offsets = list(accumulate(map(len, pieces), initial=0))
    return TermIndex(text, offsets[1::2], offsets[2::2], [t.lower() for t in pieces[1::2]])


def _weight(idf: float, tf: int, norm: float) -> float:
    """One term's share of a chunk's score; ``norm = k1 * (1 - b + b * |d| / avgdl)``."""
    return idf * (tf * (K1 + 1)) / (tf + norm)


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
    """BM25 over chunks given as code-point spans of one text, for a fixed set of
    question terms (``vocabulary``): only those terms' frequencies are kept.

    A chunk's terms are the text's terms inside its span, where a term cut by either
    edge of the span is the cut part (lower-cased on its own). The text's terms are
    found once (:func:`term_index`); each chunk then costs one ``Counter`` over a
    slice of them, so the work grows with the processed text, not with the number
    of questions.
    """

    def __init__(
        self, index: TermIndex, spans: Sequence[tuple[int, int]], vocabulary: set[str]
    ) -> None:
        text, starts, ends, all_terms = index.text, index.starts, index.ends, index.terms
        lengths: list[int] = []
        postings: dict[str, list[tuple[int, int]]] = {}
        for k, (cs, ce) in enumerate(spans):
            lo = bisect_right(ends, cs)  # first term ending after the chunk starts
            hi = bisect_left(starts, ce, lo)  # first term starting at or after its end
            lengths.append(hi - lo)
            if hi == lo:
                continue
            counts = Counter(all_terms[lo:hi])
            if starts[lo] < cs or ends[hi - 1] > ce:  # a term cut by an edge
                for i in {lo, hi - 1}:
                    cut = text[max(starts[i], cs) : min(ends[i], ce)].lower()
                    if cut != all_terms[i]:
                        counts[all_terms[i]] -= 1
                        counts[cut] += 1
            for term in vocabulary & counts.keys():
                tf = counts[term]
                if tf > 0:
                    postings.setdefault(term, []).append((k, tf))
        self.chunks = len(lengths)
        self.lengths = lengths
        norms = _norms(lengths)
        self._weights: dict[str, list[tuple[int, float]]] = {}
        for term, posting in postings.items():
            idf = _idf(self.chunks, len(posting))
            self._weights[term] = [(k, _weight(idf, tf, norms[k])) for k, tf in posting]

    def scores(self, query: Sequence[str]) -> list[float]:
        """Every chunk's score for ``query`` (its terms, from :func:`terms`)."""
        scores = [0.0] * self.chunks
        for term in query:
            for k, weight in self._weights.get(term, ()):
                scores[k] += weight
        return scores


def top(scores: Sequence[float], k: int) -> list[int]:
    """The first ``k`` retrieved chunks, best first (score > 0 only; ties by index).

    >>> top([0.5, 0.0, 2.0, 0.5], 3)
    [2, 0, 3]
    """
    matched = [i for i, s in enumerate(scores) if s > 0]
    return heapq.nsmallest(k, matched, key=lambda i: (-scores[i], i))


def rank_of(scores: Sequence[float], first: int, last: int) -> int | None:
    """The rank (1-based) of the best-ranked chunk among ``first .. last``, or ``None``
    when none of them is retrieved.

    >>> rank_of([0.5, 0.0, 2.0, 0.5], 3, 3), rank_of([0.5, 0.0, 2.0, 0.5], 1, 1)
    (3, None)
    """
    best = max(range(first, last + 1), key=lambda i: (scores[i], -i))
    score = scores[best]
    if score <= 0:
        return None
    higher = sum(1 for s in scores if s > score)
    return 1 + higher + sum(1 for s in scores[:best] if s == score)
