"""The recursive splitter in the page, as a person uses it: choose it and a preset, see
word mode disabled with its reason, the overlap sentence and the boundaries marked in
the text view, share the link, and download what the command line prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import WAIT_MS, cli_chunk, configure, js_number, native, release_held
from playwright.sync_api import expect

MARKDOWN = (
    "# Chunking notes\n\nA recursive splitter tries separators in order. It treats the overlap"
    " as a target.\n\n## Why it matters\n\nThe overlap you set is not always the overlap you"
    " get. Short paragraphs end a chunk early.\n\n## Offsets\n\nEvery chunk keeps its exact"
    " place in the text, even when the text repeats.\n"
)


def test_the_recursive_splitter_in_the_page_marks_short_boundaries_and_downloads_the_cli_bytes(
    app: Any, tmp_path: Path
) -> None:
    configure(app, text=MARKDOWN, unit="char", size="60", overlap="20")
    app.get_by_test_id("splitter").select_option("recursive")
    settings = app.get_by_test_id("recursive-settings")
    expect(settings).to_be_visible()
    # Word mode is none of LangChain's length functions: disabled, and the page says why.
    expect(app.get_by_test_id("unit-word")).to_be_disabled()
    expect(app.get_by_test_id("word-unit-reason")).to_contain_text("length functions")
    app.get_by_test_id("separators-preset").select_option("markdown")
    # The editable list shows the preset's separators with a line break as \n.
    first = app.get_by_test_id("separator-item").first
    expect(first).to_have_value("\\n#{1,6} ")
    expect(app.get_by_test_id("separator-regex")).to_be_checked()

    flags = ["--splitter", "recursive", "--unit", "char", "--size", "60", "--overlap", "20"]
    expected = cli_chunk(MARKDOWN, *flags, "--separators-preset", "markdown")
    doc = json.loads(expected)
    expect(app.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(doc["summary"]["chunks"]), timeout=WAIT_MS
    )
    # The plain-words sentence is the engine's, for these very chunks.
    sentence = app.get_by_test_id("overlap-sentence")
    expect(sentence).to_contain_text("You asked for 20 characters of overlap.")
    expect(sentence).to_contain_text(f"{doc['overlap']['no_overlap']} of")
    # Each boundary that got less than asked is marked in the text view (a dashed edge
    # with a title), where its later chunk starts.
    short = [
        doc["chunks"][b["after"] + 1]["char_start"]
        for b in doc["chunk_boundaries"]
        if b["overlap"] < 20
    ]
    assert short, "the example should have boundaries that got less than asked"
    marks = app.locator('[data-testid="segment"].seg-short')
    expect(marks.first).to_be_attached(timeout=WAIT_MS)
    starts = sorted(int(m) for m in marks.evaluate_all("ns => ns.map(n => n.dataset.start)"))
    assert starts == short
    expect(marks.first).to_have_attribute(
        "title", "This boundary got 0 of overlap, less than asked"
    )

    # The share link carries the splitter's settings; the download is the CLI's bytes.
    href = app.get_by_test_id("share-link").get_attribute("href")
    assert "sp=recursive" in href and "sep=markdown" in href
    with app.expect_download() as info:
        app.get_by_test_id("download-json").click()
    download = info.value
    assert download.suggested_filename == "chunks-recursive-char-60-20.json"
    saved = tmp_path / "download.json"
    download.save_as(saved)
    assert saved.read_bytes() == expected

    # An edited separator list goes to the engine as typed, escapes read back.
    item = app.get_by_test_id("separator-item").nth(0)
    item.fill("\\n\\n")
    expect(app.get_by_test_id("separators-preset")).to_have_value("")
    custom = cli_chunk(
        MARKDOWN, *flags, "--separator-regex", "--separators",
        json.dumps(["\n\n", *doc["splitter"]["separators"][1:]]),
    )  # fmt: skip
    expect(app.get_by_test_id("summary-chunks")).to_have_attribute(
        "data-value", str(json.loads(custom)["summary"]["chunks"]), timeout=WAIT_MS
    )
    assert "seps=" in (app.get_by_test_id("share-link").get_attribute("href") or "")


def test_index_sizing_measures_the_recursive_splitters_chunks_of_this_text(app: Any) -> None:
    configure(app, text=MARKDOWN, unit="token", encoding="cl100k_base", size="24", overlap="6")
    app.get_by_test_id("splitter").select_option("recursive")
    app.get_by_test_id("sizing-fold").locator("summary").first.click()
    panel = app.get_by_test_id("sizing-panel")
    panel.get_by_test_id("sizing-use-text").click()  # back in step with the main view
    measured = panel.get_by_test_id("sizing-measured")
    expect(measured).to_be_visible(timeout=WAIT_MS)
    expect(measured).to_contain_text("not the formula")
    # Three documents typed: still this text's real chunks, three times over.
    panel.get_by_test_id("sizing-documents").fill("3")
    expected = native(
        "size", documents=3, size=24, overlap=6, splitter="recursive", unit="token",
        encoding="cl100k_base", text=MARKDOWN,
    )  # fmt: skip
    n = expected["chunks_per_document"]
    expect(panel.get_by_test_id("sizing-index-entries")).to_have_attribute(
        "data-value", str(3 * n), timeout=WAIT_MS
    )
    expect(panel.get_by_test_id("sizing-stored-actual")).to_have_attribute(
        "data-value", str(expected["stored_tokens_actual"]), timeout=WAIT_MS
    )
    expect(measured).to_contain_text(f"{n} chunks")
    # A length of one's own is the formula's, and the page stops saying "measured".
    panel.get_by_test_id("sizing-avg-tokens").fill("5000")
    expect(measured).to_be_hidden(timeout=WAIT_MS)


def test_the_sweep_plots_the_recursive_splitters_produced_overlap_against_the_one_asked(
    app: Any,
) -> None:
    configure(app, text=MARKDOWN, unit="char", size="60", overlap="20")
    app.get_by_test_id("splitter").select_option("recursive")
    app.get_by_test_id("sweep-fold").locator("summary").first.click()
    asked_for = {"text": MARKDOWN, "unit": "char", "size": 60, "overlap": 20}
    rows = native("sweep", **asked_for, splitter="recursive")["rows"]
    # The example must show a range: some settings produce less than asked, unevenly.
    assert any(r["produced_overlap_max"] > r["produced_overlap_min"] for r in rows)
    assert any(r["produced_overlap_median"] < r["overlap"] for r in rows)
    choice = app.get_by_test_id("sweep-metric-produced-overlap-median")
    expect(choice).to_be_attached(timeout=WAIT_MS)
    # Keyboard-reachable like the other metrics: an arrow key from "Cut sentences" picks it.
    app.get_by_test_id("sweep-metric-cut").check()
    app.get_by_test_id("sweep-metric-cut").press("ArrowRight")
    expect(choice).to_be_checked()
    chart = app.get_by_test_id("sweep-chart")
    expect(chart).to_have_attribute("data-metric", "produced_overlap_median")
    points = chart.get_by_test_id("sweep-point")
    expect(points).to_have_count(len(rows), timeout=WAIT_MS)

    def key(r: dict[str, Any]) -> tuple[str, int, int]:
        return (r["series"], r["size"], r["overlap"])

    want = {
        key(r): [
            js_number(r[k])
            for k in ("produced_overlap_median", "produced_overlap_min", "produced_overlap_max")
        ]
        + [str(r["overlap"])]
        for r in rows
    }
    drawn = points.evaluate_all(
        "ns => ns.map(n => [n.dataset.series, +n.dataset.size, +n.dataset.overlap,"
        " n.dataset.value, n.dataset.min, n.dataset.max, n.dataset.requested])"
    )
    assert {(s, z, o): rest for s, z, o, *rest in drawn} == want
    # Each point has its min-max whisker, and the overlap asked is drawn as its own line.
    whiskers = chart.get_by_test_id("sweep-whisker")
    expect(whiskers).to_have_count(len(rows))
    spans = whiskers.evaluate_all(
        "ns => ns.map(n => [n.dataset.series ?? '', +n.dataset.size, +n.dataset.overlap,"
        " n.dataset.min, n.dataset.max])"
    )
    assert sorted((z, o, lo, hi) for _, z, o, lo, hi in spans) == sorted(
        (r["size"], r["overlap"], js_number(r["produced_overlap_min"]),
         js_number(r["produced_overlap_max"]))
        for r in rows
    )  # fmt: skip
    asked = chart.get_by_test_id("sweep-requested").first.locator(".mark")
    expect(asked).to_have_count(len([r for r in rows if r["series"] == "overlap"]))

    # The table carries the same figures, with the extra volume, row for row.
    table = app.get_by_test_id("sweep-table")
    cells = table.locator('td[data-key="produced_overlap_median"]')
    expect(cells).to_have_count(len(rows))
    assert cells.evaluate_all("ns => ns.map(n => n.dataset.value)") == [
        js_number(r["produced_overlap_median"]) for r in rows
    ]
    extra = table.locator('td[data-key="extra_volume"]')
    assert extra.evaluate_all("ns => ns.map(n => n.dataset.value)") == [
        js_number(r["extra_volume"]) for r in rows
    ]
    first = rows[0]
    expect(cells.first).to_have_text(
        f"median {first['produced_overlap_median']} ({first['produced_overlap_min']}"
        f"\u2013{first['produced_overlap_max']}), {first['no_overlap']} with none"
    )

    # Back on the fixed window the choice goes, and the chart falls back to chunks.
    app.get_by_test_id("splitter").select_option("fixed")
    expect(choice).to_have_count(0, timeout=WAIT_MS)
    expect(chart).to_have_attribute("data-metric", "chunks")
    expect(table.locator('td[data-key="produced_overlap_median"]')).to_have_count(0)

    # The same with the panel closed: its sweep of the recursive splitter goes with its
    # choices, the panel says it waits, and it sweeps the fixed window once opened.
    fold = app.get_by_test_id("sweep-fold")
    app.get_by_test_id("splitter").select_option("recursive")
    expect(choice).to_be_attached(timeout=WAIT_MS)
    fold.locator("summary").first.click()
    expect(fold).not_to_have_attribute("open", "")
    app.get_by_test_id("splitter").select_option("fixed")
    expect(choice).to_have_count(0, timeout=WAIT_MS)
    expect(app.get_by_test_id("sweep-status")).to_have_text("Waiting for the first result…")
    expect(points).to_have_count(0)
    fold.locator("summary").first.click()
    fixed_rows = native("sweep", **asked_for)["rows"]
    expect(points).to_have_count(len(fixed_rows), timeout=WAIT_MS)
    expect(chart).to_have_attribute("data-metric", "chunks")
    expect(choice).to_have_count(0)

    # A sweep still on its way when the panel closes and the setting changes is of the
    # old setting: the newer view's call supersedes it, and it is not drawn (its answer
    # held back here until then).
    app.get_by_test_id("splitter").select_option("recursive")
    expect(choice).to_be_attached(timeout=WAIT_MS)
    app.evaluate("() => { window.__spy.hold = 'sweep'; }")
    configure(app, size="61")
    expect(app.locator("html[data-spy-held]")).to_be_attached(timeout=WAIT_MS)
    fold.locator("summary").first.click()
    app.get_by_test_id("splitter").select_option("fixed")
    expect(choice).to_have_count(0, timeout=WAIT_MS)
    release_held(app)
    expect(choice).to_have_count(0)
    expect(app.get_by_test_id("sweep-status")).to_have_text("Waiting for the first result…")
