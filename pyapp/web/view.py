"""What the page shows for one text and configuration: the cards, the overview
strip, the counts, and the ``chunk`` op's whole answer.

Everything here is assembled from the chunker (:mod:`pyapp.core`) for the page;
the export document is :mod:`pyapp.core.export`'s, never this.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import replace
from fractions import Fraction
from itertools import accumulate, islice
from typing import Any

from ..core.cache import per_text
from ..core.chunking import Report, cap_of, chunk_text, over_limit, tokens_alone
from ..core.chunkings import FixedWindows, Window, chunk_of, chunking_of, segment, word_list
from ..core.evidence_export import document
from ..core.evidence_report import EvidenceReport
from ..core.export import (
    boundaries_json,
    cap_json,
    chunk_json,
    overlap_json,
    params_json,
    splitter_json,
    summary_json,
)
from ..core.lens import cut_of, lens_of_params
from ..core.overlap import boundaries_list
from ..core.params import Params
from ..core.summary import derive
from ..core.units import Tokens, Words, strip_bom, utf8_length, word_count
from ..facts import CARDS_PER_CALL, MAX_BYTES, STRIP_COLUMNS_DEFAULT, UNITS
from ..figures import Derivation, round_half_up, show
from ..planning.remedies import with_remedies
from .export_size import export_size
from .strip import strip

__all__ = [
    "cards_view",
    "chunk_view",
    "counts",
    "evidence_marks",
    "evidence_view",
    "view_chunks",
]

JSON = dict[str, Any]

#: The word count of the last few texts (the page asks again on every edit).
_words = per_text(word_count)


def counts(text: str, *, tokens: int | None) -> JSON:
    """Bytes, code points, words (and tokens when known) of ``text``; counted over
    the byte limit too, with ``over_limit``, so the page shows the real size."""
    size = utf8_length(text)
    out: JSON = {"bytes": size, "chars": len(text), "words": _words(text), "tokens": tokens}
    if size > MAX_BYTES:
        out["over_limit"] = True
    return out


@per_text
def _word_index(text: str) -> tuple[list[str], list[int]]:
    """The words of ``text`` (``str.split()``) and their running code-point lengths
    (``lengths[k]`` is the length of the first ``k`` words), kept per text: every
    size then joins its previews from slices instead of splitting the text again."""
    words = text.split()
    return words, list(accumulate(map(len, words), initial=0))


def _local_marks(
    cut_spans: list[tuple[int, int]], char_start: int, char_end: int
) -> list[tuple[int, int]]:
    """The parts of the cut spans inside ``[char_start, char_end)``, in the source's
    code points (sorted, disjoint: cut spans are)."""
    out: list[tuple[int, int]] = []
    at = bisect_right(cut_spans, char_start, key=lambda span: span[1])
    for a, b in islice(cut_spans, at, None):
        if a >= char_end:
            break
        a, b = max(a, char_start), min(b, char_end)
        if a < b:
            out.append((a, b))
    return out


def _preview_marks(
    local: list[tuple[int, int]],
    window: Window,
    starts: list[int],
    ends: list[int],
    lengths: list[int],
) -> list[list[int]]:
    """Source ranges of a word window mapped to its preview (the words joined by
    single spaces): each word's part inside a range, plus the space between two
    words the range spans."""
    out: list[list[int]] = []
    first = window.start

    def at(k: int, offset: int) -> int:  # preview offset of code point `offset` of word k
        return lengths[k] - lengths[first] + (k - first) + offset - starts[k]

    for a, b in local:
        k0 = bisect_right(ends, a, first, window.end)  # first word ending after a
        k1 = bisect_left(starts, b, first, window.end) - 1  # last word starting before b
        if k0 > k1:
            continue
        lo, hi = at(k0, max(a, starts[k0])), at(k1, min(b, ends[k1]))
        if lo < hi:
            out.append([lo, hi])
    return out


def _preview_tail(
    cut: int, window: Window, starts: list[int], ends: list[int], lengths: list[int]
) -> list[list[int]]:
    """The dropped tail ``[cut, char_end)`` of a word window in its preview: as
    :func:`_preview_marks` maps it, and with a cut in the whitespace after a read word,
    from the single space after that word (the model reads none of it either).

    >>> from ..core.params import parse_params
    >>> text = "one two  three"
    >>> seg = segment(text, parse_params(unit="word", size=3))
    >>> w = next(chunking_of(text, parse_params(unit="word", size=3)).windows())
    >>> starts, ends = seg.bounds(3)
    >>> _, lengths = _word_index(text)
    >>> tail = _preview_tail(7, w, starts, ends, lengths)
    >>> tail, "one two three"[tail[0][0]:]
    ([[7, 13]], ' three')
    """
    marks = _preview_marks([(cut, window.char_end)], window, starts, ends, lengths)
    k0 = bisect_right(ends, cut, window.start, window.end)  # first word ending after the cut
    if marks and window.start < k0 < window.end and cut < starts[k0]:
        marks[0][0] -= 1  # the space before the first dropped word
    return marks


def view_chunks(
    text: str,
    params: Params,
    *,
    cut_spans: list[tuple[int, int]] | None = None,
    alone: tuple[int, ...] | None = None,
    first: int = 0,
    stop: int | None = None,
) -> list[JSON]:
    """The chunk cards, as JSON objects: every field the page renders and nothing twice
    (cards ``first .. stop - 1`` only, when given: each found directly).

    Each is an export chunk without ``text`` and ``preview``, and in word mode also
    without ``repeated_prefix`` and ``fresh_text`` (a word card shows only the
    preview). Then, in word mode, ``preview_repeated`` and ``preview_fresh`` (the
    words of each part joined by single spaces), in token mode ``token_breaks``, and
    in every mode ``cut_marks``: the ``[a, b)`` code-point ranges of the card's shown
    text (word mode: ``preview_repeated``, a space when both parts are non-empty,
    ``preview_fresh``; char and token mode: ``repeated_prefix + fresh_text``) that
    belong to a sentence in ``cut_spans`` (no ``cut_marks`` when ``cut_spans`` is
    None: the sentence check was not asked for), and ``carried``: the range of the
    shown text the next chunk repeats (none for the last), which the card draws as
    the overlap, as it draws its repeated prefix.

    >>> from ..core.params import parse_params
    >>> params = parse_params(unit="word", size=3, overlap=1)
    >>> [(c["preview_repeated"], c["preview_fresh"], c["cut_marks"], c["carried"])
    ...  for c in view_chunks("a  b c\\nd", params, cut_spans=[(3, 8)])]
    [('', 'a b c', [[2, 5]], [[4, 5]]), ('c', 'd', [[0, 3]], [])]
    >>> chars = parse_params(unit="char", size=4, overlap=0)
    >>> [(c["repeated_prefix"], c["fresh_text"], c["cut_marks"])
    ...  for c in view_chunks("ab. cd.", chars, cut_spans=[(4, 7)])]
    [('', 'ab. ', []), ('', 'cd.', [[0, 3]])]
    """
    chunking = chunking_of(text, params)
    fixed = chunking if isinstance(chunking, FixedWindows) else None
    seg = segment(text, params)
    marked = cut_spans is not None
    spans = cut_spans or []
    tokens = seg if isinstance(seg, Tokens) else None
    all_windows = list(chunking.windows(first=first, stop=stop))
    word = isinstance(seg, Words)
    limit = over_limit(params)
    words = word_list(text) if word else None
    if isinstance(seg, Words):
        _, lengths = _word_index(text)
        starts, ends = seg.bounds(all_windows[-1].end if all_windows else 0)
    lens = lens_of_params(params)
    next_starts, count = chunking.char_starts, chunking.count
    out: list[JSON] = []
    for w in all_windows:
        alone_here = alone[w.index] if alone is not None and tokens is not None else None
        chunk = chunk_json(chunk_of(text, w, words=words, alone=alone_here), card=True)
        local = _local_marks(spans, w.char_start, w.char_end)
        after = next_starts[w.index + 1] if w.index + 1 < count else w.char_end
        carried = [(after, w.char_end)] if after < w.char_end else []  # the next one repeats
        cut = cut_of(text, w.char_start, w.char_end, lens) if lens is not None else None
        if cut is not None:  # the model's input ends at `cut`: the tail it never reads
            chunk["model_cut"] = cut
        if word:
            chunk["carried"] = _preview_marks(carried, w, starts, ends, lengths)
            if marked:
                chunk["cut_marks"] = _preview_marks(local, w, starts, ends, lengths)
            if cut is not None:
                chunk["model_dropped"] = _preview_tail(cut, w, starts, ends, lengths)
            out.append(chunk)
            continue
        if cut is not None:
            chunk["model_dropped"] = [[cut - w.char_start, w.char_end - w.char_start]]
        if tokens is not None:
            breaks = tokens.breaks(w.start, w.end, char_start=w.char_start)
            if fixed is None:  # a chunk cut inside a token of the text: breaks from its start
                breaks = sorted({max(0, b) for b in breaks if b < w.char_end - w.char_start})
            chunk["token_breaks"] = breaks
            if alone_here is not None:
                chunk["over_limit"] = alone_here > limit
        chunk["carried"] = [[a - w.char_start, b - w.char_start] for a, b in carried]
        if marked:
            chunk["cut_marks"] = [[a - w.char_start, b - w.char_start] for a, b in local]
        out.append(chunk)
    return out


def overview(text: str, params: Params, columns: int = STRIP_COLUMNS_DEFAULT) -> JSON:
    """The overview strip's ``columns`` bars over the whole text, even when capped
    (:func:`~pyapp.web.strip.strip`; ``text`` without a leading byte-order mark)."""
    return strip(chunking_of(text, params), columns)


def chunk_view(
    text: str, params: Params, *, checks: bool = True, columns: int = STRIP_COLUMNS_DEFAULT
) -> JSON:
    """The ``chunk`` op's answer: what the page renders for this text and configuration.
    Offsets count from after a leading byte-order mark, as in the export.

    With ``checks=False`` the answer leaves out what costs more than the chunking
    itself and can follow a moment later (:func:`checks_view`): the sentence check
    (``boundaries`` is None), each card's ``cut_marks``, and ``export_bytes``.

    Past a cap, ``capped`` (caps on) or ``lifted`` (caps lifted: ``params.caps`` is
    false) names the cap and ``export_bytes``, the estimated size of the download
    with every chunk; ``chunks`` is then empty either way: lifted, the page asks for
    the cards by range (:func:`cards_view`), as many as it shows.

    >>> from ..core.params import parse_params
    >>> lifted = chunk_view("a " * 300, parse_params(unit="word", size=1, caps=False))
    >>> lifted["capped"], lifted["lifted"]["value"], lifted["chunks"]
    (None, 300, [])
    """
    text, bom_removed = strip_bom(text)
    report = chunk_text(text, params, chunks=False, boundaries=checks)
    summary = report.summary
    cut = report.boundaries.cut_spans if report.boundaries else None
    over = cap_of(summary, replace(params, caps=True))  # the cap past which cards come by range
    alone = None if report.capped else tokens_alone(text, params)
    chunks = [] if over else view_chunks(text, params, cut_spans=cut, alone=alone)
    capped = with_remedies(cap_json(report.capped), summary.units, params)
    cost = {"export_bytes": export_size(text, report)} if over and checks else {}
    return {
        "params": params_json(report),
        "splitter": splitter_json(params),
        "summary": summary_json(summary),
        "overlap": overlap_view(report),
        "chunk_boundaries": boundaries_list(report.chunking) if chunks and report.chunking else [],
        "derivation": derive(summary, params),
        "capped": {**capped, **cost} if capped else None,
        "lifted": {**(cap_json(over) or {}), **cost} if over and not report.capped else None,
        "boundaries": boundaries_json(report.boundaries) if report.boundaries else None,
        "bom_removed": bom_removed,
        "chunks": chunks,
        "counts": counts(text, tokens=summary.units if params.unit == "token" else None),
        "overview": overview(text, params, columns),
        "in_tokens": in_tokens(summary.units, params),
    }


def in_tokens(units: int, params: Params) -> JSON:
    """The view's text length, size and overlap in tokens, for the planning tools.

    Exact in token mode; in word and character mode estimated with
    ``tokens_per_unit``, each rounded half up (at least one token, the overlap
    below the size), with ``exact`` false.

    >>> from ..core.params import parse_params
    >>> in_tokens(10, parse_params(unit="word", size=3, overlap=1))
    {'tokens': 13, 'size': 4, 'overlap': 1, 'exact': False}
    >>> in_tokens(7, parse_params(unit="char", size=2, overlap=1, tokens_per_unit="1/4"))
    {'tokens': 2, 'size': 1, 'overlap': 0, 'exact': False}
    >>> in_tokens(9, parse_params(unit="token", size=5, overlap=2))
    {'tokens': 9, 'size': 5, 'overlap': 2, 'exact': True}
    """
    if params.unit == "token":
        return {"tokens": units, "size": params.size, "overlap": params.overlap, "exact": True}
    ratio = params.tokens_per_unit
    size = max(1, round_half_up(params.size * ratio))
    return {
        "tokens": max(1, round_half_up(units * ratio)),
        "size": size,
        "overlap": min(size - 1, round_half_up(params.overlap * ratio)),
        "exact": False,
    }


def overlap_view(report: Report) -> JSON | None:
    """The overlap figures with the plain-words sentence the page shows."""
    figures = overlap_json(report)
    if figures is None:
        return None
    return {**figures, "sentence": overlap_sentence(figures, report.params)}


def overlap_sentence(figures: JSON, params: Params) -> str:
    """What the boundaries got, in plain words.

    >>> from ..core.params import parse_params
    >>> p = parse_params(unit="char", size=1000, overlap=200, splitter="recursive")
    >>> print(overlap_sentence({"requested": 200, "boundaries": 240, "no_overlap": 61,
    ...     "short": 100, "produced_median": 94, "over_size": 3, "uncovered": 0}, p))
    ... # doctest: +NORMALIZE_WHITESPACE
    You asked for 200 characters of overlap. 61 of 240 boundaries got none, 100 got less
    than asked, the median is 94, and 3 chunks are longer than 1,000.
    """
    unit = UNITS[params.unit]
    requested, boundaries = figures["requested"], figures["boundaries"]
    plural = unit.plural if requested != 1 else unit.singular
    head = f"You asked for {requested:,} {plural} of overlap."
    if boundaries == 0:
        return f"{head} There is no boundary: the text is one chunk or none."
    median = figures["produced_median"]
    shown = show(Fraction(median)) if median is not None else "none"
    parts = [
        f"{figures['no_overlap']:,} of {boundaries:,} boundaries got none",
        f"{figures['short']:,} got less than asked",
        f"the median is {shown}",
    ]
    over = figures["over_size"]
    longer = (
        f"{over:,} chunk is longer than {params.size:,}"
        if over == 1
        else f"{over:,} chunks are longer than {params.size:,}"
    )
    tail = f", and {longer}." if over else ", and no chunk is longer than the size."
    sentence = f"{head} {', '.join(parts)}{tail}"
    if figures["uncovered"]:
        sentence += f" {figures['uncovered']:,} characters (not whitespace) are in no chunk."
    return sentence


def checks_view(text: str, params: Params) -> JSON:
    """The ``checks`` op's answer: what :func:`chunk_view` leaves out with
    ``checks=False``, for the same text and configuration. ``boundaries`` (the
    sentence check), ``cut_marks`` (each card's, in card order; None past a cap, where
    cards come by range with their marks) and ``export_bytes`` (past a cap; else None).

    >>> from ..core.params import parse_params
    >>> params = parse_params(unit="word", size=2, overlap=1)
    >>> checks = checks_view("One two. Three four five.", params)
    >>> checks["boundaries"]["cut"], checks["cut_marks"], checks["export_bytes"]
    (1, [[], [[5, 10]], [[0, 10]], [[0, 10]]], None)
    """
    text, _ = strip_bom(text)
    report = chunk_text(text, params, chunks=False)
    assert report.boundaries is not None
    over = cap_of(report.summary, replace(params, caps=True))
    cut = report.boundaries.cut_spans
    marks = None if over else [c["cut_marks"] for c in view_chunks(text, params, cut_spans=cut)]
    return {
        "boundaries": boundaries_json(report.boundaries),
        "cut_marks": marks,
        "export_bytes": export_size(text, report) if over else None,
    }


def cards_view(text: str, params: Params, *, first: int, stop: int) -> JSON:
    """The ``cards`` op's answer: chunk cards ``first .. stop - 1`` (at most
    :data:`~pyapp.facts.CARDS_PER_CALL`; ``to`` says where they end), as
    :func:`view_chunks` makes them, for a result whose caps are lifted.

    >>> from ..core.params import parse_params
    >>> params = parse_params(unit="word", size=2, caps=False)
    >>> view = cards_view("a b c d e", params, first=1, stop=9)
    >>> view["from"], view["to"], view["total"], [c["preview_fresh"] for c in view["chunks"]]
    (1, 3, 3, ['c d', 'e'])
    """
    text, _ = strip_bom(text)
    report = chunk_text(text, params, chunks=False)
    assert report.boundaries is not None
    total = report.summary.chunks
    first = min(first, total)
    stop = min(stop, total, first + CARDS_PER_CALL)
    alone = tokens_alone(text, params)
    cut = report.boundaries.cut_spans
    cards = view_chunks(text, params, cut_spans=cut, alone=alone, first=first, stop=stop)
    return {"from": first, "to": stop, "total": total, "chunks": cards}


def evidence_marks(text: str, report: EvidenceReport) -> list[list[list[int]]]:
    """Per chunk card (in order), ``[[a, b, item], ...]``: the ranges of the card's
    shown text (as for ``cut_marks``) that belong to evidence item number ``item``
    (its position in the report's ``evidence``), sorted by ``a``, then ``item``.
    ``text`` is the text without a leading byte-order mark, as the report's offsets.

    >>> from ..core.evidence_report import check_evidence
    >>> from ..core.params import parse_params
    >>> text = "a  b c\\nd"
    >>> report = check_evidence(text, parse_params(unit="word", size=3, overlap=1),
    ...                         jsonl='{"id": 1, "start": 3, "end": 8}', top_k=5)
    >>> evidence_marks(text, report)
    [[[2, 5, 0]], [[0, 3, 0]]]
    """
    params = report.params
    seg = segment(text, params)
    all_windows = list(chunking_of(text, params).windows())
    out: list[list[list[int]]] = [[] for _ in all_windows]
    word = isinstance(seg, Words)
    if isinstance(seg, Words):
        _, lengths = _word_index(text)
        starts, ends = seg.bounds(all_windows[-1].end if all_windows else 0)
    for position, result in enumerate(report.items):
        item = result.item
        first, last = result.touches
        for w in all_windows[first : last + 1]:
            local = _local_marks([(item.start, item.end)], w.char_start, w.char_end)
            if word:
                marks = _preview_marks(local, w, starts, ends, lengths)
            else:
                marks = [[a - w.char_start, b - w.char_start] for a, b in local]
            out[w.index].extend([a, b, position] for a, b in marks)
    for marks in out:
        marks.sort()
    return out


def _evidence_derivation(report: EvidenceReport) -> dict[str, Any]:
    """How the evidence figures were derived, for the page."""
    p, m, r = report.params, report.min_overlap, report.retrieval
    n, whole = len(report.items), report.whole
    d = Derivation()
    d.add("evidence_coverage", "whole items / items", f"{whole} / {n}", report.coverage)
    if m.found_by is not None:  # no closed form: found by trying the overlaps
        rule = "smallest O < C at which a chunk holds every item whole, found by trying"
        d.add("min_overlap_for_evidence", rule, m.found_by, m.overlap, m.reason)
        if m.overlap is not None:
            d.add(
                "processed_units_at_min_overlap", "sum of the chunks' lengths at that overlap",
                f"{m.chunks} chunks", m.processed_units,
            )  # fmt: skip
            d.add(
                "extra_volume_at_min_overlap", "the overlaps produced / U",
                f"at O = {m.overlap}", m.extra_volume,
            )  # fmt: skip
    else:
        rule = "smallest O < C with a mod (C - O) <= C - L for every item with a > C - L"
        where = f"C = {p.size}; a: an item's first unit, L: its length in {UNITS[p.unit].plural}"
        d.add("min_overlap_for_evidence", rule, where, m.overlap, m.reason)
    if m.found_by is None and m.overlap is not None and m.processed_units is not None:
        units, chunks = report.summary.units, m.chunks
        d.add(
            "processed_units_at_min_overlap",
            "U + (N - 1) * O",
            f"{units} + ({chunks} - 1) * {m.overlap}",
            m.processed_units,
        )
        d.add(
            "extra_volume_at_min_overlap",
            "(processed - U) / U",
            f"({m.processed_units} - {units}) / {units}",
            m.extra_volume,
        )
    a = report.any_placement
    d.add(
        "overlap_for_any_placement", "min(L - 1, C - 1), L the longest item's length",
        f"min({a.longest} - 1, {p.size} - 1)", a.overlap, a.reason,
    )  # fmt: skip
    units = report.summary.units
    if p.splitter == "fixed":
        d.add(
            "extra_volume_at_any_placement", "(processed - U) / U at that overlap",
            f"({a.processed_units} - {units}) / {units}", a.extra_volume,
        )  # fmt: skip
    else:
        d.add(
            "extra_volume_at_any_placement", "the overlaps produced / U at that overlap",
            f"at O = {a.overlap}, U = {units}", a.extra_volume,
        )  # fmt: skip
    for name, figures in (("recall_at_k", r), ("dense_recall_at_k", report.dense)):
        if figures is None or figures.recall_at_k is None:
            continue
        recalled = figures.recall_at_k * figures.questions
        d.add(
            name,
            "questions whose item is whole in one of the top k chunks / questions",
            f"{show(recalled)} / {figures.questions} (k = {report.top_k})",
            figures.recall_at_k,
        )
    return d.to_json()


def evidence_view(text: str, report: EvidenceReport) -> JSON:
    """The ``evidence`` op's answer: the evidence document, how its figures were
    derived, and the marks for the chunk cards (``card_marks``: ``None`` when the page
    shows no cards, because the chunk view is over its caps, or when the document
    leaves the chunk lists out)."""
    text, _ = strip_bom(text)
    out = document(report)
    out["derivation"] = _evidence_derivation(report)
    shown = cap_of(report.summary, report.params) is None and report.capped is None
    out["card_marks"] = evidence_marks(text, report) if shown else None
    return out
