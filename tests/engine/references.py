"""Slow, obvious references the engine is checked against: the reference library of
every encoding, built from the same pinned files (test dependencies only), and the
units of a text found the plain way."""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources

from pyapp.core.tokenizers import PAT_STR, get_tokenizer, load_ranks
from pyapp.vocabularies import DATA_DIR

Encode = Callable[[str], list[int]]


def _vocab_path(name: str, file: str) -> str:
    return str(resources.files("pyapp").joinpath(DATA_DIR, name, file))


@functools.cache
def reference(name: str) -> Encode:
    """Token ids of plain text (special-token text is text) by the reference library."""
    import tiktoken

    if name == "bert-base-uncased":
        from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

        with open(_vocab_path(name, "vocab.txt"), encoding="utf-8") as handle:
            vocab = {line: i for i, line in enumerate(handle.read().split("\n")) if line}
        # bert-base-uncased's tokenizer.json, without its added tokens (which would make
        # "[CLS]" in a text a special token) and without the [CLS]/[SEP] template.
        tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=100))
        tok.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
        )
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        return lambda text: list(tok.encode(text, add_special_tokens=False).ids)
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tekken = Tekkenizer.from_file(_vocab_path(name, "tekken_240718.json"))
        return lambda text: list(tekken.encode(text, bos=False, eos=False))
    encoding = tiktoken.Encoding(
        name, pat_str=PAT_STR[name], mergeable_ranks=load_ranks(name), special_tokens={}
    )
    if name == "qwen2":  # Qwen2's tokenizer.json: NFC (the Rust normalizer), then the BPE
        from tokenizers import normalizers

        nfc = normalizers.NFC().normalize_str
        return lambda text: encoding.encode_ordinary(nfc(text))
    return encoding.encode_ordinary


@functools.cache
def _o200k_decoder() -> dict[int, bytes]:
    return {rank: token for token, rank in load_ranks("o200k_base").items()}


def reference_units(text: str, unit: str) -> list[tuple[int, int, int, int]]:
    """(char_start, char_end, byte_start, byte_end) of each unit, the slow obvious way."""
    prefix_bytes = [len(text[:i].encode()) for i in range(len(text) + 1)]
    if unit == "char":
        return [(i, i + 1, prefix_bytes[i], prefix_bytes[i + 1]) for i in range(len(text))]
    if unit == "word":
        out, start = [], None
        for i, ch in enumerate(text + " "):
            if ch.isspace() or i == len(text):
                if start is not None:
                    out.append((start, i, prefix_bytes[start], prefix_bytes[i]))
                start = None
            elif start is None:
                start = i
        return out
    decoder = _o200k_decoder()
    out, byte = [], 0
    for token_id in get_tokenizer("o200k_base").encode(text):
        end = byte + len(decoder[token_id])
        char_start = max(i for i, b in enumerate(prefix_bytes) if b <= byte)
        char_end = min(i for i, b in enumerate(prefix_bytes) if b >= end)
        out.append((char_start, char_end, byte, end))
        byte = end
    return out
