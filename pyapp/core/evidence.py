"""Evidence items: the passages an answer needs, as code-point intervals of the text.

An **item** is an ``id`` (a non-empty string or a whole number, unique), a
half-open interval ``[start, end)`` of code points of the text (Python ``str``
indices, counted after a leading byte-order mark, as every offset is), and
optionally a ``question``.

Items arrive as JSON Lines, one object per line, either with offsets or with a
quote (extra keys are ignored, so a line may carry its own metadata)::

    {"id": "e1", "start": 120, "end": 188, "question": "When was it signed?"}
    {"id": "e2", "quote": "signed in 1648", "question": "When was it signed?"}

or, from the page, as a list of such objects (their position in the list is
their "line"). Blank lines are skipped; a line ends at ``\\n`` (a ``\\r`` before
it is dropped), so a raw U+2028 inside a JSON string stays in its line.

**Per line, not per file.** A line that cannot be used gets a :class:`LineError`
(its line number, its id when it has one, and what to change) and the other lines
still count. The problems, each the first one found on its line:

* the line is not JSON, or not a JSON object;
* ``id`` missing, not a string or whole number, empty, or used on an earlier line
  (``1`` and ``"1"`` are the same id);
* neither ``start`` and ``end`` nor ``quote``; only one of ``start`` and ``end``;
* an offset that is not a whole number (``5`` and ``5.0`` are; ``5.5``, ``"5"``,
  ``true`` are not), negative, past the end of the text, or ``end <= start``;
* a ``quote`` that is not a non-empty string, does not occur in the text, or
  occurs more than once (the error says how often and where; overlapping
  occurrences count, so ``"aa"`` occurs twice in ``"aaa"``);
* ``quote`` given with ``start`` and ``end`` that does not match ``text[start:end]``
  (both may be given: the offsets are used and the quote checks them);
* an interval that holds only whitespace: it is no passage, and no word holds it;
* the same interval with the same question (or both with none) as an earlier line:
  it would count twice in every figure (the same passage for another question is
  another item);
* a ``question`` that is not a string (an empty one, or ``null``, means none).

The whole input is refused (an :class:`~pyapp.errors.InputError` on field
``evidence``) only when it is not evidence at all: more than
:data:`~pyapp.facts.MAX_EVIDENCE_ITEMS` lines, or no line usable
(:func:`require_items`).

Finding a quote is the one place the engine searches the text: a quote *is* a
search. Offsets found that way are checked to occur exactly once, so they never
depend on which copy a search would have found.

>>> text = "The treaty was signed in 1648. It was signed again."
>>> ev = parse_jsonl(text, '{"id": "a", "quote": "in 1648"}\\n{"id": "b", "quote": "signed"}')
>>> [(i.id, i.start, i.end) for i in ev.items]
[('a', 22, 29)]
>>> print(ev.errors[0].line, ev.errors[0].message)  # doctest: +ELLIPSIS
2 quote 'signed' occurs 2 times, at 15 and 38: quote more of the passage so that it occurs...
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import InputError
from ..facts import MAX_EVIDENCE_ITEMS
from .cache import per_text
from .params import quote

__all__ = [
    "Evidence",
    "EvidenceItem",
    "LineError",
    "jsonl",
    "parse_items",
    "parse_jsonl",
    "require_items",
]

#: A quote that occurs more than once is reported with at most this many offsets...
SHOWN_OFFSETS: Final = 5
#: ...and counted up to this many occurrences ("1,000 or more times").
COUNTED_OCCURRENCES: Final = 1_000

Id = str | int


@dataclass(frozen=True, slots=True, kw_only=True)
class EvidenceItem:
    """One usable item: ``text[start:end]`` is its passage."""

    line: int
    id: Id
    start: int
    end: int
    question: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class LineError:
    """Why line ``line`` (1-based) was not used; ``id`` when the line had a usable one."""

    line: int
    id: Id | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "id": self.id, "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """The usable items, in input order, and one error per unusable line."""

    items: tuple[EvidenceItem, ...]
    errors: tuple[LineError, ...]
    #: ``"line"`` for JSON Lines, ``"item"`` for a list: how messages name a position.
    noun: str = "line"


class _Bad(Exception):
    """One line's problem (internal: becomes a :class:`LineError`)."""


def _id(raw: object) -> Id:
    if raw is None:
        raise _Bad("id is missing: give each item an id (a string or a whole number)")
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise _Bad(f"id must be a string or a whole number, got {quote(raw)}")
    if isinstance(raw, str) and not raw.strip():
        raise _Bad("id is empty: give each item an id (a string or a whole number)")
    return raw


def _offset(name: str, raw: object) -> int:
    """A whole number of code points (``5`` or ``5.0``; not ``5.5``, ``"5"`` or ``true``)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise _Bad(f"{name} must be a whole number of code points, got {quote(raw)}")
    if isinstance(raw, float):
        if not math.isfinite(raw) or not raw.is_integer():
            raise _Bad(f"{name} must be a whole number of code points, got {quote(raw)}")
        raw = int(raw)
    if raw < 0:
        raise _Bad(f"{name} must not be negative, got {quote(raw)}")
    return raw


def _occurrences(text: str, passage: str) -> list[int]:
    """Offsets where ``passage`` occurs (overlapping ones too), at most
    :data:`COUNTED_OCCURRENCES` of them."""
    found: list[int] = []
    at = text.find(passage)
    while at >= 0 and len(found) < COUNTED_OCCURRENCES:
        found.append(at)
        at = text.find(passage, at + 1)
    return found


def _grouped_list(offsets: list[int]) -> str:
    shown = [f"{o:,}" for o in offsets[:SHOWN_OFFSETS]]
    if len(offsets) > SHOWN_OFFSETS:
        return ", ".join(shown) + ", …"
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _by_quote(text: str, raw: object) -> tuple[int, int]:
    if not isinstance(raw, str):
        raise _Bad(f"quote must be a string, got {quote(raw)}")
    if not raw:
        raise _Bad("quote is empty: copy the passage from the text, or give start and end")
    first = text.find(raw)
    if first < 0:
        raise _Bad(
            f"quote {quote(raw)} does not occur in the text: copy it exactly (case, spaces"
            " and punctuation count), or give start and end"
        )
    second = text.find(raw, first + 1)
    if second < 0:
        return first, first + len(raw)
    offsets = _occurrences(text, raw)
    times = (
        f"{COUNTED_OCCURRENCES:,} or more times"
        if len(offsets) >= COUNTED_OCCURRENCES
        else f"{len(offsets):,} times"
    )
    raise _Bad(
        f"quote {quote(raw)} occurs {times}, at {_grouped_list(offsets)}: quote more of the"
        " passage so that it occurs once, or give start and end"
    )


def _interval(text: str, obj: dict[str, Any]) -> tuple[int, int]:
    has_start, has_end = obj.get("start") is not None, obj.get("end") is not None
    if not has_start and not has_end:
        if obj.get("quote") is None:
            raise _Bad("give start and end (code-point offsets), or a quote")
        return _by_quote(text, obj["quote"])
    if not has_start or not has_end:
        missing = "end" if has_start else "start"
        raise _Bad(f"{missing} is missing: give both start and end, or a quote")
    start, end = _offset("start", obj["start"]), _offset("end", obj["end"])
    length = len(text)
    if end > length:
        raise _Bad(
            f"end ({end:,}) is past the end of the text ({length:,} code points):"
            " check the offsets against this text"
        )
    if end <= start:
        raise _Bad(
            f"end ({end:,}) must be greater than start ({start:,}): an item holds at least"
            " one character"
        )
    given = obj.get("quote")
    if given is not None and given != text[start:end]:
        raise _Bad(
            f"quote {quote(given)} does not match the text at [{start:,}, {end:,}),"
            f" which is {quote(text[start:end])}: fix the quote or the offsets"
        )
    return start, end


def _question(raw: object) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _Bad(f"question must be a string, got {quote(raw)}")
    return raw if raw.strip() else None


def _describe(value: object) -> str:
    kinds = {list: "a JSON list", str: "a JSON string", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a JSON number")


def _parse(text: str, lines: Sequence[tuple[int, str]], noun: str) -> Evidence:
    if len(lines) > MAX_EVIDENCE_ITEMS:
        raise InputError(
            "evidence",
            f"the evidence has {len(lines):,} {noun}s, over the {MAX_EVIDENCE_ITEMS:,}-item"
            " limit: split it and check each part",
        )
    items: list[EvidenceItem] = []
    errors: list[LineError] = []
    seen: dict[str, int] = {}
    #: (start, end, question) -> the line that has it: the same passage for the same
    #: question twice would count twice in every coverage and recall figure.
    passages: dict[tuple[int, int, str | None], int] = {}
    for number, raw in lines:
        item_id: Id | None = None
        try:
            try:
                obj = json.loads(raw)
            except RecursionError:
                raise _Bad("nested too deeply to be an evidence item") from None
            except json.JSONDecodeError as exc:
                raise _Bad(
                    f"not JSON ({exc.msg} at column {exc.colno}): write one JSON object per line"
                ) from None
            if not isinstance(obj, dict):
                raise _Bad(
                    f"{_describe(obj)}, not an object: write"
                    ' {"id": ..., "start": ..., "end": ...} or {"id": ..., "quote": ...}'
                )
            item_id = _id(obj.get("id"))
            key = str(item_id)
            if key in seen:
                raise _Bad(
                    f"id {quote(item_id)} is already used on {noun} {seen[key]}:"
                    " give each item its own id"
                )
            start, end = _interval(text, obj)
            if text[start:end].isspace():
                raise _Bad(f"[{start:,}, {end:,}) holds only whitespace: evidence needs some text")
            question = _question(obj.get("question"))
            same = passages.get((start, end, question))
            if same is not None:
                asked = "with the same question" if question is not None else "with no question"
                raise _Bad(
                    f"the passage [{start:,}, {end:,}) is already on {noun} {same} {asked}:"
                    " it counts once, so remove one of them"
                )
        except _Bad as bad:
            errors.append(LineError(line=number, id=item_id, message=str(bad)))
            continue
        seen[key] = number
        passages[(start, end, question)] = number
        items.append(EvidenceItem(line=number, id=item_id, start=start, end=end, question=question))
    return Evidence(items=tuple(items), errors=tuple(errors), noun=noun)


@per_text
def parse_jsonl(text: str, source: str) -> Evidence:
    """Items from JSON Lines ``source`` (a leading byte-order mark is dropped), against
    ``text``. Kept per text: a new size or overlap does not parse or search again."""
    if source.startswith("\ufeff"):
        source = source[1:]
    lines = [
        (number, line.removesuffix("\r"))
        for number, line in enumerate(source.split("\n"), start=1)
        if line.strip()
    ]
    return _parse(text, lines, "line")


def parse_items(text: str, items: object) -> Evidence:
    """Items from a list of objects (the page's), against ``text``; position ``n`` of
    the list is its "item n".

    >>> ev = parse_items("one two three", [{"id": 1, "start": 4, "end": 7}, {"id": 1}])
    >>> ev.items[0].start, ev.errors[0].message
    (4, 'id 1 is already used on item 1: give each item its own id')
    """
    if not isinstance(items, list):
        raise InputError("evidence", f"evidence must be a list of items, got {quote(items)}")
    if len(items) > MAX_EVIDENCE_ITEMS:
        raise InputError(
            "evidence",
            f"the evidence has {len(items):,} items, over the {MAX_EVIDENCE_ITEMS:,}-item"
            " limit: split it and check each part",
        )
    lines = tuple(
        (number, json.dumps(item, ensure_ascii=False)) for number, item in enumerate(items, 1)
    )
    return _parse_cached(text, lines)


@per_text
def _parse_cached(text: str, lines: tuple[tuple[int, str], ...]) -> Evidence:
    return _parse(text, lines, "item")


def require_items(evidence: Evidence) -> None:
    """Refuse evidence of which nothing could be used, naming the first problem.

    >>> try:  # doctest: +ELLIPSIS
    ...     require_items(parse_jsonl("abc", "[1, 2]"))
    ... except InputError as err:
    ...     print(err)
    no evidence item could be used: line 1: a JSON list, not an object: write {"id": ...
    """
    if evidence.items:
        return
    if not evidence.errors:
        raise InputError(
            "evidence",
            'the evidence is empty: give one JSON object per line, {"id": ..., "start": ...,'
            ' "end": ...} or {"id": ..., "quote": ...}',
        )
    first = evidence.errors[0]
    more = len(evidence.errors) - 1
    also = f" (and {more} more {evidence.noun}{'s' if more > 1 else ''})" if more else ""
    raise InputError(
        "evidence",
        f"no evidence item could be used: {evidence.noun} {first.line}: {first.message}{also}",
    )


def jsonl(items: Sequence[EvidenceItem]) -> str:
    """The items as JSON Lines, offsets resolved: what the page's evidence list exports
    and what ``--evidence`` reads back to the same items.

    >>> print(jsonl([EvidenceItem(line=1, id="a", start=0, end=3, question="Why?")]), end="")
    {"id": "a", "start": 0, "end": 3, "question": "Why?"}
    """
    out: list[str] = []
    for item in items:
        line: dict[str, Any] = {"id": item.id, "start": item.start, "end": item.end}
        if item.question is not None:
            line["question"] = item.question
        out.append(json.dumps(line, ensure_ascii=False) + "\n")
    return "".join(out)
