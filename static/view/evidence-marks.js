// evidence-marks.js: the evidence passages drawn where the text is shown. A passage
// some chunk holds whole is marked quietly; a split one in a warning tint with a
// dashed outline (a cue that is not colour alone), in the chunk cards and in the text
// view. Marks only wrap existing text in <span class="ev-mark">: the text, its
// textContent and its layout stay as they were (tints, outlines and box shadows only).
//
//   const cards = new CardMarks(list);      // decorates cards as they are added
//   cards.show(cardMarks, items);           // the evidence op's card_marks, evidence
//   cards.clear();
//
//   const view = new TextViewMarks(root);   // the text view, [data-testid="segment"]
//   view.show(items);                       // items: [{start, end, status, id}]
//   markSegments(root, items);              // the same, once, for a caller of its own
//   selectedInterval(root);                 // the selection there, in code points
//
// Offsets from the engine are code points; the DOM's are UTF-16 units, converted by
// view/text-offsets.js.

import { el, wrapRanges } from "./dom.js";
import { utf16Indexer } from "./text-offsets.js";

const SEGMENT = '[data-testid="segment"]';
const MARK = "ev-mark";
const TITLED = 3; // ids named in a mark's tooltip; more are counted

/**
 * Disjoint pieces of `ranges` ([[a, b, item], ...]): where the items covering a stretch
 * change, a new piece begins. Each piece is {a, b, split, ids}: `split` when any item
 * over it is split. `items[item]` gives an item's status and id.
 */
export function piecesOf(ranges, items) {
  const edges = [];
  for (const [a, b, item] of ranges) {
    if (b <= a) continue;
    edges.push([a, 1, item], [b, -1, item]);
  }
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const active = new Map(); // item -> how many of its ranges cover this point
  const out = [];
  let from = null;
  for (let i = 0; i < edges.length; ) {
    const at = edges[i][0];
    if (from !== null && at > from && active.size > 0) out.push(piece(from, at, active, items));
    while (i < edges.length && edges[i][0] === at) {
      const [, step, item] = edges[i];
      const count = (active.get(item) ?? 0) + step;
      if (count === 0) active.delete(item);
      else active.set(item, count);
      i += 1;
    }
    from = at;
  }
  return out;
}

function piece(a, b, active, items) {
  const over = [...active.keys()].map((k) => items[k]).filter(Boolean);
  return { a, b, split: over.some((item) => item.status === "split"), ids: over.map((item) => String(item.id)) };
}

function describe(p) {
  const named = p.ids.slice(0, TITLED).join(", ");
  const more = p.ids.length > TITLED ? ` and ${p.ids.length - TITLED} more` : "";
  const what = p.split ? "split: no single chunk holds it whole" : "held whole by a chunk";
  return `Evidence ${named}${more} (${what})`;
}

/**
 * Wraps `pieces` (sorted, disjoint, in UTF-16 units of `root`'s text) in mark spans.
 * Returns how many spans it made.
 */
function wrap(root, pieces) {
  return wrapRanges(root, pieces.map((p) => [p.a, p.b]), (k) => ({
    class: `${MARK} ${pieces[k].split ? "ev-split" : "ev-whole"}`,
    "data-evidence": pieces[k].ids.join(" "),
    title: describe(pieces[k]),
  }));
}

/** Removes every mark under `root`, leaving its text as it was. */
export function unmark(root) {
  const marks = root.querySelectorAll(`span.${MARK}`);
  const parents = new Set();
  for (const span of marks) {
    parents.add(span.parentNode);
    span.replaceWith(...span.childNodes);
  }
  for (const parent of parents) parent.normalize();
}

/** Pieces of [a, b) code points mapped to UTF-16 units of `text`. */
function toUnits(pieces, text) {
  const at = utf16Indexer(text);
  return pieces.map((p) => ({ ...p, a: at(p.a), b: at(p.b) }));
}

// ---------------------------------------------------------------- chunk cards

export class CardMarks {
  /** @param {HTMLElement} list the chunk list (cards.js adds the cards) */
  constructor(list) {
    this.list = list;
    this.marks = null;
    this.items = [];
    new MutationObserver((records) => {
      if (this.marks === null) return;
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType === 1 && node.matches('[data-testid="chunk"]')) this.decorate(node);
        }
      }
    }).observe(list, { childList: true });
  }

  /**
   * Marks every card: `marks[i]` is card i's `[[a, b, item], ...]` (code points of the
   * text it shows), `items` the evidence list the item numbers index.
   */
  show(marks, items) {
    this.clear();
    this.marks = marks;
    this.items = items;
    for (const card of this.list.querySelectorAll('[data-testid="chunk"]')) this.decorate(card);
  }

  clear() {
    this.marks = null;
    for (const card of this.list.querySelectorAll("[data-evidence-marked]")) {
      unmark(card);
      card.querySelector(".ev-badge")?.remove();
      delete card.dataset.evidenceMarked;
      delete card.dataset.evidence;
    }
  }

  decorate(card) {
    const marks = this.marks?.[Number(card.dataset.index)];
    if (!marks || marks.length === 0 || card.dataset.evidenceMarked) return;
    const body = card.querySelector(".chunk-text");
    const shown = body.textContent;
    const pieces = piecesOf(marks, this.items);
    if (pieces.length === 0) return;
    if (pieces[pieces.length - 1].b > [...shown].length) {
      card.dataset.evidenceMarked = "unmatched"; // never mark past the card's text
      return;
    }
    card.dataset.evidenceMarked = String(wrap(body, toUnits(pieces, shown)));
    const numbers = [...new Set(marks.map(([, , item]) => item))];
    const split = numbers.filter((k) => this.items[k]?.status === "split");
    card.dataset.evidence = split.length > 0 ? "split" : "whole";
    const words = [];
    if (split.length > 0) words.push(`⚠ splits ${names(split, this.items)}`);
    const whole = numbers.filter((k) => this.items[k]?.status !== "split");
    if (whole.length > 0) words.push(`evidence ${names(whole, this.items)}`);
    const badge = el("span", { class: `ev-badge${split.length > 0 ? " ev-badge-split" : ""}`, "data-testid": "card-evidence" }, words.join(" · "));
    card.querySelector(".chunk-head")?.append(badge);
  }
}

function names(numbers, items) {
  const ids = numbers.slice(0, TITLED).map((k) => String(items[k].id));
  return ids.join(", ") + (numbers.length > TITLED ? ` and ${numbers.length - TITLED} more` : "");
}

// ---------------------------------------------------------------- the text view

/** The first index of `pieces` whose end is past `at` (pieces sorted and disjoint). */
function firstEndingAfter(pieces, at) {
  let lo = 0;
  let hi = pieces.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pieces[mid].b <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Marks one segment element (data-start/data-end in code points) with the pieces over it. */
function markSegment(seg, pieces) {
  const start = Number(seg.dataset.start);
  const end = Number(seg.dataset.end);
  if (!Number.isFinite(start) || !Number.isFinite(end) || seg.querySelector(`span.${MARK}`)) return;
  const local = [];
  for (let k = firstEndingAfter(pieces, start); k < pieces.length && pieces[k].a < end; k += 1) {
    const p = pieces[k];
    local.push({ ...p, a: Math.max(p.a, start) - start, b: Math.min(p.b, end) - start });
  }
  if (local.length > 0) wrap(seg, toUnits(local, seg.textContent));
}

/**
 * Marks the evidence in every segment under `root` once (a text view of one's own:
 * segments with data-start/data-end code points whose text is the text's there).
 * `items`: [{start, end, status, id}], status "whole" or "split".
 */
export function markSegments(root, items) {
  if (root.querySelector(`span.${MARK}`)) unmark(root);
  if (items.length === 0) return [];
  const pieces = piecesOf(items.map((item, k) => [item.start, item.end, k]), items);
  for (const seg of root.querySelectorAll(SEGMENT)) markSegment(seg, pieces);
  return pieces;
}

/** The text view's marks, kept as its pages are drawn and redrawn. */
export class TextViewMarks {
  /** @param {HTMLElement} root the text view */
  constructor(root) {
    this.root = root;
    this.pieces = [];
    new MutationObserver((records) => {
      if (this.pieces.length === 0) return;
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          if (node.matches(SEGMENT)) markSegment(node, this.pieces);
          else for (const seg of node.querySelectorAll(SEGMENT)) markSegment(seg, this.pieces);
        }
      }
    }).observe(root, { childList: true, subtree: true });
  }

  /** `items`: [{start, end, status, id}] in code points of the text; [] clears. */
  show(items) {
    if (items.length === 0 && this.pieces.length === 0) return; // nothing marked, nothing to mark
    this.pieces = markSegments(this.root, items);
    this.root.dataset.evidence = String(items.length);
  }
}

// ---------------------------------------------------------------- selection

/** A boundary point of a selection in the text view, as a code point of the text. */
function pointAt(node, offset) {
  const element = node.nodeType === 1 ? node : node.parentElement;
  const seg = element?.closest(SEGMENT);
  if (seg) {
    const range = document.createRange();
    range.setStart(seg, 0);
    range.setEnd(node, offset);
    const before = range.toString();
    return Number(seg.dataset.start) + [...before].length;
  }
  // Between segments: the start of the next one, else the end of the one before.
  const next = node.childNodes[offset];
  const after = next && (next.nodeType === 1 ? (next.matches(SEGMENT) ? next : next.querySelector(SEGMENT)) : null);
  if (after) return Number(after.dataset.start);
  const prev = node.childNodes[offset - 1];
  if (prev?.nodeType === 1) {
    const all = prev.matches(SEGMENT) ? [prev] : prev.querySelectorAll(SEGMENT);
    if (all.length > 0) return Number(all[all.length - 1].dataset.end);
  }
  return null;
}

/** The selection inside `root` (the text view) as {start, end} code points, or null. */
export function selectedInterval(root) {
  const selection = document.getSelection();
  if (!root || !selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!root.contains(range.startContainer) || !root.contains(range.endContainer)) return null;
  const start = pointAt(range.startContainer, range.startOffset);
  const end = pointAt(range.endContainer, range.endOffset);
  if (start === null || end === null || end <= start) return null;
  return { start, end, text: range.toString() };
}
