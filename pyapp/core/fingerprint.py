"""What names a text: the SHA-256 of its UTF-8 bytes, its size, and its line breaks.

The chunk export, the evidence report and the evidence list each carry this object
(``"text"``), so a document says which text its offsets count in. It is computed on
the text the offsets count in: after a leading byte-order mark (``bom_removed``
says whether there was one). Line breaks are counted as ``crlf`` (``\\r\\n``), and
``cr`` and ``lf`` alone, so a text whose breaks were normalized (as a browser text
box does) is told apart at a glance, not only by its hash.

>>> facts = text_facts("one\\r\\ntwo\\nthree\\r")
>>> facts.to_json()["line_breaks"], facts.bytes, facts.sha256[:12]
({'crlf': 1, 'cr': 1, 'lf': 1}, 15, 'c487d23b88fa')
>>> print(facts.describe())
15 bytes, SHA-256 c487d23b88fa…, line breaks 1 CRLF, 1 CR, 1 LF
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .cache import per_text

__all__ = ["TextFacts", "text_facts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextFacts:
    """``sha256``: hex digest of the text's UTF-8 bytes; ``bytes`` and ``chars`` its
    UTF-8 bytes and code points; ``crlf``, ``cr``, ``lf`` its line breaks."""

    sha256: str
    bytes: int
    chars: int
    crlf: int
    cr: int
    lf: int

    def to_json(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "bytes": self.bytes,
            "chars": self.chars,
            "line_breaks": {"crlf": self.crlf, "cr": self.cr, "lf": self.lf},
        }

    def describe(self) -> str:
        """The text in a few words, for a message naming two different texts."""
        breaks = [
            f"{n:,} {name}"
            for n, name in ((self.crlf, "CRLF"), (self.cr, "CR"), (self.lf, "LF"))
            if n
        ]
        said = ", ".join(breaks) if breaks else "none"
        return f"{self.bytes:,} bytes, SHA-256 {self.sha256[:12]}…, line breaks {said}"


@per_text
def text_facts(text: str) -> TextFacts:
    """The :class:`TextFacts` of ``text`` (already checked: no lone surrogate), kept
    per text."""
    data = text.encode("utf-8")
    crlf = text.count("\r\n")
    return TextFacts(
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=len(data),
        chars=len(text),
        crlf=crlf,
        cr=text.count("\r") - crlf,
        lf=text.count("\n") - crlf,
    )
