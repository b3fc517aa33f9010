"""The JSON door refuses what it cannot answer truly: a held text over the limit or
with a lone surrogate in every op (``segments`` too), a card range that runs
backwards, and evidence lines that no report could hold (per line)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pyapp.facts import MAX_BYTES
from pyapp.web.api import handle


def ask(**request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(handle(json.dumps(request)))
    return answer


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("ab " * (MAX_BYTES // 3 + 1), "over the 1,000,000-byte limit"),
        ("one two \ud800 three", "unpaired surrogate U+D800 at character 8"),
    ],
    ids=["over-the-limit", "a-lone-surrogate"],
)
def test_segments_refuses_a_held_text_every_other_op_refuses(text: str, said: str) -> None:
    assert ask(op="text", ref="bad", text=text)["ok"]
    for op in ("segments", "chunk", "cards"):
        answer = ask(op=op, text_ref="bad", size=4, caps=False)
        assert answer["ok"] is False, op
        assert answer["error"]["field"] == "text"
        assert said in answer["error"]["message"]
    direct = ask(op="segments", text=text, size=4)
    assert direct["error"]["field"] == "text" and said in direct["error"]["message"]


def test_segments_still_answers_a_good_held_text() -> None:
    assert ask(op="text", ref="good", text="one two three")["ok"]
    answer = ask(op="segments", text_ref="good", size=2)
    assert answer["ok"], answer
    assert answer["result"]["segments"]["bounds"][-1] == len("one two three")


def test_a_card_range_that_runs_backwards_is_refused_naming_to() -> None:
    answer = ask(
        op="cards", text="a b c d e f g h i j k l", size=1, caps=False, **{"from": 10, "to": 5}
    )
    assert answer["ok"] is False
    assert answer["error"] == {
        "field": "to",
        "message": "to (5) is less than from (10): ask for the cards [from, to), with to at"
        " least from",
    }
    empty = ask(op="cards", text="a b c", size=1, caps=False, **{"from": 2, "to": 2})
    assert empty["ok"] and (empty["result"]["from"], empty["result"]["to"]) == (2, 2)
    assert empty["result"]["chunks"] == []


@pytest.mark.parametrize(
    "bad",
    [
        '{"id": "big", "start": ' + "1" * 5000 + ', "end": 3}',
        '{"id": "s\\ud800", "quote": "two"}',
        '{"id": "q", "quote": "two", "question": "why\\udc00"}',
    ],
    ids=["a-5000-digit-offset", "a-lone-surrogate-in-an-id", "a-lone-surrogate-in-a-question"],
)
def test_the_page_keeps_the_good_lines_beside_a_line_no_report_could_hold(bad: str) -> None:
    jsonl = f'{{"id": "ok", "quote": "three"}}\n{bad}\n'
    answer = ask(op="evidence", text="one two three", size=2, evidence_jsonl=jsonl)
    assert answer["ok"], answer
    result = answer["result"]
    assert [item["id"] for item in result["evidence"]] == ["ok"]
    assert [error["line"] for error in result["errors"]] == [2]
    export = ask(op="evidence", text="one two three", size=2, evidence_jsonl=jsonl, export=True)
    json.loads(export["result"]["json"])
    export["result"]["json"].encode("utf-8")  # no lone surrogate reaches a download
    export["result"]["jsonl"].encode("utf-8")
