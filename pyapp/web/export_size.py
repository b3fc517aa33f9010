"""How large the full download would be, without building it.

Past a cap the page offers to show every chunk anyway, and says what that costs:
the download then holds every chunk, and :func:`export_size` estimates its bytes
from closed forms, in time independent of the number of chunks.

The export (:mod:`pyapp.core.export`) is the document around the chunk list, then
per chunk a fixed skeleton (keys, indentation, punctuation), the digits of its
numbers, and its text written twice (``text``, then ``repeated_prefix`` and
``fresh_text``; word mode adds the ``preview``). Exact: the document, the skeleton,
the digits of the index and the unit offsets. Estimated: the code-point and byte
offsets (spread evenly over the text), and the text's bytes, which are the
text's own UTF-8 bytes and JSON escapes scaled by processed / units, since the
windows repeat the overlap evenly over the text.

>>> from ..core.chunking import chunk_text
>>> from ..core.export import dumps
>>> from ..core.params import parse_params
>>> text = "Fixed windows cut text.\\n" * 400
>>> params = parse_params(unit="word", size=5, overlap=2, caps=False)
>>> actual = len(dumps(chunk_text(text, params)).encode())
>>> estimate = export_size(text, chunk_text(text, params, chunks=False))
>>> abs(estimate - actual) / actual < 0.02
True
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from itertools import chain
from typing import Final

from ..core.cache import per_text
from ..core.chunking import Report
from ..core.chunkings import Chunk
from ..core.export import chunk_json, document
from ..core.units import ASCII_SPACES

__all__ = ["export_size"]

#: Characters ``json.dumps`` writes as two characters (``\\"``, ``\\n``, ...).
_SHORT_ESCAPES: Final = '"\\\n\r\t\b\f'
#: Every character it escapes; the rest of these become ``\\u00XX`` (six).
_ESCAPED: Final = re.compile(r'["\\\x00-\x1f]')


@per_text
def _text_figures(text: str) -> tuple[int, int, int, int]:
    """``(bytes of non-whitespace, bytes of whitespace, escape bytes in
    non-whitespace, escape bytes in whitespace)``: what JSON adds per character."""
    size = len(text.encode("utf-8"))
    if text.isascii():  # a byte per character: count the spaces without splitting
        nonws = size - text.encode("ascii").translate(ASCII_SPACES).count(b" ")
    else:
        nonws = len("".join(text.split()).encode("utf-8"))
    escaped = _ESCAPED.findall(text)
    extra_all = sum(1 if ch in _SHORT_ESCAPES else 5 for ch in escaped)
    extra_ws = sum(1 if ch in _SHORT_ESCAPES else 5 for ch in escaped if ch.isspace())
    return nonws, size - nonws, extra_all - extra_ws, extra_ws


def _digits(count: int, first: Fraction, step: Fraction) -> int:
    """The digits of ``first + k * step`` (rounded down) for ``k < count``, summed."""
    total = count  # every number has at least one digit
    power = 10
    last = first + (count - 1) * step
    while last >= power:
        below = 0 if first >= power else math.ceil((power - first) / step) if step else count
        total += count - min(count, below)
        power *= 10
    return total


def _dumped(doc: object) -> int:
    return len((json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


def _document_size(report: Report) -> int:
    """The export's exact length with no chunks and no cap: the cut sentences' spans
    are counted from one and two template spans and their digits (the encoder that
    indents is pure Python, too slow for tens of thousands of spans on every edit)."""
    doc = document(report)
    bounds = doc["boundaries"]
    spans = bounds["cut_spans"] if bounds else []

    def size(with_spans: list[list[int]]) -> int:
        cut = {**bounds, "cut_spans": with_spans} if bounds else None
        return _dumped({**doc, "boundaries": cut, "chunks": [], "capped": None})

    if not spans:
        return size([])
    first = size([[0, 0]])
    each = size([[0, 0], [0, 0]]) - first
    digits = sum(map(len, map(str, chain.from_iterable(spans)))) - 2 * len(spans)
    return first + (len(spans) - 1) * each + digits


def _chunk_skeletons(unit: str) -> tuple[int, int]:
    """What the first chunk and each further one add to the chunk list, with empty
    text and zero numbers (the list is a key of the document, as in the export)."""
    zero = Chunk(
        index=0, start=0, end=0, char_start=0, char_end=0, byte_start=0, byte_end=0, split=0,
        repeated_units=0, text="", repeated_prefix="", fresh_text="",
        preview_repeated="" if unit == "word" else None,
        preview_fresh="" if unit == "word" else None,
        tokens_alone=0 if unit == "token" else None,
    )  # fmt: skip
    sizes = [_dumped({"chunks": [chunk_json(zero)] * n}) for n in range(3)]
    return sizes[1] - sizes[0], sizes[2] - sizes[1]


def export_size(text: str, report: Report) -> int:
    """The estimated UTF-8 bytes of ``report``'s export with the caps lifted
    (``text`` without a leading byte-order mark; ``report`` may leave its chunks out)."""
    s, p = report.summary, report.params
    n, units = s.chunks, s.units
    empty = _document_size(report)
    if n == 0:
        return empty
    first, skeleton = _chunk_skeletons(p.unit)
    size, stride = p.size, p.size - p.overlap
    length, size_bytes = s.input_chars, s.input_bytes
    # Digits beyond the template's one "0" per number.
    digits = _digits(n, Fraction(0), Fraction(1))  # index
    digits += _digits(n, Fraction(0), Fraction(stride))  # start
    digits += _digits(n, Fraction(size), Fraction(stride))  # end
    for total in (length, size_bytes):  # char_start, char_end; byte_start, byte_end
        digits += _digits(n, Fraction(0), Fraction(total, n))
        digits += _digits(n, Fraction(total, n), Fraction(total, n))
    digits += 1 + (n - 1) * len(str(p.overlap))  # repeated_units
    digits += len(str(min(size, units))) + (n - 1) * len(str(stride))  # fresh_units
    if p.unit == "token":
        digits += n * len(str(size))  # tokens_alone
    numbers = 10 + (p.unit == "token")
    digits -= n * numbers
    nonws, ws, esc_nonws, esc_ws = _text_figures(text)
    processed = Fraction(s.processed_units, units)
    if p.unit == "word":
        gaps = Fraction(s.processed_units - n, max(units - 1, 1))  # whitespace runs held
        body = processed * (nonws + esc_nonws) + gaps * (ws + esc_ws)
        preview = processed * (nonws + esc_nonws) + (s.processed_units - n)
    else:
        body = processed * (nonws + ws + esc_nonws + esc_ws)
        preview = Fraction(0)
    return empty + first + (n - 1) * skeleton + digits + round(2 * body + preview)
