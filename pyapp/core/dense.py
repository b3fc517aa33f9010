"""Sentence embeddings with all-MiniLM-L6-v2, as sentence-transformers makes them, with
every rule in pure Python: only the model itself runs elsewhere.

The model (an int8 ONNX export, :data:`~pyapp.weights.EMBEDDING_MODEL`) maps token ids
to one 384-wide hidden state per token. Natively ``onnxruntime`` runs it
(:mod:`pyapp.embedder`); in the page ``onnxruntime-web`` does, in a worker of its own,
on the ids this module gives it. Everything else is here:

* **Ids** (:func:`model_ids`): the engine's ``bert-base-uncased`` WordPiece, the first
  254 word pieces (:func:`~pyapp.models.truncate_to_model`, the model's
  ``max_seq_length`` of 256 less ``[CLS]`` and ``[SEP]``), wrapped in ``[CLS] … [SEP]``;
  ``token_type_ids`` are all 0. A literal ``[CLS]``, ``[SEP]``, ``[UNK]``, ``[PAD]`` or
  ``[MASK]`` in the text (exactly so: case and all) is that one special id, as the
  model's own ``tokenizer.json`` reads it (its added tokens match the raw text before
  normalization, and the text between them is tokenized piece by piece). The engine's
  token counts (chunk sizes, the truncation lens) read such text as the text it is
  (``[CLS]``: 4 word pieces), as they read every other tokenizer's special tokens.
* **Pooling** (:func:`mean_pool`): the mean of the hidden states whose attention
  mask is 1, each dimension summed exactly (``math.fsum``).
* **Normalization** (:func:`normalize`): divided by the Euclidean norm (at least
  ``1e-12``, as ``torch.nn.functional.normalize``), so a dot product is the cosine.
* **Batches** (:func:`batches`): texts of the same length in ids, at most
  :data:`BATCH` at a time, so no batch is ever padded and a text's embedding does not
  depend on the texts it was embedded with.
* **Cache keys** (:func:`text_key`): the sha256 of :data:`IDS_RULE`, a newline and
  the text's UTF-8; a cache lives under the model file's sha256, so a key names one
  vector, and a change to how a text becomes ids (a new :data:`IDS_RULE`) never serves
  a vector made under the old one.

>>> ids = model_ids("Hello, world!")
>>> ids[0], ids[-1], len(ids)
(101, 102, 6)
>>> mean_pool([1.0, 2.0, 3.0, 4.0, 9.0, 9.0], [1, 1, 0], dim=2)
[2.0, 3.0]
>>> normalize([3.0, 4.0])
[0.6, 0.8]
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import math
import re
import sys
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Final, Protocol

from ..facts import DENSE_SECONDS_PER_TOKEN
from ..models import MODELS, truncate_to_model
from ..weights import EMBEDDING_MODEL
from .tokenizers import get_tokenizer, read_vocabulary
from .tokenizers.wordpiece import read_vocab

__all__ = [
    "BATCH",
    "DIMENSION",
    "SPECIAL_TOKENS",
    "Cancelled",
    "Embedder",
    "Plan",
    "VectorStore",
    "batches",
    "cosine_scores",
    "dense_rank_of",
    "dense_top",
    "embed_texts",
    "mean_pool",
    "model_ids",
    "normalize",
    "pack",
    "plan",
    "text_key",
    "unpack",
]

DIMENSION: Final = EMBEDDING_MODEL.dimension
#: At most this many texts (all of one length) go to the model at once.
BATCH: Final = 8
_EPS: Final = 1e-12
_MODEL: Final = MODELS[EMBEDDING_MODEL.name]


#: The model's added tokens (``tokenizer.json``: special, matched unnormalized, not
#: stripped of the spaces beside them). None is a prefix of another, so the leftmost
#: match is the one Hugging Face's matcher takes.
SPECIAL_TOKENS: Final = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
_SPECIAL_TEXT: Final = re.compile("|".join(map(re.escape, SPECIAL_TOKENS)))


@functools.cache
def _special_ids() -> dict[str, int]:
    vocab = read_vocab(read_vocabulary(_MODEL.encoding))
    return {token: vocab[token] for token in SPECIAL_TOKENS}


def _pieces(text: str) -> list[int]:
    """``text``'s word pieces as the model's tokenizer makes them, a literal special
    token being its one id: the text between special tokens is encoded piece by piece.

    >>> _pieces("a [SEP] b"), _pieces("a [sep] b")
    ([1037, 102, 1038], [1037, 1031, 19802, 1033, 1038])
    """
    encode = get_tokenizer(_MODEL.encoding).encode
    if "[" not in text:
        return encode(text)
    special = _special_ids()
    out: list[int] = []
    at = 0
    for match in _SPECIAL_TEXT.finditer(text):
        out += encode(text[at : match.start()])
        out.append(special[match.group()])
        at = match.end()
    out += encode(text[at:])
    return out


def model_ids(text: str) -> list[int]:
    """The ids the model reads for ``text``: ``[CLS]``, the word pieces the model keeps
    (:func:`~pyapp.models.truncate_to_model`), ``[SEP]``.

    >>> model_ids("[MASK] of [cls]")
    [101, 103, 1997, 1031, 18856, 2015, 1033, 102]
    """
    special = _special_ids()
    kept = truncate_to_model(_pieces(text), _MODEL)
    return [special["[CLS]"], *kept, special["[SEP]"]]


def mean_pool(hidden: Sequence[float], mask: Sequence[int], *, dim: int = DIMENSION) -> list[float]:
    """The mean of the rows of ``hidden`` (``len(mask)`` rows of ``dim``, flat, row by
    row) whose ``mask`` is 1: each dimension's sum over those rows is exact (``fsum``,
    the same on every Python and platform), then divided by their number."""
    kept = [row for row, keep in enumerate(mask) if keep]
    if len(kept) < len(mask):
        hidden = [x for row in kept for x in hidden[row * dim : (row + 1) * dim]]
    end = len(kept) * dim
    count = max(len(kept), 1)  # sentence-transformers clamps the token count at 1e-9
    # One strided slice per dimension: the column, summed in C (a row-by-row loop of
    # additions cost twice as much, about 4% of the model's own time natively).
    return [math.fsum(hidden[d:end:dim]) / count for d in range(dim)]


def normalize(vector: Sequence[float]) -> list[float]:
    """``vector`` over its Euclidean norm (at least 1e-12)."""
    norm = max(math.sqrt(sum(map(mul, vector, vector))), _EPS)
    return [x / norm for x in vector]


#: The version of the rule that turns a text into the model's ids, part of every cache
#: key. 2: a literal ``[CLS]``, ``[SEP]``, ``[UNK]``, ``[PAD]`` or ``[MASK]`` is its one id.
IDS_RULE = "pyapp.model_ids/2"


def text_key(text: str) -> str:
    """The cache key of ``text``'s embedding: the sha256 of :data:`IDS_RULE`, a newline
    and ``text``'s UTF-8, in hex."""
    return hashlib.sha256(f"{IDS_RULE}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def pack(vector: Sequence[float]) -> bytes:
    """A vector as little-endian doubles: how the caches keep it, bit for bit."""
    data = array("d", vector)
    if sys.byteorder != "little":
        data.byteswap()
    return data.tobytes()


def unpack(data: bytes) -> list[float]:
    """:func:`pack`'s vector back; refused unless it is :data:`DIMENSION` doubles."""
    if len(data) != DIMENSION * 8:
        raise ValueError(f"a cached vector is {len(data)} bytes, not {DIMENSION * 8}")
    values = array("d")
    values.frombytes(data)
    if sys.byteorder != "little":
        values.byteswap()
    return values.tolist()


def batches(ids: Mapping[str, list[int]], *, size: int = BATCH) -> list[list[str]]:
    """The keys of ``ids`` in batches of texts of one length (at most ``size`` each),
    shortest first, in the order given within one length."""
    by_length: dict[int, list[str]] = {}
    for key, row in ids.items():
        by_length.setdefault(len(row), []).append(key)
    return [
        keys[i : i + size]
        for _, keys in sorted(by_length.items())
        for i in range(0, len(keys), size)
    ]


class Embedder(Protocol):
    """Runs the model: a batch of id rows of one length in, each row's hidden states
    out (flat, ``len(row) * DIMENSION`` numbers, token by token)."""

    def hidden_states(self, rows: list[list[int]]) -> list[Sequence[float]]: ...


class VectorStore(Protocol):
    """Where embeddings are kept between runs, by :func:`text_key`."""

    def get(self, key: str) -> list[float] | None: ...

    def put(self, key: str, vector: list[float]) -> None: ...


@dataclass(frozen=True, slots=True)
class Plan:
    """What embedding some texts takes: the vectors a store already holds, and the ids
    of the texts the model has to embed (by :func:`text_key`)."""

    held: dict[str, list[float]]
    missing: dict[str, list[int]]

    @property
    def tokens(self) -> int:
        """The ids the model reads, over every missing text."""
        return sum(map(len, self.missing.values()))

    def seconds(self) -> float:
        """About how long the model takes natively (``DENSE_SECONDS_PER_TOKEN``)."""
        return self.tokens * DENSE_SECONDS_PER_TOKEN


class Cancelled(Exception):
    """The work was stopped between two batches; what was embedded is in the store."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"cancelled after {done:,} of {total:,} texts")
        self.done, self.total = done, total


def plan(texts: Iterable[str], store: VectorStore | None = None) -> Plan:
    """Each distinct text looked up in ``store``; the ids of those it lacks."""
    held: dict[str, list[float]] = {}
    missing: dict[str, list[int]] = {}
    for text in texts:
        key = text_key(text)
        if key in held or key in missing:
            continue
        kept = store.get(key) if store is not None else None
        if kept is not None:
            held[key] = kept
        else:
            missing[key] = model_ids(text)
    return Plan(held, missing)


def embed_texts(
    texts: Iterable[str] | Plan,
    embedder: Embedder,
    store: VectorStore | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict[str, list[float]]:
    """The normalized embedding of each text, by :func:`text_key`: from ``store`` when
    it has it, else from the model (and then kept in ``store``). ``progress(done,
    total)`` is called after each batch with the texts embedded so far out of those the
    model has to embed. When ``cancelled()`` is true before a batch, :class:`Cancelled`
    is raised; whatever was embedded before is already in ``store``."""
    work = texts if isinstance(texts, Plan) else plan(texts, store)
    vectors = dict(work.held)
    missing = work.missing
    total, done = len(missing), 0
    for batch in batches(missing):
        if cancelled is not None and cancelled():
            raise Cancelled(done, total)
        rows = [missing[key] for key in batch]
        for key, row, hidden in zip(batch, rows, embedder.hidden_states(rows), strict=True):
            vector = normalize(mean_pool(hidden, [1] * len(row)))
            vectors[key] = vector
            if store is not None:
                store.put(key, vector)
        done += len(batch)
        if progress is not None:
            progress(done, total)
    return vectors


def cosine_scores(query: Sequence[float], chunks: Sequence[Sequence[float]]) -> list[float]:
    """The cosine of each normalized chunk vector with the normalized ``query``: the
    dot product, summed in dimension order."""
    return [sum(map(mul, query, chunk)) for chunk in chunks]


def dense_top(scores: Sequence[float], k: int) -> list[int]:
    """The ``k`` best chunks, best first, equal scores by index (every chunk is a
    candidate, whatever its score).

    >>> dense_top([0.1, -0.2, 0.7, 0.1], 3)
    [2, 0, 3]
    """
    best = heapq.nlargest(k, zip(scores, range(0, -len(scores), -1), strict=True))
    return [-negative for _, negative in best]


def dense_rank_of(scores: Sequence[float], first: int, last: int) -> int:
    """The rank (1-based) of the best-ranked chunk among ``first .. last``.

    >>> dense_rank_of([0.1, -0.2, 0.7, 0.1], 3, 3), dense_rank_of([0.1, -0.2, 0.7, 0.1], 1, 1)
    (3, 4)
    """
    run = scores[first : last + 1]
    score = max(run)
    best = first + run.index(score)
    return 1 + sum(map(score.__lt__, scores)) + scores[:best].count(score)
