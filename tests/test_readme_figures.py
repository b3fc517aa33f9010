"""The README's headline figures are the last benchmark run's. Each tokenizer ratio is
``bench/RESULTS.md``'s ratio for that encoding and text, rounded to the digits the
README shows, and the worst shape named is the slowest of the shapes in that run;
first paint, time to ready and typing are rows 1, 2 and 9 of its site table. (The
README's figures are written by hand from the benchmark's; this keeps them true.)"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("English", "Chinese", "Japanese")


def results() -> dict[tuple[str, str], Decimal]:
    """(encoding, text) -> ratio, from the tokenizer section of bench/RESULTS.md."""
    text = (ROOT / "bench" / "RESULTS.md").read_text("utf-8")
    section = text.split("<!-- bench_tokenizers: start -->", 1)[1].split(
        "<!-- bench_tokenizers: end -->"
    )[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and re.fullmatch(r"[\d.]+x", cells[4]):
            rows[(cells[0], cells[1])] = Decimal(cells[4][:-1])
    return rows


def headline() -> dict[str, list[str]]:
    """encoding -> its cells in the README's headline table."""
    readme = (ROOT / "README.md").read_text("utf-8")
    rows = {}
    for line in readme.splitlines():
        found = re.match(
            r"\| `([\w.-]+)` \| ([\d.]+)× \| ([\d.]+)× \| ([\d.]+)× \| ([\d.]+)× \(of (.+?)\) \|",
            line,
        )
        if found:
            rows[found.group(1)] = list(found.groups()[1:])
    return rows


def shown(value: Decimal, like: str) -> str:
    """``value`` rounded half up to as many decimals as ``like`` has."""
    places = len(like.split(".")[1]) if "." in like else 0
    return str(value.quantize(Decimal(1).scaleb(-places), rounding="ROUND_HALF_UP"))


def test_the_readmes_headline_ratios_are_the_last_runs() -> None:
    measured, table = results(), headline()
    assert set(table) == {
        "o200k_base",
        "cl100k_base",
        "llama3",
        "qwen2",
        "tekken",
        "bert-base-uncased",
    }
    for encoding, (*ratios, worst, shape) in table.items():
        for language, ratio in zip(LANGUAGES, ratios, strict=True):
            got = measured[(encoding, f"{language} (Debian Reference)")]
            assert shown(got, ratio) == ratio, (encoding, language, got, ratio)
        shapes = {
            name: r
            for (enc, name), r in measured.items()
            if enc == encoding and name.startswith("1 MB of")
        }
        slowest = max(shapes, key=lambda name: shapes[name])
        assert slowest == f"1 MB of {shape}", (encoding, slowest, shape)
        assert shown(shapes[slowest], worst) == worst, (encoding, shapes[slowest], worst)


def site_row(number: str) -> list[str]:
    """The first row numbered ``number`` in bench/RESULTS.md's site table, its cells."""
    text = (ROOT / "bench" / "RESULTS.md").read_text("utf-8").split("\n## ", 1)[0]
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] == number:
            return cells
    raise AssertionError(f"no row {number} in the site table")


def test_the_readmes_start_up_and_typing_figures_are_the_last_runs() -> None:
    readme = " ".join((ROOT / "README.md").read_text("utf-8").split())
    found = re.search(
        r"first paint ([\d.]+)× a bare page's .*? time to ready ([\d.]+)× a bare "
        r"`loadPyodide\(\)` .*? token mode (\d+) ms from each keystroke",
        readme,
    )
    assert found is not None
    paint, ready, typing = found.groups()
    assert site_row("1")[4] == f"{paint}×"
    assert site_row("2")[4] == f"{ready}×"
    assert site_row("9")[2] == f"{typing} ms"
