"""Real documents for the benchmarks, read at bench time from Debian packages (nothing
is stored in this repository), and the repetitive shapes that stress a tokenizer.

The real texts are the plain-text Debian Reference (Osamu Aoki and its translators,
GPL-2+, https://www.debian.org/doc/manuals/debian-reference/) in English, Simplified
Chinese and Japanese, as the packages ``debian-reference-en``, ``-zh-cn`` and ``-ja``
install it (``/usr/share/debian-reference/debian-reference.<lang>.txt.gz``): the same
document in three scripts, hard-wrapped and indented as its text build writes it.
Each is cut to its first 1,000,000 bytes (at a character boundary) when longer.

    apt-get install -y debian-reference-en debian-reference-zh-cn debian-reference-ja
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Final

SOURCE: Final = "Debian Reference 2.100 (GPL-2+), packages debian-reference-en/-zh-cn/-ja"
LIMIT: Final = 1_000_000

#: name -> the package's language suffix.
LANGUAGES: Final = {"English": "en", "Chinese": "zh-cn", "Japanese": "ja"}
#: The Debian packages that install them (``python build.py bench`` installs them).
PACKAGES: Final = tuple(f"debian-reference-{lang}" for lang in LANGUAGES.values())
INSTALL: Final = "apt-get install -y " + " ".join(PACKAGES)

_DIR: Final = Path("/usr/share/debian-reference")


def real_documents() -> dict[str, str]:
    """``{"English": text, "Chinese": ..., "Japanese": ...}``, each at most
    :data:`LIMIT` bytes of UTF-8; empty when the packages are not installed."""
    out: dict[str, str] = {}
    for name, lang in LANGUAGES.items():
        path = _DIR / f"debian-reference.{lang}.txt.gz"
        if not path.exists():
            return {}
        data = gzip.decompress(path.read_bytes())[:LIMIT]
        out[name] = data.decode("utf-8", errors="ignore")  # drops a character cut in two
    return out


def shapes(n_bytes: int = LIMIT) -> dict[str, str]:
    """One-piece texts of ``n_bytes`` bytes: what a pre-tokenizer makes a single piece."""
    return {
        "1 MB of 'a'": "a" * n_bytes,
        "1 MB of newlines": "\n" * n_bytes,
        "1 MB of '.'": "." * n_bytes,
        "1 MB of one emoji": "\U0001f99c" * (n_bytes // 4),
        "1 MB of spaces": " " * n_bytes,
    }


#: The label of :func:`distinct`'s text.
DISTINCT: Final = "Distinct code points (1 MB, U+0000 on)"


def distinct(n_bytes: int = LIMIT) -> dict[str, str]:
    """Every Unicode scalar value once, in order from U+0000, cut to ``n_bytes`` bytes
    (at a character boundary): the opposite of a shape, a text whose every character
    is new to a tokenizer's memos (rare scripts, symbols, unassigned code points).
    No target of its own natively; in the page it is held to the 2 s of any 1 MB text."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    return {DISTINCT: every.encode()[:n_bytes].decode("utf-8", errors="ignore")}
