// The overlap sweep: one engine `sweep` request for the current text, unit and
// size, drawn as two small inline SVG charts (across overlap 0–50%, and across
// sizes around the current one) plus a table of the same rows. Every point is a
// focusable button; choosing it applies that size and overlap to the main view.
// SVG is built with createElementNS; no chart library, no innerHTML. The sweep is
// asked for only while its panel is open: a closed panel costs the engine nothing.

import { messageOf, PURPOSE } from "../engine/protocol.js";
import { el, svg } from "../view/dom.js";
import * as fmt from "../view/format.js";

const SWEEP_DELAY_MS = 200; // after the main view lands, so typing never waits on a sweep

const METRICS = {
  chunks: { label: "Chunks", fmt: fmt.integer, floor: 0 },
  inflation: { label: "Inflation", fmt: fmt.ratio, floor: 1 },
  cut: { label: "Cut sentences", fmt: fmt.integer, floor: 0 },
};

const W = 320;
const H = 196;
const M = { left: 44, right: 14, top: 16, bottom: 40 };

function overlapLabel(row, unit) {
  return `${fmt.unitCount(row.overlap, unit)} (${fmt.percent(row.overlap_percent / 100)})`;
}

function describe(row, unit) {
  return `Size ${fmt.unitCount(row.size, unit)}, overlap ${overlapLabel(row, unit)}: ` +
    `${fmt.integer(row.chunks)} chunks, inflation ${fmt.ratio(row.inflation)}, ` +
    `${fmt.integer(row.cut)} cut sentence${row.cut === 1 ? "" : "s"}` +
    `${row.current ? " (current setting)" : ""}`;
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
function chart({ rows, series, metric, unit, title, xLabel, xOf, xFmt, xTicks }) {
  const spec = METRICS[metric];
  const pts = rows.filter((r) => r[metric] !== null && r[metric] !== undefined);
  const fig = el("figure", { class: "sweep-fig", "data-series": series });
  fig.append(el("figcaption", {}, title));
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "sweep-svg",
    role: "group",
    "aria-label": `${spec.label} ${title.toLowerCase()}`,
  });
  fig.append(root);
  if (pts.length === 0) {
    root.append(svg("text", { x: W / 2, y: H / 2, class: "sweep-empty", "text-anchor": "middle" }, "No text to sweep."));
    return fig;
  }
  const xs = pts.map(xOf);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  if (series === "overlap") [x0, x1] = [0, Math.max(50, x1)];
  if (x1 === x0) [x0, x1] = [x0 - 1, x1 + 1];
  const ys = pts.map((r) => r[metric]);
  const y0 = Math.min(spec.floor, ...ys);
  let y1 = Math.max(...ys);
  if (y1 <= y0) y1 = y0 + (metric === "inflation" ? 0.5 : 1);
  const yTickVals = ticks(y0, y1, 3, metric !== "inflation");
  y1 = Math.max(y1, yTickVals[yTickVals.length - 1]);
  const px = (x) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
  const py = (y) => H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom);

  const grid = svg("g", { class: "sweep-grid", "aria-hidden": "true" });
  for (const v of yTickVals) {
    grid.append(svg("line", { x1: M.left, x2: W - M.right, y1: py(v), y2: py(v) }));
    grid.append(svg("text", { x: M.left - 6, y: py(v) + 3.5, "text-anchor": "end" }, spec.fmt(v)));
  }
  for (const v of xTicks(pts, x0, x1)) {
    grid.append(svg("line", { class: "x-tick", x1: px(v), x2: px(v), y1: H - M.bottom, y2: H - M.bottom + 4 }));
    grid.append(svg("text", { x: px(v), y: H - M.bottom + 15, "text-anchor": "middle" }, xFmt(v)));
  }
  grid.append(svg("line", { class: "axis", x1: M.left, x2: W - M.right, y1: H - M.bottom, y2: H - M.bottom }));
  grid.append(svg("text", { class: "axis-label", x: (M.left + W - M.right) / 2, y: H - 6, "text-anchor": "middle" }, xLabel));
  root.append(grid);

  const sorted = [...pts].sort((a, b) => xOf(a) - xOf(b));
  const d = sorted.map((r, i) => `${i ? "L" : "M"}${px(xOf(r)).toFixed(2)},${py(r[metric]).toFixed(2)}`).join(" ");
  root.append(svg("path", { d, class: "sweep-line", "aria-hidden": "true" }));

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
    const above = cy - 14 > M.top - 6;
    root.append(svg("text", {
      class: "current-label",
      x: Math.min(Math.max(cx, M.left + 14), W - M.right - 14),
      y: above ? cy - 13 : cy + 22,
      "text-anchor": "middle",
      "aria-hidden": "true",
    }, "yours"));
  }
  return fig;
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
  const body = panel.querySelector('[data-testid="sweep-table"] tbody');
  const error = panel.querySelector('[data-testid="error"]');
  let last = null;
  let timer = 0;
  let refocus = null;
  /** The latest view's request, not swept yet because the panel was closed. */
  let waiting = null;

  function metric() {
    return panel.querySelector('input[name="sweep-metric"]:checked').value;
  }

  function render() {
    if (!last) return;
    const { params, rows, units, sentences } = last;
    const unit = params.unit;
    const m = metric();
    const over = rows.filter((r) => r.series === "overlap");
    const sizes = rows.filter((r) => r.series === "size");
    const figs = el("div", { class: "sweep-figs" });
    figs.append(
      chart({
        rows: over, series: "overlap", metric: m, unit,
        title: `Across overlap, size ${fmt.unitCount(params.size, unit)}`,
        xLabel: "overlap, % of size", xOf: (r) => r.overlap_percent,
        xFmt: (v) => `${fmt.plain(v)}%`,
        xTicks: (_pts, x0, x1) => ticks(x0, x1, 5).filter((v) => v <= x1),
      }),
      chart({
        rows: sizes, series: "size", metric: m, unit,
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
      `${rows.length} configurations in one engine call.`;

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
        el("td", { class: "num" }, `${fmt.integer(r.overlap)} (${fmt.percent(r.overlap_percent / 100)})`),
        el("td", { class: "num" }, fmt.integer(r.chunks)),
        el("td", { class: "num" }, fmt.ratio(r.inflation)),
        el("td", { class: "num" }, fmt.integer(r.cut)),
        el("td", {}, ""),
      );
      tr.lastChild.append(use);
      return tr;
    });
    body.replaceChildren(...trs);

    if (refocus) {
      const target = box.querySelector(`.sweep-point[data-series="${refocus}"][data-current="true"]`);
      if (target) target.focus();
      refocus = null;
    }
  }

  async function request(viewRequest) {
    const { text, unit, encoding, size, overlap, overlap_mode: overlapMode } = viewRequest;
    let response;
    try {
      response = await engine.call(PURPOSE.sweep, { op: "sweep", text, unit, encoding, size, overlap, overlap_mode: overlapMode });
    } catch (err) {
      error.textContent = `The sweep failed: ${messageOf(err)}`;
      error.hidden = false;
      return;
    }
    if (response === null) return; // superseded by a newer sweep
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
    const point = event.target.closest(".sweep-point");
    if (point) choose(point);
  });
  box.addEventListener("keydown", (event) => {
    const point = event.target.closest(".sweep-point");
    if (!point || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    choose(point);
  });
  body.addEventListener("click", (event) => {
    const button = event.target.closest("[data-testid='sweep-apply']");
    if (button && !button.disabled) apply({ size: Number(button.dataset.size), overlap: Number(button.dataset.overlap) });
  });
  panel.addEventListener("change", (event) => {
    if (event.target.name === "sweep-metric") render();
  });

  return {
    /** The main view landed for `viewRequest`: sweep the same text shortly after. */
    viewLanded(viewRequest) {
      clearTimeout(timer);
      if (!isOpen()) {
        waiting = viewRequest;
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
