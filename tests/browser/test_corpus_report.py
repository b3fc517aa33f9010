"""The corpus report (``python -m pyapp corpus --report``) opened in real Chromium:
no console error, no request beyond the file itself, no script, file names shown
as text, and every figure, bar and row equal to the JSON printed by the same run."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HOSTILE_NAME = "<img src=x onerror=alert(1)>.txt"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A corpus with many distinct chunk counts, errors and a hostile file name, counted
    once: the page it wrote and the JSON it printed."""
    root = tmp_path_factory.mktemp("report")
    docs = root / "docs"
    docs.mkdir()
    for n in range(1, 60):
        (docs / f"doc{n:02d}.txt").write_text("word " * (n * n), encoding="utf-8")
    (docs / "empty.md").write_text("", encoding="utf-8")
    (docs / HOSTILE_NAME).write_text("word " * 5000, encoding="utf-8")  # the largest
    lines = [json.dumps({"text": "a b c " * n, "id": f"rec-{n}"}) for n in range(40)]
    lines[3] = '{"no": "text"}'
    (docs / "records.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (docs / "bad.txt").write_bytes(b"caf\xe9")
    page_path = root / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "pyapp", "corpus", str(docs), "--unit", "word", "--size", "8",
         "--overlap", "2", "--id-column", "id", "--workers", "1", "--no-progress",
         "--report", str(page_path)],
        capture_output=True,
        check=True,
    )  # fmt: skip
    return page_path, json.loads(done.stdout)


@pytest.fixture
def opened(browser: Any, report: tuple[Path, dict[str, Any]]) -> Iterator[tuple[Any, list[str]]]:
    """The report in a fresh page; the list collects console errors, page errors and
    every request that is not the report file itself."""
    path, _ = report
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    problems: list[str] = []

    def on_console(message: Any) -> None:
        if message.type in ("error", "warning"):
            problems.append(f"console {message.type}: {message.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    context.on(
        "request",
        lambda r: None if r.url == path.as_uri() else problems.append(f"request: {r.url}"),
    )
    page.goto(path.as_uri())
    try:
        yield page, problems
    finally:
        context.close()


def figure(page: Any, testid: str) -> tuple[str, str]:
    element = page.locator(f'[data-testid="{testid}"]')
    return element.get_attribute("data-value"), element.inner_text()


def test_the_report_opens_without_errors_requests_or_scripts(
    opened: tuple[Any, list[str]],
) -> None:
    page, problems = opened
    page.wait_for_load_state("load")
    assert problems == []
    assert page.evaluate("document.scripts.length") == 0
    assert page.locator("svg").count() == 2


def test_every_total_in_the_report_is_the_jsons(
    opened: tuple[Any, list[str]], report: tuple[Path, dict[str, Any]]
) -> None:
    page, _ = opened
    _, doc = report
    spread, lengths = doc["chunks_per_document"], doc["units_per_document"]
    expected = {
        "documents": doc["documents"],
        "units": doc["units"],
        "chunks": doc["chunks"],
        "processed_units": doc["processed_units"],
        "repeated_units": doc["repeated_units"],
        "stored_tokens_actual": doc["stored_tokens_actual"],
        "stored_tokens_nominal": doc["stored_tokens_nominal"],
        "input_bytes": doc["input_bytes"],
        "estimated_cost": doc["estimated_cost"],
        "inflation": doc["inflation"],
        "inflation_nominal": doc["inflation_nominal"],
        "one_chunk": spread["one_chunk"],
        "one_chunk_share": spread["one_chunk_share"],
        "empty": lengths["empty"],
        "boms_removed": doc["boms_removed"],
        "errors_total": doc["errors_total"],
        "skipped_total": doc["skipped_total"],
    }
    shown = {key: figure(page, key) for key in expected}
    assert {key: json.loads(value) for key, (value, _) in shown.items()} == expected
    assert shown["documents"][1] == f"{doc['documents']:,}"
    assert shown["units"][1] == f"{doc['units']:,}"
    assert shown["one_chunk_share"][1] == f"{spread['one_chunk_share'] * 100:.1f}%"
    assert shown["inflation"][1] == f"{doc['inflation']:.3f}×"
    assert doc["errors_total"] == 2 and doc["documents"] == 59 + 1 + 1 + 39


def bars(page: Any, testid: str) -> list[tuple[int, int, int]]:
    return [
        tuple(int(v) for v in values)
        for values in page.eval_on_selector_all(
            f'[data-testid="{testid}"] rect.bar',
            "rects => rects.map(r => [r.dataset.from, r.dataset.to, r.dataset.documents])",
        )
    ]


def test_the_histograms_hold_the_jsons_documents_bar_by_bar(
    opened: tuple[Any, list[str]], report: tuple[Path, dict[str, Any]]
) -> None:
    page, _ = opened
    _, doc = report
    lengths = bars(page, "length-histogram")
    assert lengths == [
        (b["from"], b["to"], b["documents"]) for b in doc["units_per_document"]["histogram"]
    ]
    chunk_bars = bars(page, "chunk-histogram")
    counts = {e["chunks"]: e["documents"] for e in doc["chunks_per_document"]["histogram"]}
    assert len(counts) > 40  # so the chart bins them
    assert sum(n for _, _, n in chunk_bars) == doc["documents"]
    for low, high, n in chunk_bars:
        assert n == sum(d for k, d in counts.items() if low <= k <= high)
    heights = page.eval_on_selector_all(
        '[data-testid="chunk-histogram"] rect.bar', "rects => rects.map(r => r.getBBox().height)"
    )
    scale = max(heights) / max(n for _, _, n in chunk_bars)  # a bar's height is its count
    for (_, _, n), height in zip(chunk_bars, heights, strict=True):
        assert height == pytest.approx(n * scale, abs=0.02)


def test_the_largest_documents_table_is_the_jsons_and_names_are_text(
    opened: tuple[Any, list[str]], report: tuple[Path, dict[str, Any]]
) -> None:
    page, _ = opened
    _, doc = report
    rows = page.eval_on_selector_all(
        '[data-testid="largest-row"]',
        "rows => rows.map(r => [r.cells[1].textContent, r.cells[3].textContent,"
        " Number(r.dataset.units), Number(r.dataset.chunks)])",
    )
    assert rows == [
        [e["path"], e["id"] or "", e["units"], e["chunks"]] for e in doc["largest_documents"]
    ]
    assert doc["largest_documents"][0]["path"].endswith(HOSTILE_NAME)
    assert rows[0][0].endswith(HOSTILE_NAME)  # shown as text...
    assert page.locator("img").count() == 0  # ...never as markup
    names = page.eval_on_selector_all("td.path", "cells => cells.map(c => c.textContent)")
    assert all(name in json.dumps(doc, ensure_ascii=False) for name in names)
