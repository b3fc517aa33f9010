"""Chroma's token-level retrieval metrics over code-point ranges: recall, precision,
IoU and precision-Ω.

The definitions are those of Chroma's chunking evaluation ("Evaluating Chunking
Strategies for Retrieval", Smith and Troynikov, 2024), in
``chunking_evaluation/evaluation_framework/base_evaluation.py`` of
``brandonstarxel/chunking_evaluation`` (MIT): ``_scores_from_dataset_and_retrievals``
for recall, precision and IoU, ``_full_precision_score`` for precision-Ω, and
``run`` for the mean and the (population) standard deviation over the questions.
The code here is written anew; it follows those definitions exactly, including two
details of theirs:

* a chunk *touches* a passage when ``max(starts) <= min(ends)``, so a chunk that
  ends where the passage begins touches it (with an empty intersection); that counts
  for precision-Ω, whose denominator then holds that chunk;
* a question's evidence is every passage carrying that question (Chroma's
  ``references``), and its length is the **sum** of their lengths, even where two of
  them overlap.

For one question, with ``E`` its passages, ``R`` the retrieved chunks (the top ``k``)
and ``|·|`` a number of code points:

* ``covered`` = ``|(∪E) ∩ (∪R)|``, the evidence inside the retrieved text;
* ``unused`` = ``Σ_e |e \\ ∪R|``, each passage's part left unretrieved;
* recall = ``covered / Σ|e|``; precision = ``covered / Σ|r|`` (text retrieved twice
  through overlap counts twice); IoU = ``covered / (Σ|r| + unused)``;
* precision-Ω: the same with ``R`` every chunk touching the evidence (a perfect
  retriever), ``covered / |(∪R_touching) ∪ (evidence left uncovered)|``.

Where nothing is retrieved (BM25 shares no term with the question), precision is 0
(Chroma's code would divide by zero).

>>> chunks = [(0, 10), (5, 15), (10, 20), (15, 25)]
>>> s = question_scores([(8, 17)], [chunks[0], chunks[3]])
>>> s.recall, s.precision, s.iou
(Fraction(4, 9), Fraction(1, 5), Fraction(4, 25))
>>> precision_omega([(8, 17)], chunks)
Fraction(9, 25)
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import le

__all__ = [
    "QuestionScores",
    "RangeMetrics",
    "Stat",
    "precision_omega",
    "question_scores",
    "range_metrics",
    "union",
]

Span = tuple[int, int]


def union(spans: Sequence[Span]) -> list[Span]:
    """The spans merged where they overlap or meet, in order.

    >>> union([(5, 9), (0, 3), (3, 4), (8, 12)])
    [(0, 4), (5, 12)]
    """
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _measure(spans: Sequence[Span]) -> int:
    return sum(end - start for start, end in union(spans))


def _touches(a: Span, b: Span) -> bool:
    return max(a[0], b[0]) <= min(a[1], b[1])


def _meet(a: Span, b: Span) -> Span:
    return max(a[0], b[0]), min(a[1], b[1])


def _left_over(evidence: Sequence[Span], chunks: Sequence[Span]) -> list[Span]:
    """Each passage's parts outside every chunk (one list over the passages)."""
    cover = union(chunks)
    out: list[Span] = []
    for start, end in evidence:
        at = start
        for c_start, c_end in cover:
            if c_end <= at or c_start >= end:
                continue
            if c_start > at:
                out.append((at, c_start))
            at = max(at, c_end)
        if at < end:
            out.append((at, end))
    return out


@dataclass(frozen=True, slots=True)
class QuestionScores:
    recall: Fraction
    precision: Fraction
    iou: Fraction


def question_scores(evidence: Sequence[Span], retrieved: Sequence[Span]) -> QuestionScores:
    """Recall, precision and IoU of one question: its passages ``evidence``, the
    chunks ``retrieved`` (the top ``k``, as spans of the text)."""
    covered = _measure([_meet(c, e) for c in retrieved for e in evidence if _touches(c, e)])
    unused = sum(end - start for start, end in _left_over(evidence, retrieved))
    length = sum(end - start for start, end in evidence)
    retrieved_length = sum(end - start for start, end in retrieved)
    return QuestionScores(
        recall=Fraction(covered, length),
        precision=Fraction(covered, retrieved_length) if retrieved_length else Fraction(0),
        iou=Fraction(covered, retrieved_length + unused),
    )


class _InOrder:
    """Chunks whose starts and ends both never decrease (every chunking of one text
    is so): the chunks touching a span are then one run, found by two bisections,
    where any other list of chunks is scanned whole, once per question."""

    def __init__(self, chunks: Sequence[Span]) -> None:
        self.chunks = chunks
        self.starts = [start for start, _ in chunks]
        self.ends = [end for _, end in chunks]

    @staticmethod
    def of(chunks: Sequence[Span]) -> _InOrder | None:
        found = _InOrder(chunks)
        starts, ends = found.starts, found.ends
        ordered = all(map(le, starts, starts[1:])) and all(map(le, ends, ends[1:]))
        return found if ordered else None

    def touching(self, evidence: Sequence[Span]) -> list[Span]:
        """The chunks touching any passage (``max(starts) <= min(ends)``), in order:
        those starting at or before its end and ending at or after its start."""
        held: set[int] = set()
        for start, end in evidence:
            held.update(range(bisect_left(self.ends, start), bisect_right(self.starts, end)))
        return [self.chunks[k] for k in sorted(held)]


def precision_omega(
    evidence: Sequence[Span], chunks: Sequence[Span], in_order: _InOrder | None = None
) -> Fraction:
    """Precision-Ω of one question: IoU when exactly the chunks touching its evidence
    are retrieved (``chunks``: every chunk of the setting; ``in_order``: the same
    chunks in order, when they are, for :func:`range_metrics`)."""
    if in_order is not None:
        touching = in_order.touching(evidence)
    else:
        touching = [c for c in chunks if any(_touches(c, e) for e in evidence)]
    covered = _measure([_meet(c, e) for c in touching for e in evidence if _touches(c, e)])
    if not touching:
        return Fraction(0)
    return Fraction(covered, _measure(touching + _left_over(evidence, touching)))


@dataclass(frozen=True, slots=True)
class Stat:
    """The mean over the questions (exact) and the population standard deviation."""

    mean: Fraction
    std: float


def _stat(values: Sequence[Fraction]) -> Stat:
    mean = sum(values, Fraction(0)) / len(values)
    variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / len(values)
    return Stat(mean=mean, std=math.sqrt(variance))


@dataclass(frozen=True, slots=True, kw_only=True)
class RangeMetrics:
    """The four metrics of one setting and retriever, each question's and their
    statistics; ``questions`` in the order each question first appears."""

    questions: tuple[str, ...]
    scores: tuple[QuestionScores, ...]
    omegas: tuple[Fraction, ...]

    def stat(self, name: str) -> Stat:
        if name == "precision_omega":
            return _stat(self.omegas)
        return _stat([getattr(s, name) for s in self.scores])


def range_metrics(
    questions: Sequence[str],
    evidence: Sequence[Sequence[Span]],
    retrieved: Sequence[Sequence[Span]],
    chunks: Sequence[Span],
) -> RangeMetrics:
    """The metrics of each question (its passages ``evidence[i]``, its retrieved chunks
    ``retrieved[i]``) over a setting's ``chunks``."""
    in_order = _InOrder.of(chunks)
    return RangeMetrics(
        questions=tuple(questions),
        scores=tuple(question_scores(e, r) for e, r in zip(evidence, retrieved, strict=True)),
        omegas=tuple(precision_omega(e, chunks, in_order) for e in evidence),
    )
