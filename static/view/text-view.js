// The text view: the text shown once, every chunk's span tinted. The engine's
// `segments` op cuts the text where the set of chunks holding it changes; this
// module only draws those segments, with createElement and textContent (never
// HTML), and answers pointing: hover or focus names the chunks a part belongs to
// and highlights them whole; a click or Enter goes to the chunk's card.
//
// The text is drawn in pages (the engine says where each begins; each starts
// after a line break when one is near; a whole text's pages are the engine's
// blocks of whole segments). A text of fewer code points than
// FACTS.text_view.whole is drawn whole, every segment in the page. A longer one
// keeps only the pages near what is seen: the others are empty blocks of their
// measured (or estimated) height, filled from the engine as they scroll near,
// emptied as they scroll away, so a megabyte cut into a hundred thousand chunks
// draws only a few thousand segments at a time.
//
// No task is long: pages are drawn whole, a frame's worth of segments at a time
// (the browser styles, lays out and paints each frame's before the next are
// built), far pages are emptied a few a frame, and positions are read only at the
// start of a frame, all before anything is written, so reading them never forces
// a layout of its own.
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
// Segments drawn per frame (a page larger than that has a frame of its own). The
// browser styles, lays out and paints each frame's new segments before the next
// are built: drawing three pages of a megabyte at size 2 at once (2,400 segments)
// made one 50 ms frame, traced on a quiet machine.
const SLICE = 400;
// The pages kept drawn: those within half a viewport above and below, and two more
// each way before they are emptied. Every segment drawn there is painted again each
// frame the view scrolls (the browser paints a scrolled box thousands of pixels
// beyond what it shows), so fewer of them make each scrolling frame shorter.
const NEAR = 0.5;
const KEEP = 2;
const EMPTIED = 2; // far pages emptied per frame
const OUT_OF_SIGHT = 4; // how many segments out of sight cost a frame what one in sight does
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
    this.drawn = new Set(); // the pages that hold their segments
    this.unmeasured = new Set(); // pages drawn since their height was last read
    this.drawers = new WeakMap(); // page -> the draw call that is to fill it
    this.round = 0; // the newest fill of the pages near the view
    this.focusing = 0; // fetches under way for a page gone to
    this.marks = new WeakMap(); // answer -> what its segments are drawn with
    this.active = ""; // the data-chunks of the part pointed at
    this.frame = 0;
    this.fetching = null;
    // Geometry read only in animation frames or from the resize observer, so that
    // drawing a result never forces a layout of its own.
    this.box = { width: 0, height: 0 }; // the view's content box
    this.top = { page: 0, offset: 0 }; // the page at the top of the view, and how far into it
    // A pointer over no part (a gap, or a page scrolled under a resting mouse) leaves the
    // caption to the part that has the keyboard's focus, if one has.
    root.addEventListener("pointerover", (event) => {
      const target = /** @type {Element} */ (event.target);
      const onPart = target.closest?.('[data-testid="segment"]');
      this.point(onPart || !root.contains(document.activeElement) ? target : document.activeElement);
    });
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
    // drawn again, and the others keep their measured heights, as near as a line.
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
    this.active = ""; // forgotten: the point(null) below clears the old parts' caption and highlight
    if (view.total === 0) {
      this.pages = [];
      this.root.replaceChildren(el("p", { class: "hint tv-empty" }, "No text."));
      this.point(null);
      this.root.dataset.rendered = "true";
      return;
    }
    if (!reuse) {
      this.pages = view.edges.slice(0, -1).map((_, i) => this.placeholder(view, i));
      this.drawn.clear();
      this.unmeasured.clear();
    } else if (!whole) {
      this.emptyOutside(answer.page, answer.page + answer.pages); // drawn for the old result
    }
    // The page at the top first, then the others nearest first, a frame's worth at a
    // time: in this task only what fits in half of one (the rest of the result is
    // drawn in it too).
    const order = [];
    const from = whole ? 0 : answer.page;
    const to = whole ? this.pages.length : answer.page + answer.pages;
    for (let p = from; p < to; p += 1) order.push(p);
    const top = Math.min(Math.max(keepTop, from), to - 1);
    order.sort((a, b) => Math.abs(a - top) - Math.abs(b - top) || a - b);
    const near = this.pagesInSight() + 2;
    const drawing = this.draw(answer, order, { generation, budget: SLICE / 2, near });
    if (!reuse) {
      this.root.replaceChildren(...this.pages);
      requestAnimationFrame(() => this.restoreTop(keepTop, offset)); // new blocks: the same place
    }
    this.ensureTabStop();
    this.point(null);
    if (focused !== null) this.segmentAt(focused).then((seg) => seg && this.focusSegment(seg));
    if (!(await drawing)) return;
    if (whole) this.root.dataset.rendered = "true";
    this.scrolled();
  }

  /**
   * Draws `pages` of `answer` in order, each page whole (a page is one paragraph of
   * inline layout: drawn in parts it would be laid out again for each), as many as
   * fit in SLICE segments a frame, a larger one in a frame of its own (`budget` is
   * what this task may draw). A page emptied, or taken by another call, meanwhile is
   * left to it. Resolves to false when a newer result (`generation`) or a newer fill
   * of the pages near the view (`round`) came first, else true; `onDrawn(p)` is told
   * each page drawn; `near` is how many of `pages`, the first, are in or near sight.
   * @param {object} answer
   * @param {number[]} pages
   * @param {{generation: number, budget?: number, round?: number,
   *   onDrawn?: (p: number) => void, near?: number, focus?: boolean}} how
   */
  async draw(answer, pages, { generation, budget = SLICE, round, onDrawn, near = pages.length, focus = false }) {
    const marks = this.marksOf(answer);
    const token = { focus }; // this call's mark on the pages it is to draw
    const ours = (p) => this.drawers.get(this.pages[p]) === token;
    const fresh = round !== undefined || focus; // filling blank pages: one drawn meanwhile is done
    for (const p of pages) this.drawers.set(this.pages[p], token);
    // A page drawn by another call meanwhile: done, when this call only fills blanks.
    const skip = (p) => {
      if (!ours(p)) return true;
      if (!fresh || !this.drawn.has(p)) return false;
      this.drawers.delete(this.pages[p]);
      onDrawn?.(p);
      return true;
    };
    for (const [i, p] of pages.entries()) {
      if (skip(p)) continue;
      const [from, to] = this.pageSegments(answer, p);
      // Past the first `near` pages (a whole text's blocks out of sight), the browser
      // skips a block's layout until it is scrolled near: only building it costs.
      const cost = i < near ? to - from : (to - from) / OUT_OF_SIGHT;
      if (budget < SLICE && budget < cost) {
        await nextFrame();
        if (generation !== this.generation || (round !== undefined && round !== this.round)) {
          for (const q of pages) if (ours(q)) this.drawers.delete(this.pages[q]);
          return false;
        }
        budget = SLICE;
        if (skip(p)) continue;
      }
      this.drawPage(answer, marks, p, from, to);
      this.drawers.delete(this.pages[p]);
      budget -= cost;
      onDrawn?.(p);
    }
    this.ensureTabStop();
    if (this.matches) this.applyMatches();
    return true;
  }

  /** Empties the drawn pages outside [from, to), at their last known height. */
  emptyOutside(from, to) {
    this.pages.forEach((page, p) => {
      if ((p >= from && p < to) || page.dataset.filled === "false") return;
      this.empty(p, this.heightOf(this.view, p));
    });
  }

  /** Page `p` emptied, at `height` (its last, read before any write of the frame). */
  empty(p, height) {
    const page = this.pages[p];
    page.style.height = `${height}px`;
    page.replaceChildren();
    page.dataset.filled = "false";
    this.drawers.delete(page);
    this.drawn.delete(p);
    this.unmeasured.delete(p);
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
   * What an answer's segments are drawn with, worked out once per answer: the
   * boundaries that got less overlap than asked (a dashed edge and a title, not colour
   * alone) and the tails the chosen model never reads. Its windows join the view's.
   */
  marksOf(answer) {
    let marks = this.marks.get(answer);
    if (marks) return marks;
    this.addWindows(this.view, answer.windows);
    const short = answer.short_boundaries ?? { at: [], overlap: [] };
    marks = {
      short: new Map(short.at.map((at, i) => [at, short.overlap[i]])),
      dropped: droppedTails(answer.model_dropped),
      model: answer.model_dropped?.model ?? "",
    };
    this.marks.set(answer, marks);
    return marks;
  }

  /**
   * The answer's segments page `p` draws, [from, to): a whole text's, those starting
   * in it; the paged view's, those meeting it (each cut to it).
   */
  pageSegments(answer, p) {
    const view = this.view;
    const { bounds, first } = answer.segments;
    const start = view.edges[p];
    const from = view.whole ? floorIndex(bounds, start - 1) + 1 : Math.max(0, floorIndex(bounds, start));
    return [from, Math.min(first.length, floorIndex(bounds, view.edges[p + 1] - 1) + 1)];
  }

  /**
   * Draws page `p`: segments [from, to) of `answer` (pageSegments). A whole text's
   * segments stay whole: each belongs to the page it starts in. In the paged view each
   * page is cut at its own start and end, so it can be emptied and drawn again alone.
   */
  drawPage(answer, marks, p, from, to) {
    const view = this.view;
    const { bounds, first, count } = answer.segments;
    const start = view.edges[p];
    const end = view.edges[p + 1];
    const frag = document.createDocumentFragment();
    for (let s = from; s < to; s += 1) {
      const a = view.whole ? bounds[s] : Math.max(bounds[s], start);
      const b = view.whole ? bounds[s + 1] : Math.min(bounds[s + 1], end);
      frag.append(this.segment(view, marks, a, b, first[s], count[s]));
    }
    const page = this.pages[p];
    // Off screen, a filled page is skipped by layout at its last (or estimated) height.
    page.style.containIntrinsicSize = `auto ${this.heightOf(view, p)}px`;
    page.replaceChildren(frag);
    page.dataset.filled = "true";
    page.style.height = "";
    this.drawn.add(p);
    this.unmeasured.add(p);
  }

  /** One segment element: its tint says how many chunks hold it, and which. */
  segment(view, marks, a, b, first, count) {
    let chunks = "";
    for (let k = 0; k < count; k += 1) chunks += k ? ` ${first + k}` : String(first + k);
    const node = (this.template ??= el("span", { "data-testid": "segment" })).cloneNode(false);
    node.className = count === 0 ? "seg-none" : count > 1 ? "seg-mixed" : first % 2 ? "seg-odd" : "seg-even";
    node.setAttribute("data-start", String(a));
    node.setAttribute("data-end", String(b));
    node.setAttribute("data-chunks", chunks);
    const got = marks.short.get(a);
    const titles = [];
    if (got !== undefined) {
      node.classList.add("seg-short");
      node.setAttribute("data-short-overlap", String(got));
      titles.push(`This boundary got ${got} of overlap, less than asked`);
    }
    const tail = marks.dropped ? droppedBy(marks.dropped, a, b) : -1;
    if (tail >= 0) {
      // The tail of a chunk the chosen model never reads: a tint, italics and a title.
      node.classList.add("seg-dropped");
      node.setAttribute("data-dropped-by", String(tail));
      const name = marks.model || "The model";
      titles.push(`${name} never reads this part of chunk ${fmt.integer(tail + 1)}: its input ends before it`);
    }
    if (titles.length) node.setAttribute("title", titles.join(". "));
    else node.removeAttribute("title");
    node.textContent = view.text.slice(view.at(a), view.at(b));
    return node;
  }

  // ------------------------------------------------------------ paging

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

  /**
   * Scrolling: in the next frame, every position is read first (one layout, the one
   * the frame makes anyway), then written: the part in sight told to the strip, and in
   * the paged view the pages near the view drawn, the far ones emptied.
   */
  scrolled() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const sight = this.readSight();
      if (!sight) return;
      this.showVisible(sight.visible);
      if (!this.view.whole) this.fillNear(sight);
    });
  }

  /**
   * Where the view is, read at once, before anything is written: the page at its top
   * and how far into it; the pages near it [lo, hi]; the code points in sight; and the
   * heights of the pages drawn since last read, and of those about to be emptied.
   */
  readSight() {
    const view = this.view;
    if (!view || view.total === 0 || this.pages.length === 0 || !this.pages[0].isConnected) return null;
    const top = this.root.scrollTop;
    const height = this.root.clientHeight;
    const page = this.pageAt(top);
    this.top = { page, offset: top - this.pages[page].offsetTop };
    for (const p of this.unmeasured) {
      if (this.drawn.has(p)) this.heights.set(p, this.pages[p].offsetHeight);
    }
    this.unmeasured.clear();
    const lo = this.pageAt(top - NEAR * height);
    const hi = this.pageAt(top + height + NEAR * height);
    const far = [];
    if (!view.whole) {
      for (const p of this.drawn) {
        if (p < lo - KEEP || p > hi + KEEP) far.push([p, this.pages[p].offsetHeight]);
      }
    }
    const first = this.segmentAtY(top);
    const last = this.segmentAtY(top + height);
    const start = first ? Number(first.dataset.start) : view.edges[page];
    const end = last ? Number(last.dataset.end) : view.total;
    return { page, lo, hi, far, visible: [start, Math.max(start, end)] };
  }

  /**
   * What is in sight, on the view (data-visible-start/-end) and to the strip.
   * @param {number[]} visible code points [start, end)
   */
  showVisible([start, end]) {
    this.root.dataset.visibleStart = String(start);
    this.root.dataset.visibleEnd = String(end);
    this.onVisible(start, end, this.view.total);
  }

  /** The drawn segment on the line at height `y` of the scrolled content, if any. */
  segmentAtY(y) {
    const page = this.pages[this.pageAt(y)];
    if (page?.dataset.filled !== "true") return null;
    const segs = page.children;
    if (segs.length === 0) return null;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (/** @type {HTMLElement} */ (segs[mid]).offsetTop <= y) lo = mid;
      else hi = mid - 1;
    }
    return segs[lo];
  }

  /**
   * The paged view: empties the far pages (`sight.far`, at their heights read before)
   * and draws the near ones not drawn or being drawn, nearest first: `focus`, when
   * given, first (a page gone to; drawn again if half drawn). Resolves once `focus` is
   * drawn, or else once all are.
   */
  fillNear(sight, focus = -1) {
    return new Promise((resolve) => {
      this.drawNear(sight, focus, resolve).then(() => resolve(undefined));
    });
  }

  async drawNear(sight, focus, resolve) {
    const view = this.view;
    // The far pages a few a frame, the farthest first: emptying a page removes its
    // hundreds of segments, a jump leaves a dozen behind, and none of it is urgent.
    const near = focus >= 0 ? focus : sight.page;
    const far = sight.far.sort(([a], [b]) => Math.abs(b - near) - Math.abs(a - near));
    for (const [p, height] of far.slice(0, EMPTIED)) {
      this.heights.set(p, height);
      this.empty(p, height);
    }
    if (far.length > EMPTIED) this.scrolled(); // the rest in the next frames
    // While a page gone to is fetched, the view waits for it: a call of its own now
    // would supersede that one (the engine answers only the newest segments call).
    if (focus < 0 && this.focusing > 0) return;
    const wanted = [];
    for (let p = sight.lo; p <= sight.hi; p += 1) {
      const page = this.pages[p];
      // A newer fill takes over the blank pages an older one was to draw, not those of a
      // page gone to.
      if (page.dataset.filled !== "true" && (p === focus || !this.drawers.get(page)?.focus)) wanted.push(p);
    }
    if (focus >= 0 && !wanted.includes(focus) && this.pages[focus].dataset.filled !== "true") wanted.push(focus);
    if (wanted.length === 0) {
      if (this.fetching === null) this.root.dataset.rendered = "true";
      return;
    }
    const first = Math.min(...wanted);
    const last = Math.max(...wanted);
    const key = `${this.generation}:${first}:${last}:${focus}`;
    if (this.fetching === key) return;
    this.fetching = key;
    this.root.dataset.rendered = "false";
    const generation = this.generation;
    if (focus >= 0) this.focusing += 1;
    const answer = await this.fetch(view.base, first, last - first + 1);
    if (focus >= 0) this.focusing -= 1;
    if (this.fetching === key) this.fetching = null;
    if (answer === null && focus >= 0) this.scrolled(); // the pages near, as they are now
    if (answer === null || generation !== this.generation || this.view !== view) return;
    const order = wanted.filter((p) => p >= answer.page && p < answer.page + answer.pages)
      .sort((a, b) => Math.abs(a - near) - Math.abs(b - near) || a - b);
    // A newer fill of the pages near the view supersedes this one, unless it draws a
    // page gone to (then it draws that page first and finishes).
    const round = focus >= 0 ? undefined : ++this.round;
    const onDrawn = (p) => p === focus && resolve(undefined);
    const how = { generation, round, onDrawn, focus: focus >= 0 };
    if (!(await this.draw(answer, order, how)) || this.view !== view) return;
    this.scrolled(); // their heights; more may have come near meanwhile
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
    delete this.root.dataset.findShown;
    if (typeof CSS !== "undefined" && CSS.highlights) CSS.highlights.delete(CURRENT);
    this.applyMatches();
  }

  /** The match [a, b) gone to: in sight, and marked apart from the others. */
  async currentMatch(a, b) {
    this.current = [a, b];
    this.root.dataset.findCurrent = `${a} ${b}`;
    await this.scrollToOffset(a);
    if (this.current?.[0] !== a || this.current[1] !== b) return; // another match was gone to
    this.applyMatches();
    this.root.dataset.findShown = `${a} ${b}`; // in sight and marked
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
      const sight = this.readSight();
      if (sight) await this.fillNear(sight, p);
      if (this.view !== view || this.pages[p]?.dataset.filled !== "true") return null;
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
