// The overlap sweep: one engine `sweep` request for the current text, unit and
// size, drawn as two small inline SVG charts (across overlap 0–50%, and across
// sizes around the current one) plus a table of the same rows. Every point is a
// focusable button; choosing it applies that size and overlap to the main view.
// SVG is built with createElementNS; no chart library, no innerHTML. The sweep is
// asked for only while its panel is open: a closed panel costs the engine nothing.

import { askEngine } from "../engine/ask.js";
import { messageOf, PURPOSE } from "../engine/protocol.js";
import { FACTS } from "../facts.js";
import { el, svg } from "../view/dom.js";
import * as fmt from "../view/format.js";
import { Cancelled, denseRetriever } from "./dense.js";
import { EVIDENCE_EVENT } from "./evidence-store.js";

const SWEEP_DELAY_MS = 200; // after the main view lands, so typing never waits on a sweep

const METRICS = {
  chunks: { label: "Chunks", fmt: fmt.integer, floor: 0 },
  inflation: { label: "Inflation", fmt: fmt.ratio, floor: 1 },
  cut: { label: "Cut sentences", fmt: fmt.integer, floor: 0 },
  // With evidence (static/tools/evidence.js): shares from 0 to 1, drawn 0–100%.
  evidence_coverage: { label: "Evidence whole", fmt: fmt.percent, floor: 0, share: true },
  recall_at_k: { label: "Recall@k", fmt: fmt.percent, floor: 0, share: true },
  // With the dense columns (all-MiniLM-L6-v2, asked for in this panel).
  dense_recall_at_k: { label: "Dense recall@k", fmt: fmt.percent, floor: 0, share: true },
  dense_iou: { label: "Dense IoU", fmt: fmt.percent, floor: 0, share: true },
  // With a splitter that treats the overlap as a target (the recursive one): the overlap
  // its boundaries produced, median with the min–max range, against the overlap asked.
  produced_overlap_median: { label: "Produced overlap", fmt: fmt.plain, floor: 0, produced: true },
  extra_volume: { label: "Extra volume", fmt: fmt.percent, floor: 0 },
};
/** Metrics only some splitters' rows carry: offered as choices while the rows have them. */
const MEASURED = ["produced_overlap_median", "extra_volume"];
/** The evidence figures drawn over a cost metric (right axis, 0–100%), each with its own mark. */
const OVERLAYS = [
  { key: "evidence_coverage", shape: "square" },
  { key: "recall_at_k", shape: "triangle" },
  { key: "dense_recall_at_k", shape: "triangle" },
  { key: "dense_iou", shape: "square" },
];

const CHART_WIDTH = 320;
const CHART_HEIGHT = 196;
const MARGIN = { left: 44, right: 14, top: 16, bottom: 40 };

function overlapLabel(row, unit) {
  return `${fmt.unitCount(row.overlap, unit)} (${fmt.percentValue(row.overlap_percent)})`;
}

function describe(row, unit) {
  return `Size ${fmt.unitCount(row.size, unit)}, overlap ${overlapLabel(row, unit)}: ` +
    `${fmt.integer(row.chunks)} chunks, inflation ${fmt.ratio(row.inflation)}, ` +
    `${fmt.integer(row.cut)} cut sentence${row.cut === 1 ? "" : "s"}` +
    (row.produced_overlap_median === undefined ? "" : `, produced overlap ${producedWords(row)}`) +
    evidenceWords(row) +
    `${row.current ? " (current setting)" : ""}`;
}

/** The overlap a row's boundaries produced: "median 12 (0–20), 3 with none". */
function producedWords(row) {
  return `median ${fmt.plain(row.produced_overlap_median)} ` +
    `(${fmt.integer(row.produced_overlap_min)}–${fmt.integer(row.produced_overlap_max)}), ` +
    `${fmt.integer(row.no_overlap)} with none`;
}

/** A row's evidence figures in words ("" without evidence). */
function evidenceWords(row) {
  if (row.evidence_coverage === undefined) return "";
  const recall = row.recall_at_k === null || row.recall_at_k === undefined ? "" : `, recall@k ${fmt.percent(row.recall_at_k)}`;
  return `, evidence whole ${fmt.percent(row.evidence_coverage)}${recall}`;
}

/** Round tick values from lo up to the first tick at or above hi; whole steps when `whole`. */
function ticks(lo, hi, count, whole = false) {
  if (hi <= lo) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  if (whole) step = Math.max(1, Math.ceil(step));
  const out = [];
  const first = Math.ceil(lo / step) * step;
  for (let v = first; v < hi + step - step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * One chart: rows of one series, x from `xOf`, y the chosen metric.
 * Returns the <figure> element.
 */
function chart({ rows, series, metric, unit, title, xLabel, xOf, xFmt, xTicks, overlays = [] }) {
  const spec = METRICS[metric];
  // Evidence over a cost metric takes a right-hand axis (0–100%), so the margin widens.
  const right = overlays.length > 0 ? 40 : MARGIN.right;
  const pts = rows.filter((r) => r[metric] !== null && r[metric] !== undefined);
  const fig = el("figure", { class: "sweep-fig", "data-series": series });
  fig.append(el("figcaption", {}, title));
  const root = svg("svg", {
    viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`,
    class: "sweep-svg",
    role: "group",
    "aria-label": `${spec.label} ${title.toLowerCase()}`,
  });
  fig.append(root);
  if (pts.length === 0) {
    root.append(svg("text", { x: CHART_WIDTH / 2, y: CHART_HEIGHT / 2, class: "sweep-empty", "text-anchor": "middle" }, "No text to sweep."));
    return fig;
  }
  const xs = pts.map(xOf);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  if (series === "overlap") [x0, x1] = [0, Math.max(50, x1)];
  if (x1 === x0) [x0, x1] = [x0 - 1, x1 + 1];
  // The produced overlap's range and the overlap asked share its axis.
  const ys = pts.flatMap((r) => spec.produced ? [r.produced_overlap_min, r.produced_overlap_max, r.overlap] : [r[metric]]);
  let y0 = Math.min(spec.floor, ...ys);
  let y1 = Math.max(...ys);
  if (spec.share) [y0, y1] = [0, 1];
  if (y1 <= y0) y1 = y0 + (metric === "inflation" ? 0.5 : 1);
  const yTickVals = spec.share ? [0, 0.5, 1] : ticks(y0, y1, 3, metric !== "inflation");
  y1 = Math.max(y1, yTickVals[yTickVals.length - 1]);
  const px = (x) => MARGIN.left + ((x - x0) / (x1 - x0)) * (CHART_WIDTH - MARGIN.left - right);
  const py = (y) => CHART_HEIGHT - MARGIN.bottom - ((y - y0) / (y1 - y0)) * (CHART_HEIGHT - MARGIN.top - MARGIN.bottom);

  const grid = svg("g", { class: "sweep-grid", "aria-hidden": "true" });
  for (const v of yTickVals) {
    grid.append(svg("line", { x1: MARGIN.left, x2: CHART_WIDTH - right, y1: py(v), y2: py(v) }));
    grid.append(svg("text", { x: MARGIN.left - 6, y: py(v) + 3.5, "text-anchor": "end" }, spec.fmt(v)));
  }
  for (const v of xTicks(pts, x0, x1)) {
    grid.append(svg("line", { class: "x-tick", x1: px(v), x2: px(v), y1: CHART_HEIGHT - MARGIN.bottom, y2: CHART_HEIGHT - MARGIN.bottom + 4 }));
    grid.append(svg("text", { x: px(v), y: CHART_HEIGHT - MARGIN.bottom + 15, "text-anchor": "middle" }, xFmt(v)));
  }
  grid.append(svg("line", { class: "axis", x1: MARGIN.left, x2: CHART_WIDTH - right, y1: CHART_HEIGHT - MARGIN.bottom, y2: CHART_HEIGHT - MARGIN.bottom }));
  grid.append(svg("text", { class: "axis-label", x: (MARGIN.left + CHART_WIDTH - right) / 2, y: CHART_HEIGHT - 6, "text-anchor": "middle" }, xLabel));
  root.append(grid);

  const sorted = [...pts].sort((a, b) => xOf(a) - xOf(b));
  const d = sorted.map((r, i) => `${i ? "L" : "M"}${px(xOf(r)).toFixed(2)},${py(r[metric]).toFixed(2)}`).join(" ");
  root.append(svg("path", { d, class: "sweep-line", "aria-hidden": "true" }));
  if (spec.produced) drawProduced({ root, fig, sorted, px, py, xOf });

  if (overlays.length > 0) drawOverlays({ root, fig, sorted, overlays, metric, px, xOf, right });
  const points = svg("g", { class: "sweep-points" });
  for (const r of sorted) {
    const cx = px(xOf(r));
    const cy = py(r[metric]);
    const g = svg("g", {
      class: r.current ? "sweep-point is-current" : "sweep-point",
      tabindex: "0",
      role: "button",
      "data-testid": "sweep-point",
      "data-series": series,
      "data-size": r.size,
      "data-overlap": r.overlap,
      "data-current": r.current ? "true" : "false",
      "data-value": String(r[metric]),
      ...(spec.produced ? {
        "data-min": String(r.produced_overlap_min),
        "data-max": String(r.produced_overlap_max),
        "data-requested": String(r.overlap),
      } : {}),
      "aria-label": `${describe(r, unit)}. Use this setting.`,
    });
    g.append(svg("title", {}, describe(r, unit)));
    g.append(svg("circle", { class: "hit", cx, cy, r: 11 }));
    if (r.current) g.append(svg("circle", { class: "ring", cx, cy, r: 8 }));
    g.append(svg("circle", { class: "dot", cx, cy, r: r.current ? 5 : 4 }));
    points.append(g);
  }
  root.append(points);
  const current = sorted.find((r) => r.current);
  if (current) {
    const cx = px(xOf(current));
    const cy = py(current[metric]);
    const above = cy - 14 > MARGIN.top - 6;
    root.append(svg("text", {
      class: "current-label",
      x: Math.min(Math.max(cx, MARGIN.left + 14), CHART_WIDTH - right - 14),
      y: above ? cy - 13 : cy + 22,
      "text-anchor": "middle",
      "aria-hidden": "true",
    }, "yours"));
  }
  return fig;
}

/**
 * The produced overlap's picture: a whisker from min to max at each point, and the
 * overlap asked as a dashed line with open squares, with a legend naming both.
 */
function drawProduced({ root, fig, sorted, px, py, xOf }) {
  const whiskers = svg("g", { class: "sweep-whiskers", "aria-hidden": "true" });
  for (const r of sorted) {
    const x = px(xOf(r));
    const [lo, hi] = [py(r.produced_overlap_min), py(r.produced_overlap_max)];
    const w = svg("g", { "data-testid": "sweep-whisker", "data-size": String(r.size), "data-overlap": String(r.overlap),
      "data-min": String(r.produced_overlap_min), "data-max": String(r.produced_overlap_max) });
    w.append(
      svg("line", { x1: x, x2: x, y1: lo, y2: hi }),
      svg("line", { x1: x - 3, x2: x + 3, y1: lo, y2: lo }),
      svg("line", { x1: x - 3, x2: x + 3, y1: hi, y2: hi }),
    );
    whiskers.append(w);
  }
  root.append(whiskers);
  const asked = svg("g", { class: "sweep-overlay overlay-square sweep-asked", "data-testid": "sweep-requested" });
  const d = sorted.map((r, i) => `${i ? "L" : "M"}${px(xOf(r)).toFixed(2)},${py(r.overlap).toFixed(2)}`).join(" ");
  asked.append(svg("path", { d, class: "overlay-line", "aria-hidden": "true" }));
  for (const r of sorted) {
    const m = marker("square", px(xOf(r)), py(r.overlap));
    m.setAttribute("data-value", String(r.overlap));
    m.append(svg("title", {}, `Asked ${fmt.integer(r.overlap)} at size ${r.size}`));
    asked.append(m);
  }
  root.append(asked);
  const legend = el("p", { class: "sweep-legend" });
  for (const [mark, words] of [["●", "produced, median"], ["┃", "min–max"], ["□", "asked (dashed)"]]) {
    const span = el("span", { class: "legend-entry" });
    span.append(el("span", { "aria-hidden": "true" }, mark), ` ${words}`);
    legend.append(span);
  }
  fig.append(legend);
}

/** Marks of one overlay series: a square or a triangle at (cx, cy). */
function marker(shape, cx, cy) {
  if (shape === "square") return svg("rect", { class: "mark", x: cx - 3.5, y: cy - 3.5, width: 7, height: 7 });
  return svg("path", { class: "mark", d: `M${cx},${cy - 4.5} L${cx + 4.5},${cy + 3.5} L${cx - 4.5},${cy + 3.5} Z` });
}

/**
 * The evidence shares over a cost chart: a right-hand axis from 0 to 100%, a dashed
 * line for each share with its own mark (square, triangle), and a legend under the
 * chart naming every series, so the trade-off reads without colour.
 */
function drawOverlays({ root, fig, sorted, overlays, metric, px, xOf, right }) {
  const top = MARGIN.top;
  const bottom = CHART_HEIGHT - MARGIN.bottom;
  const py = (v) => bottom - v * (bottom - top);
  const axis = svg("g", { class: "sweep-grid sweep-right", "aria-hidden": "true" });
  for (const v of [0, 0.5, 1]) {
    axis.append(svg("text", { x: CHART_WIDTH - right + 6, y: py(v) + 3.5, "text-anchor": "start" }, fmt.percent(v)));
  }
  root.append(axis);
  const legend = el("p", { class: "sweep-legend" });
  const entry = (mark, words) => {
    const span = el("span", { class: "legend-entry" });
    span.append(el("span", { "aria-hidden": "true" }, mark), ` ${words}`);
    legend.append(span);
  };
  entry("●", `${METRICS[metric].label} (left axis)`);
  for (const { key, shape } of overlays) {
    const pts = sorted.filter((r) => r[key] !== null && r[key] !== undefined);
    if (pts.length === 0) continue;
    const d = pts.map((r, i) => `${i ? "L" : "M"}${px(xOf(r)).toFixed(2)},${py(r[key]).toFixed(2)}`).join(" ");
    const group = svg("g", { class: `sweep-overlay overlay-${shape}`, "data-testid": "sweep-overlay", "data-key": key });
    group.append(svg("path", { d, class: "overlay-line", "aria-hidden": "true" }));
    for (const r of pts) {
      const m = marker(shape, px(xOf(r)), py(r[key]));
      m.setAttribute("data-size", String(r.size));
      m.setAttribute("data-overlap", String(r.overlap));
      m.setAttribute("data-value", String(r[key]));
      m.append(svg("title", {}, `${METRICS[key].label} ${fmt.percent(r[key])} at size ${r.size}, overlap ${r.overlap}`));
      group.append(m);
    }
    root.append(group);
    entry(shape === "square" ? "■" : "▲", `${METRICS[key].label} (right axis, dashed)`);
  }
  fig.append(legend);
}

/**
 * @param {{engine: object, panel: HTMLElement, apply: (s: {size: number, overlap: number}) => void,
 *   isOpen?: () => boolean}} options
 *   `apply` puts a size and an overlap (whole units) into the main inputs; `isOpen`
 *   says whether the panel is open (a closed one waits with the latest request).
 */
export function mountSweep({ engine, panel, apply, isOpen = () => true }) {
  const box = panel.querySelector('[data-testid="sweep-chart"]');
  const status = panel.querySelector('[data-testid="sweep-status"]');
  // What the panel says before its first sweep: said again once the sweep shown is of
  // another text or setting (see forget()).
  const beforeFirst = status.textContent;
  const body = panel.querySelector('[data-testid="sweep-table"] tbody');
  const error = panel.querySelector('[data-testid="error"]');
  /** The evidence for each sweep ({fields: {evidence, top_k}}; null: none), and the last view swept. */
  let evidenceFields = null;
  let lastView = null;
  let last = null;
  let timer = 0;
  let refocus = null;
  /** The latest view's request, not swept yet because the panel was closed. */
  let waiting = null;
  // Advanced by forget(): a sweep asked before it, still on its way, is of what was
  // forgotten and is dropped when it lands (a closed panel asks nothing newer that
  // would supersede it in the engine's client).
  let generation = 0;
  // The dense columns: asked for here, then kept on for later sweeps (the cache
  // serves what the settings share) until cancelled.
  const dense = denseRetriever(engine);
  const denseUi = {
    box: panel.querySelector('[data-testid="sweep-dense"]'),
    plan: panel.querySelector('[data-testid="sweep-dense-plan"]'),
    note: panel.querySelector('[data-testid="sweep-dense-note"]'),
    run: panel.querySelector('[data-testid="sweep-dense-run"]'),
    cancel: panel.querySelector('[data-testid="sweep-dense-cancel"]'),
    progress: /** @type {HTMLProgressElement} */ (panel.querySelector('[data-testid="sweep-dense-progress"]')),
  };
  let denseOn = false;
  let denseStop = false;
  let denseGen = 0;

  function metric() {
    return panel.querySelector('input[name="sweep-metric"]:checked').value;
  }

  function render() {
    if (!last) return;
    // A point that has the keyboard keeps it when the chart is drawn again (a later
    // answer for the same settings, a metric switched): focus the same point anew.
    const active = document.activeElement;
    const held = active instanceof SVGElement && box.contains(active) ? active.closest(".sweep-point") : null;
    const { params, rows, units, sentences } = last;
    const unit = params.unit;
    measuredChoices(rows);
    const shares = evidenceChoices(rows);
    const m = metric();
    // Over a cost metric, the evidence shares share the picture (right axis).
    const overlays = METRICS[m].share ? [] : OVERLAYS.filter(({ key }) => shares.includes(key));
    const over = rows.filter((r) => r.series === "overlap");
    const sizes = rows.filter((r) => r.series === "size");
    const figs = el("div", { class: "sweep-figs" });
    figs.append(
      chart({
        rows: over, series: "overlap", metric: m, unit, overlays,
        title: `Across overlap, size ${fmt.unitCount(params.size, unit)}`,
        xLabel: "overlap, % of size", xOf: (r) => r.overlap_percent,
        xFmt: (v) => `${fmt.plain(v)}%`,
        xTicks: (_pts, x0, x1) => ticks(x0, x1, 5).filter((v) => v <= x1),
      }),
      chart({
        rows: sizes, series: "size", metric: m, unit, overlays,
        title: "Across sizes, at your overlap share",
        xLabel: `chunk size, ${fmt.unitPlural(unit)}`, xOf: (r) => r.size,
        xFmt: (v) => fmt.integer(v),
        xTicks: (pts) => [...new Set(pts.map((r) => r.size))],
      }),
    );
    box.replaceChildren(figs);
    box.classList.remove("is-updating");
    box.dataset.metric = m;
    box.dataset.rows = String(rows.length);
    status.textContent = `${fmt.unitCount(units, unit)}, ${fmt.integer(sentences)} sentence${sentences === 1 ? "" : "s"}; ` +
      `${rows.length} configurations in one engine call.` +
      (last.evidence ? ` At each, ${fmt.integer(last.evidence.items)} evidence passage${last.evidence.items === 1 ? "" : "s"} checked` +
        (last.evidence.questions > 0 ? `, and BM25 recall@${fmt.integer(last.evidence.top_k)} for ${fmt.integer(last.evidence.questions)} question${last.evidence.questions === 1 ? "" : "s"}.` : ".") +
        (last.evidence.note ? ` ${last.evidence.note}` : "") : "");

    const trs = rows.map((r, i) => {
      const starts = i > 0 && rows[i - 1].series !== r.series; // a rule above it on a phone
      const tr = el("tr", { class: [r.current ? "is-current" : "", starts ? "series-start" : ""].join(" ").trim() });
      const use = el("button", {
        type: "button", class: "link-button", "data-testid": "sweep-apply",
        "data-size": String(r.size), "data-overlap": String(r.overlap),
        "aria-label": `Use size ${r.size}, overlap ${r.overlap}`,
      }, r.current ? "current" : "use");
      if (r.current) use.disabled = true;
      tr.append(
        el("td", {}, r.series === "overlap" ? "overlap" : "size"),
        el("td", { class: "num" }, fmt.integer(r.size)),
        el("td", { class: "num" }, `${fmt.integer(r.overlap)} (${fmt.percentValue(r.overlap_percent)})`),
        el("td", { class: "num" }, fmt.integer(r.chunks)),
        el("td", { class: "num" }, fmt.ratio(r.inflation)),
        el("td", { class: "num" }, fmt.integer(r.cut)),
        el("td", {}, ""),
      );
      tr.lastChild.append(use);
      return tr;
    });
    body.replaceChildren(...trs);
    producedColumns(rows, trs);
    evidenceColumns(rows, trs, shares);

    if (refocus) {
      const target = box.querySelector(`.sweep-point[data-series="${refocus}"][data-current="true"]`);
      if (target) target.focus();
      refocus = null;
    } else if (held instanceof SVGElement && !held.isConnected) {
      const { series, size, overlap } = held.dataset;
      const same = box.querySelector(`.sweep-point[data-series="${series}"][data-size="${size}"][data-overlap="${overlap}"]`);
      if (same instanceof SVGElement) same.focus();
    }
  }

  /** The splitter and its settings, as the view was asked. */
  function splitterOf(viewRequest) {
    return Object.fromEntries(FACTS.splitter_fields.filter((key) => key in viewRequest).map((key) => [key, viewRequest[key]]));
  }

  async function request(viewRequest) {
    const { text, unit, encoding, size, overlap, overlap_mode: overlapMode } = viewRequest;
    // The splitter and its settings, as the view was asked (the recursive splitter's rows
    // are real chunkings, with the overlap each produced).
    const splitter = splitterOf(viewRequest);
    lastView = viewRequest;
    const asked = generation;
    const extra = evidenceFields?.fields ?? {};
    const sweepRequest = {
      op: "sweep", text, unit, encoding, size, overlap, overlap_mode: overlapMode, ...splitter, ...extra,
    };
    if (denseOn && questionsGiven()) {
      const vectors = await denseVectors(sweepRequest); // says its own failure, then null
      if (vectors === null || asked !== generation) return;
      sweepRequest.vectors = vectors;
    }
    const response = await askEngine(engine, PURPOSE.sweep, sweepRequest);
    if (response === null) return; // superseded by a newer sweep
    if (asked !== generation) return; // of a text, setting or list forgotten meanwhile
    if (!response.ok) {
      // The main view accepted these settings, so this should not happen; say so if it does.
      error.textContent = response.error.message;
      error.hidden = false;
      return;
    }
    error.hidden = true;
    error.textContent = "";
    last = response.result;
    render();
  }

  function choose(node) {
    const size = Number(node.dataset.size);
    const overlap = Number(node.dataset.overlap);
    refocus = node.dataset.series || null;
    apply({ size, overlap });
  }

  box.addEventListener("click", (event) => {
    const point = /** @type {Element} */ (event.target).closest(".sweep-point");
    if (point) choose(point);
  });
  box.addEventListener("keydown", (event) => {
    const point = /** @type {Element} */ (event.target).closest(".sweep-point");
    if (!point || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    choose(point);
  });
  body.addEventListener("click", (event) => {
    const button = /** @type {Element} */ (event.target).closest("[data-testid='sweep-apply']");
    if (button && !button.disabled) apply({ size: Number(button.dataset.size), overlap: Number(button.dataset.overlap) });
  });
  panel.addEventListener("change", (event) => {
    if (/** @type {HTMLInputElement} */ (event.target).name === "sweep-metric") render();
  });

  // ------------------------------------------------------------ evidence
  // static/tools/evidence.js says when the evidence list (or its k) changes: every
  // sweep from then on checks it at each setting, and the last view is swept again.

  const choices = panel.querySelector(".sweep-metric");
  const head = panel.querySelector('[data-testid="sweep-table"] thead tr');

  /** Shows the evidence metrics that `rows` carry as choices; returns their keys. */
  function evidenceChoices(rows) {
    const keys = OVERLAYS.map(({ key }) => key).filter((key) => rows.some((r) => r[key] !== null && r[key] !== undefined));
    for (const { key } of OVERLAYS) {
      let label = choices.querySelector(`[data-evidence-metric="${key}"]`);
      if (keys.includes(key) && !label) {
        label = el("label", { "data-evidence-metric": key });
        label.append(
          el("input", { type: "radio", name: "sweep-metric", value: key, "data-testid": `sweep-metric-${key.replaceAll("_", "-")}` }),
          el("span", {}, METRICS[key].label),
        );
        choices.append(label);
      } else if (!keys.includes(key) && label) {
        if (label.querySelector("input").checked) choices.querySelector('input[value="chunks"]').checked = true;
        label.remove();
      }
    }
    return keys;
  }

  /** Offers the measured splitter's metrics (produced overlap, extra volume) while `rows` carry them. */
  function measuredChoices(rows) {
    for (const key of MEASURED) {
      const has = rows.some((r) => r[key] !== null && r[key] !== undefined);
      let label = choices.querySelector(`[data-measured-metric="${key}"]`);
      if (has && !label) {
        label = el("label", { "data-measured-metric": key });
        label.append(
          el("input", { type: "radio", name: "sweep-metric", value: key, "data-testid": `sweep-metric-${key.replaceAll("_", "-")}` }),
          el("span", {}, METRICS[key].label),
        );
        const first = choices.querySelector("[data-evidence-metric]");
        if (first) first.before(label);
        else choices.append(label);
      } else if (!has && label) {
        if (label.querySelector("input").checked) choices.querySelector('input[value="chunks"]').checked = true;
        label.remove();
      }
    }
  }

  /** The table's produced-overlap and extra-volume columns (after cut sentences), when the rows carry them. */
  function producedColumns(rows, trs) {
    for (const th of head.querySelectorAll("[data-produced-col]")) th.remove();
    if (!rows.some((r) => r.produced_overlap_median !== undefined)) return;
    head.lastElementChild.before(
      el("th", { scope: "col", "data-produced-col": "produced_overlap_median" }, "Produced overlap"),
      el("th", { scope: "col", "data-produced-col": "extra_volume" }, "Extra volume"),
    );
    rows.forEach((r, i) => {
      trs[i].lastElementChild.before(
        el("td", {
          class: "num", "data-key": "produced_overlap_median", "data-value": String(r.produced_overlap_median),
          "data-min": String(r.produced_overlap_min), "data-max": String(r.produced_overlap_max),
        }, producedWords(r)),
        el("td", { class: "num", "data-key": "extra_volume", "data-value": String(r.extra_volume) }, fmt.percent(r.extra_volume)),
      );
    });
  }

  /** The table's evidence columns (before the apply column), for the shares `keys`. */
  function evidenceColumns(rows, trs, keys) {
    for (const th of head.querySelectorAll("[data-evidence-col]")) th.remove();
    for (const key of keys) {
      head.lastElementChild.before(el("th", { scope: "col", "data-evidence-col": key }, METRICS[key].label));
    }
    rows.forEach((r, i) => {
      for (const key of keys) trs[i].lastElementChild.before(el("td", { class: "num", "data-key": key, "data-value": String(r[key]) }, fmt.percent(r[key])));
    });
  }

  // ------------------------------------------------------------ dense columns

  function questionsGiven() {
    const evidence = evidenceFields?.fields?.evidence;
    return Array.isArray(evidence) && evidence.some((item) => item.question);
  }

  function denseRequest(sweepRequest) {
    return { ...sweepRequest, scope: "sweep" };
  }

  /** The vectors of every setting's chunks and the questions, with progress; null if cancelled. */
  async function denseVectors(sweepRequest) {
    const gen = ++denseGen;
    denseStop = false;
    denseUi.cancel.hidden = false;
    denseUi.run.hidden = true;
    denseUi.progress.hidden = false;
    try {
      const out = await dense.vectorsFor(denseRequest(sweepRequest), {
        cancelled: () => denseStop,
        onProgress: (p) => {
          denseUi.box.dataset.stage = p.stage;
          denseUi.progress.max = p.total > 0 ? p.total : 1;
          denseUi.progress.value = p.total > 0 ? p.loaded : 0;
          if (p.stage === "embed") denseUi.note.textContent = `Embedding ${fmt.integer(p.loaded)} of ${fmt.integer(p.total)} texts…`;
          else if (p.stage === "runtime" || p.stage === "model") denseUi.note.textContent = "Loading the model (first use only)…";
        },
      });
      denseUi.box.dataset.embedded = String(out.embedded);
      denseUi.box.dataset.cached = String(out.cached);
      denseUi.note.textContent = `Dense columns on: ${fmt.integer(out.embedded)} texts embedded, ${fmt.integer(out.cached)} from this browser's cache.`;
      return out.vectors;
    } catch (err) {
      if (err instanceof Cancelled && !denseStop) return null; // a newer sweep took over
      denseOn = false;
      denseUi.box.dataset.stage = "cancelled";
      denseUi.note.textContent = err instanceof Cancelled
        ? "Cancelled: what was embedded is kept, so asking again goes on from there."
        : `Dense retrieval failed: ${messageOf(err)}`;
      denseUi.plan.hidden = false;
      return null;
    } finally {
      if (gen === denseGen) {
        denseUi.cancel.hidden = true;
        denseUi.progress.hidden = true;
      }
    }
  }

  denseUi.plan.addEventListener("click", async () => {
    if (lastView === null) return;
    const { text, unit, encoding, size, overlap, overlap_mode: overlapMode } = lastView;
    denseUi.note.textContent = "Counting the texts to embed…";
    try {
      const p = await dense.preview(denseRequest({ text, unit, encoding, size, overlap, overlap_mode: overlapMode, ...splitterOf(lastView), ...(evidenceFields?.fields ?? {}) }));
      denseUi.box.dataset.embed = String(p.embed);
      denseUi.note.textContent =
        `${fmt.integer(p.embed)} of ${fmt.integer(p.texts)} texts (every setting's chunks and the questions) to embed, ` +
        `${fmt.integer(p.cached)} in this browser's cache` + (p.embed > 0 ? `: about ${fmt.integer(Math.max(1, p.seconds))} s, plus the model's first load.` : ".");
      denseUi.run.hidden = false;
      denseUi.plan.hidden = true;
    } catch (err) {
      denseUi.note.textContent = `Dense retrieval failed: ${messageOf(err)}`;
    }
  });
  denseUi.run.addEventListener("click", () => {
    denseOn = true;
    if (lastView !== null) request(lastView);
  });
  denseUi.cancel.addEventListener("click", () => {
    denseStop = true;
  });

  document.addEventListener(EVIDENCE_EVENT, (event) => {
    evidenceFields = /** @type {CustomEvent} */ (event).detail;
    denseUi.box.hidden = !questionsGiven();
    if (lastView === null) return; // the first view's sweep will take it
    clearTimeout(timer);
    if (!isOpen()) {
      // A closed panel sweeps nothing: the sweep shown is of the old list, and the
      // latest view is swept with the new one once the panel is opened.
      waiting = lastView;
      forget();
      return;
    }
    timer = setTimeout(() => request(lastView), SWEEP_DELAY_MS);
  });

  /**
   * A closed panel's sweep is of an earlier text or setting: it goes, with the metric
   * choices only it offered (the evidence's, the measured splitter's), so that a
   * cleared evidence list or a splitter set back leaves no stale choice behind. The
   * panel sweeps the latest view once it is opened, as on a first visit.
   */
  function forget() {
    generation += 1;
    if (last === null) return;
    last = null;
    measuredChoices([]);
    evidenceChoices([]);
    producedColumns([], []);
    evidenceColumns([], [], []);
    body.replaceChildren();
    box.replaceChildren();
    box.classList.remove("is-updating");
    delete box.dataset.metric;
    delete box.dataset.rows;
    status.textContent = beforeFirst;
  }

  return {
    /** The main view landed for `viewRequest`: sweep the same text shortly after. */
    viewLanded(viewRequest) {
      lastView = viewRequest;
      clearTimeout(timer);
      if (!isOpen()) {
        waiting = viewRequest;
        forget();
        return;
      }
      waiting = null;
      if (last) {
        status.textContent = "Updating…";
        box.classList.add("is-updating");
      }
      timer = setTimeout(() => request(viewRequest), SWEEP_DELAY_MS);
    },
    /** The panel was opened: sweep the latest view at once if it waited. */
    opened() {
      if (waiting === null) return;
      const viewRequest = waiting;
      waiting = null;
      request(viewRequest);
    },
  };
}
