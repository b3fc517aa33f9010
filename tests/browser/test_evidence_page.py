"""The evidence panel as a person uses it: select a passage and add it, read whether a
chunk holds it whole, see a split one flagged in the list and the cards, load JSON
Lines with bad lines, and export what the command line reads and prints.

Each test checks several things in one visit: a page costs a start-up."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import WAIT_MS, configure, expect_figure, js_number, native, release_held
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The parrot is one code point and two UTF-16 units: every offset after it differs.
TEXT = (
    "🦜 Parrots keep offsets honest. The harbour opened in 1820. "
    "Ships brought tea and cotton. The customs house burned in 1901."
)
SPLIT = "keep offsets honest. The"  # words 2-5: windows [0, 4) and [3, 7) each miss one
WHOLE = "harbour opened in"  # words 6-8: inside window [6, 10)
LONG = "The harbour opened in 1820."  # words 5-9: five words, over a size of four


def evidence_ready(page: Any, items: int) -> Any:
    """The panel once its check of `items` passages is on screen."""
    panel = page.get_by_test_id("evidence-panel")
    expect(panel).to_have_attribute("data-state", "ready", timeout=WAIT_MS)
    expect(page.get_by_test_id("evidence-item")).to_have_count(items, timeout=WAIT_MS)
    return panel


def select_in_box(page: Any, passage: str) -> None:
    """Selects `passage` in the text box with the keyboard: to the start, right arrow
    to the passage, then shift and right arrow over it (one press per character)."""
    box = page.get_by_test_id("text-input")
    box.click()
    box.press("Control+Home")
    before = TEXT.index(passage)  # code points: the parrot is one press
    for _ in range(before):
        box.press("ArrowRight")
    for _ in range(len(passage)):
        box.press("Shift+ArrowRight")


def drag_in_box(page: Any, passage: str) -> None:
    """Selects `passage` in the text box as a drag does (UTF-16 indices, as the DOM counts)."""
    start = len(TEXT[: TEXT.index(passage)].encode("utf-16-le")) // 2
    end = start + len(passage.encode("utf-16-le")) // 2
    page.get_by_test_id("text-input").evaluate(
        "(el, [a, b]) => { el.focus(); el.setSelectionRange(a, b); }", [start, end]
    )


def open_panel(page: Any, panel: str) -> None:
    """Opens a planning panel if the page folds it (a fold whose summary holds its title)."""
    fold = page.locator(f"#{panel} > details:has(> summary h2)")
    if fold.count() == 1 and fold.get_attribute("open") is None:
        fold.locator("> summary").click()


def entry(page: Any, passage: str) -> Any:
    start = TEXT.index(passage)
    return page.locator(
        f'[data-testid="evidence-item"][data-start="{start}"][data-end="{start + len(passage)}"]'
    )


def items_of(*passages: tuple[str, str, str | None]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item_id, passage, question in passages:
        start = TEXT.index(passage)
        item: dict[str, Any] = {"id": item_id, "start": start, "end": start + len(passage)}
        if question:
            item["question"] = question
        out.append(item)
    return out


def test_a_selected_passage_is_checked_and_a_split_one_is_flagged_until_the_suggested_overlap(
    app: Any,
) -> None:
    how_to_add = app.get_by_test_id("evidence-add-note").inner_text()
    assert how_to_add.startswith("Select a passage")
    configure(app, text=TEXT, unit="word", size=4, overlap=1)
    expect_figure(app, "summary-chunks", "7", "7")

    # A split passage, with a question: flagged in words, not in colour alone.
    select_in_box(app, SPLIT)
    app.get_by_test_id("evidence-question").fill("What keeps offsets honest?")
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 1)
    split = entry(app, SPLIT)  # its offsets are code points, not UTF-16 units
    expect(split).to_have_attribute("data-status", "split")
    expect(split).to_have_attribute("data-chunks", "")
    expect(split.get_by_test_id("evidence-status")).to_have_text("⚠ split")
    expect(split).to_contain_text("split across chunks 1, 2")
    expect(split.get_by_test_id("evidence-units")).to_have_attribute("data-value", "4")
    expect(split).to_contain_text("Question: What keeps offsets honest?")

    # The cards that cut it carry the split mark and say so in their heading.
    cards = app.get_by_test_id("chunk")
    for index in (0, 1):
        expect(cards.nth(index).locator(".ev-mark.ev-split").first).to_be_visible()
        expect(cards.nth(index).get_by_test_id("card-evidence")).to_have_text("⚠ splits e1")
    expect(cards.nth(2).locator(".ev-mark")).to_have_count(0)

    # A whole passage: quiet, linked to the chunk that holds it.
    drag_in_box(app, WHOLE)
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 2)
    whole = entry(app, WHOLE)
    expect(whole).to_have_attribute("data-status", "whole")
    expect(whole).to_have_attribute("data-chunks", "2")
    marked = cards.nth(2).locator(".ev-mark.ev-whole")
    expect(marked.first).to_be_visible()
    assert "".join(marked.all_text_contents()) == WHOLE  # the marks cover the passage exactly

    # The same passage again, with no question as before: refused with a word, not added.
    drag_in_box(app, WHOLE)
    app.get_by_test_id("evidence-add").click()
    note = app.get_by_test_id("evidence-add-note")
    expect(note).to_have_text(re.compile("That passage is already in the list as e2"))
    expect(note).to_have_attribute("data-kind", "warning")
    expect(app.get_by_test_id("evidence-item")).to_have_count(2)

    # The figures are the engine's for the same list.
    request = {"text": TEXT, "unit": "word", "size": 4, "overlap": 1, "top_k": 5}
    items = items_of(("e1", SPLIT, "What keeps offsets honest?"), ("e2", WHOLE, None))
    expected = native("evidence", **request, evidence=items)
    assert expected["summary"]["min_overlap_for_evidence"] == 2
    expect_figure(app, "evidence-coverage", "50%", js_number(0.5))
    expect(app.get_by_test_id("evidence-min-overlap")).to_have_attribute("data-value", "2")
    recall = expected["retrieval"]["recall_at_k"]
    expect(app.get_by_test_id("retrieval-recall")).to_have_attribute(
        "data-value", js_number(recall)
    )
    expect(app.get_by_test_id("retrieval-baseline")).to_contain_text("lexical (keyword) baseline")
    expect(app.get_by_test_id("retrieval-baseline")).to_contain_text("not a quality benchmark")

    # The second suggestion: the overlap that keeps any passage as long as the longest
    # one whole wherever it falls, labelled as such, with its extra volume.
    anywhere = expected["summary"]["overlap_for_any_placement"]
    assert expected["summary"]["any_placement_guaranteed"] is True
    any_figure = app.get_by_test_id("evidence-any-overlap")
    expect(any_figure).to_have_attribute("data-value", str(anywhere))
    expect(any_figure).to_have_attribute("data-guaranteed", "true")
    any_cost = app.get_by_test_id("evidence-any-overlap-cost")
    longest = expected["summary"]["longest_item_units"]
    expect(any_cost).to_contain_text(
        f"keeps any passage of up to {longest} words whole, wherever it falls"
    )
    extra = expected["summary"]["extra_volume_at_any_placement"]
    shown = f"{extra * 100:.2f}".rstrip("0").rstrip(".")  # as the page writes a percentage
    expect(any_cost).to_contain_text(f"{shown}% extra volume")
    expect(any_cost).to_contain_text("fits only these passages where they are")
    use_any = app.get_by_test_id("evidence-use-any-overlap")
    if anywhere == 1:  # the overlap already set
        expect(use_any).to_be_hidden()
    else:
        expect(use_any).to_have_text(f"Use overlap {anywhere}")

    # A chunk link goes to its card.
    whole.get_by_test_id("evidence-go").click()
    expect(cards.nth(2)).to_be_focused()

    # The suggested overlap keeps both whole: the check follows the new setting.
    app.get_by_test_id("evidence-use-min-overlap").click()
    expect(app.get_by_test_id("overlap-input")).to_have_value("2")
    expect(split).to_have_attribute("data-status", "whole", timeout=WAIT_MS)
    expect(split).to_have_attribute("data-chunks", "1")
    expect_figure(app, "evidence-coverage", "100%", "1")
    expect(app.get_by_test_id("chunk").nth(0).locator(".ev-split")).to_have_count(0)

    # The sweep checks the same passages at every setting, beside its costs.
    open_panel(app, "sweep-panel")
    app.locator("#sweep-panel summary", has_text="table").click()
    current = app.locator('[data-testid="sweep-apply"][data-size="4"][data-overlap="2"]:disabled')
    expect(current.first).to_be_attached(timeout=WAIT_MS)  # the sweep of the new setting
    column = app.locator('[data-testid="sweep-table"] td[data-key="evidence_coverage"]')
    swept = native("sweep", **{**request, "overlap": 2}, evidence=items)
    shares = [js_number(row["evidence_coverage"]) for row in swept["rows"]]
    expect(column).to_have_count(len(shares), timeout=WAIT_MS)
    assert column.evaluate_all("tds => tds.map((td) => td.dataset.value)") == shares
    marks = app.locator('[data-testid="sweep-overlay"][data-key="evidence_coverage"] .mark')
    expect(marks).to_have_count(len(swept["rows"]))

    # A passage longer than the chunk size is flagged: no overlap can keep it whole.
    drag_in_box(app, LONG)
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 3)
    long = entry(app, LONG)
    expect(long).to_have_attribute("data-status", "split")
    expect(long.get_by_test_id("evidence-too-long")).to_contain_text(
        "longer than the chunk size (4)"
    )
    expect(app.get_by_test_id("evidence-min-overlap")).to_have_attribute("data-value", "")
    items.append(items_of(("e3", LONG, None))[0])
    reason = native("evidence", **{**request, "overlap": 2}, evidence=items)["summary"]
    expect(app.get_by_test_id("evidence-min-overlap-cost")).to_have_text(
        reason["min_overlap_reason"]
    )
    expect(app.get_by_test_id("evidence-use-min-overlap")).to_be_hidden()
    # Nor can any overlap keep a passage that long whole wherever it falls: said, no button.
    expect(app.get_by_test_id("evidence-any-overlap")).to_have_attribute("data-guaranteed", "false")
    expect(app.get_by_test_id("evidence-any-overlap-cost")).to_contain_text(
        reason["any_placement_reason"]
    )
    expect(app.get_by_test_id("evidence-use-any-overlap")).to_be_hidden()

    # Only the low half of the parrot's surrogate pair selected (UTF-16 [1, 2)): the
    # whole parrot is added, [0, 1) in code points, and the list is still checked. The
    # sweep of the longer list is held on its way, to land after the list is cleared.
    app.evaluate("() => { window.__spy.hold = 'sweep'; }")
    app.get_by_test_id("text-input").evaluate("(el) => { el.focus(); el.setSelectionRange(1, 2); }")
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 4)
    parrot = entry_at(app, 0, 1)
    expect(parrot).to_have_attribute("data-status", "whole")
    expect(app.get_by_test_id("evidence-add-note")).to_contain_text("Added e4")

    # Cleared, the list says it is empty, and the note how to add a passage again. The
    # sweep, closed meanwhile, drops its evidence metric with the list it measured, and
    # sweeps again once opened. The sweep that was on its way lands after the clear and
    # brings nothing back.
    expect(app.locator("html[data-spy-held]")).to_be_attached(timeout=WAIT_MS)
    sweep = app.get_by_test_id("sweep-fold")
    sweep.locator("summary").first.click()
    expect(sweep).not_to_have_attribute("open", "")
    app.get_by_test_id("evidence-clear").click()
    expect(app.get_by_test_id("evidence-item")).to_have_count(0)
    release_held(app)
    expect(app.get_by_test_id("evidence-empty")).to_be_visible()
    expect(app.get_by_test_id("evidence-add-note")).to_have_text(how_to_add)
    expect(app.get_by_test_id("sweep-status")).to_have_text("Waiting for the first result…")
    expect(app.get_by_test_id("sweep-metric-evidence-coverage")).to_have_count(0)
    expect(column).to_have_count(0)
    sweep.locator("summary").first.click()
    expect(app.get_by_test_id("sweep-status")).to_contain_text("configurations in one engine call")
    expect(app.locator('[data-testid="sweep-table"] tbody tr')).to_have_count(len(swept["rows"]))
    expect(column).to_have_count(0)

    # A passage whose check is still on its way (its answer held back here) can be
    # cleared at once; the late answer brings nothing back.
    app.evaluate("() => { window.__spy.hold = 'evidence'; }")
    drag_in_box(app, WHOLE)
    app.get_by_test_id("evidence-add").click()
    expect(app.get_by_test_id("evidence-panel")).to_have_attribute("data-state", "checking")
    expect(app.get_by_test_id("evidence-clear")).to_be_enabled()
    app.get_by_test_id("evidence-clear").click()
    release_held(app)
    expect(app.get_by_test_id("evidence-panel")).to_have_attribute("data-state", "empty")
    expect(app.get_by_test_id("evidence-item")).to_have_count(0)
    expect(app.get_by_test_id("evidence-add-note")).to_have_text(how_to_add)


def test_jsonl_with_bad_lines_counts_the_rest_and_the_exports_match_the_command_line(
    app: Any, tmp_path: Path
) -> None:
    configure(app, text=TEXT, unit="char", size=24, overlap=4)
    expect_figure(app, "summary-chunks", "6", "6")
    open_panel(app, "budget-panel")
    app.get_by_test_id("budget-top-k").fill("2")  # k for the retrieval check

    lines = [
        '{"id": "open", "quote": "The harbour opened in 1820.", "question": "When did it open?"}',
        '{"id": "fire", "start": 93, "end": 121, "question": "What burned?"}',
        "not json at all",
        '{"id": "the", "quote": "The "}',
        '{"id": "open", "start": 0, "end": 9}',
    ]
    source = tmp_path / "evidence.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    app.locator("summary", has_text="Open or paste JSON Lines").click()
    app.get_by_test_id("evidence-file").set_input_files(str(source))
    evidence_ready(app, 2)

    # Each bad line says why, as the engine does, and the good lines count.
    request = {"text": TEXT, "unit": "char", "size": 24, "overlap": 4, "top_k": 2}
    read = native("evidence", **request, evidence_jsonl="\n".join(lines))
    errors = app.get_by_test_id("evidence-line-error")
    expect(errors).to_have_count(3)
    for shown, error in zip(errors.all(), read["errors"], strict=True):
        expect(shown).to_have_attribute("data-line", str(error["line"]))
        expect(shown).to_contain_text(error["message"])
    expect(app.get_by_test_id("evidence-load-note")).to_contain_text(
        "added 2 passages; 3 lines not used"
    )
    assert "occurs 2 times" in read["errors"][1]["message"]  # the repeated quote names where

    # A pasted line joins them.
    app.get_by_test_id("evidence-jsonl").fill('{"id": "tea", "quote": "tea and cotton"}')
    app.get_by_test_id("evidence-paste-add").click()
    evidence_ready(app, 3)
    expect(app.get_by_test_id("evidence-item")).to_have_count(3)
    expect(app.get_by_test_id("retrieval-k")).to_contain_text("k = 2, the context budget's top-k")
    # A top-k the budget takes but a retrieval cannot (0): the default, and why.
    app.get_by_test_id("budget-top-k").fill("0")
    expect(app.get_by_test_id("retrieval-k")).to_contain_text("k = 5, the default", timeout=WAIT_MS)
    expect(app.get_by_test_id("retrieval-k")).to_contain_text("top-k must be at least 1")
    app.get_by_test_id("budget-top-k").fill("2")
    expect(app.get_by_test_id("retrieval-k")).to_contain_text("k = 2", timeout=WAIT_MS)

    # The list's export, then the report: the command line reads the one and prints the other.
    with app.expect_download() as listed:
        app.get_by_test_id("evidence-export-jsonl").click()
    jsonl = tmp_path / listed.value.suggested_filename
    listed.value.save_as(jsonl)
    with app.expect_download() as reported:
        app.get_by_test_id("evidence-download").click()
    assert reported.value.suggested_filename == "evidence-char-24-4.json"
    report = Path(reported.value.path()).read_bytes()
    text = tmp_path / "text.txt"
    text.write_text(TEXT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "evidence", str(text), "--evidence", str(jsonl)]
        + ["--unit", "char", "--size", "24", "--overlap", "4", "--top-k", "2"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert report == done.stdout
    document = json.loads(report)
    assert [item["id"] for item in document["evidence"]] == ["open", "fire", "tea"]
    assert document["params"]["top_k"] == 2 and document["errors"] == []
    statuses = app.get_by_test_id("evidence-item").evaluate_all(
        "els => els.map((e) => e.dataset.status)"
    )
    assert statuses == [item["status"] for item in document["evidence"]]

    # Lines added, and the text edited in the same moment: the edit's view drops the
    # engine's reading of the lines, which is done again against the edited text, so
    # the line is listed (it was "interrupted: try again", and lost to the keystroke).
    app.get_by_test_id("evidence-jsonl").fill('{"id": "ships", "quote": "Ships brought"}')
    app.get_by_test_id("evidence-paste-add").evaluate(
        """(button) => {
          button.click();
          const box = document.querySelector('[data-testid="text-input"]');
          box.value += " The end.";
          box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText" }));
        }"""
    )
    evidence_ready(app, 4)
    ships = TEXT.index("Ships brought")
    expect(entry_at(app, ships, ships + len("Ships brought"))).to_have_count(1)
    expect(app.get_by_test_id("evidence-load-note")).to_contain_text("added 1 passage.")


def test_the_list_is_kept_for_the_session_and_follows_edits_of_the_text(app: Any) -> None:
    box = app.get_by_test_id("text-input")
    sample = box.input_value()  # the page's sample text, there again after a reload
    passage = "A smaller stride also means more chunks"
    start = sample.index(passage)
    box.evaluate(
        "(el, [a, b]) => { el.focus(); el.setSelectionRange(a, b); }", [start, start + len(passage)]
    )
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 1)

    app.reload()
    evidence_ready(app, 1)
    kept = entry_at(app, start, start + len(passage))
    expect(kept).to_have_count(1)

    # Typing before it moves it; an edit across its end removes it, and says so.
    box.press("Control+Home")
    box.type("New. ")
    expect(entry_at(app, start + 5, start + 5 + len(passage))).to_have_count(1, timeout=WAIT_MS)
    after_end = start + 5 + len(passage) + 3
    # One edit across its end: the passage's last three characters and the three after
    # them, selected and deleted at once (each keystroke is its own edit: six Backspaces
    # would first shrink it, then move past it).
    box.evaluate("(el, [a, b]) => el.setSelectionRange(a, b)", [after_end - 6, after_end])
    box.press("Backspace")
    expect(app.get_by_test_id("evidence-item")).to_have_count(0, timeout=WAIT_MS)
    expect(app.get_by_test_id("evidence-add-note")).to_contain_text("removed from the list")
    expect(app.get_by_test_id("evidence-panel")).to_have_attribute("data-state", "empty")


def entry_at(page: Any, start: int, end: int) -> Any:
    return page.locator(f'[data-testid="evidence-item"][data-start="{start}"][data-end="{end}"]')


SELECT_IN_VIEW = """([a, b]) => {
  // What a drag from code point a to code point b leaves selected in the text view.
  const view = document.querySelector('[data-testid="text-view"]');
  const segments = [...view.querySelectorAll('[data-testid="segment"]')];
  const point = (cp) => {
    const seg = segments.find((s) => Number(s.dataset.start) <= cp && cp <= Number(s.dataset.end));
    const node = document.createTreeWalker(seg, NodeFilter.SHOW_TEXT).nextNode();
    return [node, [...node.data].slice(0, cp - Number(seg.dataset.start)).join("").length];
  };
  const range = document.createRange();
  range.setStart(...point(a));
  range.setEnd(...point(b));
  const selection = document.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return selection.toString();
}"""


def test_a_passage_selected_in_the_text_view_is_added_and_marked_there(app: Any) -> None:
    view = app.get_by_test_id("text-view")
    if view.count() == 0:
        pytest.skip("this page has no text view")
    configure(app, text=TEXT, unit="word", size=4, overlap=1)
    expect_figure(app, "summary-chunks", "7", "7")
    start = TEXT.index(SPLIT)
    expect(view.get_by_test_id("segment").first).to_be_visible(timeout=WAIT_MS)
    assert app.evaluate(SELECT_IN_VIEW, [start, start + len(SPLIT)]) == SPLIT
    app.get_by_test_id("evidence-add").click()
    evidence_ready(app, 1)
    expect(entry(app, SPLIT)).to_have_attribute("data-status", "split")

    # Split: the warning mark with its dashed outline, over exactly the passage.
    split = view.locator(".ev-mark.ev-split")
    expect(split.first).to_be_visible()
    assert "".join(split.all_text_contents()) == SPLIT
    assert split.first.evaluate("el => getComputedStyle(el).outlineStyle") == "dashed"

    # At the suggested overlap it is whole, and marked quietly.
    app.get_by_test_id("evidence-use-min-overlap").click()
    expect(entry(app, SPLIT)).to_have_attribute("data-status", "whole", timeout=WAIT_MS)
    expect(view.locator(".ev-mark.ev-split")).to_have_count(0, timeout=WAIT_MS)
    assert "".join(view.locator(".ev-mark.ev-whole").all_text_contents()) == SPLIT
