// The chunk cards. Built with createElement and textContent only: pasted text is
// never parsed as HTML. Word mode shows the engine's normalized preview; character
// and token mode the exact text, whitespace drawn, token boundaries on request.

import { el, yieldTask } from "./dom.js";
import * as fmt from "./format.js";
import { wrapRanges } from "./boundaries.js";
import { utf16Indexer } from "./text-offsets.js";

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
    cuts = chunk.token_breaks.map(utf16Indexer(s));
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
export function chunkCard(chunk, total, unit, showBreaks, model = "") {
  const li = el("li", {
    class: chunk.index % 2 ? "chunk tint-b" : "chunk tint-a", // its fresh text takes the chunk's tint
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
  // The tail the next chunk repeats is the overlap too: drawn as the repeated prefix is.
  if (Array.isArray(chunk.carried) && chunk.carried.length) {
    const at = utf16Indexer(body.textContent ?? "");
    wrapRanges(body, chunk.carried.map(([a, b]) => [at(a), at(b)]), { class: "carried", "data-testid": "chunk-carried" });
  }
  if (Array.isArray(chunk.model_dropped)) markDropped(li, head, body, chunk, model);
  return li;
}

/**
 * The tail the chosen model never reads (the engine's `model_dropped`, code points
 * of the shown text, from `model_cut`): tinted, in italics and titled, and said in
 * words in the card's head, so colour is never the only cue.
 */
function markDropped(li, head, body, chunk, model) {
  const name = model || "The model";
  const at = utf16Indexer(body.textContent ?? "");
  const ranges = chunk.model_dropped.map(([a, b]) => [at(a), at(b)]);
  const title = `${name} never reads this: its input ends at code point ${fmt.integer(chunk.model_cut)}`;
  const spans = wrapRanges(body, ranges, { class: "model-dropped", "data-testid": "chunk-model-dropped", title });
  li.dataset.modelCut = String(chunk.model_cut);
  if (spans > 0) {
    head.append(el("span", { class: "chunk-dropped-note", "data-testid": "chunk-dropped-note" },
      `✂ over ${name}'s limit: it stops reading at code point ${fmt.integer(chunk.model_cut)}`));
  }
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
    this.model = "";
  }

  /** `model`: the chosen model's name, for the dropped tail's words ("" for none). */
  render(chunks, unit, showBreaks, model = "") {
    this.model = model;
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
      frag.append(chunkCard(this.chunks[this.next], this.chunks.length, this.unit, this.showBreaks, this.model));
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
        this.pending.append(chunkCard(this.chunks[this.next], this.chunks.length, this.unit, this.showBreaks, this.model));
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

  /** Card `index` is in the list: the render finishes at once if it is not yet. */
  ensure(index) {
    if (this.pending === null || index < this.next - this.pending.childNodes.length) return;
    this.generation += 1; // the slices stop; the rest is built now
    this.pending.append(this.build(this.chunks.length));
    this.flush();
  }

  /** Scrolls card `index` into view, focuses it and flashes it (click-to-card). */
  goTo(index) {
    this.ensure(index);
    showCard(this.list.querySelector(`#chunk-${index}`));
  }
}

/**
 * Scrolls `card` (if any) so that its top (its number and repeated prefix) is in
 * view, however tall it is, focuses it and flashes it.
 */
export function showCard(card) {
  if (!card) return;
  card.scrollIntoView({ block: "start", behavior: "auto" });
  card.focus({ preventScroll: true });
  card.classList.remove("flash");
  void card.offsetWidth; // restart the highlight animation
  card.classList.add("flash");
}
