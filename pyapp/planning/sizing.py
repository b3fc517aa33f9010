"""Index sizing: vectors, retrieved tokens, context-budget share and stored tokens.

The figures of reference 003's calculator, with two corrections from reference 000:

* **stored tokens** are reported both *nominal* (``entries * min(C, D)``, what
  reference 003 calls "tokens stored") and *actual* (the sum of the real chunk
  lengths: ``documents * (D + (N - 1)·O)``), since a partial last chunk is not
  ``C`` tokens long;
* **overlap** is always whole tokens. A percentage of ``C`` is rounded half up,
  as everywhere in the engine: 15% of 512 is 76.8, used as 77, stride 435.
  Reference 003 keeps the fractional stride 435.2 instead; the derivation of
  ``stride`` says whether that changes the chunk count (for its default example
  it does not: 3 chunks either way).

Every document is modelled as ``D`` tokens long (the average), so the totals are
an estimate for a corpus of uneven documents; ``python -m pyapp corpus`` counts a
real corpus exactly. A splitter that is not a fixed window (the recursive one) has no
closed form: :func:`measure_text` chunks a real text and :class:`Measured` carries what
its chunks are (count and token lengths), which then replace the formulas for the chunk
count, the stored tokens and the retrieved tokens (each document modelled as that
text). Arithmetic is exact (:class:`~fractions.Fraction`) and only
turned into ``int``/``float`` for output.

>>> s = size_index(documents=500, avg_tokens=1200, size=512, overlap="15%", top_k=5, budget=128000)
>>> s.overlap, s.stride, s.chunks_per_document, s.index_entries
(77, 435, 3, 1500)
>>> s.retrieved_tokens_per_query, s.budget_share, s.budget_left
(Fraction(2560, 1), Fraction(1, 50), Fraction(125440, 1))
>>> s.stored_tokens_nominal, s.inflation_nominal, s.stored_tokens_actual
(Fraction(768000, 1), Fraction(32, 25), Fraction(677000, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core.params import Params, parse_number, parse_overlap, parse_whole
from ..facts import SIZING_DEFAULTS
from ..figures import Derivation, number, show

__all__ = ["Measured", "Sizing", "measure_text", "size_index"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Measured:
    """One text's real chunking, in tokens: its length, each chunk's length (each chunk
    encoded by itself, as the splitter measured it) and the splitter's settings."""

    text_tokens: int
    lengths: tuple[int, ...]
    encoding: str
    splitter: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "from": "the chunks of the text, not the formula",
            "encoding": self.encoding,
            "splitter": self.splitter,
            "text_tokens": self.text_tokens,
            "chunks": len(self.lengths),
            "longest_chunk": max(self.lengths, default=0),
        }


def measure_text(text: str, params: Params) -> Measured:
    """Chunk ``text`` under ``params`` (the token unit) and measure its chunks.

    >>> from pyapp.core.params import parse_params
    >>> p = parse_params(unit="token", encoding="cl100k_base", size=4, splitter="recursive")
    >>> m = measure_text("one two three four five six", p)
    >>> m.text_tokens, m.lengths
    (6, (4, 2))
    """
    from ..core.chunkings import chunking_of
    from ..core.export import splitter_json
    from ..core.tokenizers import get_tokenizer
    from ..errors import InputError

    if params.unit != "token" or params.encoding is None:
        raise InputError(
            "unit",
            "index sizing measures a real chunking in tokens: choose the token unit (and an"
            " encoding) for the recursive splitter",
        )
    chunking = chunking_of(text, params)
    return Measured(
        text_tokens=get_tokenizer(params.encoding).count(text),
        lengths=tuple(chunking.lengths),
        encoding=params.encoding,
        splitter=splitter_json(params),
    )


def _ceil(value: Fraction) -> int:
    return math.ceil(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Sizing:
    """One sizing plan and every figure derived from it (exact numbers)."""

    documents: int
    avg_tokens: Fraction
    size: int
    overlap: int
    overlap_percent: Fraction | None
    top_k: int
    budget: int
    dim: int | None
    bytes_per_value: Fraction
    #: A real text's chunking (``None``: the fixed window's closed forms).
    measured: Measured | None = None

    @property
    def stride(self) -> int:
        return self.size - self.overlap

    @property
    def effective_chunk(self) -> Fraction:
        """``min(C, D)``: a document shorter than a chunk is one smaller entry."""
        return min(Fraction(self.size), self.avg_tokens)

    @property
    def chunks_per_document(self) -> int:
        """``1 + ceil(max(0, D - C) / S)`` (``D > 0`` is enforced), or the chunks counted."""
        if self.measured is not None:
            return len(self.measured.lengths)
        return 1 + _ceil(max(Fraction(0), self.avg_tokens - self.size) / self.stride)

    @property
    def index_entries(self) -> int:
        return self.documents * self.chunks_per_document

    @property
    def top_k_used(self) -> int:
        """Top-k capped at the index size: a query cannot return more entries than exist."""
        return min(self.top_k, self.index_entries)

    @property
    def retrieved_tokens_per_query(self) -> Fraction:
        if self.measured is not None:  # the k longest entries of the index, at most
            longest = sorted(self.measured.lengths, reverse=True)
            k, docs = self.top_k_used, self.documents
            return Fraction(sum(longest[i // docs] for i in range(k)))
        return self.top_k_used * self.effective_chunk

    @property
    def budget_share(self) -> Fraction:
        return self.retrieved_tokens_per_query / self.budget

    @property
    def budget_left(self) -> Fraction:
        """Negative when retrieval alone overflows the budget."""
        return self.budget - self.retrieved_tokens_per_query

    @property
    def corpus_tokens(self) -> Fraction:
        return self.documents * self.avg_tokens

    @property
    def stored_tokens_nominal(self) -> Fraction:
        return self.index_entries * self.effective_chunk

    @property
    def stored_tokens_per_document(self) -> Fraction:
        """Sum of the real chunk lengths of one document: ``D + (N - 1)·O``, or counted."""
        if self.measured is not None:
            return Fraction(sum(self.measured.lengths))
        return self.avg_tokens + (self.chunks_per_document - 1) * self.overlap

    @property
    def stored_tokens_actual(self) -> Fraction:
        return self.documents * self.stored_tokens_per_document

    @property
    def inflation_nominal(self) -> Fraction:
        return self.stored_tokens_nominal / self.corpus_tokens

    @property
    def inflation_actual(self) -> Fraction:
        return self.stored_tokens_actual / self.corpus_tokens

    @property
    def limit_inflation(self) -> Fraction:
        """The long-document limit ``C / (C - O)``."""
        return Fraction(self.size, self.stride)

    @property
    def vector_bytes(self) -> Fraction | None:
        if self.dim is None:
            return None
        return self.index_entries * self.dim * self.bytes_per_value

    # ----------------------------------------------------------------- output

    def derivation(self) -> dict[str, dict[str, Any]]:
        """Formula, the inputs put in, and the value, for every figure."""
        c, o, s, d = self.size, self.overlap, self.stride, self.avg_tokens
        n, e, k = self.chunks_per_document, self.index_entries, self.top_k_used
        eff = show(self.effective_chunk)
        docs = self.documents
        out = Derivation()
        put = out.add
        if self.overlap_percent is not None:
            p = self.overlap_percent
            put(
                "overlap",
                "round_half_up(P / 100 * C)",
                f"round_half_up({show(p)} / 100 * {c}) = round_half_up({show(p * c / 100)})",
                o,
            )
        put("stride", "C - O", f"{c} - {o}", s, self._stride_note())
        if self.measured is not None:
            return self._measured_derivation()
        put("effective_chunk", "min(C, D)", f"min({c}, {show(d)})", self.effective_chunk)
        put(
            "chunks_per_document",
            "1 + ceil(max(0, D - C) / S)",
            f"1 + ceil(max(0, {show(d)} - {c}) / {s})",
            n,
        )
        put("index_entries", "documents * chunks per document", f"{docs} * {n}", e)
        put("top_k_used", "min(top-k, entries)", f"min({self.top_k}, {e})", k)
        put(
            "retrieved_tokens_per_query",
            "min(top-k, entries) * min(C, D)",
            f"{k} * {eff}",
            self.retrieved_tokens_per_query,
        )
        put(
            "budget_share",
            "retrieved / budget",
            f"{show(self.retrieved_tokens_per_query)} / {self.budget}",
            self.budget_share,
        )
        put(
            "budget_left",
            "budget - retrieved",
            f"{self.budget} - {show(self.retrieved_tokens_per_query)}",
            self.budget_left,
        )
        self._put_stored_nominal(out)
        put(
            "stored_tokens_actual",
            "documents * (D + (N - 1) * O)",
            f"{docs} * ({show(d)} + ({n} - 1) * {o})",
            self.stored_tokens_actual,
            "the sum of the real chunk lengths: the last chunk of a document is often short",
        )
        self._put_inflation(out)
        put("limit_inflation", "C / (C - O)", f"{c} / {s}", self.limit_inflation)
        self._put_vector_bytes(out)
        return out.to_json()

    def _put_stored_nominal(self, out: Derivation) -> None:
        """The stored tokens as if every chunk were full, counted or not."""
        out.add(
            "stored_tokens_nominal",
            "entries * min(C, D)",
            f"{self.index_entries} * {show(self.effective_chunk)}",
            self.stored_tokens_nominal,
            "what a calculator that counts every chunk as full reports",
        )

    def _put_inflation(self, out: Derivation) -> None:
        """The two inflation lines, the same whether the stored tokens were counted or
        given by the formula."""
        corpus = show(self.corpus_tokens)
        out.add(
            "inflation_nominal",
            "nominal stored / (documents * D)",
            f"{show(self.stored_tokens_nominal)} / {corpus}",
            self.inflation_nominal,
        )
        out.add(
            "inflation_actual",
            "actual stored / (documents * D)",
            f"{show(self.stored_tokens_actual)} / {corpus}",
            self.inflation_actual,
        )

    def _put_vector_bytes(self, out: Derivation) -> None:
        """The vector store's size line, when a dimension is given."""
        if self.dim is not None:
            out.add(
                "vector_bytes",
                "entries * dim * bytes per value",
                f"{self.index_entries} * {self.dim} * {show(self.bytes_per_value)}",
                self.vector_bytes,
            )

    def _measured_derivation(self) -> dict[str, dict[str, Any]]:
        """The figures a real chunking gives: counted, not the closed form."""
        assert self.measured is not None
        m, docs, e, k = self.measured, self.documents, self.index_entries, self.top_k_used
        out = Derivation()
        put = out.add
        n = len(m.lengths)
        counted = "measured from the chunks of the text, not the formula"
        put("chunks_per_document", "chunks of the text", f"{n} chunks", n, counted)
        put("index_entries", "documents * chunks per document", f"{docs} * {n}", e)
        put("top_k_used", "min(top-k, entries)", f"min({self.top_k}, {e})", k)
        put(
            "retrieved_tokens_per_query",
            "the top-k used longest entries",
            f"{k} longest of {e} entries",
            self.retrieved_tokens_per_query,
            "each chunk's tokens as the splitter measured it",
        )
        retrieved = show(self.retrieved_tokens_per_query)
        put("budget_share", "retrieved / budget", f"{retrieved} / {self.budget}", self.budget_share)
        put("budget_left", "budget - retrieved", f"{self.budget} - {retrieved}", self.budget_left)
        self._put_stored_nominal(out)
        per_doc = show(self.stored_tokens_per_document)
        put(
            "stored_tokens_actual",
            "documents * (sum of the chunks' tokens)",
            f"{docs} * {per_doc}",
            self.stored_tokens_actual,
            counted,
        )
        self._put_inflation(out)
        self._put_vector_bytes(out)
        return out.to_json()

    def _stride_note(self) -> str | None:
        """Some calculators stride by ``C * (1 - P/100)`` unrounded; say what that changes."""
        if self.overlap_percent is None:
            return None
        exact = self.size * (1 - self.overlap_percent / 100)
        if exact == self.stride:
            return None
        n_exact = 1 + _ceil(max(Fraction(0), self.avg_tokens - self.size) / exact)
        same = (
            "the same chunk count"
            if n_exact == self.chunks_per_document
            else f"{n_exact} chunks per document instead of {self.chunks_per_document}"
        )
        return (
            f"overlap is rounded to whole tokens; a calculator that keeps the fractional stride"
            f" {show(exact)}, which gives {same}"
        )

    def to_json(self) -> dict[str, Any]:
        """The ``size`` command's document: params, figures, derivation (and ``measured``
        for a real chunking)."""
        doc = self._document()
        if self.measured is not None:
            doc["measured"] = self.measured.to_json()
        return doc

    def _document(self) -> dict[str, Any]:
        return {
            "schema": "pyapp.size/1",
            "params": {
                "documents": self.documents,
                "avg_tokens": number(self.avg_tokens),
                "size": self.size,
                "overlap": self.overlap,
                "overlap_percent": number(self.overlap_percent),
                "top_k": self.top_k,
                "budget": self.budget,
                "dim": self.dim,
                "bytes_per_value": number(self.bytes_per_value),
            },
            "stride": self.stride,
            "effective_chunk": number(self.effective_chunk),
            "chunks_per_document": self.chunks_per_document,
            "index_entries": self.index_entries,
            "top_k_used": self.top_k_used,
            "retrieved_tokens_per_query": number(self.retrieved_tokens_per_query),
            "budget_share": number(self.budget_share),
            "budget_left": number(self.budget_left),
            "corpus_tokens": number(self.corpus_tokens),
            "stored_tokens_nominal": number(self.stored_tokens_nominal),
            "stored_tokens_actual": number(self.stored_tokens_actual),
            "inflation_nominal": number(self.inflation_nominal),
            "inflation_actual": number(self.inflation_actual),
            "limit_inflation": number(self.limit_inflation),
            "vector_bytes": number(self.vector_bytes),
            "derivation": self.derivation(),
        }


def size_index(
    *,
    documents: object,
    avg_tokens: object,
    size: object,
    overlap: object = SIZING_DEFAULTS["overlap"],
    overlap_mode: object = "units",
    top_k: object = SIZING_DEFAULTS["top_k"],
    budget: object = SIZING_DEFAULTS["budget"],
    dim: object = None,
    bytes_per_value: object = SIZING_DEFAULTS["bytes_per_value"],
    measured: Measured | None = None,
) -> Sizing:
    """Validate raw inputs (numbers or typed strings) and return the :class:`Sizing`.

    ``overlap`` is whole tokens, or a percentage of ``size`` (``"15%"``, or
    ``overlap_mode="percent"``) rounded half up. ``avg_tokens`` may be a decimal.
    ``dim=None`` leaves ``vector_bytes`` out; ``bytes_per_value`` may be a
    fraction (``0.125`` for binary vectors). With ``measured`` (a real chunking, see
    :func:`measure_text`), ``avg_tokens`` is the text's own length and ``size`` and
    ``overlap`` are the splitter's.

    >>> size_index(documents=1, avg_tokens=100, size=512, top_k=5).top_k_used
    1
    >>> from pyapp.errors import InputError
    >>> try:  # doctest: +ELLIPSIS
    ...     size_index(documents=0, avg_tokens=100, size=512)
    ... except InputError as err:
    ...     print(err.field, "|", err.message)
    documents | documents must be at least 1, got 0: enter a whole number from 1 to ...
    """
    n_docs = parse_whole("documents", documents)
    if measured is not None:
        if measured.text_tokens == 0:
            from ..errors import InputError

            raise InputError("text", "the text is empty: paste or open a text to measure")
        avg_tokens = measured.text_tokens
    avg = parse_number("avg_tokens", avg_tokens)
    the_size = parse_whole("size", size)
    the_overlap, percent = parse_overlap(overlap, size=the_size, mode=overlap_mode)
    k = parse_whole("top_k", top_k)
    the_budget = parse_whole("budget", budget)
    the_dim: int | None = None
    if dim is not None and not (isinstance(dim, str) and not dim.strip()):
        the_dim = parse_whole("dim", dim)
    bpv = parse_number("bytes_per_value", bytes_per_value)
    return Sizing(
        documents=n_docs,
        avg_tokens=avg,
        size=the_size,
        overlap=the_overlap,
        overlap_percent=percent,
        top_k=k,
        budget=the_budget,
        dim=the_dim,
        bytes_per_value=bpv,
        measured=measured,
    )
