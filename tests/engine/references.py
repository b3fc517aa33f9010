"""Slow, obvious references the engine is checked against (no cleverness here)."""

from __future__ import annotations

from pyapp.core.tokenizers import get_tokenizer, load_ranks


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
    decoder = {rank: token for token, rank in load_ranks("o200k_base").items()}
    out, byte = [], 0
    for token_id in get_tokenizer("o200k_base").encode(text):
        end = byte + len(decoder[token_id])
        char_start = max(i for i, b in enumerate(prefix_bytes) if b <= byte)
        char_end = min(i for i, b in enumerate(prefix_bytes) if b >= end)
        out.append((char_start, char_end, byte, end))
        byte = end
    return out
