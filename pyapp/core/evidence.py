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
* a ``question`` that is not a string (an empty one, or ``null``, means none).

The whole input is refused (an :class:`~pyapp.errors.InputError` on field
``evidence``) only when it is not evidence at all: more than
:data:`~pyapp.facts.MAX_EVIDENCE_ITEMS` lines, or no line usable
(:func:`require_items`).

Finding a quote is the one place the engine searches the text: a quote *is* a
search. Offsets found that way are checked to occur exactly once, so they never
depend on which copy a search would have found. Every quote of the input is
searched for at once (:mod:`pyapp.core.quotes`): the cost is the text plus the
quotes, not their product.

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
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..errors import InputError
from ..facts import MAX_EVIDENCE_ITEMS
from .cache import per_text
from .fingerprint import TextFacts, text_facts
from .params import quote
from .quotes import COUNTED, Found, find_quotes

__all__ = [
    "Evidence",
    "EvidenceItem",
    "LineError",
    "jsonl",
    "parse_items",
    "parse_jsonl",
    "require_fit",
    "require_items",
]

#: A quote that occurs more than once is reported with at most this many offsets...
SHOWN_OFFSETS: Final = 5
#: ...and counted up to this many occurrences ("100 or more times").
COUNTED_OCCURRENCES: Final = COUNTED

Id = str | int

#: A lone surrogate: a JSON string may hold one (``"\\ud800"``), UTF-8 cannot.
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_HEX: Final = re.compile("[0-9a-fA-F]{1,64}")


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
    #: Whether the line does not fit this text: ``"text"`` for a ``text`` line naming
    #: another text, ``"passage"`` for an offset past its end or a quote that differs
    #: from the text at its offsets. The evidence was made on another text, and
    #: ``python -m pyapp evidence`` refuses it (:func:`require_fit`).
    misfit: str | None = None

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


class _Misfit(_Bad):
    """A problem that says the line was made on another text (:attr:`LineError.misfit`)."""

    kind = "passage"


class _OtherText(_Misfit):
    kind = "text"


def _surrogate(name: str, raw: str) -> None:
    """Refuses a string UTF-8 cannot hold: it could not be written to a report."""
    found = _SURROGATE.search(raw)
    if found is not None:
        at = found.start()
        raise _Bad(
            f"{name} has an unpaired surrogate U+{ord(raw[at]):04X} at character {at:,},"
            " which UTF-8 cannot hold: remove it"
        )


def _id(raw: object) -> Id:
    if raw is None:
        raise _Bad("id is missing: give each item an id (a string or a whole number)")
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise _Bad(f"id must be a string or a whole number, got {quote(raw)}")
    if isinstance(raw, str):
        if not raw.strip():
            raise _Bad("id is empty: give each item an id (a string or a whole number)")
        _surrogate("id", raw)
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


def _grouped_list(offsets: list[int]) -> str:
    shown = [f"{o:,}" for o in offsets[:SHOWN_OFFSETS]]
    if len(offsets) > SHOWN_OFFSETS:
        return ", ".join(shown) + ", …"
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _searched(obj: object) -> str | None:
    """The quote a loaded line asks to be searched for, if any."""
    if not isinstance(obj, dict) or obj.get("start") is not None or obj.get("end") is not None:
        return None
    raw = obj.get("quote")
    return raw if isinstance(raw, str) and raw else None


def _by_quote(raw: object, found: dict[str, Found]) -> tuple[int, int]:
    if not isinstance(raw, str):
        raise _Bad(f"quote must be a string, got {quote(raw)}")
    if not raw:
        raise _Bad("quote is empty: copy the passage from the text, or give start and end")
    hit = found[raw]
    if hit.count == 0:
        raise _Bad(
            f"quote {quote(raw)} does not occur in the text: copy it exactly (case, spaces"
            " and punctuation count), or give start and end"
        )
    if hit.count == 1:
        return hit.offsets[0], hit.offsets[0] + len(raw)
    times = (
        f"{COUNTED_OCCURRENCES:,} or more times"
        if hit.count >= COUNTED_OCCURRENCES
        else f"{hit.count:,} times"
    )
    raise _Bad(
        f"quote {quote(raw)} occurs {times}, at {_grouped_list(hit.offsets)}: quote more of"
        " the passage so that it occurs once, or give start and end"
    )


def _interval(text: str, obj: dict[str, Any], found: dict[str, Found]) -> tuple[int, int]:
    has_start, has_end = obj.get("start") is not None, obj.get("end") is not None
    if not has_start and not has_end:
        if obj.get("quote") is None:
            raise _Bad("give start and end (code-point offsets), or a quote")
        return _by_quote(obj["quote"], found)
    if not has_start or not has_end:
        missing = "end" if has_start else "start"
        raise _Bad(f"{missing} is missing: give both start and end, or a quote")
    start, end = _offset("start", obj["start"]), _offset("end", obj["end"])
    length = len(text)
    if end > length:
        raise _Misfit(
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
        raise _Misfit(
            f"quote {quote(given)} does not match the text at [{start:,}, {end:,}),"
            f" which is {quote(text[start:end])}: fix the quote or the offsets"
        )
    return start, end


def _question(raw: object) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _Bad(f"question must be a string, got {quote(raw)}")
    _surrogate("question", raw)
    return raw if raw.strip() else None


def _describe(value: object) -> str:
    kinds = {list: "a JSON list", str: "a JSON string", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a JSON number")


def _too_many(count: int, noun: str) -> InputError:
    return InputError(
        "evidence",
        f"the evidence has {count:,} {noun}s, over the {MAX_EVIDENCE_ITEMS:,}-item"
        " limit: split it and check each part",
    )


def _named(named: dict[str, Any], sha: str) -> str:
    """What a ``text`` line says of its text, in :meth:`TextFacts.describe`'s words."""
    shown = sha[:12] if _HEX.fullmatch(sha) else quote(sha)
    parts = [f"SHA-256 {shown}…"]
    size = named.get("bytes")
    if isinstance(size, int) and not isinstance(size, bool) and 0 <= size < 10**15:
        parts.insert(0, f"{size:,} bytes")
    breaks = named.get("line_breaks")
    if isinstance(breaks, dict):
        counts = [(breaks.get(k), k.upper()) for k in ("crlf", "cr", "lf")]
        listed = [f"{n:,} {k}" for n, k in counts if isinstance(n, int) and 0 < n < 10**15]
        parts.append("line breaks " + (", ".join(listed) or "none"))
    return ", ".join(parts)


def _text_line(text: str, named: object) -> None:
    """Checks a ``{"text": {...}}`` line (:mod:`~pyapp.core.fingerprint`'s object, as
    the exports write it) against ``text``: its ``sha256`` decides."""
    sha = named.get("sha256") if isinstance(named, dict) else None
    if not isinstance(sha, str) or not sha:
        raise _Bad(
            'a text line names its text as {"text": {"sha256": ...}}, as the exports write'
            f" it; got {quote(named)}"
        )
    assert isinstance(named, dict)
    facts = text_facts(text)
    if sha.lower() != facts.sha256:
        raise _OtherText(
            f"names another text ({_named(named, sha)}) than this one ({facts.describe()}):"
            " check the evidence against the text it was made on"
        )


def _load(raw: str) -> object:
    """A line's JSON value, or the :class:`_Bad` saying why it has none."""
    try:
        return json.loads(raw)
    except RecursionError:
        return _Bad("nested too deeply to be an evidence item")
    except json.JSONDecodeError as exc:
        return _Bad(f"not JSON ({exc.msg} at column {exc.colno}): write one JSON object per line")
    except ValueError:  # an integer of more digits than Python converts
        return _Bad(
            f"holds a number of more than {sys.get_int_max_str_digits():,} digits,"
            " which no offset or id can be: write offsets and ids as short numbers"
        )


def _parse(text: str, lines: Sequence[tuple[int, str]], noun: str) -> Evidence:
    if len(lines) > MAX_EVIDENCE_ITEMS + 1:  # one more: a line may name the text
        raise _too_many(len(lines), noun)
    items: list[EvidenceItem] = []
    errors: list[LineError] = []
    seen: dict[str, int] = {}
    text_lines = 0
    loaded = [_load(raw) for _, raw in lines]
    # Every quote is searched for at once: one pass over the text, not one per quote.
    wanted = [q for q in map(_searched, loaded) if q is not None]
    found = dict(zip(wanted, find_quotes(text, wanted), strict=True))
    for (number, _), obj in zip(lines, loaded, strict=True):
        item_id: Id | None = None
        try:
            if isinstance(obj, _Bad):
                raise obj
            if not isinstance(obj, dict):
                raise _Bad(
                    f"{_describe(obj)}, not an object: write"
                    ' {"id": ..., "start": ..., "end": ...} or {"id": ..., "quote": ...}'
                )
            if "text" in obj and "id" not in obj:
                text_lines += 1
                _text_line(text, obj["text"])
                continue
            item_id = _id(obj.get("id"))
            key = str(item_id)
            if key in seen:
                raise _Bad(
                    f"id {quote(item_id)} is already used on {noun} {seen[key]}:"
                    " give each item its own id"
                )
            start, end = _interval(text, obj, found)
            if text[start:end].isspace():
                raise _Bad(f"[{start:,}, {end:,}) holds only whitespace: evidence needs some text")
            question = _question(obj.get("question"))
        except _Bad as bad:
            misfit = bad.kind if isinstance(bad, _Misfit) else None
            errors.append(LineError(line=number, id=item_id, message=str(bad), misfit=misfit))
            continue
        seen[key] = number
        items.append(EvidenceItem(line=number, id=item_id, start=start, end=end, question=question))
    if len(lines) - text_lines > MAX_EVIDENCE_ITEMS:
        raise _too_many(len(lines) - text_lines, noun)
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
    if len(items) > MAX_EVIDENCE_ITEMS + 1:
        raise _too_many(len(items), "item")
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


def require_fit(evidence: Evidence) -> None:
    """Refuse evidence that was made on another text (a :attr:`LineError.misfit` line),
    naming its first such line: checking the rest would check other passages.

    >>> lines = '{"id": 1, "start": 0, "end": 2}\\n{"id": 2, "start": 1, "end": 9}'
    >>> try:  # doctest: +ELLIPSIS
    ...     require_fit(parse_jsonl("abc", lines))
    ... except InputError as err:
    ...     print(err)
    line 2 does not fit this text: end (9) is past the end of the text (3 code points)...
    """
    misfits = [e for e in evidence.errors if e.misfit]
    if not misfits:
        return
    # A line naming another text says why the others do not fit: it goes first.
    first = min(misfits, key=lambda e: e.misfit != "text")
    more = len(misfits) - 1
    also = f" (and {more:,} more {evidence.noun}{'s' if more > 1 else ''})" if more else ""
    raise InputError(
        "evidence",
        f"{evidence.noun} {first.line} does not fit this text: {first.message}{also}",
    )


def jsonl(items: Sequence[EvidenceItem], *, text: TextFacts | None = None) -> str:
    """The items as JSON Lines, offsets resolved: what the page's evidence list exports
    and what ``--evidence`` reads back to the same items. With ``text``, a last line
    ``{"text": {...}}`` names the text the offsets count in (last, so that item
    ``n`` stays on line ``n``), and reading the file against another text says so.

    >>> print(jsonl([EvidenceItem(line=1, id="a", start=0, end=3, question="Why?")]), end="")
    {"id": "a", "start": 0, "end": 3, "question": "Why?"}
    """
    out: list[str] = []
    for item in items:
        line: dict[str, Any] = {"id": item.id, "start": item.start, "end": item.end}
        if item.question is not None:
            line["question"] = item.question
        out.append(json.dumps(line, ensure_ascii=False) + "\n")
    if text is not None:
        out.append(json.dumps({"text": text.to_json()}, ensure_ascii=False) + "\n")
    return "".join(out)
