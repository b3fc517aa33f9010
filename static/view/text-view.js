// The text view: the text shown once, every chunk's span tinted. The engine's
// `segments` op cuts the text where the set of chunks holding it changes; this
// module only draws those segments, with createElement and textContent (never
// HTML), and answers pointing: hover or focus names the chunks a part belongs to
// and highlights them whole; a click or Enter goes to the chunk's card.
//
// The text is drawn in pages (the engine says where each begins; each starts
// after a line break when one is near; a whole text's pages are the engine's
// blocks of whole segments). A text of fewer code points than
// FACTS.text_view.whole is drawn whole, every segment in the page, the pages
// built a few per task so the page stays responsive. A longer one keeps only the
// pages near what is seen: the others are empty blocks of their measured (or
// estimated) height, filled from the engine as they scroll near, emptied as they
// scroll away, so a megabyte cut into a hundred thousand chunks draws only a few
// thousand segments at a time.
//
// Contract (tests rely on it): each segment is an element data-testid="segment"
// with data-start / data-end (code points, end exclusive) and data-chunks (the
// 0-based chunk indices, space-separated, empty for text no chunk holds); its
// textContent is the text of [data-start, data-end). In the paged view a segment
// that crosses a page start is drawn as two elements, one per page.

import { FACTS } from "../facts.js";
import { el, nextFrame } from "./dom.js";
import * as fmt from "./format.js";
import { utf16Indexer } from "./text-offsets.js";

const WHOLE = FACTS.text_view.whole;
const HIGHLIGHT = "chunk-active";
const MATCHES = "find-match"; // the find box's matches
const CURRENT = "find-current"; // the one gone to
const SLICE_MS = 8; // building time per frame for the pages of a whole text
const NEAR = 1; // viewport heights above and below whose pages are kept filled
const KEEP = 4; // pages kept beyond those before they are emptied
const NAMED = 6; // chunks named one by one in the caption; more are counted

/** The chunk indices a segment element names. */
function chunksOf(seg) {
  const list = seg.dataset.chunks;
  return list ? list.split(" ").map(Number) : [];
}

/**
 * The engine's dropped tails (`model_dropped`: chunk `chunk[i]` is read up to `at[i]`,
 * its tail runs to `end[i]`) sorted by start, with the running furthest end, so a
 * segment finds the tail covering it by one search. Null when none.
 * @param {{model: string, at: number[], end: number[], chunk: number[]} | undefined} dropped
 */
function droppedTails(dropped) {
  if (!dropped || dropped.at.length === 0) return null;
  const order = dropped.at.map((_, i) => i).sort((x, y) => dropped.at[x] - dropped.at[y]);
  const at = order.map((i) => dropped.at[i]);
  const reach = [];
  const by = [];
  for (const i of order) {
    const top = reach.length - 1;
    if (top >= 0 && reach[top] >= dropped.end[i]) {
      reach.push(reach[top]);
      by.push(by[top]);
    } else {
      reach.push(dropped.end[i]);
      by.push(dropped.chunk[i]);
    }
  }
  return { at, reach, by };
}

/** The chunk whose dropped tail holds segment [a, b), or -1. */
function droppedBy(tails, a, b) {
  const k = floorIndex(tails.at, a);
  return k >= 0 && tails.reach[k] >= b ? tails.by[k] : -1;
}

/** The largest i with sorted[i] <= value (-1 if none). */
function floorIndex(sorted, value) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export class TextView {
  /**
   * @param {{root: HTMLElement, caption: HTMLElement, note: HTMLElement,
   *   fetch: (base: object, page: number, pages: number | undefined) => Promise<object | null>,
   *   onGo: (index: number) => void,
   *   onActive: (indices: number[], span: number[] | null) => void,
   *   onVisible: (start: number, end: number, total: number) => void}} options
   *   `fetch` asks the engine's segments op for `pages` pages from `page` (all when
   *   undefined) and resolves to its result, or null (superseded or refused);
   *   `onGo` goes to a chunk's card; `onActive` and `onVisible` keep the overview
   *   strip in step (the chunks pointed at and the code points they span, when
   *   known; the code points in sight).
   */
  constructor({ root, caption, note, fetch, onGo, onActive, onVisible }) {
    this.root = root;
    this.caption = caption;
    this.note = note;
    this.fetch = fetch;
    this.onGo = onGo;
    this.onActive = onActive;
    this.onVisible = onVisible;
    this.generation = 0;
    this.template = null; // a segment element, cloned for each one drawn
    this.view = null; // what is drawn: {base, text, at, total, chunks, unit, edges, whole, windows}
    this.pages = []; // one block per page; page.dataset.filled says whether it holds its segments
    this.heights = new Map(); // measured page heights, for this text and width
    this.heightsText = null;
    this.heightsWidth = 0;
    this.active = ""; // the data-chunks of the part pointed at
    this.frame = 0;
    this.fetching = null;
    // Geometry read only in animation frames or from the resize observer, so that
    // drawing a result never forces a layout of its own.
    this.box = { width: 0, height: 0 }; // the view's content box
    this.top = { page: 0, offset: 0 }; // the page at the top of the view, and how far into it
    root.addEventListener("pointerover", (event) => this.point(event.target));
    root.addEventListener("pointerleave", () => {
      if (!root.contains(document.activeElement)) this.point(null);
    });
    root.addEventListener("focusin", (event) => this.point(event.target));
    root.addEventListener("focusout", (event) => {
      if (!root.contains(/** @type {Node} */ (event.relatedTarget))) this.point(null);
    });
    root.addEventListener("click", (event) => this.clicked(event));
    root.addEventListener("keydown", (event) => this.key(event));
    root.addEventListener("scroll", () => this.scrolled(), { passive: true });
    new ResizeObserver(([entry]) => this.resized(entry.contentRect)).observe(root);
  }

  // ------------------------------------------------------------ a new result

  /**
   * The pages a result should bring with it, as a chunk request's `text_view`: from
   * the page before the one at the top, as many as fill the view and two more (a
   * text the view draws whole comes whole whatever is asked).
   */
  wanted() {
    return { page: Math.max(0, this.top.page - 1), pages: this.pagesInSight() + 2 };
  }

  /**
   * A chunk result is on screen for `request` (the fields sent for it): draw its
   * segments, from `given` (the answer's `text_view`) when it holds the pages to draw,
   * else from a segments call. `chars` is the text's code points (after a leading
   * byte-order mark).
   */
  async update(request, { chars }, given = null) {
    const generation = ++this.generation;
    const base = { ...request };
    delete base.op;
    delete base.text_view;
    const whole = chars < WHOLE;
    const { page: keepTop, offset } = this.top;
    const focused = this.root.contains(document.activeElement)
      ? Number(document.activeElement.dataset.start) : null;
    const first = whole ? 0 : Math.max(0, keepTop - 1);
    // The chunk answer's own pages (`given`, asked for by wanted()) when they are the
    // ones to draw: then a result costs no call of its own.
    const fits = given !== null && given.page === first &&
      (!whole || given.page + given.pages === given.page_starts.length - 1);
    const answer = fits ? given : await this.fetch(base, first, whole ? undefined : this.pagesInSight() + 2);
    if (answer === null || generation !== this.generation) return;
    const text = answer.bom_removed ? request.text.slice(1) : request.text;
    const sameText = this.view !== null && this.view.text === text;
    const view = {
      base, text, whole, at: sameText ? this.view.at : utf16Indexer(text),
      total: answer.total_chars, chunks: answer.chunks, unit: request.unit,
      edges: answer.page_starts, windows: new Map(),
    };
    if (whole) view.edges = answer.blocks; // the engine's blocks of whole segments
    this.addWindows(view, answer.windows);
    // The blocks drawn stay when they are the same pages; in the paged view, also after
    // an edit that kept the number of pages (a keystroke): only the pages in sight are
    // filled again, and the others keep their measured heights, as near as a line.
    const samePages = this.view !== null && this.pages.length === view.edges.length - 1;
    const edited = samePages && !whole && !this.view.whole && !sameText;
    const reuse = edited || (samePages && sameText && this.view.edges.every((edge, i) => edge === view.edges[i]));
    if (edited && this.heightsText === this.view.text) this.heightsText = text;
    this.view = view;
    this.root.dataset.rendered = "false";
    this.root.dataset.mode = whole ? "whole" : "paged";
    this.root.dataset.chunks = String(answer.chunks);
    this.root.dataset.chars = String(answer.total_chars);
    this.describe(view);
    this.active = null;
    if (view.total === 0) {
      this.pages = [];
      this.root.replaceChildren(el("p", { class: "hint tv-empty" }, "No text."));
      this.point(null);
      this.root.dataset.rendered = "true";
      return;
    }
    if (!reuse) this.pages = view.edges.slice(0, -1).map((_, i) => this.placeholder(view, i));
    else if (!whole) this.emptyOutside(answer.page, answer.page + answer.pages); // drawn for the old result
    // The page at the top first, in this task; the others one per task, nearest first.
    const order = [];
    const from = whole ? 0 : answer.page;
    const to = whole ? this.pages.length : answer.page + answer.pages;
    for (let p = from; p < to; p += 1) order.push(p);
    const top = Math.min(Math.max(keepTop, from), to - 1);
    order.sort((a, b) => Math.abs(a - top) - Math.abs(b - top) || a - b);
    this.fill(answer, order.slice(0, 1));
    if (!reuse) {
      this.root.replaceChildren(...this.pages);
      requestAnimationFrame(() => this.restoreTop(keepTop, offset)); // new blocks: the same place
    }
    this.ensureTabStop();
    this.point(null);
    if (focused !== null) this.segmentAt(focused).then((seg) => seg && this.focusSegment(seg));
    if (!(await this.fillRest(answer, order.slice(1), generation))) return;
    if (whole) this.root.dataset.rendered = "true";
    this.scrolled();
  }

  /**
   * Fills `pages` from `answer`, a page per frame (more when they are small): the
   * browser styles and lays out each frame's new spans before the next are built,
   * instead of all of them in one long rendering task (366 ms for 8,048 spans,
   * traced on a megabyte in word mode at size 2).
   */
  async fillRest(answer, pages, generation) {
    for (let i = 0; i < pages.length; ) {
      await nextFrame();
      if (generation !== this.generation) return false;
      const began = performance.now();
      do {
        this.fill(answer, [pages[i]]);
        i += 1;
      } while (i < pages.length && performance.now() - began < SLICE_MS / 2);
    }
    this.ensureTabStop();
    if (this.matches) this.applyMatches();
    return true;
  }

  /** Empties the drawn pages outside [from, to), at their last known height. */
  emptyOutside(from, to) {
    this.pages.forEach((page, p) => {
      if ((p >= from && p < to) || page.dataset.filled !== "true") return;
      page.style.height = `${this.heightOf(this.view, p)}px`;
      page.replaceChildren();
      page.dataset.filled = "false";
    });
  }

  /** The note under the view: how much of the text is drawn. */
  describe(view) {
    const chunks = `${fmt.integer(view.chunks)} ${view.chunks === 1 ? "chunk" : "chunks"}`;
    const chars = `${fmt.integer(view.total)} code ${view.total === 1 ? "point" : "points"}`;
    this.note.textContent = view.whole
      ? `The whole text, ${chars}, over ${chunks}.`
      : `${chars} over ${chunks}: a long text is drawn page by page as you scroll, only near what you see; the strip above shows where you are.`;
  }

  /** Remembers the windows an answer names (for the caption and the highlight). */
  addWindows(view, w) {
    for (let i = 0; i < w.starts.length; i += 1) {
      view.windows.set(w.first + i, [w.starts[i], w.ends[i], w.char_starts[i], w.char_ends[i]]);
    }
  }

  /** An empty block of the page's height (measured before, else estimated). */
  placeholder(view, i) {
    const page = el("div", { class: "tv-page", "data-page": String(i) });
    page.dataset.filled = "false";
    page.style.height = `${this.heightOf(view, i)}px`;
    return page;
  }

  // ------------------------------------------------------------ drawing

  /**
   * Puts an answer's segments into its pages (only `which`, when given). A whole
   * text's segments stay whole: each belongs to the page it starts in. In the paged
   * view each page is cut at its own start and end, so it can be emptied and filled
   * again alone.
   */
  fill(answer, which) {
    const view = this.view;
    if (answer.windows !== this.lastWindows) {
      this.lastWindows = answer.windows;
      this.addWindows(view, answer.windows);
    }
    const { bounds, first, count } = answer.segments;
    // Boundaries that got less overlap than asked: a dashed edge and a title (not colour alone).
    const short = answer.short_boundaries ?? { at: [], overlap: [] };
    this.short = new Map(short.at.map((at, i) => [at, short.overlap[i]]));
    this.dropped = droppedTails(answer.model_dropped);
    this.modelName = answer.model_dropped?.model ?? "";
    const pages = which ?? Array.from({ length: answer.pages }, (_, i) => answer.page + i);
    for (const p of pages) {
      const start = view.edges[p];
      const end = view.edges[p + 1];
      const frag = document.createDocumentFragment();
      // Whole: the segments starting in the page. Paged: those meeting it, cut to it.
      let s = view.whole ? floorIndex(bounds, start - 1) + 1 : Math.max(0, floorIndex(bounds, start));
      for (; s < first.length && bounds[s] < end; s += 1) {
        const a = view.whole ? bounds[s] : Math.max(bounds[s], start);
        const b = view.whole ? bounds[s + 1] : Math.min(bounds[s + 1], end);
        frag.append(this.segment(view, a, b, first[s], count[s]));
      }
      const page = this.pages[p];
      // Off screen, a filled page is skipped by layout at its last (or estimated) height.
      page.style.containIntrinsicSize = `auto ${this.heightOf(view, p)}px`;
      page.replaceChildren(frag);
      page.dataset.filled = "true";
      page.style.height = "";
    }
  }

  /** One segment element: its tint says how many chunks hold it, and which. */
  segment(view, a, b, first, count) {
    let chunks = "";
    for (let k = 0; k < count; k += 1) chunks += k ? ` ${first + k}` : String(first + k);
    const node = (this.template ??= el("span", { "data-testid": "segment" })).cloneNode(false);
    node.className = count === 0 ? "seg-none" : count > 1 ? "seg-mixed" : first % 2 ? "seg-odd" : "seg-even";
    node.setAttribute("data-start", String(a));
    node.setAttribute("data-end", String(b));
    node.setAttribute("data-chunks", chunks);
    const got = this.short?.get(a);
    const titles = [];
    if (got !== undefined) {
      node.classList.add("seg-short");
      node.setAttribute("data-short-overlap", String(got));
      titles.push(`This boundary got ${got} of overlap, less than asked`);
    }
    const tail = this.dropped ? droppedBy(this.dropped, a, b) : -1;
    if (tail >= 0) {
      // The tail of a chunk the chosen model never reads: a tint, italics and a title.
      node.classList.add("seg-dropped");
      node.setAttribute("data-dropped-by", String(tail));
      const name = this.modelName || "The model";
      titles.push(`${name} never reads this part of chunk ${fmt.integer(tail + 1)}: its input ends before it`);
    }
    if (titles.length) node.setAttribute("title", titles.join(". "));
    else node.removeAttribute("title");
    node.textContent = view.text.slice(view.at(a), view.at(b));
    return node;
  }

  // ------------------------------------------------------------ paging

  /** Where the view is: the page at its top and how far into it (read in a frame). */
  readTop() {
    if (this.pages.length === 0 || !this.pages[0].isConnected) return;
    const page = this.pageAt(this.root.scrollTop);
    this.top = { page, offset: this.root.scrollTop - this.pages[page].offsetTop };
  }

  restoreTop(page, offset) {
    const node = this.pages[Math.min(page, this.pages.length - 1)];
    if (node) this.root.scrollTop = node.offsetTop + offset;
  }

  /** How many pages about fill the view (at least one). */
  pagesInSight() {
    const view = this.view;
    if (!view || this.pages.length === 0) return 3;
    const height = this.box.height || 400;
    return Math.max(1, Math.ceil(height / Math.max(1, this.heightOf(view, 0))) + 1);
  }

  heightOf(view, i) {
    if (this.heightsText !== view.text || this.heightsWidth !== this.box.width) {
      this.heights.clear();
      this.heightsText = view.text;
      this.heightsWidth = this.box.width;
    }
    const known = this.heights.get(i);
    if (known !== undefined) return known;
    return this.estimate(view, i);
  }

  /** A page's height from its lines and the view's character width (monospace). */
  estimate(view, i) {
    const metrics = this.metrics();
    const text = view.text;
    const stop = view.at(view.edges[i + 1]);
    let lines = 0;
    for (let at = view.at(view.edges[i]); at < stop; ) {
      const next = text.indexOf("\n", at);
      const end = next < 0 || next > stop ? stop : next;
      lines += Math.max(1, Math.ceil((end - at) / metrics.perLine));
      at = end + 1;
    }
    return Math.round(Math.max(1, lines) * metrics.lineHeight);
  }

  /** The view's characters per line and line height (monospace), once per width. */
  metrics() {
    if (this.measured && this.measured.width === this.box.width) return this.measured;
    const probe = el("span", { class: "tv-probe", "aria-hidden": "true" }, "0".repeat(50));
    this.root.append(probe);
    const charWidth = probe.getBoundingClientRect().width / 50 || 8;
    probe.remove();
    const lineHeight = parseFloat(getComputedStyle(this.root).lineHeight) || 20;
    const width = this.box.width || this.root.clientWidth;
    this.measured = { width: this.box.width, perLine: Math.max(1, Math.floor(width / charWidth)), lineHeight };
    return this.measured;
  }

  resized(box) {
    this.box = { width: box.width, height: box.height };
    if (!this.view || this.view.whole) return;
    this.scrolled();
  }

  /** Scrolling: tell the strip what is in sight; in the paged view, fill what comes near. */
  scrolled() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.readTop();
      for (const p of this.measureFilled ?? []) {
        if (this.pages[p]?.dataset.filled === "true") this.heights.set(p, this.pages[p].offsetHeight);
      }
      this.measureFilled = null;
      if (this.view && !this.view.whole) this.page();
      // What is in sight, for the strip: after this frame's drawing, not in its way.
      clearTimeout(this.visibleTimer);
      this.visibleTimer = setTimeout(() => this.reportVisible(), 60);
    });
  }

  reportVisible() {
    const view = this.view;
    if (!view || view.total === 0 || this.pages.length === 0) return;
    const top = this.segmentAtY(this.root.scrollTop);
    const bottom = this.segmentAtY(this.root.scrollTop + this.root.clientHeight);
    const start = top ? Number(top.dataset.start) : view.edges[this.pageAt(this.root.scrollTop)];
    const end = bottom ? Number(bottom.dataset.end) : view.total;
    this.root.dataset.visibleStart = String(start);
    this.root.dataset.visibleEnd = String(Math.max(start, end));
    this.onVisible(start, Math.max(start, end), view.total);
  }

  /** The drawn segment on the line at height `y` of the scrolled content, if any. */
  segmentAtY(y) {
    const page = this.pages[this.pageAt(y)];
    const segs = page?.children;
    if (!segs || segs.length === 0) return null;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segs[mid].offsetTop <= y) lo = mid;
      else hi = mid - 1;
    }
    return segs[lo];
  }

  /** Fills the pages near the view, empties the far ones (paged view only). */
  async page() {
    const view = this.view;
    const top = this.root.scrollTop;
    const height = this.root.clientHeight;
    const lo = this.pageAt(top - NEAR * height);
    const hi = this.pageAt(top + height + NEAR * height);
    for (let p = 0; p < this.pages.length; p += 1) {
      const page = this.pages[p];
      if ((p < lo - KEEP || p > hi + KEEP) && page.dataset.filled === "true") {
        const measured = page.offsetHeight;
        this.heights.set(p, measured);
        page.style.height = `${measured}px`;
        page.replaceChildren();
        page.dataset.filled = "false";
      }
    }
    let first = lo;
    while (first <= hi && this.pages[first].dataset.filled === "true") first += 1;
    let last = hi;
    while (last >= first && this.pages[last].dataset.filled === "true") last -= 1;
    if (first > last) {
      this.root.dataset.rendered = "true";
      return;
    }
    const key = `${this.generation}:${first}:${last}`;
    if (this.fetching === key) return;
    this.fetching = key;
    this.root.dataset.rendered = "false";
    const generation = this.generation;
    const answer = await this.fetch(view.base, first, last - first + 1);
    if (this.fetching === key) this.fetching = null;
    if (answer === null || generation !== this.generation || this.view !== view) return;
    const pages = [];
    for (let p = answer.page; p < answer.page + answer.pages; p += 1) pages.push(p);
    if (!(await this.fillRest(answer, pages, generation)) || this.view !== view) return;
    this.measureFilled = pages; // their heights, read in the next frame
    this.scrolled(); // more may have come near meanwhile
  }

  /** The page at height `y` of the scrolled content. */
  pageAt(y) {
    let lo = 0;
    let hi = this.pages.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pages[mid].offsetTop <= y) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  // ------------------------------------------------------------ pointing

  point(target) {
    const seg = target?.closest?.('[data-testid="segment"]') ?? null;
    const chunks = seg && this.root.contains(seg) ? seg.dataset.chunks : null;
    if (chunks === this.active) return;
    this.active = chunks;
    this.root.dataset.active = chunks ?? "";
    const indices = seg ? chunksOf(seg) : [];
    this.caption.textContent = seg ? this.name(seg, indices) : "";
    this.highlight(indices);
    this.onActive(indices, this.spanOf(indices));
  }

  /** "chunk 3 · words 6–10 · characters [45, 105)", for each chunk holding the part. */
  name(seg, indices) {
    const view = this.view;
    if (indices.length === 0) {
      return `No chunk holds this text (characters [${fmt.integer(Number(seg.dataset.start))}, ${fmt.integer(Number(seg.dataset.end))})): it lies between two chunks.`;
    }
    const named = indices.slice(0, NAMED).map((k) => {
      const w = view.windows.get(k);
      if (!w) return `chunk ${fmt.integer(k + 1)}`;
      const [start, end, cs, ce] = w;
      const chars = `characters [${fmt.integer(cs)}, ${fmt.integer(ce)})`;
      if (view.unit === "char") return `chunk ${fmt.integer(k + 1)} · ${chars}`;
      return `chunk ${fmt.integer(k + 1)} · ${fmt.unitPlural(view.unit)} ${fmt.integer(start + 1)}–${fmt.integer(end)} · ${chars}`;
    });
    const more = indices.length > NAMED ? `; and ${fmt.integer(indices.length - NAMED)} more chunks` : "";
    const both = indices.length > 1 ? `Held by ${fmt.integer(indices.length)} chunks: ` : "";
    const go = this.canGo ? ` Click or press Enter for chunk ${fmt.integer(indices[0] + 1)}'s card.` : "";
    return `${both}${named.join("; ")}${more}.${go}`;
  }

  /** The code points chunks `indices` span, [first's start, last's end), when known. */
  spanOf(indices) {
    const a = indices.length ? this.view?.windows.get(indices[0]) : null;
    const b = indices.length ? this.view?.windows.get(indices[indices.length - 1]) : null;
    return a && b ? [a[2], b[3]] : null;
  }

  // ------------------------------------------------------------ find

  /** The find box's answer (the engine's `find`), or null: its matches highlighted. */
  showMatches(found) {
    this.matches = found;
    this.current = null;
    this.root.dataset.matches = found ? String(found.count) : "";
    delete this.root.dataset.findCurrent;
    if (typeof CSS !== "undefined" && CSS.highlights) CSS.highlights.delete(CURRENT);
    this.applyMatches();
  }

  /** The match [a, b) gone to: in sight, and marked apart from the others. */
  async currentMatch(a, b) {
    this.current = [a, b];
    this.root.dataset.findCurrent = `${a} ${b}`;
    await this.scrollToOffset(a);
    this.applyMatches();
  }

  /** A range over code points [a, b) of the drawn text, or null where it is not drawn. */
  rangeOf(a, b) {
    const view = this.view;
    const page = (cp) => this.pages[Math.max(0, floorIndex(view.edges, cp))];
    if (page(a)?.dataset.filled !== "true" || page(Math.max(a, b - 1))?.dataset.filled !== "true") return null;
    const start = this.domPoint(a, false);
    const end = this.domPoint(b, true);
    if (!start || !end) return null;
    const range = document.createRange();
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset);
    return range;
  }

  /** Highlights the matches in the pages drawn (again after more are drawn). */
  applyMatches() {
    if (typeof CSS === "undefined" || !CSS.highlights) return;
    const found = this.matches;
    if (!found || !this.view || found.starts.length === 0) {
      CSS.highlights.delete(MATCHES);
      return;
    }
    const ranges = [];
    for (let i = 0; i < found.starts.length; i += 1) {
      const range = this.rangeOf(found.starts[i], found.ends[i]);
      if (range) ranges.push(range);
    }
    CSS.highlights.set(MATCHES, new Highlight(...ranges));
    const current = this.current ? this.rangeOf(this.current[0], this.current[1]) : null;
    if (current) CSS.highlights.set(CURRENT, new Highlight(current));
    else CSS.highlights.delete(CURRENT);
  }

  /** Highlights the chunks' whole span (as far as it is drawn). */
  highlight(indices) {
    if (typeof CSS === "undefined" || !CSS.highlights) return;
    const view = this.view;
    const a = indices.length ? view.windows.get(indices[0]) : null;
    const b = indices.length ? view.windows.get(indices[indices.length - 1]) : null;
    if (!a || !b) {
      CSS.highlights.delete(HIGHLIGHT);
      return;
    }
    const start = this.domPoint(a[2], false);
    const end = this.domPoint(b[3], true);
    if (!start || !end) {
      CSS.highlights.delete(HIGHLIGHT);
      return;
    }
    const range = document.createRange();
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset);
    CSS.highlights.set(HIGHLIGHT, new Highlight(range));
  }

  /** The text node and UTF-16 offset of code point `cp`, clamped to what is drawn. */
  domPoint(cp, isEnd) {
    const filled = this.pages.filter((page) => page.dataset.filled === "true" && page.firstChild);
    if (filled.length === 0) return null;
    const starts = filled.map((page) => Number(page.firstChild.dataset.start));
    const p = Math.max(0, floorIndex(starts, isEnd ? cp - 1 : cp));
    const segs = filled[p].children;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (Number(segs[mid].dataset.start) <= (isEnd ? cp - 1 : cp)) lo = mid;
      else hi = mid - 1;
    }
    const seg = segs[lo];
    const a = Number(seg.dataset.start);
    const b = Number(seg.dataset.end);
    const at = Math.min(Math.max(cp, a), b);
    const node = seg.firstChild;
    if (!node) return null;
    return { node, offset: this.view.at(at) - this.view.at(a) };
  }

  clicked(event) {
    const seg = event.target.closest?.('[data-testid="segment"]');
    if (!seg || !this.canGo) return;
    if (!window.getSelection()?.isCollapsed) return; // selecting text, not pointing
    const indices = chunksOf(seg);
    if (indices.length) this.onGo(indices[0]);
  }

  key(event) {
    const seg = event.target.closest?.('[data-testid="segment"]');
    if (!seg) return;
    if (event.key === "Enter") {
      const indices = chunksOf(seg);
      if (indices.length && this.canGo) {
        event.preventDefault();
        this.onGo(indices[0]);
      }
    } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
      event.preventDefault();
      this.step(seg, event.key === "ArrowRight" ? 1 : -1);
    }
  }

  /** Moves focus to the next (or previous) part of the text. */
  async step(seg, direction) {
    const cp = direction > 0 ? Number(seg.dataset.end) : Number(seg.dataset.start) - 1;
    if (cp < 0 || cp >= this.view.total) return;
    const next = await this.segmentAt(cp);
    if (next) this.focusSegment(next);
  }

  focusSegment(seg) {
    for (const old of this.root.querySelectorAll('[data-testid="segment"][tabindex]')) old.removeAttribute("tabindex");
    seg.setAttribute("tabindex", "0");
    seg.focus();
  }

  /** One tab stop in the view: the first segment drawn, unless one is already. */
  ensureTabStop() {
    if (this.root.querySelector('[data-testid="segment"][tabindex="0"]')) return;
    this.root.querySelector('[data-testid="segment"]')?.setAttribute("tabindex", "0");
  }

  /** The drawn segment holding code point `cp`, drawing its page first if needed. */
  async segmentAt(cp) {
    const view = this.view;
    const p = Math.max(0, floorIndex(view.edges, cp));
    if (!view.whole && this.pages[p]?.dataset.filled !== "true") {
      this.root.scrollTop = this.pages[p].offsetTop;
      await this.page();
    }
    const point = this.domPoint(cp, false);
    return point ? point.node.parentElement : null;
  }

  /** Scrolls the view to code point `cp` (the strip was clicked, or a card asked). */
  async scrollToOffset(cp) {
    if (!this.view) return;
    const seg = await this.segmentAt(cp);
    if (!seg) return;
    const top = seg.getBoundingClientRect().top - this.root.getBoundingClientRect().top + this.root.scrollTop;
    this.root.scrollTop = Math.max(0, top - 8);
  }

  /** Whether a click or Enter leads to a card (false while the cards are withheld). */
  set cardsShown(shown) {
    this.canGo = shown;
    this.root.dataset.cards = shown ? "true" : "false";
  }
}
