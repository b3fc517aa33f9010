// The chunk cards past the caps, once a person lifted them: tens of thousands of
// cards, of which only those near what is seen are in the page. The list scrolls
// on its own; a spacer above and one below stand for the cards not drawn (at the
// average height of those drawn), and the engine's `cards` op gives the cards of
// a range as they come near. Each card is cards.js's, built the same way.

import { FACTS } from "../facts.js";
import { chunkCard, showCard } from "./cards.js";
import { el } from "./dom.js";

const PER_CALL = FACTS.cards_per_call;
const AROUND = 6; // cards drawn above and below those in sight
const GUESS_PX = 130; // a card's height before one is measured
const MIN_PX = 40; // the least average height a card is given

export class VirtualCards {
  /**
   * @param {{list: HTMLElement,
   *   fetch: (base: object, from: number, to: number) => Promise<object | null>}} options
   *   `fetch` asks the engine's cards op for cards [from, to) and resolves to its
   *   result, or null (superseded or refused).
   */
  constructor({ list, fetch }) {
    this.list = list;
    this.fetch = fetch;
    this.shown = false;
    this.generation = 0;
    this.frame = 0;
    this.known = [];
    this.onScroll = () => this.schedule();
  }

  /**
   * The cards a new result should bring with it (the chunk request's `cards`): those
   * `draw()` will show where the view is now.
   */
  wanted() {
    const index = this.shown ? this.firstInSight() : 0;
    // As many as the list could hold once drawn (it may grow to the window's height),
    // were every card of the least height a card is given, and twice the cards drawn
    // around them, should the list have moved by a few when the answer lands.
    const most = Math.ceil(Math.max(this.list.clientHeight, window.innerHeight) / MIN_PX);
    const from = Math.max(0, index - 2 * AROUND);
    return { from, to: Math.min(from + PER_CALL, index + most + 2 * AROUND) };
  }

  /** How many cards the list's view holds, at their average height. */
  sight() {
    return Math.ceil((this.list.clientHeight || 600) / this.height);
  }

  /**
   * Shows `total` cards of the result for `request` (its fields, caps lifted), with
   * `window` (the cards op's answer the result brought, or null) known at once.
   * Returns the (sparse) array the fetched cards go into, by index.
   */
  show(request, total, unit, showBreaks, window = null) {
    this.generation += 1;
    const keep = this.shown ? this.firstInSight() : 0;
    this.base = { ...request };
    delete this.base.op;
    delete this.base.cards;
    delete this.base.text_view;
    this.total = total;
    this.unit = unit;
    this.showBreaks = showBreaks;
    this.known = [];
    window?.chunks.forEach((chunk, i) => {
      this.known[window.from + i] = chunk;
    });
    this.drawn = new Map();
    this.asked = null;
    this.height = this.height ?? GUESS_PX;
    if (!this.shown) {
      this.shown = true;
      this.list.addEventListener("scroll", this.onScroll, { passive: true });
    }
    this.list.classList.add("is-virtual");
    this.list.dataset.virtual = "true";
    this.list.dataset.total = String(total);
    this.top = el("li", { class: "vc-spacer", "aria-hidden": "true" });
    this.bottom = el("li", { class: "vc-spacer", "aria-hidden": "true" });
    this.list.replaceChildren(this.top, this.bottom);
    this.list.scrollTop = keep * this.height;
    this.draw({ index: keep, within: 0 });
    return this.known;
  }

  /** Back to the plain list (cards.js draws it). */
  hide() {
    if (!this.shown) return;
    this.shown = false;
    this.generation += 1;
    this.list.removeEventListener("scroll", this.onScroll);
    this.list.classList.remove("is-virtual");
    delete this.list.dataset.virtual;
    delete this.list.dataset.total;
  }

  /** The token-boundary toggle changed: redraw the cards with or without them. */
  redraw(showBreaks) {
    if (!this.shown) return;
    this.showBreaks = showBreaks;
    for (const card of this.drawn.values()) card.remove();
    this.drawn.clear();
    this.draw();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (this.shown) this.draw();
    });
  }

  /**
   * The card at the top of the list's view, and how far into it the view begins:
   * in a spacer, counted in average card heights; among the drawn cards, exactly.
   */
  anchor() {
    const y = this.list.scrollTop;
    const cards = [...this.drawn.entries()].sort((a, b) => a[0] - b[0]);
    if (cards.length === 0 || y < this.top.offsetTop + this.top.offsetHeight) {
      const index = Math.floor(Math.max(0, y - this.top.offsetTop) / this.height);
      return { index: Math.min(index, this.total - 1), within: 0 };
    }
    for (const [index, card] of cards) {
      if (y < card.offsetTop + card.offsetHeight) return { index, within: y - card.offsetTop };
    }
    const past = Math.floor((y - this.bottom.offsetTop) / this.height);
    return { index: Math.min(this.total - 1, cards[cards.length - 1][0] + 1 + Math.max(0, past)), within: 0 };
  }

  firstInSight() {
    return Math.max(0, this.anchor().index);
  }

  /**
   * Draws the cards near what is seen (around `at`, the card at the top, which
   * stays where it was on the screen), and asks for the ones not known yet.
   */
  draw(at = this.anchor()) {
    const first = Math.max(0, at.index - AROUND);
    const stop = Math.min(this.total, at.index + this.sight() + AROUND);
    for (const [index, card] of this.drawn) {
      if (index < first || index >= stop) {
        card.remove();
        this.drawn.delete(index);
      }
    }
    let missingFrom = -1;
    let missingTo = -1;
    let after = this.top;
    for (let i = first; i < stop; i += 1) {
      const chunk = this.known[i];
      let card = this.drawn.get(i);
      if (chunk === undefined) {
        if (missingFrom < 0) missingFrom = i;
        missingTo = i + 1;
      }
      const loading = card?.classList.contains("chunk-loading");
      if (!card || (loading && chunk !== undefined)) {
        card?.remove();
        card = chunk === undefined
          ? el("li", { class: "chunk chunk-loading", "data-index": String(i), "aria-busy": "true" }, `Chunk ${i + 1}…`)
          : chunkCard(chunk, this.total, this.unit, this.showBreaks, this.base.model ?? "");
        this.drawn.set(i, card);
        after.after(card);
      } else if (card.previousElementSibling !== after) {
        after.after(card);
      }
      after = card;
    }
    this.top.style.height = `${first * this.height}px`;
    this.bottom.style.height = `${Math.max(0, this.total - stop) * this.height}px`;
    this.measure();
    const top = this.drawn.get(at.index);
    if (top) {
      const want = top.offsetTop + Math.min(at.within, top.offsetHeight);
      if (Math.abs(this.list.scrollTop - want) > 1) this.list.scrollTop = want;
    }
    this.list.dataset.first = String(first);
    this.list.dataset.rendered = missingFrom < 0 ? "true" : "false";
    if (missingFrom >= 0) this.ask(missingFrom, Math.min(missingTo, missingFrom + PER_CALL));
  }

  /** The average height of the cards drawn (gaps included), once some are. */
  measure() {
    if (this.measured) return;
    const cards = [...this.drawn.values()].filter((card) => !card.classList.contains("chunk-loading"));
    if (cards.length < 4) return;
    const firstCard = cards[0];
    const lastCard = cards[cards.length - 1];
    const span = lastCard.offsetTop + lastCard.offsetHeight - firstCard.offsetTop;
    const gap = parseFloat(getComputedStyle(this.list).rowGap) || 0;
    this.height = Math.max(MIN_PX, (span + gap) / cards.length);
    this.measured = true;
  }

  async ask(from, to) {
    const key = `${this.generation}:${from}:${to}`;
    if (this.asked === key) return;
    this.asked = key;
    const generation = this.generation;
    const answer = await this.fetch(this.base, from, to);
    if (this.asked === key) this.asked = null;
    if (answer === null || generation !== this.generation) return;
    answer.chunks.forEach((chunk, i) => {
      this.known[answer.from + i] = chunk;
    });
    this.draw(); // the placeholders become cards, the one at the top kept in place
  }

  /** Card `index` in sight, focused and flashed (a click in the text view or the strip). */
  async goTo(index) {
    if (!this.shown || index < 0 || index >= this.total) return;
    this.draw({ index, within: 0 });
    for (let tries = 0; tries < 100 && this.known[index] === undefined; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (!this.shown) return;
    }
    if (!this.drawn.get(index) || this.drawn.get(index).classList.contains("chunk-loading")) {
      this.draw({ index, within: 0 });
    }
    showCard(this.list.querySelector(`#chunk-${index}`));
  }
}
