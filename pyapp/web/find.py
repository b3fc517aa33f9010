"""The text view's find box: where a search occurs, and which chunks hold each match.

A match is an occurrence of the search, compared case-insensitively (Python's
``re.IGNORECASE`` on the escaped search, so every character is literal), found
left to right without overlapping. Offsets are code points of the text (after a
leading byte-order mark, as every offset). A chunk **holds** a match when the
match lies whole inside it (``char_start <= start`` and ``end <= char_end``); a
match no chunk holds whole is **cut**, which is what a retriever would miss.

>>> from ..core.chunkings import Chunking
>>> spans = Chunking("Ab ab aB", [0, 3], [5, 8])
>>> found = find_matches(spans, "ab")
>>> found["starts"], found["ends"], found["chunks"], found["cut"]
([0, 3, 6], [2, 5, 8], [0, 1], 0)
>>> find_matches(Chunking("one two", [0, 4], [3, 7]), "e t")["cut"]  # across a boundary
1
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import Any

from ..core.chunkings import Chunking
from ..core.params import quote
from ..errors import InputError
from ..facts import FIND_MATCHES_PLACED, FIND_MAX_CHARS
from .strip import ordered_chunking

__all__ = ["find_matches", "locate", "parse_query"]

JSON = dict[str, Any]


def parse_query(query: object) -> str:
    """The search as typed: a string of 1 to :data:`~pyapp.facts.FIND_MAX_CHARS` code points.

    >>> parse_query("x" * 1001)
    Traceback (most recent call last):
    ...
    pyapp.errors.InputError: the search is 1,001 characters long: search for at most 1,000
    """
    if not isinstance(query, str) or query == "":
        raise InputError("query", "the search is empty: type what to find")
    if len(query) > FIND_MAX_CHARS:
        raise InputError(
            "query",
            f"the search is {len(query):,} characters long: search for at most {FIND_MAX_CHARS:,}",
        )
    return query


def find_matches(chunking: Chunking, query: str) -> JSON:
    """Every match of ``query`` in ``chunking``'s text: how many (``count``), where the
    first :data:`~pyapp.facts.FIND_MATCHES_PLACED` are (``starts``, ``ends``, and
    ``held``: the first chunk holding each whole, or -1), every chunk holding at least
    one match whole (``chunk_count``; the first
    :data:`~pyapp.facts.FIND_MATCHES_PLACED` of them in ``chunks``, in order), and how
    many matches no chunk holds whole (``cut``)."""
    cs, ce = chunking.char_starts, chunking.char_ends
    ordered = ordered_chunking(chunking)
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    starts: list[int] = []
    ends: list[int] = []
    held: list[int] = []
    chunks: set[int] = set()
    count = cut = 0
    for match in pattern.finditer(chunking.text):
        a, b = match.span()
        lo, hi = _holding(cs, ce, a, b, ordered)
        count += 1
        if lo > hi:
            cut += 1
        else:
            chunks.update(range(lo, hi + 1))
        if count <= FIND_MATCHES_PLACED:
            starts.append(a)
            ends.append(b)
            held.append(lo if lo <= hi else -1)
    return {
        "query": query,
        "count": count,
        "starts": starts,
        "ends": ends,
        "held": held,
        "chunks": sorted(chunks)[:FIND_MATCHES_PLACED],
        "chunk_count": len(chunks),
        "cut": cut,
    }


def _holding(cs: list[int], ce: list[int], a: int, b: int, ordered: bool) -> tuple[int, int]:
    """The first and last chunk holding ``[a, b)`` whole (first > last when none)."""
    if ordered:
        return bisect_left(ce, b), bisect_right(cs, a) - 1
    found = [k for k in range(len(cs)) if cs[k] <= a and b <= ce[k]]
    return (found[0], found[-1]) if found else (1, 0)


def locate(chunking: Chunking, typed: object) -> JSON:
    """Chunk ``N`` as typed (counted from 1) for "go to chunk N", with where it lies, or
    a message naming the chunks there are.

    >>> spans = Chunking("one two three", [0, 4], [7, 13])
    >>> locate(spans, " 2 ")
    {'index': 1, 'char_start': 4, 'char_end': 13}
    >>> locate(spans, "3")
    Traceback (most recent call last):
    ...
    pyapp.errors.InputError: there is no chunk 3: type a chunk number from 1 to 2
    """
    count = chunking.count
    words = f"type a chunk number from 1 to {count:,}" if count else "the text has no chunks"
    text = str(typed).strip().replace(",", "") if isinstance(typed, (str, int)) else ""
    if isinstance(typed, bool) or not text.isdigit() or not text.isascii() or len(text) > 12:
        raise InputError("chunk", f"{quote(typed)} is not a chunk number: {words}")
    number = int(text)
    if not 1 <= number <= count:
        raise InputError("chunk", f"there is no chunk {number:,}: {words}")
    k = number - 1
    return {"index": k, "char_start": chunking.char_starts[k], "char_end": chunking.char_ends[k]}
