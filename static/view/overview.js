// The overview strip: the whole text as one bar per pixel of the strip's width.
// The engine's `strip` (pyapp/web/strip.py) says what each bar stands for: its code
// points [from, to), the chunk it leads to, the chunks touching it, and how many of
// its code points two or more chunks hold. This module only draws that, with
// createElementNS (no innerHTML), in the page's one palette: a bar takes its chunk's
// tint (the two tints alternate, as in the text view and the cards) and the share
// it holds twice or more is the overlap's striped amber, from the bottom up. The
// bars are one path per tint and the overlap one more, so the strip is a handful of
// elements whether the text is in seven chunks or in 188,000.
//
// One Tab stop: the strip is a slider. ← and → move to the next bar that leads to
// another chunk, Home and End to the ends, Page Up and Page Down a tenth of the way;
// Enter (or a click) picks the bar: the text view shows that part, and the chunk's
// card comes into view when the cards are shown.

import { el, svg } from "./dom.js";
import * as fmt from "./format.js";

const HEIGHT = 40; // the drawing's height in its own units (CSS sets the pixels)
let patterns = 0; // one id per strip drawn, for its stripes

/** The tint of a bar leading to `chunk`: the two tints alternate, as in the text view and the cards. */
const tintOf = (chunk) => (chunk < 0 ? "bar-none" : chunk % 2 ? "bar-b" : "bar-a");

/** The largest i with sorted[i] <= value (0 if none). */
function columnOf(sorted, value) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class OverviewStrip {
  /**
   * @param {{container: HTMLElement, readout: HTMLElement,
   *   onPick: (chunk: number, start: number) => void, onResize: () => void}} options
   *   `readout` says in words what the keyboard's bar stands for; `onPick` is called
   *   with the picked bar's chunk (-1 for none) and first code point; `onResize` when
   *   the strip's width changed (and the resizing paused).
   */
  constructor({ container, readout, onPick, onResize }) {
    this.container = container;
    this.readout = readout;
    this.onPick = onPick;
    this.strip = null;
    this.cursor = -1;
    this.capped = false;
    this.known = 0; // the width last seen, in whole pixels
    let timer = 0;
    new ResizeObserver(([entry]) => {
      const width = Math.round(entry.contentRect.width);
      if (width < 1 || width === this.known) return;
      const first = this.known === 0;
      this.known = width;
      clearTimeout(timer);
      if (!first) timer = setTimeout(onResize, 150); // once the resizing pauses
    }).observe(container);
  }

  /** The strip's width in whole pixels (at least 1): how many bars to ask the engine for. */
  get width() {
    return Math.max(1, this.known || Math.round(this.container.clientWidth));
  }

  /**
   * Draws the engine's strip. `chunks` is the chunk count, `capped` whether the
   * cards are withheld (a bar then leads to the text view only).
   */
  render(strip, { chunks, unit, capped }) {
    const container = this.container;
    this.strip = strip;
    this.chunks = chunks;
    this.capped = capped;
    this.cursor = -1;
    container.replaceChildren();
    const hint = container.closest("section")?.querySelector(".overview-hint");
    if (hint) {
      hint.textContent = "The whole text, one bar per pixel: each bar is tinted as its chunk is, and its striped part is text that two or more chunks hold." +
        (capped
          ? " Click a bar, or Tab to the strip and press Enter, to show that part of your text below (the chunk cards are not shown, over a cap)."
          : " Click a bar, or Tab to the strip and press Enter, to show that part of your text and go to its chunk's card; ← and → move chunk by chunk.");
    }
    if (!strip || strip.columns === 0) {
      container.append(el("p", { class: "hint overview-empty" }, "No windows: the text is empty."));
      this.readout.textContent = "";
      return;
    }
    const columns = strip.columns;
    const id = `overlap-stripes-${(patterns += 1)}`;
    const root = svg("svg", {
      viewBox: `0 0 ${columns} ${HEIGHT}`,
      preserveAspectRatio: "none",
      class: "overview-svg",
      tabindex: "0",
      role: "slider",
      "aria-label": `The whole text, ${fmt.integer(strip.total_chars)} characters in ${fmt.integer(chunks)} ${chunks === 1 ? "chunk" : "chunks"}: choose a place`,
      "aria-valuemin": "1",
      "aria-valuemax": String(columns),
      "data-testid": "overview-strip",
    });
    // The overlap's treatment: its amber with stripes, as in the text view and the cards.
    const pattern = svg("pattern", { id, class: "overlap-pattern", patternUnits: "userSpaceOnUse", width: 6, height: 6, patternTransform: "rotate(45)" });
    pattern.append(svg("rect", { class: "overlap-fill", x: 0, y: 0, width: 6, height: 6 }),
      svg("rect", { class: "overlap-stripe", x: 0, y: 0, width: 2, height: 6 }));
    const defs = svg("defs");
    defs.append(pattern);
    // The bars: one path per tint, a rectangle for each run of bars of that tint, so
    // the strip is a handful of elements however many bars it has (a rect per bar was
    // thousands of elements to create, style and lay out again at every answer).
    const runs = { "bar-a": "", "bar-b": "", "bar-none": "" };
    let shared = "";
    for (let c = 0; c < columns; ) {
      const tint = tintOf(strip.chunk[c]);
      let end = c + 1;
      while (end < columns && tintOf(strip.chunk[end]) === tint) end += 1;
      runs[tint] += `M${c} 0h${end - c}V${HEIGHT}h${c - end}Z`;
      c = end;
    }
    for (let c = 0; c < columns; c += 1) {
      const held = strip.shared[c];
      if (held > 0) {
        const h = (HEIGHT * held) / (strip.to[c] - strip.from[c]);
        shared += `M${c} ${HEIGHT - h}h1V${HEIGHT}h-1Z`;
      }
    }
    const bars = svg("g", { class: "bars" });
    for (const [tint, d] of Object.entries(runs)) {
      if (d) bars.append(svg("path", { class: `bar ${tint}`, "data-testid": "overview-bars", "data-tint": tint, d }));
    }
    const overlap = svg("path", { class: "shared", "data-testid": "overview-shared", d: shared || "M0 0", fill: `url(#${id})` });
    this.pointed = svg("rect", { class: "pointed", "data-testid": "overview-pointed", y: 0, height: HEIGHT, x: 0, width: 0, visibility: "hidden" });
    this.frame = svg("rect", { class: "viewport", "data-testid": "overview-viewport", y: 0, height: HEIGHT, x: 0, width: 0, visibility: "hidden" });
    this.mark = svg("rect", { class: "cursor", "data-testid": "overview-cursor", y: 0, height: HEIGHT, x: 0, width: 1, visibility: "hidden" });
    this.tip = svg("title");
    root.append(this.tip, defs, bars, overlap, this.pointed, this.frame, this.mark);
    root.addEventListener("keydown", (event) => this.key(event));
    root.addEventListener("focus", () => this.moveTo(this.cursor < 0 ? this.columnAt(this.visibleStart ?? 0) : this.cursor));
    root.addEventListener("blur", () => this.mark.setAttribute("visibility", "hidden"));
    root.addEventListener("pointermove", (event) => this.hover(event));
    root.addEventListener("click", (event) => {
      const c = this.columnOfEvent(event);
      this.moveTo(c);
      this.pick(c);
    });
    this.root = root;
    const axis = el("div", { class: "overview-axis", "aria-hidden": "true" });
    axis.append(el("span", {}, "0"), el("span", {}, `${fmt.integer(strip.total_chars)} characters`));
    container.append(root, axis);
    container.dataset.columns = String(columns);
    container.dataset.chunks = String(chunks);
    container.dataset.unit = unit;
    this.readout.textContent = "";
    if (this.visible) this.show(this.visible);
  }

  /** The bar under a pointer event. */
  columnOfEvent(event) {
    const box = this.root.getBoundingClientRect();
    const at = Math.floor(((event.clientX - box.left) / Math.max(1, box.width)) * this.strip.columns);
    return Math.min(this.strip.columns - 1, Math.max(0, at));
  }

  /** The bar standing for code point `cp`. */
  columnAt(cp) {
    return columnOf(this.strip.from, cp);
  }

  /** What bar `c` stands for, in words. */
  describe(c) {
    const s = this.strip;
    const range = `characters [${fmt.integer(s.from[c])}, ${fmt.integer(s.to[c])})`;
    const chunk = s.chunk[c];
    if (chunk < 0) return `No chunk holds ${range}.`;
    const many = s.count[c] > 1 ? ` (chunks ${fmt.integer(s.first[c] + 1)}–${fmt.integer(s.first[c] + s.count[c])} touch it)` : "";
    const go = this.capped ? "Enter shows it below." : "Enter shows it below and goes to its card.";
    return `Chunk ${fmt.integer(chunk + 1)} of ${fmt.integer(this.chunks)} · ${range}${many}. ${go}`;
  }

  hover(event) {
    if (!this.strip) return;
    this.tip.textContent = this.describe(this.columnOfEvent(event));
  }

  /** The keyboard's bar moves to `c` (said in words, and outlined). */
  moveTo(c) {
    if (!this.strip) return;
    this.cursor = Math.min(this.strip.columns - 1, Math.max(0, c));
    const text = this.describe(this.cursor);
    this.root.setAttribute("aria-valuenow", String(this.cursor + 1));
    this.root.setAttribute("aria-valuetext", text);
    this.readout.textContent = text;
    this.mark.setAttribute("x", String(this.cursor));
    this.mark.setAttribute("visibility", document.activeElement === this.root ? "visible" : "hidden");
    this.container.dataset.cursor = String(this.cursor);
  }

  /** The next bar, in `direction`, that leads to another chunk (or the strip's end). */
  step(direction) {
    const chunk = this.strip.chunk;
    const here = chunk[this.cursor];
    let c = this.cursor;
    while (c + direction >= 0 && c + direction < chunk.length && chunk[c + direction] === here) c += direction;
    c += direction;
    if (c < 0 || c >= chunk.length) return this.cursor;
    // Going left, land on that chunk's first bar, as going right does.
    while (direction < 0 && c > 0 && chunk[c - 1] === chunk[c]) c -= 1;
    return c;
  }

  key(event) {
    if (!this.strip) return;
    const columns = this.strip.columns;
    const tenth = Math.max(1, Math.round(columns / 10));
    const moves = {
      ArrowRight: () => this.step(1),
      ArrowDown: () => this.step(1),
      ArrowLeft: () => this.step(-1),
      ArrowUp: () => this.step(-1),
      Home: () => 0,
      End: () => columns - 1,
      PageDown: () => this.cursor + tenth,
      PageUp: () => this.cursor - tenth,
    };
    if (event.key in moves) {
      event.preventDefault();
      this.moveTo(moves[event.key]());
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      this.pick(this.cursor);
    }
  }

  pick(c) {
    if (c < 0) return;
    this.onPick(this.strip.chunk[c], this.strip.from[c]);
  }

  /** Outlines the chunks pointed at in the text view: code points [start, end), or none. */
  point(span) {
    if (!this.strip || !this.pointed) return;
    if (!span) {
      this.pointed.setAttribute("visibility", "hidden");
      delete this.container.dataset.pointed;
      return;
    }
    const [start, end] = span;
    const a = this.columnAt(start);
    const b = this.columnAt(Math.max(start, end - 1));
    this.pointed.setAttribute("x", String(a));
    this.pointed.setAttribute("width", String(b - a + 1));
    this.pointed.setAttribute("visibility", "visible");
    this.container.dataset.pointed = `${a} ${b}`;
  }

  /** A dashed frame over the part in sight in the text view: `[start, end, total]`. */
  show(visible) {
    this.visible = visible;
    const [start, end] = visible;
    this.visibleStart = start;
    this.container.dataset.visibleStart = String(start);
    this.container.dataset.visibleEnd = String(end);
    if (!this.strip || !this.frame) return;
    const a = this.columnAt(start);
    const b = this.columnAt(Math.max(start, end - 1));
    this.frame.setAttribute("x", String(a));
    this.frame.setAttribute("width", String(Math.max(1, b - a + 1)));
    this.frame.setAttribute("visibility", "visible");
  }
}
