// The overview strip: every window over the document as one SVG, built with
// createElementNS (no innerHTML). Each bar carries data-index; app.js takes a
// click (or Enter on a focused bar) to that chunk's card.

import { el, svg } from "./dom.js";
import * as fmt from "./format.js";

/**
 * Draw every window over the document as an SVG strip.
 * Top track: all windows translucent in one row, so text that two windows share
 * is visibly darker. Below: even and odd windows in two lanes, so each window
 * stands apart. Each bar carries data-index for click-to-card.
 */
export function renderOverview(container, overview, chunkCount, unit, capped = false) {
  container.replaceChildren();
  // The panel's hint: with the cards left out (a cap), a bar has no card to go to.
  const hint = container.closest("section")?.querySelector(".overview-hint");
  if (hint) {
    hint.textContent = (capped
      ? "Each bar is one chunk laid over the whole text; darker where windows overlap. The chunk cards are not shown (over a cap), so the bars do not lead to cards."
      : "Each bar is one chunk laid over the whole text; darker where windows overlap. Click a bar, or Tab to it and press Enter, to jump to its chunk.") +
      " A click on the strip shows that part of your text below; the dashed frame marks the part in sight.";
  }
  const total = overview ? overview.total_chars : 0;
  const windows = overview ? overview.windows : [];
  if (!total || windows.length === 0) {
    container.append(el("p", { class: "hint overview-empty" }, "No windows: the text is empty."));
    return;
  }
  const minWidth = total / 600; // keep a window of one character visible
  const depthH = 26;
  const laneH = 11;
  const gap = 4;
  const height = depthH + gap + laneH * 2 + 2;
  const root = svg("svg", {
    viewBox: `0 0 ${total} ${height}`,
    preserveAspectRatio: "none",
    class: "overview-svg",
    role: "group",
    "aria-label": `${windows.length} windows over ${total} characters; darker where they overlap`,
  });
  if (!capped) {
    // Enter or Space on a focused bar does what a click does (app.js goes to the card).
    root.addEventListener("keydown", (event) => {
      if ((event.key !== "Enter" && event.key !== " ") || !event.target.classList.contains("bar")) return;
      event.preventDefault();
      event.target.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    });
  }
  const depth = svg("g", { class: "depth" });
  const lanes = svg("g", { class: "lanes" });
  root.append(svg("rect", { class: "track", x: 0, y: 0, width: total, height: depthH }));
  windows.forEach(([start, end], i) => {
    const width = Math.max(end - start, minWidth);
    const parity = i % 2 ? "odd" : "even";
    const a = svg("rect", { x: start, y: 0, width, height: depthH, class: `win win-${parity}`, "data-index": i });
    depth.append(a);
    const b = svg("rect", {
      x: start, y: depthH + gap + (i % 2) * laneH, width, height: laneH - 2,
      class: `bar bar-${parity}`, "data-index": i,
    });
    if (!capped) {
      b.setAttribute("tabindex", "0");
      b.setAttribute("role", "button");
      b.setAttribute("aria-label", `Chunk ${i + 1}, characters [${start}, ${end}): go to its card`);
    }
    lanes.append(b);
  });
  root.append(depth, lanes);
  // One tooltip, moved into the window pointed at: a <title> in each of 2,000
  // windows' two rects made 4,000 more elements to style at every result. (Not on
  // focus: a focus listener makes Chromium put the <svg> itself in the tab order;
  // a focused bar is named by its aria-label.)
  const tip = svg("title");
  const showTip = (event) => {
    const index = event.target.dataset?.index;
    if (index === undefined) return;
    const [start, end] = windows[Number(index)];
    tip.textContent = `Chunk ${Number(index) + 1}: characters [${start}, ${end})`;
    event.target.append(tip);
  };
  root.addEventListener("pointerover", showTip);
  const axis = el("div", { class: "overview-axis", "aria-hidden": "true" });
  axis.append(el("span", {}, "0"), el("span", {}, `${fmt.integer(total)} characters`));
  container.append(root, axis);
  container.dataset.windows = String(windows.length);
  container.dataset.chunks = String(chunkCount);
  container.dataset.unit = unit;
}

// ---------------------------------------------------------------- in step with the text view

/**
 * Marks on the strip what the text view shows: `active`, the chunks pointed at
 * there (their bars drawn strong), and `visible`, `[start, end, total]` code points
 * in sight (a frame over that part of the strip). Either may be left out.
 * @param {Element} container
 * @param {{active?: number[], visible?: number[]}} marks
 */
export function markOverview(container, { active, visible }) {
  const root = /** @type {SVGSVGElement} */ (container.querySelector("svg.overview-svg"));
  if (active !== undefined) {
    for (const node of container.querySelectorAll(".is-active")) node.classList.remove("is-active");
    for (const index of active) {
      for (const node of container.querySelectorAll(`[data-index="${index}"]`)) node.classList.add("is-active");
    }
    container.dataset.active = active.join(" ");
  }
  if (visible !== undefined && root) {
    const [start, end, total] = visible;
    let frame = root.querySelector("rect.viewport");
    if (!frame) {
      const height = root.viewBox.baseVal.height;
      frame = svg("rect", { class: "viewport", "data-testid": "overview-viewport", y: 0, height });
      root.append(frame);
    }
    const width = Math.max(end - start, total / 300);
    frame.setAttribute("x", String(Math.min(start, Math.max(0, total - width))));
    frame.setAttribute("width", String(width));
    container.dataset.visibleStart = String(start);
    container.dataset.visibleEnd = String(end);
  }
}
