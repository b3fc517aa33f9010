// Rendering of an engine result into the page. Builds DOM with createElement
// and textContent only: pasted text is never parsed as HTML. Nothing here
// computes a figure; it lays out what the engine returned.

import { el, svg } from "./dom.js";
import * as fmt from "./format.js";

// ---------------------------------------------------------------- summary

/** Fill the summary figures and the derivation table. */
export function renderSummary(root, result) {
  const { summary, derivation, params } = result;
  for (const f of fmt.FIGURES) {
    const dd = root.querySelector(`[data-testid="${f.testid}"]`);
    if (!dd) continue;
    const value = summary[f.key];
    dd.textContent = f.fmt(value);
    dd.dataset.value = String(value);
    const d = derivation && derivation[f.key];
    dd.title = d ? `${d.formula} = ${d.inputs}` : "";
  }
  const body = root.querySelector("#derivation-body");
  const rows = [];
  for (const f of fmt.FIGURES) {
    const d = derivation && derivation[f.key];
    if (!d) continue;
    const tr = el("tr", { "data-key": f.key });
    const label = f.unit ? f.label.replace("units", fmt.unitPlural(params.unit)) : f.label;
    tr.append(
      el("th", { scope: "row" }, label),
      el("td", { class: "mono" }, d.formula),
      el("td", { class: "mono" }, d.inputs),
      el("td", { class: "num" }, f.fmt(summary[f.key])),
    );
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

// ---------------------------------------------------------------- overview

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
    hint.textContent = capped
      ? "Each bar is one chunk laid over the whole text; darker where windows overlap. The chunk cards are not shown (over a cap), so the bars do not lead to cards."
      : "Each bar is one chunk laid over the whole text; darker where windows overlap. Click a bar, or Tab to it and press Enter, to jump to its chunk.";
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
    const title = `Chunk ${i + 1}: characters [${start}, ${end})`;
    const a = svg("rect", { x: start, y: 0, width, height: depthH, class: `win win-${parity}`, "data-index": i });
    a.append(svg("title"));
    a.firstChild.textContent = title;
    depth.append(a);
    const b = svg("rect", {
      x: start, y: depthH + gap + (i % 2) * laneH, width, height: laneH - 2,
      class: `bar bar-${parity}`, "data-index": i,
    });
    b.append(svg("title"));
    b.firstChild.textContent = title;
    if (!capped) {
      b.setAttribute("tabindex", "0");
      b.setAttribute("role", "button");
      b.setAttribute("aria-label", `Chunk ${i + 1}, characters [${start}, ${end}): go to its card`);
    }
    lanes.append(b);
  });
  root.append(depth, lanes);
  const axis = el("div", { class: "overview-axis", "aria-hidden": "true" });
  axis.append(el("span", {}, "0"), el("span", {}, `${fmt.integer(total)} characters`));
  container.append(root, axis);
  container.dataset.windows = String(windows.length);
  container.dataset.chunks = String(chunkCount);
  container.dataset.unit = unit;
}

// ---------------------------------------------------------------- chunk cards

/** Code-point offsets within `s` -> UTF-16 indices, for sorted offsets. */
function cpToUtf16(s, offsets) {
  const out = [];
  let cp = 0;
  let j = 0;
  for (let i = 0; i <= s.length && j < offsets.length; ) {
    while (j < offsets.length && offsets[j] === cp) {
      out.push(i);
      j += 1;
    }
    if (i >= s.length) break;
    const c = s.codePointAt(i);
    i += c > 0xffff ? 2 : 1;
    cp += 1;
  }
  return out;
}

/**
 * Which spaces to draw: runs of spaces at the start of the chunk, before a
 * newline, or at the end of the chunk. Returns a Set of UTF-16 indices.
 */
function visibleSpaces(s) {
  const marks = new Set();
  const re = / +(?=\n|\r|$)|^ +/g;
  let m;
  while ((m = re.exec(s)) !== null) {
    for (let i = m.index; i < m.index + m[0].length; i += 1) marks.add(i);
    if (m[0].length === 0) re.lastIndex += 1;
  }
  return marks;
}

const WS_CLASS = { "\n": "ws ws-nl", "\r": "ws ws-cr", "\t": "ws ws-tab", " ": "ws ws-sp" };

/** Append s[a:b) to parent, wrapping newlines, tabs and marked spaces in spans. */
function appendExact(parent, s, a, b, spaces) {
  let run = a;
  for (let i = a; i < b; i += 1) {
    const ch = s[i];
    const special = ch === "\n" || ch === "\t" || ch === "\r" || (ch === " " && spaces.has(i));
    if (!special) continue;
    if (i > run) parent.append(document.createTextNode(s.slice(run, i)));
    parent.append(el("span", { class: WS_CLASS[ch] }, ch));
    run = i + 1;
  }
  if (b > run) parent.append(document.createTextNode(s.slice(run, b)));
}

/** Fill the repeated and fresh parts of a char/token card with the exact text. */
function fillExact(repEl, freshEl, chunk, showBreaks) {
  const rep = chunk.repeated_prefix;
  const s = rep + chunk.fresh_text;
  const split = rep.length;
  const spaces = visibleSpaces(s);
  let cuts = [];
  if (showBreaks && Array.isArray(chunk.token_breaks)) {
    cuts = cpToUtf16(s, chunk.token_breaks);
  }
  if (cuts.length === 0) {
    appendExact(repEl, s, 0, split, spaces);
    appendExact(freshEl, s, split, s.length, spaces);
    return;
  }
  const starts = new Set(cuts);
  const bounds = [...new Set([0, ...cuts, split, s.length])].sort((x, y) => x - y);
  let tok = 0;
  for (let k = 0; k + 1 < bounds.length; k += 1) {
    const a = bounds[k];
    const b = bounds[k + 1];
    if (b <= a) continue;
    if (a !== 0 && starts.has(a)) tok += 1;
    const span = el("span", { class: tok % 2 ? "tok tok-b" : "tok tok-a" });
    appendExact(span, s, a, b, spaces);
    (a < split ? repEl : freshEl).append(span);
  }
}

function unitRange(chunk, unit) {
  return `${fmt.unitPlural(unit)} [${fmt.integer(chunk.start)}, ${fmt.integer(chunk.end)})`;
}

/** One card. Word mode shows the normalized preview; char and token mode the exact text. */
export function chunkCard(chunk, total, unit, showBreaks) {
  const li = el("li", {
    class: "chunk",
    "data-testid": "chunk",
    "data-index": String(chunk.index),
    id: `chunk-${chunk.index}`,
    tabindex: "-1",
    "aria-label": `Chunk ${chunk.index + 1} of ${total}`,
  });
  const head = el("div", { class: "chunk-head" });
  head.append(
    el("span", { class: "chunk-title" }, `Chunk ${chunk.index + 1}`),
    el("span", { class: "chunk-range", "data-testid": "chunk-units" }, unitRange(chunk, unit)),
    el("span", { class: "chunk-range", "data-testid": "chunk-chars", ...(unit === "char" ? { hidden: "" } : {}) },
      `chars [${fmt.integer(chunk.char_start)}, ${fmt.integer(chunk.char_end)})`),
    el("span", { class: "chunk-split" },
      `${fmt.integer(chunk.repeated_units)} repeated + ${fmt.integer(chunk.fresh_units)} fresh`),
  );
  const body = el("p", { class: unit === "word" ? "chunk-text" : "chunk-text exact" });
  const rep = el("mark", { class: "repeated", "data-testid": "chunk-repeated" });
  const fresh = el("span", { class: "fresh", "data-testid": "chunk-fresh" });
  if (unit === "word") {
    rep.textContent = chunk.preview_repeated ?? "";
    fresh.textContent = chunk.preview_fresh ?? "";
    body.append(rep);
    if (rep.textContent && fresh.textContent) body.append(document.createTextNode(" "));
    body.append(fresh);
  } else {
    fillExact(rep, fresh, chunk, showBreaks);
    body.append(rep, fresh);
  }
  li.append(head, body);
  return li;
}

/** A macrotask turn without waiting for a frame (setTimeout may be clamped to 4 ms). */
function yieldTask() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

/**
 * Renders the cards without blocking the page and with as few layouts as possible.
 *
 * `render()` starts over (cancelling a render in progress): it puts the first
 * cards (the ones a screen shows) in the list at once, then builds the rest
 * off-document in short slices, one task each (no layout happens meanwhile, since
 * nothing on the page changes), and adds them in one append, so the page lays
 * out twice, not once per slice. `ensure(i)` finishes the render at once, for
 * click-to-card. `list.dataset.rendered` is "true" when every card is in.
 */
export class CardRenderer {
  static FIRST = 12; // cards put in at once: more than a screen holds
  static SLICE_MS = 8; // building time per task for the rest

  constructor(list) {
    this.list = list;
    this.chunks = [];
    this.next = 0;
    this.pending = null; // the cards built off-document, not yet in the list
    this.generation = 0;
    this.unit = "word";
    this.showBreaks = false;
  }

  render(chunks, unit, showBreaks) {
    this.generation += 1;
    this.chunks = chunks;
    this.unit = unit;
    this.showBreaks = showBreaks;
    this.next = 0;
    this.pending = document.createDocumentFragment();
    const first = this.build(Math.min(chunks.length, CardRenderer.FIRST));
    this.list.replaceChildren(first);
    if (this.next < chunks.length) {
      this.list.dataset.rendered = "false";
      this.rest(this.generation);
    } else {
      this.pending = null;
      this.list.dataset.rendered = "true";
    }
  }

  /** Cards next..upto-1, in a new fragment. */
  build(upto) {
    const frag = document.createDocumentFragment();
    while (this.next < upto) {
      frag.append(chunkCard(this.chunks[this.next], this.chunks.length, this.unit, this.showBreaks));
      this.next += 1;
    }
    return frag;
  }

  async rest(generation) {
    while (this.next < this.chunks.length) {
      await yieldTask();
      if (generation !== this.generation) return; // a newer render started
      const began = performance.now();
      while (this.next < this.chunks.length && performance.now() - began < CardRenderer.SLICE_MS) {
        this.pending.append(chunkCard(this.chunks[this.next], this.chunks.length, this.unit, this.showBreaks));
        this.next += 1;
      }
    }
    this.flush();
  }

  /** Puts the cards built so far into the list. */
  flush() {
    if (this.pending === null) return;
    this.list.append(this.pending);
    this.pending = null;
    this.list.dataset.rendered = "true";
  }

  ensure(index) {
    if (this.pending === null || index < this.next - this.pending.childNodes.length) return;
    this.generation += 1; // the slices stop; the rest is built now
    this.pending.append(this.build(this.chunks.length));
    this.flush();
  }

  clear() {
    this.render([], this.unit, this.showBreaks);
  }
}

// ---------------------------------------------------------------- caps

const CAP_WORDS = {
  chunks: (value, limit) =>
    `This configuration makes ${fmt.integer(value)} chunks, over the limit of ${fmt.integer(limit)} chunks this page lays out.`,
  processed_units: (value, limit, unit) =>
    `This configuration processes ${fmt.integer(value)} ${fmt.unitPlural(unit)}, over the limit of ${fmt.integer(limit)} processed units this page lays out.`,
};

/** The cap notice: which cap, the figure, the limit, and what brings it under. */
export function renderCapNotice(node, capped, unit) {
  if (!capped) {
    node.hidden = true;
    node.replaceChildren();
    delete node.dataset.cap;
    return;
  }
  const say = CAP_WORDS[capped.cap] ||
    ((value, limit) => `The ${capped.cap} cap is exceeded: ${fmt.integer(value)}, over the limit of ${fmt.integer(limit)}.`);
  node.dataset.cap = capped.cap;
  node.replaceChildren(
    el("strong", {}, `Too large to lay out (${capped.cap === "chunks" ? "chunk" : "processed-units"} cap). `),
    document.createTextNode(say(capped.value, capped.limit, unit)),
    document.createTextNode(
      " The summary above is exact; the chunk cards and the JSON download are left out. " +
      capRemedies(capped.remedies, unit),
    ),
  );
  node.hidden = false;
}

/** The engine's figures for what brings it under the caps, as one sentence. */
function capRemedies(r, unit) {
  if (!r) return "To bring it under the cap, use a larger chunk size, less overlap, or a shorter text.";
  const ways = [];
  if (r.size !== null) ways.push(`a chunk size of ${fmt.integer(r.size)} or more at this overlap`);
  if (r.overlap_zero) ways.push("overlap 0 at this size");
  ways.push(`a text of at most ${fmt.unitCount(r.max_units, unit)} at these settings`);
  const tail = [
    r.size === null ? " No chunk size is enough: every size processes the whole text." : "",
    r.overlap_zero === false ? " Overlap 0 alone would not be enough at this size." : "",
  ].join("");
  return `To bring it under the caps, use ${ways.join(", or ")}.${tail}`;
}
