// The boundary check in the main view: how many sentences no single chunk holds
// whole (the engine's `boundaries` in the chunk result), and a dotted underline on
// the part of each cut sentence that a chunk card shows.
//
// Cards are built by cards.js; this module decorates them as they are added
// (a MutationObserver on the card list), so the card renderer knows nothing of
// sentences. The engine sends, with each card, `cut_marks`: the code-point ranges
// of the text the card shows (word mode: the preview, `preview_repeated`, a space,
// `preview_fresh`; character and token mode: `repeated_prefix + fresh_text`) that
// belong to a cut sentence, already mapped to those offsets. This module only turns
// code points into UTF-16 indices and wraps them; if the card's text is not the
// text the marks were made for, the card is left unmarked rather than marked in
// the wrong place.

import { wrapRanges } from "./dom.js";

export { wrapRanges }; // cards.js marks the text a model drops with it
import * as fmt from "./format.js";
import { utf16Indexer } from "./text-offsets.js";

/** The text a card shows, as cards.js builds it. */
function shownText(chunk, unit) {
  if (unit !== "word") return chunk.repeated_prefix + chunk.fresh_text;
  const rep = chunk.preview_repeated ?? "";
  const fresh = chunk.preview_fresh ?? "";
  return rep && fresh ? `${rep} ${fresh}` : rep + fresh;
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
    if (b === null) { // the view's checks follow in a moment (app.js askChecks)
      s.dataset.state = "checking";
      s.setAttribute("aria-busy", "true");
      for (const name of ["sentences", "cut", "value"]) delete s.dataset[name];
      // The last check's words stay, dimmed (style.css), until this one's come: replaced
      // by a one-line note, they moved the cards and buttons below up, then back down,
      // on every edit.
      if (!s.dataset.checked) s.textContent = "Boundary check: finding the sentences no chunk holds whole…";
      return;
    }
    s.removeAttribute("aria-busy");
    s.dataset.checked = "true";
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
        (result.capped ? " (The cards are not laid out above the cap; the count is complete.)" : " Marked with a dotted underline below."),
      );
    }
    for (const card of this.list.querySelectorAll('[data-testid="chunk"]')) this.decorate(card);
  }

  decorate(card) {
    const result = this.result;
    if (!result || result.capped || !result.boundaries || card.dataset.cutChecked === "true") return;
    const chunk = result.chunks[Number(card.dataset.index)];
    if (!chunk) return;
    card.dataset.cutChecked = "true";
    const marks = chunk.cut_marks ?? [];
    if (marks.length === 0) return;
    const body = card.querySelector(".chunk-text");
    const shown = shownText(chunk, result.params.unit);
    if (body.textContent !== shown) {
      card.dataset.cutMarked = "unmatched"; // never mark the wrong words
      return;
    }
    const at = utf16Indexer(shown);
    const n = wrapRanges(body, merge(marks.map(([a, b]) => [at(a), at(b)])), { class: "cut-sentence" });
    card.dataset.cutMarked = String(n);
  }
}
