"""The planning tools, driven as a person would in real headless Chromium: index
sizing, context budget, the boundary check in the chunk view and the overlap sweep
chart. The three panels are folded until opened; each test opens the one it uses.

Expected figures come from the reference texts (003's default example, 000's two
budget checks, each the page's worked example) or from the engine run natively
(``pyapp.web.api.handle``, the CLI), never from arithmetic repeated here. Under the
page's CSP Playwright's ``wait_for_function`` cannot run, so every wait is on a locator.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import WAIT_MS, configure, error_slot, expect_figure, js_number, native
from playwright.sync_api import expect

from pyapp.facts import CHUNK_DEFAULTS

ROOT = Path(__file__).resolve().parents[2]


def open_panel(app: Any, name: str) -> Any:
    """Opens a folded planning panel (sizing, budget, sweep) by its heading; returns it."""
    app.get_by_test_id(f"{name}-fold").locator("summary").first.click()
    expect(app.get_by_test_id(f"{name}-fold")).to_have_attribute("open", "")
    return app.get_by_test_id(f"{name}-panel")


def sizing_example(app: Any) -> Any:
    """The sizing panel, opened, with its worked example put in."""
    panel = open_panel(app, "sizing")
    panel.get_by_test_id("sizing-reference").click()
    return panel


def budget_example(app: Any) -> Any:
    """The budget panel, opened, with its first worked example (it fits) put in."""
    panel = open_panel(app, "budget")
    panel.get_by_test_id("budget-reference-fits").click()
    return panel


# Three sentences; at word size 6, overlap 1 the middle ones straddle boundaries.
PROSE = (
    "Chunking cuts text at fixed places. Overlap repeats a little of each chunk "
    "in the next one. A sentence that straddles a boundary may still be cut. "
    "Measure it before you index!"
)


# ---- index sizing (reference 003) ------------------------------------------------------


def test_index_sizing_reproduces_the_worked_example_with_actual_beside_nominal(
    app: Any,
) -> None:
    panel = sizing_example(app)
    expect(panel.get_by_test_id("sizing-documents")).to_have_value("500")
    expect(panel.get_by_test_id("sizing-overlap-mode-percent")).to_be_checked()
    # Reference 003's readout, figure by figure.
    expect_figure(panel, "sizing-index-entries", "1,500", "1500")
    expect_figure(panel, "sizing-chunks-per-doc", "3", "3")
    expect_figure(panel, "sizing-retrieved", "2,560", "2560")
    expect_figure(panel, "sizing-budget-share", "2%", "0.02")
    expect_figure(panel, "sizing-budget-left", "125,440", "125440")
    expect_figure(panel, "sizing-stored-nominal", "768,000", "768000")
    expect_figure(panel, "sizing-inflation-nominal", "1.28×", "1.28")
    # Our rounding of 15% to whole tokens, and reference 000's actual stored tokens.
    expected = native(
        "size", documents=500, avg_tokens=1200, size=512, overlap="15%", top_k=5, budget=128000
    )
    expect_figure(panel, "sizing-stride", "435", str(expected["stride"]))
    expect_figure(panel, "sizing-stored-actual", "677,000", "677000")
    expect_figure(
        panel, "sizing-inflation-actual", "1.128×", js_number(expected["inflation_actual"])
    )
    expect_figure(panel, "sizing-limit", "1.177×", js_number(expected["limit_inflation"]))
    expect(panel.get_by_test_id("sizing-vector-bytes")).to_have_attribute("data-value", "")
    expect(panel.get_by_test_id("sizing-overlap-resolved")).to_have_attribute("data-value", "77")

    # Both stored figures are on screen, and the page says which is right and why.
    expect(panel.get_by_test_id("sizing-stored-nominal")).to_be_visible()
    expect(panel.get_by_test_id("sizing-stored-actual")).to_be_visible()
    note = panel.get_by_test_id("sizing-stored-note")
    expect(note).to_contain_text("The actual figure is the right one")
    expect(note).to_contain_text("last chunk of each document is partial")

    # Each figure's derivation, as the engine wrote it.
    derivation = panel.get_by_test_id("sizing-derivation")
    derivation.locator("summary").click()
    rows = derivation.locator("tbody tr")
    expect(rows).to_have_count(len(expected["derivation"]))
    for key in ("stride", "chunks_per_document", "stored_tokens_actual", "budget_share"):
        row = derivation.locator(f'tr[data-key="{key}"]')
        expect(row).to_contain_text(expected["derivation"][key]["formula"])
        expect(row).to_contain_text(expected["derivation"][key]["inputs"])
    expect(derivation.locator('tr[data-key="stride"]')).to_contain_text("435.2")


def test_sizing_fields_are_editable_and_the_reference_button_restores_the_example(
    app: Any,
) -> None:
    panel = sizing_example(app)
    expect_figure(panel, "sizing-index-entries", "1,500", "1500")
    panel.get_by_test_id("sizing-overlap-mode-units").check()
    panel.get_by_test_id("sizing-overlap").fill("64")
    panel.get_by_test_id("sizing-dim").fill("1536")
    panel.get_by_test_id("sizing-avg-tokens").fill("2000")
    expected = native(
        "size",
        documents=500,
        avg_tokens=2000,
        size=512,
        overlap=64,
        top_k=5,
        budget=128000,
        dim=1536,
        bytes_per_value=4,
    )
    expect_figure(
        panel,
        "sizing-index-entries",
        f"{expected['index_entries']:,}",
        str(expected["index_entries"]),
    )
    expect(panel.get_by_test_id("sizing-stored-actual")).to_have_attribute(
        "data-value", str(expected["stored_tokens_actual"])
    )
    expect(panel.get_by_test_id("sizing-vector-bytes")).to_have_attribute(
        "data-value", str(expected["vector_bytes"])
    )
    expect(panel.get_by_test_id("sizing-vector-bytes")).to_contain_text("MB")

    panel.get_by_test_id("sizing-reference").click()
    expect(panel.get_by_test_id("sizing-overlap")).to_have_value("15")
    expect(panel.get_by_test_id("sizing-overlap-mode-percent")).to_be_checked()
    expect_figure(panel, "sizing-index-entries", "1,500", "1500")
    expect_figure(panel, "sizing-stored-nominal", "768,000", "768000")


def test_short_documents_store_the_same_nominal_and_actual_and_say_so(app: Any) -> None:
    panel = sizing_example(app)
    panel.get_by_test_id("sizing-avg-tokens").fill("300")
    expect_figure(panel, "sizing-stored-nominal", "150,000", "150000")
    expect_figure(panel, "sizing-stored-actual", "150,000", "150000")
    expect(panel.get_by_test_id("sizing-stored-note")).to_contain_text("Here both agree")


@pytest.mark.parametrize(
    ("testid", "value", "field", "message"),
    [
        ("sizing-overlap", "600", "overlap", "must be smaller than size"),
        ("sizing-documents", "many", "documents", "must be a number"),
        ("sizing-dim", "wide", "dim", "must be a number"),
    ],
)
def test_a_bad_sizing_field_shows_an_inline_message_and_keeps_the_last_result(
    app: Any, testid: str, value: str, field: str, message: str
) -> None:
    panel = sizing_example(app)
    expect_figure(panel, "sizing-index-entries", "1,500", "1500")
    if testid == "sizing-overlap":
        panel.get_by_test_id("sizing-overlap-mode-units").check()
    panel.get_by_test_id(testid).fill(value)
    error = error_slot(panel, f"sizing.{field}")
    expect(error).to_be_visible(timeout=WAIT_MS)
    expect(error).to_contain_text(message)
    expect(panel.get_by_test_id(testid)).to_have_attribute("aria-invalid", "true")
    expect(panel.get_by_test_id("sizing-stale")).to_be_visible()
    expect_figure(panel, "sizing-index-entries", "1,500", "1500")
    # A recompute of the main view does not wipe the panel's message.
    text = app.get_by_test_id("text-input").input_value()
    configure(app, size="39")
    unit, overlap = CHUNK_DEFAULTS["unit"], CHUNK_DEFAULTS["overlap"]  # the page's defaults
    at_39 = native("chunk", text=text, unit=unit, size="39", overlap=overlap)["summary"]
    expect_figure(app, "summary-chunks", re.compile(r"\d"), str(at_39["chunks"]))
    expect_figure(app, "summary-processed", re.compile(r"\d"), str(at_39["processed_units"]))
    expect(app.get_by_test_id("status")).to_have_attribute("data-state", "ready")
    expect(error).to_be_visible()
    panel.get_by_test_id("sizing-reference").click()
    expect(error).to_be_hidden()
    expect(panel.get_by_test_id("sizing-stale")).to_be_hidden()


# ---- context budget (references 000 and 004) ----------------------------------------


def test_budget_reproduces_reference_000_fits_with_7592_available(app: Any) -> None:
    panel = budget_example(app)
    expect(panel.get_by_test_id("budget-window")).to_have_value("8192")
    expected = native("budget", window=8192, system=500, question=100, top_k=5, size=512)
    expect_figure(panel, "budget-available", "7,592", "7592")
    expect_figure(panel, "budget-retrieved", "2,560", "2560")
    expect_figure(panel, "budget-left", "5,032", str(expected["left"]))
    expect_figure(panel, "budget-max-top-k", "14", str(expected["max_top_k"]))
    expect_figure(panel, "budget-chunks-in-window", "16", "16")  # floor(8192 / 512), ref 004
    fits = panel.get_by_test_id("budget-fits")
    expect(fits).to_have_attribute("data-value", "true")
    expect(fits).to_contain_text("Fits")
    ok = fits.evaluate("el => getComputedStyle(el).backgroundColor")

    panel.get_by_test_id("budget-reference-overflows").click()
    expect(fits).to_have_attribute("data-value", "false", timeout=WAIT_MS)
    expect(fits).to_contain_text("Overflows")
    expect_figure(panel, "budget-retrieved", "8,192", "8192")
    expect_figure(panel, "budget-available", "7,592", "7592")
    expect_figure(panel, "budget-max-top-k", "7", "7")
    expect_figure(panel, "budget-chunks-in-window", "8", "8")
    assert fits.evaluate("el => getComputedStyle(el).backgroundColor") != ok

    panel.get_by_test_id("budget-reference-fits").click()
    expect(fits).to_have_attribute("data-value", "true", timeout=WAIT_MS)
    derivation = panel.get_by_test_id("budget-derivation")
    derivation.locator("summary").click()
    expect(derivation.locator('tr[data-key="available"]')).to_contain_text("8192 - 500 - 100 - 0")


def test_the_pasted_texts_exact_token_count_feeds_the_budget_in_token_mode(app: Any) -> None:
    panel = budget_example(app)
    use_question = panel.get_by_test_id("budget-use-tokens-question")
    use_system = panel.get_by_test_id("budget-use-tokens-system")
    configure(app, text=PROSE, unit="word")
    expect(use_question).to_be_disabled()
    expect(panel.get_by_test_id("budget-tokens-hint")).to_contain_text("Token")

    configure(app, unit="token", size="8", overlap="2")
    expect(use_question).to_be_enabled()
    tokens = native("counts", text=PROSE, unit="token", encoding="o200k_base")["tokens"]
    use_question.click()
    expect(panel.get_by_test_id("budget-question")).to_have_value(str(tokens))
    expected = native("budget", window=8192, system=500, question=tokens, top_k=5, size=512)
    expect_figure(
        panel,
        "budget-available",
        f"{expected['available']:,}",
        str(expected["available"]),
    )
    use_system.click()
    expect(panel.get_by_test_id("budget-system")).to_have_value(str(tokens))
    expected = native("budget", window=8192, system=tokens, question=tokens, top_k=5, size=512)
    expect(panel.get_by_test_id("budget-available")).to_have_attribute(
        "data-value", str(expected["available"]), timeout=WAIT_MS
    )
    # The count is the engine's own, the same the main view shows.
    expect(app.get_by_test_id("count-tokens")).to_have_attribute("data-value", str(tokens))


def test_a_bad_budget_field_shows_an_inline_message_and_keeps_the_last_result(app: Any) -> None:
    panel = budget_example(app)
    expect_figure(panel, "budget-available", "7,592", "7592")
    panel.get_by_test_id("budget-window").fill("")
    error = error_slot(panel, "budget.window")
    expect(error).to_be_visible(timeout=WAIT_MS)
    expect(error).to_contain_text("window")
    expect(panel.get_by_test_id("budget-stale")).to_be_visible()
    expect_figure(panel, "budget-available", "7,592", "7592")
    expect(panel.get_by_test_id("budget-fits")).to_have_attribute("data-value", "true")
    panel.get_by_test_id("budget-window").fill("8192")
    expect(error).to_be_hidden()


# ---- boundary check ---------------------------------------------------------------------


@pytest.mark.parametrize("unit", ["word", "char"])
def test_boundary_summary_counts_cut_sentences_and_cards_mark_them(app: Any, unit: str) -> None:
    size, overlap = ("6", "1") if unit == "word" else ("50", "10")
    configure(app, text=PROSE, unit=unit, size=size, overlap=overlap)
    expected = native("chunk", text=PROSE, unit=unit, size=int(size), overlap=int(overlap))
    b = expected["boundaries"]
    assert b["cut"] > 0, "the example must cut a sentence to test anything"
    summary = app.get_by_test_id("boundary-summary")
    expect(summary).to_have_attribute("data-value", str(b["cut"]), timeout=WAIT_MS)
    expect(summary).to_have_attribute("data-sentences", str(b["sentences"]))
    expect(summary).to_contain_text(f"{b['cut']} sentences of {b['sentences']}")

    cards = app.get_by_test_id("chunk")
    expect(cards).to_have_count(len(expected["chunks"]))
    marks = app.locator("#chunk-list .cut-sentence")
    expect(marks.first).to_be_visible()
    # A quiet mark, not a spell-checker's red wave.
    style = marks.first.evaluate("el => getComputedStyle(el).textDecorationStyle")
    assert style == "dotted"
    # Every card shows exactly its share of each cut sentence, and nothing else.
    for i, chunk in enumerate(expected["chunks"]):
        cs, ce = chunk["char_start"], chunk["char_end"]
        parts = [PROSE[max(a, cs) : min(e, ce)] for a, e in b["cut_spans"] if a < ce and e > cs]
        marked = cards.nth(i).locator(".cut-sentence").all_text_contents()
        joined = "".join(marked)
        if unit == "word":  # the preview normalizes whitespace to single spaces
            parts = [" ".join(p.split()) for p in parts]
        assert joined == "".join(parts), (i, marked, parts)
    expect(app.locator(".legend .cut-sample")).to_be_visible()
    # The marks can be switched off (and the choice is a setting in the link).
    app.get_by_test_id("cut-marks-toggle").uncheck()
    assert marks.first.evaluate("el => getComputedStyle(el).textDecorationLine") == "none"
    expect(app.locator(".legend .cut-sample")).to_be_hidden()
    assert "cm=0" in app.url
    app.get_by_test_id("cut-marks-toggle").check()
    assert marks.first.evaluate("el => getComputedStyle(el).textDecorationLine") == "underline"
    app.get_by_test_id("sentence-rule").locator("summary").click()
    expect(app.get_by_test_id("sentence-rule")).to_contain_text("。")
    expect(app.get_by_test_id("sentence-rule")).to_contain_text("blank line")


def test_full_width_stops_end_sentences_without_a_space(app: Any) -> None:
    text = "第一句很长很长。第二句也很长很长！第三句？"
    configure(app, text=text, unit="char", size="6", overlap="1")
    expected = native("chunk", text=text, unit="char", size=6, overlap=1)["boundaries"]
    assert expected["sentences"] == 3
    summary = app.get_by_test_id("boundary-summary")
    expect(summary).to_have_attribute("data-sentences", "3", timeout=WAIT_MS)
    expect(summary).to_have_attribute("data-cut", str(expected["cut"]))


def test_the_download_carries_the_boundaries_the_cli_prints(app: Any, tmp_path: Path) -> None:
    configure(app, text=PROSE, unit="word", size="6", overlap="1")
    expect(app.get_by_test_id("boundary-summary")).to_have_attribute(
        "data-cut", re.compile(r"[1-9]"), timeout=WAIT_MS
    )
    source = tmp_path / "input.txt"
    source.write_text(PROSE, encoding="utf-8", newline="")
    cli = subprocess.run(
        [sys.executable, "-m", "pyapp", "chunk", "--unit", "word", "--size", "6"]
        + ["--overlap", "1", str(source)],
        capture_output=True,
        check=True,
        cwd=ROOT,
    )
    with app.expect_download() as info:
        app.get_by_test_id("download-json").click()
    saved = tmp_path / "download.json"
    info.value.save_as(saved)
    doc = json.loads(saved.read_bytes())
    assert doc["schema"] == "pyapp.chunks/5"
    assert doc["boundaries"] == json.loads(cli.stdout)["boundaries"]
    assert doc["boundaries"]["cut"] > 0
    summary = app.get_by_test_id("boundary-summary")
    expect(summary).to_have_attribute("data-cut", str(doc["boundaries"]["cut"]))


# ---- overlap sweep ------------------------------------------------------------------------


def sweep_of(text: str, unit: str, size: int, overlap: int) -> dict[str, Any]:
    return native("sweep", text=text, unit=unit, size=size, overlap=overlap)


def sweep_shown(chart: Any, size: int, overlap: int) -> None:
    """Waits until the chart is the sweep of this setting (its current points are it),
    not one drawn before: a chart drawn again replaces the point a test holds."""
    current = chart.locator(
        f'.sweep-point[data-current="true"][data-size="{size}"][data-overlap="{overlap}"]'
    )
    expect(current).to_have_count(2, timeout=WAIT_MS)  # one in each series


def test_sweep_chart_draws_every_row_and_a_click_applies_that_setting(app: Any) -> None:
    open_panel(app, "sweep")
    configure(app, text=PROSE, unit="word", size="8", overlap="1")
    rows = sweep_of(PROSE, "word", 8, 1)["rows"]
    chart = app.get_by_test_id("sweep-chart")
    sweep_shown(chart, 8, 1)
    points = chart.get_by_test_id("sweep-point")
    expect(points).to_have_count(len(rows), timeout=WAIT_MS)
    expect(chart.locator('.sweep-point[data-series="overlap"]')).to_have_count(
        sum(r["series"] == "overlap" for r in rows)
    )
    current = chart.locator('[data-testid="sweep-point"][data-current="true"]')
    expect(current).to_have_count(2)  # one in each series
    expect(current.first).to_have_attribute("data-size", "8")
    expect(current.first).to_have_attribute("data-overlap", "1")
    # The table holds the same rows.
    expect(app.get_by_test_id("sweep-table").locator("tbody tr")).to_have_count(len(rows))

    # Pick the largest overlap the sweep offers at this size.
    target = max((r for r in rows if r["series"] == "overlap"), key=lambda r: r["overlap"])
    assert not target["current"]
    point = chart.locator(
        f'.sweep-point[data-series="overlap"][data-overlap="{target["overlap"]}"]'
    )
    expect(point).to_have_attribute("data-value", str(target["chunks"]))
    point.click()
    expect(app.get_by_test_id("size-input")).to_have_value(str(target["size"]))
    expect(app.get_by_test_id("overlap-input")).to_have_value(str(target["overlap"]))
    expect(app.get_by_test_id("overlap-mode-units")).to_be_checked()
    expect(app.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(target["chunks"]), timeout=WAIT_MS
    )
    assert f"overlap={target['overlap']}" in app.url
    # The chart follows: the chosen point is now the current one.
    expect(
        chart.locator(
            f'.sweep-point[data-series="overlap"][data-current="true"]'
            f'[data-overlap="{target["overlap"]}"]'
        )
    ).to_have_count(1, timeout=WAIT_MS)


def test_a_sweep_point_is_reachable_by_keyboard_and_enter_applies_a_size(app: Any) -> None:
    open_panel(app, "sweep")
    configure(app, text=PROSE, unit="word", size="8", overlap="2")
    rows = sweep_of(PROSE, "word", 8, 2)["rows"]
    target = max((r for r in rows if r["series"] == "size"), key=lambda r: r["size"])
    chart = app.get_by_test_id("sweep-chart")
    sweep_shown(chart, 8, 2)
    point = chart.locator(f'.sweep-point[data-series="size"][data-size="{target["size"]}"]')
    expect(point).to_have_count(1, timeout=WAIT_MS)
    point.focus()
    expect(point).to_be_focused()
    assert point.get_attribute("tabindex") == "0"
    assert "Use this setting" in (point.get_attribute("aria-label") or "")
    # The chart drawn again while the point has the keyboard (here its metric switched
    # from a script, so the focus does not move): the same point, drawn anew, keeps it.
    point.evaluate("(el) => { window.__drawnBefore = el; }")
    app.get_by_test_id("sweep-metric-inflation").evaluate(
        "(radio) => { radio.checked = true;"
        " radio.dispatchEvent(new Event('change', { bubbles: true })); }"
    )
    app.wait_for_selector(".sweep-point:focus")
    assert app.evaluate("() => !window.__drawnBefore.isConnected"), "the chart was not drawn again"
    expect(point).to_be_focused()
    app.keyboard.press("Enter")
    expect(app.get_by_test_id("size-input")).to_have_value(str(target["size"]))
    expect(app.get_by_test_id("overlap-input")).to_have_value(str(target["overlap"]))
    expect(app.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(target["chunks"]), timeout=WAIT_MS
    )


def test_sweep_metric_switch_shows_inflation_and_cut_sentences(app: Any) -> None:
    open_panel(app, "sweep")
    configure(app, text=PROSE, unit="char", size="40", overlap="8")
    rows = sweep_of(PROSE, "char", 40, 8)["rows"]
    chart = app.get_by_test_id("sweep-chart")
    sweep_shown(chart, 40, 8)
    expect(chart.get_by_test_id("sweep-point")).to_have_count(len(rows), timeout=WAIT_MS)
    first = rows[0]
    selector = (
        f'.sweep-point[data-series="{first["series"]}"]'
        f'[data-size="{first["size"]}"][data-overlap="{first["overlap"]}"]'
    )
    app.get_by_test_id("sweep-metric-cut").check()
    expect(chart).to_have_attribute("data-metric", "cut")
    expect(chart.locator(selector)).to_have_attribute("data-value", str(first["cut"]))
    app.get_by_test_id("sweep-metric-inflation").check()
    expect(chart.locator(selector)).to_have_attribute("data-value", js_number(first["inflation"]))
