"""What an embedding model reads of a chunk: the one truncation rule.

A model reads at most ``max_tokens`` tokens, its special tokens included (``[CLS]`` and
``[SEP]`` for BERT models), so of a chunk's own tokens it keeps the first
``max_tokens - special_tokens`` and drops the rest, as Hugging Face ``tokenizers`` does
with truncation on. The **cut** is the code point where the kept tokens end (the end
of the last kept token): ``chunk[:cut]`` is what the model reads, ``chunk[cut:]`` the
tail it never reads. A token that ends inside a character (byte-level BPE) counts that
character as read: the tail is the text of which the model reads nothing.

Every caller that truncates a text for a model (the audit's truncation lens, dense
retrieval) uses :func:`model_cut`, so they agree to the code point.

>>> bert = {"encoding": "bert-base-uncased", "special_tokens": 2}
>>> t = model_cut("hello world, hello again", max_tokens=5, **bert)
>>> t.tokens, t.kept, t.cut, "hello world, hello again"[: t.cut]
(7, 3, 12, 'hello world,')
>>> model_cut("short", max_tokens=5, **bert).cut is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .tokenizers import Backend, get_tokenizer

__all__ = ["Truncation", "model_cut"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Truncation:
    """A text measured against a model: ``tokens`` is the model's count, special tokens
    included; ``cut`` the code point where its input ends (``None`` when the model reads
    it whole); ``kept`` and ``dropped`` count the text's own tokens read and not read."""

    tokens: int
    kept: int
    dropped: int
    cut: int | None

    @property
    def truncated(self) -> bool:
        return self.cut is not None


def model_cut(
    text: str,
    *,
    encoding: str,
    max_tokens: int,
    special_tokens: int,
    backend: Backend | None = None,
) -> Truncation:
    """``text`` as a model with this encoding and limit reads it (see the module docstring)."""
    tokenizer = get_tokenizer(encoding, backend=backend)
    room = max(max_tokens - special_tokens, 0)
    if tokenizer.name == "bert-base-uncased":  # one pass gives the count and the spans
        ids, _, ends = tokenizer.encode_spans(text)
        count = len(ids)
    else:
        count = tokenizer.count(text)
        ends = []
    if count <= room:
        return Truncation(tokens=count + special_tokens, kept=count, dropped=0, cut=None)
    if not ends:
        _, _, ends = tokenizer.encode_spans(text)
    cut_byte = ends[room - 1] if room else 0
    return Truncation(
        tokens=count + special_tokens,
        kept=room,
        dropped=count - room,
        cut=_char_at_or_after(text, cut_byte),
    )


def _char_at_or_after(text: str, byte: int) -> int:
    """The code point offset of UTF-8 byte ``byte`` of ``text``, rounded up to the end of
    the character it falls inside.

    >>> _char_at_or_after("aé b", 2), _char_at_or_after("aé b", 3)
    (2, 2)
    """
    data = text.encode("utf-8", "surrogatepass")
    while byte < len(data) and (data[byte] & 0xC0) == 0x80:  # inside a character
        byte += 1
    return len(data[:byte].decode("utf-8", "surrogatepass"))
