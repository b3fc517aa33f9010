"""Reading evidence: every bad line says what to change, and the other lines still count."""

from __future__ import annotations

import json

import pytest

from pyapp.core.evidence import (
    EvidenceItem,
    jsonl,
    parse_items,
    parse_jsonl,
    require_items,
)
from pyapp.errors import InputError
from pyapp.facts import MAX_EVIDENCE_ITEMS

TEXT = "The treaty was signed in 1648. It was signed again in 1649."


def one_error(line: str, text: str = TEXT) -> str:
    """The message for one bad line between two good ones (which still count)."""
    good = '{"id": "ok", "start": 0, "end": 3}'
    evidence = parse_jsonl(text, f"{good}\n{line}\n" + good.replace('"ok"', '"ok2"'))
    assert [i.id for i in evidence.items] == ["ok", "ok2"]
    assert [e.line for e in evidence.errors] == [2]
    return evidence.errors[0].message


def test_offsets_and_quotes_give_the_same_item() -> None:
    evidence = parse_jsonl(
        TEXT,
        '{"id": "a", "start": 22, "end": 29, "question": "When?"}\n'
        '{"id": "b", "quote": "signed in 1648"}\n'
        '{"id": 3, "start": 0.0, "end": 3, "quote": "The", "source": "p. 4"}\n',
    )
    assert evidence.errors == ()
    assert [(i.id, i.start, i.end, i.question) for i in evidence.items] == [
        ("a", 22, 29, "When?"),
        ("b", 15, 29, None),
        (3, 0, 3, None),
    ]
    assert TEXT[15:29] == "signed in 1648"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON (Expecting value at column 1): write one JSON object per line"),
        ("[1, 2]", 'a JSON list, not an object: write {"id": ..., "start": ..., "end": ...}'),
        ('{"start": 0, "end": 3}', "id is missing: give each item an id"),
        ('{"id": 1.5, "start": 0, "end": 3}', "id must be a string or a whole number, got 1.5"),
        ('{"id": " ", "start": 0, "end": 3}', "id is empty"),
        ('{"id": "ok", "start": 4, "end": 6}', "id 'ok' is already used on line 1"),
        ('{"id": "x"}', "give start and end (code-point offsets), or a quote"),
        ('{"id": "x", "start": 4}', "end is missing: give both start and end, or a quote"),
        ('{"id": "x", "end": 4}', "start is missing"),
        ('{"id": "x", "start": 2.5, "end": 4}', "start must be a whole number of code points"),
        ('{"id": "x", "start": "2", "end": 4}', "start must be a whole number of code points"),
        ('{"id": "x", "start": true, "end": 4}', "got true"),
        ('{"id": "x", "start": -1, "end": 4}', "start must not be negative, got -1"),
        ('{"id": "x", "start": 0, "end": 999}', "end (999) is past the end of the text (59 code"),
        ('{"id": "x", "start": 5, "end": 5}', "end (5) must be greater than start (5)"),
        ('{"id": "x", "start": 6, "end": 2}', "end (2) must be greater than start (6)"),
        ('{"id": "x", "quote": 12}', "quote must be a string, got 12"),
        ('{"id": "x", "quote": ""}', "quote is empty"),
        ('{"id": "x", "quote": "signed in 1650"}', "quote 'signed in 1650' does not occur in"),
        ('{"id": "x", "quote": "signed"}', "quote 'signed' occurs 2 times, at 15 and 38:"),
        ('{"id": "x", "start": 0, "end": 3, "quote": "Tha"}', "does not match the text at [0"),
        ('{"id": "x", "start": 3, "end": 4}', "[3, 4) holds only whitespace"),
        ('{"id": "x", "start": 0, "end": 3, "question": 7}', "question must be a string, got 7"),
        ('{"id": "x", "start": ' + "9" * 5000 + ', "end": 3}', "a number of more than 4,300"),
        ('{"id": ' + "7" * 4301 + ', "start": 0, "end": 3}', "a number of more than 4,300"),
        ('{"id": "a\\ud800", "start": 0, "end": 3}', "id has an unpaired surrogate U+D800 at"),
        (
            '{"id": "x", "start": 0, "end": 3, "question": "Why\\udfff?"}',
            "question has an unpaired surrogate U+DFFF at character 3",
        ),
    ],
)
def test_each_bad_line_gets_its_own_message_and_the_rest_still_count(
    line: str, message: str
) -> None:
    assert message in one_error(line)


def test_a_repeated_quote_names_how_often_and_where_overlapping_ones_too() -> None:
    assert "occurs 2 times, at 0 and 1" in one_error('{"id": "x", "quote": "aa"}', "aaa bc")
    many = one_error('{"id": "x", "quote": "ab"}', "ab " * 7)
    assert "occurs 7 times, at 0, 3, 6, 9, 12, …:" in many
    countless = one_error('{"id": "x", "quote": "a"}', "a" * 5000)
    assert "occurs 100 or more times" in countless
    assert "occurs 99 times" in one_error('{"id": "x", "quote": "a"}', "a" * 99)


def test_an_error_keeps_the_id_when_the_line_had_one() -> None:
    evidence = parse_jsonl(TEXT, '{"id": "x", "quote": "nope"}\n{"quote": "The"}')
    assert [(e.line, e.id) for e in evidence.errors] == [(1, "x"), (2, None)]


def test_a_failed_line_does_not_reserve_its_id() -> None:
    evidence = parse_jsonl(TEXT, '{"id": "x", "quote": "nope"}\n{"id": "x", "quote": "The"}')
    assert [i.id for i in evidence.items] == ["x"]


def test_ids_one_and_quoted_one_are_the_same_id() -> None:
    evidence = parse_jsonl(
        TEXT, '{"id": 1, "start": 0, "end": 3}\n{"id": "1", "start": 4, "end": 6}'
    )
    assert "already used on line 1" in evidence.errors[0].message


def test_blank_lines_crlf_and_a_byte_order_mark_are_not_lines() -> None:
    source = '\ufeff{"id": 1, "start": 0, "end": 3}\r\n\r\n  \n{"id": 2, "start": 4, "end": 6}\r\n'
    evidence = parse_jsonl(TEXT, source)
    assert evidence.errors == ()
    assert [i.line for i in evidence.items] == [1, 4]


def test_a_line_separator_inside_a_json_string_stays_in_its_line() -> None:
    text = "one\u2028two"
    evidence = parse_jsonl(text, json.dumps({"id": 1, "quote": "one\u2028two"}, ensure_ascii=False))
    assert evidence.errors == () and evidence.items[0].end == 7


def test_an_empty_question_is_no_question() -> None:
    evidence = parse_jsonl(TEXT, '{"id": 1, "start": 0, "end": 3, "question": "  "}')
    assert evidence.items[0].question is None


def test_a_list_of_items_names_positions_as_items() -> None:
    evidence = parse_items(TEXT, [{"id": "a", "quote": "The"}, "oops", {"id": "b", "end": 2}])
    assert [i.id for i in evidence.items] == ["a"]
    assert [(e.line, e.message[:20]) for e in evidence.errors] == [
        (2, "a JSON string, not a"),
        (3, "start is missing: gi"),
    ]
    with pytest.raises(InputError, match="used: item 1: a JSON string, not an object"):
        require_items(parse_items(TEXT, ["oops"]))


def test_nothing_usable_is_refused_naming_the_first_problem_and_how_many_more() -> None:
    with pytest.raises(InputError) as caught:
        require_items(parse_jsonl(TEXT, "a,b,c\nd,e,f\ng,h,i"))
    assert caught.value.field == "evidence"
    assert str(caught.value).startswith("no evidence item could be used: line 1: not JSON")
    assert str(caught.value).endswith("(and 2 more lines)")
    with pytest.raises(InputError, match="the evidence is empty"):
        require_items(parse_jsonl(TEXT, "\n\n"))


def test_more_items_than_the_limit_are_refused_before_any_work() -> None:
    with pytest.raises(InputError, match="over the 10,000-item limit"):
        parse_jsonl(TEXT, '{"id": 1}\n' * (MAX_EVIDENCE_ITEMS + 1))
    with pytest.raises(InputError, match="over the 10,000-item limit"):
        parse_items(TEXT, [{}] * (MAX_EVIDENCE_ITEMS + 1))
    with pytest.raises(InputError, match="must be a list of items"):
        parse_items(TEXT, {"id": 1})


def test_the_exported_jsonl_reads_back_to_the_same_items() -> None:
    items = [
        EvidenceItem(line=1, id="a", start=15, end=29, question="When was it signed?"),
        EvidenceItem(line=2, id=7, start=0, end=3),
    ]
    text = jsonl(items)
    assert text.splitlines()[1] == '{"id": 7, "start": 0, "end": 3}'
    assert parse_jsonl(TEXT, text).items == tuple(items)
