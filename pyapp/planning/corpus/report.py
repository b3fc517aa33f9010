"""The HTML report of a corpus count: one self-contained page, drawn from the
``pyapp.corpus/2`` document (:mod:`.output`), so its figures are the JSON's.

The page has no script at all and loads nothing: styles are inline, the charts
are inline SVG, and its Content-Security-Policy (``default-src 'none'``) forbids
any request. Every path, id and reason is escaped: file names are data, never
markup.

It shows the totals, a histogram of document lengths in units (1-2-5 bins), a
histogram of chunks per document (one bar per count, or 1-2-5 bins when there
are more than :data:`MAX_BARS` counts), the share of documents that fit in a
single chunk, the stored-token inflation (actual and nominal), the largest
documents, and the errors and skipped paths.

Each figure carries ``data-testid`` and its exact JSON value in ``data-value``;
each bar carries ``data-from``, ``data-to`` and ``data-documents``.

>>> page = render({"schema": "pyapp.corpus/2", "documents": 0, "units": 0, "chunks": 0,
...     "params": {"unit": "word", "encoding": None, "size": 4, "overlap": 1,
...                "tokens_per_unit": 1, "price_per_million": 1},
...     "input": {"text_field": "text", "id_field": None}, "processed_units": 0,
...     "repeated_units": 0, "inflation": None, "inflation_nominal": None,
...     "stored_tokens_actual": 0, "stored_tokens_nominal": 0, "estimated_cost": 0,
...     "chunks_per_document": {"one_chunk": 0, "one_chunk_share": None, "histogram": []},
...     "units_per_document": {"min": None, "max": None, "mean": None, "empty": 0,
...                            "histogram": []},
...     "largest_documents": [{"path": "<b>.txt", "line": None, "row": None, "id": None,
...                            "units": 0, "chunks": 0}],
...     "boms_removed": 0, "input_bytes": 0, "errors_total": 0, "errors": [],
...     "skipped_total": 0, "skipped": []})
>>> "<script" in page, "&lt;b&gt;.txt" in page, "<b>.txt" in page
(False, True, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, Final

from ...facts import UNITS
from .output import length_bins

__all__ = ["MAX_BARS", "render"]

#: Past this many distinct chunk counts, the chunks histogram uses 1-2-5 bins.
MAX_BARS: Final = 40
#: Errors and skipped paths the page lists (the JSON lists more).
MAX_SHOWN_PROBLEMS: Final = 50

_CHART_WIDTH: Final = 720
_CHART_HEIGHT: Final = 240
_MARGIN_LEFT: Final = 56
_MARGIN_BOTTOM: Final = 44
_MARGIN_TOP: Final = 12

_STYLE: Final = """
:root { color-scheme: light; --ink: #1d2733; --muted: #5b6775; --bar: #3b6fb6; --line: #d6dde5; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
       margin: 0 auto; max-width: 960px; padding: 24px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.15rem; margin: 28px 0 8px; padding-bottom: 4px;
     border-bottom: 1px solid var(--line); }
.settings, .note { color: var(--muted); margin: 4px 0; }
.figures { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 10px; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.figure dt { color: var(--muted); font-size: 0.85rem; }
.figure dd { margin: 0; font-size: 1.3rem; font-variant-numeric: tabular-nums; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
svg .bar { fill: var(--bar); }
svg .axis { stroke: var(--muted); stroke-width: 1; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 8px; vertical-align: top;
         border-bottom: 1px solid var(--line); }
td.num, th.num { text-align: right; }
td.path { word-break: break-all; }
"""


def _grouped(value: int | float | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}"


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}×"


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f}%"


def _figure(testid: str, label: str, value: Any, shown: str) -> str:
    raw = "null" if value is None else str(value)  # the JSON value, null included
    return (
        f'<div class="figure"><dt>{escape(label)}</dt>'
        f'<dd data-testid="{escape(testid)}" data-value="{escape(raw)}">{escape(shown)}</dd></div>'
    )


def _figures(*figures: tuple[str, str, Any, str]) -> str:
    return f'<dl class="figures">{"".join(_figure(*figure) for figure in figures)}</dl>'


def _chart(testid: str, bars: Sequence[Mapping[str, int]], what: str, unit_label: str) -> str:
    """A bar chart: one ``<rect>`` per bar, at most 12 labels under them."""
    if not bars:
        return f'<p class="note" data-testid="{escape(testid)}">No documents.</p>'
    tallest = max(bar["documents"] for bar in bars) or 1
    every = -(-len(bars) // 12)  # at most 12 labels
    short = len(bars) > 8  # then a label is where its bar starts
    if short and any(bar["from"] != bar["to"] for bar in bars):
        unit_label += " (each bar starts at the value under it)"
    inner_w = _CHART_WIDTH - _MARGIN_LEFT - 8
    inner_h = _CHART_HEIGHT - _MARGIN_TOP - _MARGIN_BOTTOM
    step = inner_w / len(bars)
    gap = max(min(4.0, step * 0.15), step - 64)  # bars at most 64 wide
    base = _MARGIN_TOP + inner_h
    parts = [
        f'<svg data-testid="{escape(testid)}" viewBox="0 0 {_CHART_WIDTH} {_CHART_HEIGHT}"'
        f' role="img" aria-label="{escape(what)}" xmlns="http://www.w3.org/2000/svg">',
        f'<line class="axis" x1="{_MARGIN_LEFT}" y1="{base}" x2="{_CHART_WIDTH - 8}" y2="{base}"/>',
        f'<line class="axis" x1="{_MARGIN_LEFT}" y1="{_MARGIN_TOP}" x2="{_MARGIN_LEFT}"'
        f' y2="{base}"/>',
        f'<text x="{_MARGIN_LEFT - 6}" y="{_MARGIN_TOP + 4}" text-anchor="end">{tallest:,}</text>',
        f'<text x="{_MARGIN_LEFT - 6}" y="{base}" text-anchor="end">0</text>',
        f'<text x="12" y="{_MARGIN_TOP + inner_h / 2:.1f}" text-anchor="middle"'
        f' transform="rotate(-90 12 {_MARGIN_TOP + inner_h / 2:.1f})">documents</text>',
        f'<text x="{_MARGIN_LEFT + inner_w / 2:.1f}" y="{_CHART_HEIGHT - 4}"'
        f' text-anchor="middle">{escape(unit_label)}</text>',
    ]
    for i, bar in enumerate(bars):
        low, high, count = bar["from"], bar["to"], bar["documents"]
        height = inner_h * count / tallest
        x = _MARGIN_LEFT + i * step + gap / 2
        label = f"{low:,}" if low == high else f"{low:,}–{high:,}"
        parts.append(
            f'<rect class="bar" data-from="{low}" data-to="{high}" data-documents="{count}"'
            f' x="{x:.2f}" y="{base - height:.2f}" width="{step - gap:.2f}" height="{height:.2f}">'
            f"<title>{escape(label)}: {count:,} documents</title></rect>"
        )
        if i % every == 0:
            tick = f"{low:,}" if short else label
            parts.append(
                f'<text x="{x + (step - gap) / 2:.2f}" y="{base + 14}" text-anchor="middle">'
                f"{escape(tick)}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _chunk_bars(histogram: Sequence[Mapping[str, int]]) -> list[dict[str, int]]:
    """One bar per chunk count from the smallest to the largest; 1-2-5 bins past
    :data:`MAX_BARS` counts."""
    if not histogram:
        return []
    counts = {entry["chunks"]: entry["documents"] for entry in histogram}
    low, high = min(counts), max(counts)
    if high - low + 1 <= MAX_BARS:
        return [{"from": k, "to": k, "documents": counts.get(k, 0)} for k in range(low, high + 1)]
    from .accumulator import length_bin

    binned: dict[int, int] = {}
    for k, n in counts.items():
        binned[length_bin(k)] = binned.get(length_bin(k), 0) + n
    return length_bins(binned)


def _where(entry: Mapping[str, Any]) -> str:
    if entry.get("line") is not None:
        return f"line {entry['line']:,}"
    if entry.get("row") is not None:
        return f"row {entry['row']:,}"
    return ""


def _largest_table(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return '<p class="note">No documents.</p>'
    head = (
        "<tr><th>#</th><th>path</th><th>where</th><th>id</th>"
        '<th class="num">units</th><th class="num">chunks</th></tr>'
    )
    body = []
    for i, row in enumerate(rows, start=1):
        body.append(
            f'<tr data-testid="largest-row" data-units="{row["units"]}"'
            f' data-chunks="{row["chunks"]}"><td>{i}</td>'
            f'<td class="path">{escape(row["path"])}</td><td>{escape(_where(row))}</td>'
            f"<td>{escape(row['id'] or '')}</td>"
            f'<td class="num">{row["units"]:,}</td><td class="num">{row["chunks"]:,}</td></tr>'
        )
    return f'<table data-testid="largest">{head}{"".join(body)}</table>'


def _problems(testid: str, entries: Sequence[Mapping[str, Any]], total: int, what: str) -> str:
    if not total:
        return f'<p class="note" data-testid="{testid}" data-value="0">No {what}.</p>'
    shown = entries[:MAX_SHOWN_PROBLEMS]
    rows = "".join(
        f"<tr><td class='path'>{escape(e['path'])}</td><td>{escape(_where(e))}</td>"
        f"<td>{escape(e['reason'])}</td></tr>"
        for e in shown
    )
    more = (
        f'<p class="note">The first {len(shown):,} of {total:,} are listed here; the JSON'
        f" lists up to {len(entries):,}.</p>"
        if total > len(shown)
        else ""
    )
    return (
        f'<p data-testid="{testid}" data-value="{total}">{total:,} {escape(what)}.</p>'
        f"<table><tr><th>path</th><th>where</th><th>reason</th></tr>{rows}</table>{more}"
    )


def render(doc: Mapping[str, Any]) -> str:
    """The report page for a ``pyapp.corpus/2`` document."""
    params, spread, lengths = doc["params"], doc["chunks_per_document"], doc["units_per_document"]
    unit = params["unit"]
    plural = UNITS[unit].plural if unit in UNITS else str(unit)
    encoding = f" ({params['encoding']})" if params.get("encoding") else ""
    price = params["price_per_million"]
    priced = "no price given" if price is None else f"price {price:.6g} per million tokens"
    settings = (
        f"Unit: {plural}{encoding}. Chunk size {params['size']:,}, overlap {params['overlap']:,}"
        f" {plural}. Tokens per unit {params['tokens_per_unit']:.6g}, {priced}."
    )
    cost = doc["estimated_cost"]
    counted = [
        ("documents", "documents"),
        ("units", plural),
        ("chunks", "chunks"),
        ("processed_units", f"{plural} embedded (overlap included)"),
        ("repeated_units", f"{plural} repeated by the overlap"),
        ("stored_tokens_actual", "stored tokens"),
        ("input_bytes", "input bytes"),
    ]
    totals = _figures(
        *[(key, label, doc[key], _grouped(doc[key])) for key, label in counted],
        (
            "estimated_cost",
            "estimated cost",
            cost,
            "no price given" if cost is None else f"{cost:,.4f}",
        ),
    )
    share = spread.get("one_chunk_share")
    fit = _figures(
        ("one_chunk_share", "documents that fit in one chunk", share, _share(share)),
        (
            "one_chunk",
            "documents in exactly one chunk",
            spread["one_chunk"],
            _grouped(spread["one_chunk"]),
        ),
        ("empty", "empty documents (no chunk)", lengths["empty"], _grouped(lengths["empty"])),
    )
    inflation = _figures(
        ("inflation", "actual: embedded ÷ text", doc["inflation"], _ratio(doc["inflation"])),
        (
            "inflation_nominal",
            "nominal: every chunk counted full",
            doc["inflation_nominal"],
            _ratio(doc["inflation_nominal"]),
        ),
        (
            "stored_tokens_nominal",
            "stored tokens, nominal",
            doc["stored_tokens_nominal"],
            _grouped(doc["stored_tokens_nominal"]),
        ),
    )
    spread_note = (
        f"Min {_grouped(spread.get('min'))}, median {_grouped(spread.get('median'))},"
        f" p95 {_grouped(spread.get('p95'))}, max {_grouped(spread.get('max'))}"
        f" chunks per document (nearest rank)."
    )
    length_note = (
        f"Min {_grouped(lengths['min'])}, mean {_grouped(lengths['mean'])},"
        f" max {_grouped(lengths['max'])} {plural} per document. Bins follow 1, 2, 5, 10, 20, 50, …"
    )
    bom = doc.get("boms_removed", 0)
    bom_note = (
        f'<p class="note" data-testid="boms_removed" data-value="{bom}">{bom:,} leading'
        " byte-order mark(s) removed: a byte-order mark says how a file is encoded and is"
        " not text.</p>"
    )
    title = f"Corpus report: {doc['documents']:,} documents, {doc['chunks']:,} chunks"
    timing = doc.get("timing")
    timing_note = (
        f'<p class="note">Counted in {timing["seconds"]:.1f} s.</p>'
        if isinstance(timing, Mapping) and "seconds" in timing
        else ""
    )
    head = (
        '<meta charset="utf-8"><meta http-equiv="Content-Security-Policy"'
        " content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style>"
    )
    length_chart = _chart(
        "length-histogram", lengths["histogram"], "documents by length", f"{plural} per document"
    )
    chunk_chart = _chart(
        "chunk-histogram",
        _chunk_bars(spread["histogram"]),
        "documents by chunks",
        "chunks per document",
    )
    errors = _problems(
        "errors_total", doc["errors"], doc["errors_total"], "files or lines not counted"
    )
    skipped = _problems(
        "skipped_total", doc["skipped"], doc["skipped_total"], "paths read once already"
    )
    body = [
        f'<h1>Corpus report</h1><p class="settings">{escape(settings)}</p>{timing_note}',
        f"<h2>Totals</h2>{totals}{bom_note}",
        f'<h2>Document lengths</h2><p class="note">{escape(length_note)}</p>{length_chart}',
        f'<h2>Chunks per document</h2><p class="note">{escape(spread_note)}</p>{chunk_chart}',
        f"<h2>Fit in a single chunk</h2>{fit}",
        f"<h2>Stored-token inflation</h2>{inflation}",
        f"<h2>Largest documents</h2>{_largest_table(doc['largest_documents'])}",
        f"<h2>Errors</h2>{errors}",
        f"<h2>Skipped</h2>{skipped}",
    ]
    return (
        f'<!doctype html>\n<html lang="en"><head>{head}</head><body>{"".join(body)}</body></html>\n'
    )
