"""pyapp.web.api.handle: the browser's one door. Bad input is an answer, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pyapp.facts import TEXTS_HELD
from pyapp.web.api import handle

TEN_WORDS = "one two three four five six seven eight nine ten"


def call(**request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(handle(json.dumps(request)))
    return answer


def test_chunk_answers_the_view_with_derivations_previews_counts_and_overview() -> None:
    answer = call(
        op="chunk",
        text=TEN_WORDS,
        unit="word",
        size="4",
        overlap="1",
        tokens_per_unit=1,
        price_per_million=1,
    )
    assert answer["ok"] and answer["op"] == "chunk"
    result = answer["result"]
    assert list(result) == [
        "params",
        "splitter",
        "summary",
        "overlap",
        "chunk_boundaries",
        "derivation",
        "capped",
        "lifted",
        "boundaries",
        "bom_removed",
        "chunks",
        "counts",
        "overview",
        "in_tokens",
    ]
    assert result["summary"]["chunks"] == 3
    assert set(result["derivation"]) == set(result["summary"])
    for key, entry in result["derivation"].items():
        assert entry["value"] == result["summary"][key]
        assert entry["formula"] and entry["inputs"]
    assert result["derivation"]["chunks"]["inputs"] == "1 + ceil(max(0, 10 - 4) / 3)"
    second = result["chunks"][1]
    assert (second["preview_repeated"], second["preview_fresh"]) == ("four", "five six seven")
    assert result["counts"] == {"bytes": 48, "chars": 48, "words": 10, "tokens": None}
    # The strip: the default 1,000 bars over 48 code points, each on the chunk at its middle.
    strip = result["overview"]
    assert (strip["total_chars"], strip["columns"], len(strip["chunk"])) == (48, 1_000, 1_000)
    spans = [(0, 18), (14, 33), (28, 48)]
    for a, chunk in zip(strip["from"], strip["chunk"], strict=True):
        assert chunk == max(k for k, (s, e) in enumerate(spans) if s <= a < e)
    # "four" [14, 18) and "seven" [28, 33) are held twice: 9 code points, each on its bars.
    assert sum(strip["shared"]) == sum(1 for a in strip["from"] if 14 <= a < 18 or 28 <= a < 33)


def test_token_view_marks_where_each_token_starts() -> None:
    text = "hello world 🦜"
    result = call(op="chunk", text=text, unit="token", size=3, overlap=0)["result"]
    chunk = result["chunks"][0]
    assert chunk["token_breaks"][0] == 0
    shown = chunk["repeated_prefix"] + chunk["fresh_text"]
    assert all(0 <= b < len(shown) for b in chunk["token_breaks"])
    assert result["params"]["encoding"] == "o200k_base"
    assert result["counts"]["tokens"] == result["summary"]["units"]
    assert "preview" not in chunk


MIXED = "Naïve  café 🦜 one.\n\nTwo\tthree four five six seven eight nine ten! 日本語。終わり"

WORD_DROPS = ("text", "preview", "repeated_prefix", "fresh_text")


@pytest.mark.parametrize(
    ("unit", "drops", "extra"),
    [
        ("word", WORD_DROPS, ["preview_repeated", "preview_fresh", "carried", "cut_marks"]),
        ("char", ("text", "preview"), ["carried", "cut_marks"]),
        ("token", ("text", "preview"), ["token_breaks", "over_limit", "carried", "cut_marks"]),
    ],
)
def test_view_chunks_are_the_export_chunks_without_their_text_twice(
    unit: str, drops: tuple[str, ...], extra: list[str]
) -> None:
    request = {"text": MIXED, "unit": unit, "size": 5, "overlap": 2}
    view = call(op="chunk", **request)["result"]["chunks"]
    exported = json.loads(call(op="export", **request)["result"]["json"])["chunks"]
    assert len(view) == len(exported) > 1
    for shown, full in zip(view, exported, strict=True):
        # Char and token cards show repeated_prefix + fresh_text (which is text); word
        # cards show only the preview, in its two parts.
        lean = {k: v for k, v in full.items() if k not in drops}
        assert list(shown) == [*lean, *extra]
        assert {k: shown[k] for k in lean} == lean
        assert MIXED[shown["char_start"] : shown["char_end"]] == full["text"]
        if unit == "word":
            assert shown["preview_repeated"] == " ".join(full["repeated_prefix"].split())
            assert shown["preview_fresh"] == " ".join(full["fresh_text"].split())
        else:
            assert shown["repeated_prefix"] + shown["fresh_text"] == full["text"]


def shown_text(card: dict[str, Any]) -> str:
    """What the page shows for a card: the preview in word mode, else the exact text."""
    if "preview_fresh" in card:
        rep, fresh = card["preview_repeated"], card["preview_fresh"]
        return f"{rep} {fresh}" if rep and fresh else rep + fresh
    text: str = card["repeated_prefix"] + card["fresh_text"]
    return text


CUT_TEXTS = [
    "Chunking cuts text at fixed places. Overlap repeats a little of each chunk "
    "in the next one. A sentence that straddles a boundary may still be cut. ",
    MIXED,
    "Ein  Satz\t mit 🦜 Lücken.\r\n\r\nZweiter   Satz?! Dritter.  ",
    "日本語のテキスト。二つ目の文！三つ目？最後",
]


@pytest.mark.parametrize("text", CUT_TEXTS)
@pytest.mark.parametrize(
    ("unit", "size", "overlap"), [("word", 4, 1), ("char", 9, 3), ("word", 3, 0), ("token", 5, 2)]
)
def test_cut_marks_show_each_cards_share_of_every_cut_sentence_and_nothing_else(
    text: str, unit: str, size: int, overlap: int
) -> None:
    result = call(op="chunk", text=text, unit=unit, size=size, overlap=overlap)["result"]
    spans = result["boundaries"]["cut_spans"]
    assert result["chunks"]
    for card in result["chunks"]:
        cs, ce = card["char_start"], card["char_end"]
        parts = [text[max(a, cs) : min(b, ce)] for a, b in spans if a < ce and b > cs]
        shown = shown_text(card)
        marked = [shown[a:b] for a, b in card["cut_marks"]]
        assert all(a < b for a, b in card["cut_marks"])
        assert card["cut_marks"] == sorted(card["cut_marks"])
        if unit == "word":  # the preview normalizes whitespace to single spaces
            parts = [" ".join(p.split()) for p in parts]
        assert marked == [p for p in parts if p], (card["index"], marked, parts)
    assert any(card["cut_marks"] for card in result["chunks"]) == bool(spans)


def test_a_text_sent_once_is_named_by_later_requests() -> None:
    text = MIXED * 3
    assert call(op="text", ref="page-7", text=text)["result"] == {
        "ref": "page-7",
        "chars": len(text),
    }
    for op, extra in [("chunk", {"size": 4, "overlap": 1}), ("export", {"size": 4}), ("counts", {}),
                      ("sweep", {"size": 4, "overlap": 1})]:  # fmt: skip
        named = call(op=op, text_ref="page-7", unit="word", **extra)
        inline = call(op=op, text=text, unit="word", **extra)
        assert named == inline and named["ok"], op
    # The download stays byte-identical to what the CLI prints for the text.
    export = call(op="export", text_ref="page-7", unit="word", size=4)["result"]["json"]
    assert export == call(op="export", text=text, unit="word", size=4)["result"]["json"]


def test_a_text_not_held_is_refused_with_a_hint_to_send_it_again() -> None:
    for i in range(TEXTS_HELD + 1):
        assert call(op="text", ref=f"old-{i}", text=f"text {i}")["ok"]
    gone = call(op="chunk", text_ref="old-0", size=4)
    assert gone["ok"] is False and gone["error"]["field"] == "text_ref"
    assert "send the text again with the text op" in gone["error"]["message"]
    assert call(op="counts", text_ref=f"old-{TEXTS_HELD}")["result"]["words"] == 2
    assert call(op="text", ref="", text="x")["error"]["field"] == "ref"
    assert call(op="text", ref="r", text=5)["error"]["field"] == "text"


def test_a_held_text_over_the_limit_is_refused_by_the_op_that_reads_it() -> None:
    assert call(op="text", ref="big", text="é" * 500_001)["ok"]
    answer = call(op="chunk", text_ref="big", size=4)
    assert answer["error"]["field"] == "text" and "1,000,002 bytes" in answer["error"]["message"]


def test_a_parrot_split_over_three_tokens_is_widened_to_whole_characters() -> None:
    # 🦜 is 4 UTF-8 bytes and o200k splits it 2 + 1 + 1: byte offsets stay exact,
    # char offsets widen to the whole emoji.
    result = call(op="chunk", text="🦜", unit="token", size=1, overlap=0)["result"]
    spans = [
        (c["byte_start"], c["byte_end"], c["char_start"], c["char_end"])
        + (c["repeated_prefix"] + c["fresh_text"],)
        for c in result["chunks"]
    ]
    assert spans == [(0, 2, 0, 1, "🦜"), (2, 3, 0, 1, "🦜"), (3, 4, 0, 1, "🦜")]


@pytest.mark.parametrize(
    ("document", "unit", "chunks", "evidence"),
    [
        ("report.txt", "token", "report-o200k_base-512-64", "report-evidence-o200k_base-512-64"),
        (None, "token", "chunks-o200k_base-512-64", "evidence-o200k_base-512-64"),
        ("C:\\docs\\Q3 plan (draft).md", "word", "Q3_plan_draft-word-512-64", None),
        ("../../etc/passwd", "char", "passwd-char-512-64", "passwd-evidence-char-512-64"),
        ("...", "char", "chunks-char-512-64", "evidence-char-512-64"),
    ],
)
def test_the_download_is_named_after_the_document_the_encoding_and_the_settings(
    document: str | None, unit: str, chunks: str, evidence: str | None
) -> None:
    request = {"text": TEN_WORDS, "unit": unit, "size": 512, "overlap": 64}
    result = call(op="export", **request, document_name=document)["result"]
    assert result["filename"] == f"{chunks}.json"
    if evidence is not None:
        one = [{"id": 1, "start": 0, "end": 3}]
        answer = call(op="evidence", **request, evidence=one, export=True, document_name=document)
        assert answer["result"]["filename"] == f"{evidence}.json"


def test_a_document_name_that_is_not_text_is_refused() -> None:
    answer = call(op="export", text=TEN_WORDS, size=4, document_name=3)
    assert answer["ok"] is False
    assert answer["error"]["field"] == "document_name"


def test_export_returns_the_cli_text_and_a_filename_carrying_the_parameters() -> None:
    result = call(op="export", text=TEN_WORDS, unit="word", size=4, overlap="25%")["result"]
    assert result["filename"] == "chunks-word-4-1.json"
    doc = json.loads(result["json"])
    assert doc["schema"] == "pyapp.chunks/5"
    assert result["json"].endswith("}\n")


def test_counts_counts_tokens_only_in_token_mode() -> None:
    assert call(op="counts", text="héllo wörld")["result"] == {
        "bytes": 13,
        "chars": 11,
        "words": 2,
        "tokens": None,
    }
    assert call(op="counts", text="hello world", unit="token")["result"]["tokens"] == 2


def test_warm_loads_the_ranks_and_reports_how_long_it_took() -> None:
    result = call(op="warm", encoding="cl100k_base")["result"]
    assert result["encoding"] == "cl100k_base" and result["seconds"] >= 0


@pytest.mark.parametrize(
    ("request_json", "field", "fragment"),
    [
        ("not json", None, "not valid JSON"),
        ("[1, 2]", None, "JSON object"),
        ('{"op": "explode"}', "op", "use one of chunk, export, counts, warm"),
        ('{"op": "chunk", "size": 4}', "text", "text is missing"),
        ('{"op": "chunk", "text": 5, "size": 4}', "text", "must be a string"),
        ('{"op": "chunk", "text": "a"}', "size", "size is missing"),
        ('{"op": "chunk", "text": "a", "size": "abc"}', "size", "'abc'"),
        ('{"op": "chunk", "text": "a", "size": "4", "overlap": "4.5"}', "overlap", "whole"),
        ('{"op": "chunk", "text": "a", "size": "4", "overlap": "4"}', "overlap", "smaller"),
        (
            '{"op": "chunk", "text": "a", "size": 2, "unit": "token", "encoding": "p50k"}',
            "encoding",
            "choose one of",
        ),
        ('{"op": "export", "text": "\\ud800", "size": 2}', "text", "unpaired surrogate"),
        ('{"op": "warm", "encoding": "gpt2"}', "encoding", "choose one of"),
    ],
)
def test_bad_requests_are_answered_with_the_field_to_fix(
    request_json: str, field: str | None, fragment: str
) -> None:
    answer = json.loads(handle(request_json))
    assert answer["ok"] is False
    assert answer["error"]["field"] == field
    assert fragment in answer["error"]["message"]


def test_text_over_one_megabyte_is_refused_before_anything_is_computed() -> None:
    answer = call(op="chunk", text="é" * 500_001, size=4)
    assert answer["error"]["field"] == "text"
    assert "1,000,002 bytes" in answer["error"]["message"]


def test_exactly_one_megabyte_is_accepted() -> None:
    assert call(op="counts", text="x" * 1_000_000)["ok"]


def test_over_the_chunk_cap_the_summary_stays_and_the_chunks_go() -> None:
    result = call(op="chunk", text="w " * 300, size=1, overlap=0)["result"]
    # View only: what brings it under the caps, and the size of the download without them.
    download = call(op="export", text="w " * 300, size=1, overlap=0, caps=False)["result"]
    estimate = result["capped"].pop("export_bytes")
    assert abs(estimate - len(download["json"].encode())) < 0.02 * estimate
    assert result["capped"] == {
        "cap": "chunks",
        "value": 300,
        "limit": 256,
        "over": ["chunks"],
        "remedies": {"size": 2, "overlap_zero": None, "max_units": 256},
    }
    assert result["chunks"] == []
    assert result["summary"]["chunks"] == 300
    strip = result["overview"]  # the strip still covers every chunk, by its bars' ranges
    reached = [f + n for f, n in zip(strip["first"], strip["count"], strict=True) if n]
    assert strip["first"][0] == 0 and max(reached) == 300


def test_over_the_processed_unit_cap_the_summary_stays_and_the_chunks_go() -> None:
    result = call(op="chunk", text="x" * 250_000, unit="char", size=5000, overlap=0)["result"]
    assert result["capped"].pop("export_bytes") > 2 * 250_000  # the text, written twice
    assert result["capped"] == {
        "cap": "processed_units",
        "value": 250_000,
        "limit": 200_000,
        "over": ["processed_units"],
        "remedies": {"size": None, "overlap_zero": None, "max_units": 200_000},  # view only
    }
    assert result["chunks"] == []


def test_the_strip_covers_every_window_in_as_many_bars_as_asked() -> None:
    result = call(op="chunk", text="x" * 5000, unit="char", size=1, overlap=0, columns=640)
    strip = result["result"]["overview"]
    assert (strip["total_chars"], strip["columns"]) == (5000, 640)
    # The last bar: code points [4992, 5000), chunks 4992 .. 4999 (past the first 2,000).
    assert (strip["from"][-1], strip["to"][-1]) == (4992, 5000)
    assert (strip["first"][-1], strip["count"][-1], strip["chunk"][-1]) == (4992, 8, 4995)


def test_empty_text_gives_zero_chunks_and_null_ratios() -> None:
    result = call(op="chunk", text="", size=4, overlap=1)["result"]
    assert result["summary"]["chunks"] == 0
    assert result["summary"]["extra_volume"] is None
    assert result["summary"]["inflation"] is None
    assert result["derivation"]["inflation"]["value"] is None


def test_counts_over_one_megabyte_still_say_the_real_size_with_a_flag() -> None:
    # The page shows these under the text box next to the refusal, never stale figures.
    big = "é" * 500_001  # 1,000,002 bytes
    for unit in ("word", "token"):
        assert call(op="counts", text=big, unit=unit)["result"] == {
            "bytes": 1_000_002,
            "chars": 500_001,
            "words": 1,
            "tokens": None,
            "over_limit": True,
        }
    assert "over_limit" not in call(op="counts", text="x" * 1_000_000)["result"]
    assert call(op="chunk", text=big, size=4)["error"]["field"] == "text"


CHECKS_CASES = [
    # under the caps: cards with marks; a BOM; past the chunk cap; lifted caps
    ({"unit": "word", "size": 4, "overlap": 1}, "One two three. Four five six seven. Eight!"),
    ({"unit": "char", "size": 9, "overlap": 3}, "\ufeffAb. Cd ef gh. 第一句。第二句！ 🦜🦜 end."),
    ({"unit": "token", "size": 3, "overlap": 1}, "Fixed windows cut text. " * 400),
    ({"unit": "token", "size": 3, "overlap": 1, "caps": False}, "A cut. Another one here. " * 90),
]


@pytest.mark.parametrize(("fields", "text"), CHECKS_CASES)
def test_a_view_without_checks_and_its_checks_make_the_view_with_them(
    fields: dict[str, Any], text: str
) -> None:
    """The page asks for the view with ``"checks": false`` and then for its checks: the
    two answers together are the whole view, field for field."""
    whole = call(op="chunk", text=text, **fields)["result"]
    quick = call(op="chunk", text=text, checks=False, **fields)["result"]
    checks = call(op="checks", text=text, **fields)["result"]
    assert quick["boundaries"] is None
    assert all("cut_marks" not in chunk for chunk in quick["chunks"])
    past = quick["capped"] or quick["lifted"]
    assert past is None or "export_bytes" not in past
    # Put together as the page does (static/view/app.js, checksLanded).
    quick["boundaries"] = checks["boundaries"]
    if checks["cut_marks"] is not None:
        assert len(checks["cut_marks"]) == len(quick["chunks"])
        for chunk, marks in zip(quick["chunks"], checks["cut_marks"], strict=True):
            chunk["cut_marks"] = marks
    else:
        assert quick["chunks"] == []
    if past is not None:
        past["export_bytes"] = checks["export_bytes"]
    else:
        assert checks["export_bytes"] is None
    assert quick == whole


def test_checks_must_be_true_or_false() -> None:
    answer = json.loads(handle(json.dumps({"op": "chunk", "text": "a b", "checks": "no"})))
    assert answer["ok"] is False and answer["error"]["field"] == "checks"


def test_a_million_spaces_are_counted_in_tokens_not_a_crash() -> None:
    """tiktoken alone panics on this run (a BaseException). o200k_base has one token
    for 128 spaces: 10**6 = 7,812 x 128 + 64, so 7,813 tokens."""
    answer = call(op="chunk", text=" " * 10**6, unit="token", size="512", overlap="0")
    assert answer["ok"], answer
    assert answer["result"]["summary"]["units"] == 7813


class _Panic(BaseException):
    """Like pyo3's PanicException: a BaseException that is not an Exception."""


def test_no_base_exception_escapes_the_door_but_ctrl_c_and_exit_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pyapp.web import api

    def panics(request: dict[str, Any]) -> object:
        raise _Panic("called `Result::unwrap()` on an `Err` value")

    monkeypatch.setitem(api.OPS, "chunk", panics)
    answer = call(op="chunk", text="x")
    assert answer["ok"] is False and answer["op"] == "chunk"
    assert "_Panic" in answer["error"]["message"] and "bug" in answer["error"]["message"]
    assert "Traceback" in capsys.readouterr().err  # the details go to the console

    for kind in (KeyboardInterrupt, SystemExit):

        def stops(request: dict[str, Any], kind: type[BaseException] = kind) -> object:
            raise kind()

        monkeypatch.setitem(api.OPS, "chunk", stops)
        with pytest.raises(kind):
            handle(json.dumps({"op": "chunk", "text": "x"}))
