// limits.js: the tokens each chunk really costs. A token window is exact in the token
// stream, but a model sees each chunk's text on its own, and that can be more tokens
// (a window cut inside a character, or a WordPiece window that starts at a `##`
// piece); the model also adds its special tokens ([CLS] and [SEP] for BERT models).
// The engine gives every token-mode chunk `tokens_alone` and `over_limit`, and the
// summary `max_tokens_alone` and `chunks_over_limit` (against the model's input limit
// when one is set, else against the chunk size). This module says how many chunks
// are over in the summary panel, and marks those cards.
//
// For other views (the text view): `overLimitIndices(result)` lists the chunks over
// the limit, and the summary line carries them as `data-chunks` ("3 7 12", 0-based,
// as in the export), `data-value` being how many there are.
//
// Cards are decorated as they are added to the list (a MutationObserver), so the
// card renderer knows nothing of limits, however it adds its cards.

import { MODELS } from "./models.js";
import { el } from "./dom.js";
import * as fmt from "./format.js";

/** The indices of the chunks over the limit, in order (none outside token mode). */
export function overLimitIndices(result) {
  const chunks = result?.chunks ?? [];
  const out = [];
  for (const chunk of chunks) if (chunk.over_limit) out.push(chunk.index);
  return out;
}

/** "all-MiniLM-L6-v2's input limit of 256 tokens", or the size it is checked against. */
function limitWords(params) {
  if (params.max_tokens === null || params.max_tokens === undefined) {
    return `the chunk size of ${fmt.unitCount(params.size, "token")}`;
  }
  const model = MODELS.get(params.model);
  const whose = model && model.max_tokens.value === params.max_tokens ? `${model.name}'s` : "your";
  return `${whose} input limit of ${fmt.unitCount(params.max_tokens, "token")}`;
}

function specialsWords(params) {
  const n = params.special_tokens ?? 0;
  return n === 0 ? "" : ` plus the model's ${n} special token${n === 1 ? "" : "s"}`;
}

export class LimitView {
  /** @param {{list: HTMLElement, summary: HTMLElement}} nodes the card list and the summary line */
  constructor({ list, summary }) {
    this.list = list;
    this.summary = summary;
    this.result = null;
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (node.nodeType !== 1) continue;
          if (node.matches('[data-testid="chunk"]')) this.decorate(node);
          else for (const card of node.querySelectorAll('[data-testid="chunk"]')) this.decorate(card);
        }
      }
    }).observe(list, { childList: true, subtree: true });
  }

  /** A new chunk result is on screen. */
  update(result) {
    this.result = result;
    const { params, summary } = result;
    const s = this.summary;
    const over = summary.chunks_over_limit;
    const indices = overLimitIndices(result);
    s.dataset.value = over === null || over === undefined ? "" : String(over);
    s.dataset.chunks = indices.join(" ");
    s.dataset.state = "";
    s.replaceChildren();
    if (params.unit !== "token" || summary.chunks === 0) {
      s.hidden = true;
      return;
    }
    s.hidden = false;
    const limit = limitWords(params);
    if (over === null || over === undefined) {
      s.dataset.state = "unchecked";
      s.append("Past the page's caps, the tokens each chunk takes on its own are not counted, so they are not checked against ", limit, ".");
    } else if (over === 0) {
      s.dataset.state = "fits";
      s.append(
        el("strong", {}, "Every chunk fits "),
        `${limit}: encoded on its own, the largest is ${fmt.unitCount(summary.max_tokens_alone, "token")}${specialsWords(params)}.`,
      );
    } else {
      s.dataset.state = "over";
      s.append(
        el("strong", {}, `${fmt.integer(over)} of ${fmt.integer(summary.chunks)} chunks ${over === 1 ? "is" : "are"} over `),
        `${limit}: encoded on its own, the largest is ${fmt.unitCount(summary.max_tokens_alone, "token")}${specialsWords(params)}.` +
          (result.capped ? "" : " Each is marked below."),
      );
    }
    for (const card of this.list.querySelectorAll('[data-testid="chunk"]')) this.decorate(card);
  }

  /** Adds the chunk's tokens-alone count to its card, and the mark when it is over. */
  decorate(card) {
    const result = this.result;
    if (!result || result.params.unit !== "token") return;
    const chunk = result.chunks?.[Number(card.dataset.index)];
    if (!chunk || chunk.tokens_alone === undefined || card.dataset.limitChecked === "true") return;
    card.dataset.limitChecked = "true";
    const head = card.querySelector(".chunk-head");
    const alone = el(
      "span",
      { class: "chunk-alone", "data-testid": "chunk-tokens-alone", "data-value": String(chunk.tokens_alone), title: "Its text encoded on its own: what a model is sent" },
      `${fmt.unitCount(chunk.tokens_alone, "token")} alone`,
    );
    head?.append(alone);
    card.dataset.overLimit = chunk.over_limit ? "true" : "false";
    if (chunk.over_limit) {
      card.classList.add("over-limit");
      const why = `Encoded on its own it is ${fmt.unitCount(chunk.tokens_alone, "token")}${specialsWords(result.params)}: over ${limitWords(result.params)}`;
      head?.append(el("span", { class: "over-limit-badge", "data-testid": "over-limit-badge", title: why }, "over the limit"));
    }
  }
}
