"""The audit panel as a person uses it: open another tool's chunks file, read the
verdicts and the tails the model drops, download what the command line prints, pin the
settings as A, change one, and see the boundaries move and an evidence passage flip.

One visit checks it all: a page costs a start-up."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import WAIT_MS, configure, expect_figure, native, put_text
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The parrot is one code point and two UTF-16 units; the markup is text, never HTML.
TEXT = (
    "🦜 <b>Bold</b> claims open here. The harbour opened in 1820. Ships brought tea."
    " The harbour opened in 1820. The end."
)
PASSAGE = "claims open here."
DOCS = [
    {"page_content": "🦜 <b>Bold</b> claims", "metadata": {"start_index": 0}},
    {"page_content": "The harbour opened in 1820.", "metadata": {"start_index": 3}},
    {"page_content": "Ships  brought tea.", "metadata": {"start_index": 60}},
    {"page_content": "The harbour opened in 1820.", "metadata": {"start_index": -1}},
    {"page_content": "never there", "metadata": {"start_index": 5}},
]
LENS = {"lens_encoding": "bert-base-uncased", "lens_max_tokens": "6"}


def test_open_chunks_see_verdicts_and_dropped_tails_then_pin_and_compare(
    app: Any, tmp_path: Path
) -> None:
    configure(app, text=TEXT, unit="word", size=4, overlap=1, price="1")
    windows = len(
        json.loads(native("export", text=TEXT, unit="word", size=4, overlap=1)["json"])["chunks"]
    )
    expect_figure(app, "summary-chunks", str(windows), str(windows))
    # A passage for the evidence panel: split at overlap 1, whole at overlap 2.
    start = TEXT.index(PASSAGE)
    evidence = [{"id": "e1", "start": start, "end": start + len(PASSAGE),
                 "question": "what claims open here"}]  # fmt: skip
    app.locator(".ev-load > summary").click()
    app.get_by_test_id("evidence-jsonl").fill(json.dumps(evidence[0]))
    app.get_by_test_id("evidence-paste-add").click()
    expect(app.get_by_test_id("evidence-item")).to_have_count(1, timeout=WAIT_MS)

    panel = app.get_by_test_id("audit-panel")
    panel.locator("summary").first.click()
    app.get_by_test_id("audit-model").select_option("custom")
    app.get_by_test_id("audit-encoding").select_option("bert-base-uncased")
    app.get_by_test_id("audit-max-tokens").fill("6")
    # The model is a choice apart from the unit: what it reads of these word windows.
    lens = native("lens", text=TEXT, unit="word", size=4, overlap=1, **LENS)
    assert lens["lens"]["truncated_chunks"] > 0
    expect(app.get_by_test_id("lens-sentence")).to_have_text(
        f"These settings: {lens['lens']['sentence']}", timeout=WAIT_MS
    )
    lens_tails = [piece[0] for piece in lens["pieces"] if piece[1] == "dropped"]
    assert (
        app.get_by_test_id("lens-text").get_by_test_id("audit-dropped").all_text_contents()
        == lens_tails
    )
    chunks = tmp_path / "langchain.json"
    chunks.write_text(json.dumps(DOCS, ensure_ascii=False), encoding="utf-8")
    app.get_by_test_id("open-chunks").set_input_files(str(chunks))
    expect(app.get_by_test_id("audit-error")).to_have_text("", timeout=5000)
    expect(panel).to_have_attribute("data-state", "audited", timeout=WAIT_MS)

    expected = native("audit", text=TEXT, chunks=chunks.read_text(encoding="utf-8"), unit="word",
                      price_per_million="1", evidence=evidence, **LENS)  # fmt: skip
    doc = expected["document"]
    summary = doc["anchoring"]["summary"]
    assert summary == (
        "your tool's start offsets were wrong for 4 of 5 chunks; 1 of 5 chunks was not found"
        " (listed)"
    )
    expect(app.get_by_test_id("audit-verdicts")).to_have_text(
        summary[0].upper() + summary[1:] + "."
    )
    expect(app.get_by_test_id("audit-source")).to_contain_text("LangChain documents")
    for verdict, count in (("given", 1), ("corrected", 2), ("normalized", 1), ("missing", 1)):
        expect(app.get_by_test_id(f"audit-count-{verdict}")).to_have_attribute(
            "data-value", str(count)
        )
    rows = app.get_by_test_id("audit-chunk")
    expect(rows).to_have_count(5)
    assert [r.get_attribute("data-verdict") for r in rows.all()] == [
        c["verdict"] for c in doc["chunks"]
    ]
    expect(app.get_by_test_id("audit-missing")).to_contain_text("“never there”")
    # The evidence check's passage, against the imported chunks.
    row = doc["evidence"][0]
    shown = app.get_by_test_id("audit-evidence-item")
    expect(shown).to_have_count(1)
    expect(shown).to_have_attribute("data-whole", "true" if row["whole"] else "false")
    sentence = doc["lens"]["sentence"]
    expect(app.get_by_test_id("audit-lens")).to_have_text(sentence[0].upper() + sentence[1:])
    assert doc["lens"]["truncated_chunks"] == 3
    # The tails the model never reads, tinted from the exact code point of the cut.
    tails = [piece[0] for piece in expected["pieces"] if piece[1] == "dropped"]
    # [CLS] [UNK] < b > [SEP]: the model stops after the parrot and "<b>".
    assert tails == ["Bold</b> claims", " 1820.", " 1820."]
    dropped = app.get_by_test_id("audit-text").get_by_test_id("audit-dropped")
    expect(dropped).to_have_count(3)
    assert dropped.all_text_contents() == tails
    # Each card tints its own dropped tail, cut at the same code point.
    card_tails = app.get_by_test_id("audit-chunk").get_by_test_id("card-dropped")
    assert card_tails.all_text_contents() == [
        c["dropped"] for c in expected["cards"] if c["dropped"]
    ]
    assert card_tails.all_text_contents() == tails
    # The file's markup is shown as text, never made into elements.
    expect(app.get_by_test_id("audit-text")).to_contain_text("<b>Bold</b>")
    assert panel.locator("b").count() == 0

    # The imported chunks in the main view: its cards and figures follow them, and back.
    app.get_by_test_id("audit-show-main").check()
    expect_figure(app, "summary-chunks", "4", "4")  # the four found, in the text's order
    cards = app.get_by_test_id("chunk")
    expect(cards).to_have_count(4)
    expect(cards.nth(1).get_by_test_id("chunk-fresh")).to_have_text("The harbour opened in 1820.")
    app.get_by_test_id("audit-show-main").uncheck()
    expect_figure(app, "summary-chunks", str(windows), str(windows))

    # The download is what the command line prints for the same text and file.
    with app.expect_download() as got:
        app.get_by_test_id("audit-download").click()
    assert got.value.suggested_filename == "audit-langchain.json"
    evidence_file = tmp_path / "evidence.jsonl"
    evidence_file.write_text(json.dumps(evidence[0]) + "\n", encoding="utf-8")
    text_file = tmp_path / "text.txt"
    text_file.write_text(TEXT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "audit", str(text_file), "--chunks", str(chunks),
         "--unit", "word", "--model-encoding", "bert-base-uncased", "--max-tokens", "6",
         "--evidence", str(evidence_file), "--price", "1"],
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    assert Path(got.value.path()).read_bytes() == done.stdout

    # Pin these settings as A, change the overlap: B moves boundaries and the passage flips.
    app.get_by_test_id("pin-a").click()
    expect(app.get_by_test_id("pin-a-note")).to_contain_text("A is pinned")
    configure(app, overlap=2)
    compared = native("compare", text=TEXT, unit="word", price_per_million="1",
                      a={"settings": {"unit": "word", "size": 4, "overlap": 1}},
                      b={"settings": {"unit": "word", "size": 4, "overlap": 2}},
                      evidence=evidence, **LENS)["document"]  # fmt: skip
    assert compared["evidence_flips"] == [
        {"id": "e1", "start": start, "end": start + len(PASSAGE), "a": "split", "b": "whole"}
    ]
    flips = app.get_by_test_id("compare-flip")
    expect(flips).to_have_count(1, timeout=WAIT_MS)
    expect(flips.first).to_have_text("e1: split in A, whole in B")
    moved = compared["moved_boundaries"]
    expect(app.get_by_test_id("compare-moved")).to_have_attribute(
        "data-value", str(moved["only_in_a"] + moved["only_in_b"])
    )
    assert moved["only_in_a"] > 0 and moved["only_in_b"] > 0
    table = app.get_by_test_id("compare-table")
    chunks_row = table.locator('tr[data-key="chunks"] td')
    expect(chunks_row).to_have_text(
        [str(compared["a"]["chunks"]), str(compared["b"]["chunks"]),
         f"+{compared['difference']['chunks']}"]
    )  # fmt: skip
    only_a = _starts(1) - _starts(2)
    assert only_a
    marks = app.get_by_test_id("compare-text").locator("[data-edge='a']")
    expect(marks).to_have_count(len(only_a))

    # The opened file as A, against the current settings.
    app.get_by_test_id("compare-a").select_option("file")
    expect(chunks_row.first).to_have_text(str(len(DOCS)), timeout=WAIT_MS)
    expect(chunks_row.nth(1)).to_have_text(str(compared["b"]["chunks"]))


def _starts(overlap: int) -> set[int]:
    """Where each chunk begins at size 4 and this overlap, from the engine's export."""
    export = native("export", text=TEXT, unit="word", size=4, overlap=overlap)
    return {c["char_start"] for c in json.loads(export["json"])["chunks"]}


def test_chunks_pasted_dropped_or_refused_say_so_in_the_panel(app: Any) -> None:
    configure(app, text=TEXT, unit="char", size=40, overlap=0)
    panel = app.get_by_test_id("audit-panel")
    panel.locator("summary").first.click()
    # Pasted JSON Lines in Chonkie's shape.
    lines = [{"text": t, "start_index": TEXT.index(t), "end_index": TEXT.index(t) + len(t),
              "token_count": 3} for t in ("The harbour opened", "Ships brought tea.")]  # fmt: skip
    app.get_by_test_id("chunks-paste").fill("\n".join(json.dumps(x) for x in lines))
    app.get_by_test_id("chunks-paste-use").click()
    expect(app.get_by_test_id("audit-source")).to_contain_text("Chonkie chunks", timeout=WAIT_MS)
    expect(app.get_by_test_id("audit-source")).to_contain_text("JSON Lines, 2 chunks")
    expect(app.get_by_test_id("audit-count-given")).to_have_attribute("data-value", "2")
    # A file that is not UTF-8: refused in the command line's words, line and offset.
    app.get_by_test_id("open-chunks").set_input_files(
        files=[{"name": "bad.json", "mimeType": "application/json", "buffer": b'["a",\n"\xff"]'}]
    )
    expect(app.get_by_test_id("audit-error")).to_have_text(
        "the chunks file is not UTF-8: byte 0xff at offset 7 (line 2): save it as UTF-8",
        timeout=WAIT_MS,
    )
    expect(panel).to_have_attribute("data-state", "refused")
    expect(app.get_by_test_id("audit-source")).to_contain_text("Chonkie chunks")  # kept
    # A file dropped onto the panel: a list of strings.
    strings = json.dumps(["Ships brought tea.", "nowhere at all"]).encode()
    transfer = app.evaluate_handle(
        """(bytes) => { const t = new DataTransfer();
        t.items.add(new File([new Uint8Array(bytes)], "semchunk.json", {type: "application/json"}));
        return t; }""",
        list(strings),
    )
    app.get_by_test_id("audit-drop").dispatch_event("drop", {"dataTransfer": transfer})
    expect(panel).to_have_attribute("data-state", "audited", timeout=WAIT_MS)
    expect(app.get_by_test_id("audit-source")).to_contain_text(
        "semchunk.json: read as a plain list"
    )
    expect(app.get_by_test_id("audit-missing")).to_contain_text("“nowhere at all”")
    expect(app.get_by_test_id("audit-error")).to_be_hidden()


# Over 256 word pieces a chunk at a size of 300 tokens: the parrot (one code point,
# two UTF-16 units) and the CJK put code points and UTF-16 indices apart before the cut.
LONG = "🦜 東京 harbour. " + " ".join(f"ship{k} brought tea" for k in range(160))
MINILM = "all-MiniLM-L6-v2"
DROPPED_OF = """(card) => {
  const body = card.querySelector(".chunk-text");
  const first = body.querySelector('[data-testid="chunk-model-dropped"]');
  const range = document.createRange();
  range.setStart(body, 0);
  range.setEndBefore(first);
  const tail = [...body.querySelectorAll('[data-testid="chunk-model-dropped"]')];
  return { read: range.toString(), dropped: tail.map((n) => n.textContent).join(""),
           title: first.getAttribute("title") };
}"""


def test_the_chosen_model_s_dropped_tail_is_tinted_in_the_cards_and_text_view_from_its_cut(
    app: Any,
) -> None:
    put_text(app, LONG)
    app.get_by_test_id("model-select").select_option(MINILM)
    configure(app, size=300, overlap=0)
    # The model stays chosen apart from the unit the chunks are in. The text is single
    # spaced, so a word card's preview is the chunk's text too.
    for unit, size in (("token", 300), ("char", 1500), ("word", 250)):
        if unit != "token":
            configure(app, unit=unit, size=size)
        request = {"text": LONG, "unit": unit, "size": size, "overlap": 0}
        if unit == "token":
            request["encoding"] = "bert-base-uncased"
        lens = native("lens", **request, lens_model=MINILM)["chunks"]
        over = [c for c in lens if c["truncated"]]
        assert over, lens  # the size makes chunks the model cannot read whole
        windows = len(lens)
        expect_figure(app, "summary-chunks", str(windows), str(windows))
        c = over[0]
        card = app.locator(f'[data-testid="chunk"][data-index="{c["index"]}"]')
        # This setting's card: at 300 tokens and at 1,500 characters the text makes as
        # many chunks, and the first is cut where the model stops, so neither the count
        # nor the cut tells the new card from the last one; its character range does.
        expect(card.get_by_test_id("chunk-chars")).to_have_text(
            f"chars [{c['char_start']:,}, {c['char_end']:,})", timeout=WAIT_MS
        )
        # The card carries the engine's cut, and tints exactly the text from it on.
        expect(card).to_have_attribute("data-model-cut", str(c["cut"]), timeout=60_000)
        got = card.evaluate(DROPPED_OF)
        assert got["read"] == LONG[c["char_start"] : c["cut"]], unit
        assert got["dropped"] == LONG[c["cut"] : c["char_end"]], unit
        assert got["title"].startswith(f"{MINILM} never reads this"), got
        expect(card.get_by_test_id("chunk-dropped-note")).to_contain_text(f"{c['cut']:,}")
        # A card the model reads whole has no tail.
        for whole in (x for x in lens if not x["truncated"]):
            expect(
                app.locator(f'[data-testid="chunk"][data-index="{whole["index"]}"]')
            ).not_to_have_attribute("data-model-cut", re.compile(".*"))
        # The text view: the tail of each over-limit chunk, from its cut to its end.
        # (The text view draws after the cards: as everywhere the engine's work is waited
        # for, up to WAIT_MS, not Playwright's 5 s, which a loaded machine can exceed.)
        for c in over:
            tail = app.locator(f'[data-testid="segment"][data-dropped-by="{c["index"]}"]')
            expect(tail.first).to_have_attribute("data-start", str(c["cut"]), timeout=WAIT_MS)
            expect(tail.last).to_have_attribute("data-end", str(c["char_end"]), timeout=WAIT_MS)
            expect(tail.first).to_have_attribute("title", re.compile(f"^{MINILM} never reads"))
    # No model: no tail tinted anywhere.
    app.get_by_test_id("model-select").select_option("")
    expect(app.locator('[data-testid="segment"].seg-dropped')).to_have_count(0, timeout=WAIT_MS)
    expect(app.get_by_test_id("chunk-model-dropped")).to_have_count(0)
