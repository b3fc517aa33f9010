"""The reference implementation of every encoding, built from the same pinned files:
what the pure tokenizers are proven against (test dependencies only)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources

from pyapp.core.tokenizers import PAT_STR, load_ranks
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
