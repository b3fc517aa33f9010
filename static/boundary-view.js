// The boundary check in the main view: how many sentences no single chunk holds
// whole (the engine's `boundaries` in the chunk result), and a wavy underline on
// the part of each cut sentence that a chunk card shows.
//
// Cards are built by render.js; this module decorates them as they are added
// (a MutationObserver on the card list), so the card renderer knows nothing of
// sentences. Offsets: `cut_spans` are code-point offsets into the source, and
// every card's chunk has `char_start`, `char_end` and its exact text, in two
// parts: `repeated_prefix + fresh_text`.
//   - character and token mode: the card shows exactly `text`, so the local
//     range is underlined on the exact characters;
//   - word mode: the card shows the words joined by single spaces; each word
//     is found in `text` (whitespace as Python's str.isspace, as the engine
//     splits), and the underline goes on the part of each word inside the cut
//     sentence, plus the single space between two underlined words. If the
//     words found do not give back the preview exactly, the card is left
//     unmarked rather than marked in the wrong place.

import * as fmt from "./format.js";

// Python's str.isspace(), which the engine's \S+ word rule follows (JS \s differs:
// it lacks \x1c-\x1f and \x85 and adds \ufeff).
const PY_WORD = /[^\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/gu;

const SURROGATE = /[\uD800-\uDFFF]/;

/** UTF-16 index in `s` of each code-point offset in `cps` (any order). */
function cpIndexer(s) {
  if (!SURROGATE.test(s)) return (cp) => Math.max(0, Math.min(cp, s.length)); // one unit per code point
  const at = [0];
  for (let i = 0; i < s.length; ) {
    i += s.codePointAt(i) > 0xffff ? 2 : 1;
    at.push(i);
  }
  return (cp) => at[Math.max(0, Math.min(cp, at.length - 1))];
}

/** Cut spans overlapping [cs, ce), clipped and made local (code points). Spans are sorted. */
function localSpans(spans, cs, ce) {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) { // first span whose end is after cs
    const mid = (lo + hi) >> 1;
    if (spans[mid][1] <= cs) lo = mid + 1;
    else hi = mid;
  }
  const out = [];
  for (let i = lo; i < spans.length && spans[i][0] < ce; i += 1) {
    out.push([Math.max(spans[i][0], cs) - cs, Math.min(spans[i][1], ce) - cs]);
  }
  return out;
}

/** The chunk's exact text (the view sends it once, in its two parts). */
const exactText = (chunk) => chunk.repeated_prefix + chunk.fresh_text;

/** Display ranges (UTF-16, in the card's shown string) for a char/token card. */
function exactRanges(chunk, local) {
  const text = exactText(chunk);
  const at = cpIndexer(text);
  return { shown: text, ranges: local.map(([a, b]) => [at(a), at(b)]) };
}

/** Display ranges for a word-mode card, or null when the words cannot be matched honestly. */
function wordRanges(chunk, local) {
  const rep = chunk.preview_repeated ?? "";
  const fresh = chunk.preview_fresh ?? "";
  const shown = rep && fresh ? `${rep} ${fresh}` : rep + fresh;
  const text = exactText(chunk);
  const at = cpIndexer(text);
  let toCp = { get: (i) => i }; // UTF-16 index in text -> code point offset
  if (SURROGATE.test(text)) {
    toCp = new Map();
    for (let cp = 0; ; cp += 1) {
      const i = at(cp);
      toCp.set(i, cp);
      if (i >= text.length) break;
    }
  }
  const words = [];
  for (const m of text.matchAll(PY_WORD)) {
    words.push({ word: m[0], a: toCp.get(m.index), b: toCp.get(m.index + m[0].length) });
  }
  if (words.map((w) => w.word).join(" ") !== shown) return null;
  const ranges = [];
  let pos = 0; // UTF-16 position of the current word in `shown`
  words.forEach((w, k) => {
    const wat = cpIndexer(w.word);
    for (const [la, lb] of local) {
      const a = Math.max(la, w.a);
      const b = Math.min(lb, w.b);
      if (a < b) ranges.push([pos + wat(a - w.a), pos + wat(b - w.a)]);
      const next = words[k + 1];
      if (next && la < next.a && lb > w.b) ranges.push([pos + w.word.length, pos + w.word.length + 1]);
    }
    pos += w.word.length + 1;
  });
  return { shown, ranges };
}

/** Merge sorted-or-not ranges into disjoint sorted ones. */
function merge(ranges) {
  const sorted = ranges.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out = [];
  for (const r of sorted) {
    const top = out[out.length - 1];
    if (top && r[0] <= top[1]) top[1] = Math.max(top[1], r[1]);
    else out.push([...r]);
  }
  return out;
}

/** Wrap the given UTF-16 ranges of `root`'s text in <span class="cut-sentence">. */
function wrapRanges(root, ranges) {
  if (ranges.length === 0) return 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  let offset = 0;
  let r = 0;
  let wrapped = 0;
  for (const node of nodes) {
    const start = offset;
    const end = offset + node.data.length;
    offset = end;
    // Pieces of this text node inside a range, from the last one backwards
    // (splitting from the end keeps earlier indices valid).
    const pieces = [];
    while (r < ranges.length && ranges[r][1] <= start) r += 1;
    for (let k = r; k < ranges.length && ranges[k][0] < end; k += 1) {
      pieces.push([Math.max(ranges[k][0], start) - start, Math.min(ranges[k][1], end) - start]);
    }
    for (const [a, b] of pieces.reverse()) {
      const middle = node.splitText(a);
      middle.splitText(b - a);
      const span = document.createElement("span");
      span.className = "cut-sentence";
      middle.replaceWith(span);
      span.append(middle);
      wrapped += 1;
    }
  }
  return wrapped;
}

export class BoundaryView {
  /**
   * @param {{list: HTMLElement, summary: HTMLElement}} nodes the card list and the summary line
   */
  constructor({ list, summary }) {
    this.list = list;
    this.summary = summary;
    this.result = null;
    this.observer = new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType === 1 && node.matches('[data-testid="chunk"]')) this.decorate(node);
        }
      }
    });
    this.observer.observe(list, { childList: true });
  }

  /** A new chunk result is on screen. */
  update(result) {
    this.result = result;
    const b = result.boundaries;
    const s = this.summary;
    s.dataset.sentences = String(b.sentences);
    s.dataset.cut = String(b.cut);
    s.dataset.value = String(b.cut);
    s.replaceChildren();
    const plural = (n, one, many) => `${fmt.integer(n)} ${n === 1 ? one : many}`;
    if (b.sentences === 0) {
      s.dataset.state = "none";
      s.textContent = "Boundary check: the text has no sentences.";
    } else if (b.cut === 0) {
      s.dataset.state = "whole";
      const strong = document.createElement("strong");
      strong.textContent = "No sentence is cut: ";
      s.append(strong, `every one of the ${plural(b.sentences, "sentence", "sentences")} is held whole by at least one chunk.`);
    } else {
      s.dataset.state = "cut";
      const strong = document.createElement("strong");
      strong.textContent = `${plural(b.cut, "sentence", "sentences")} of ${fmt.integer(b.sentences)} `;
      s.append(
        strong,
        `${b.cut === 1 ? "is" : "are"} cut: no single chunk holds ${b.cut === 1 ? "it" : "them"} whole.` +
        (result.capped ? " (The cards are not laid out above the cap; the count is complete.)" : " Marked with a wavy underline below."),
      );
    }
    for (const card of this.list.querySelectorAll('[data-testid="chunk"]')) this.decorate(card);
  }

  decorate(card) {
    const result = this.result;
    if (!result || result.capped || card.dataset.cutChecked === "true") return;
    const chunk = result.chunks[Number(card.dataset.index)];
    if (!chunk) return;
    const spans = result.boundaries.cut_spans;
    const local = localSpans(spans, chunk.char_start, chunk.char_end);
    card.dataset.cutChecked = "true";
    if (local.length === 0) return;
    const body = card.querySelector(".chunk-text");
    const unit = result.params.unit;
    const found = unit === "word" ? wordRanges(chunk, local) : exactRanges(chunk, local);
    if (!found || body.textContent !== found.shown) {
      card.dataset.cutMarked = "unmatched"; // never mark the wrong words
      return;
    }
    const n = wrapRanges(body, merge(found.ranges));
    card.dataset.cutMarked = String(n);
  }
}
