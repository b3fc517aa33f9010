// The cap notice: shown instead of the chunk cards when a result is over the
// chunk or processed-unit cap, with the engine's figures for what brings it under.

import { FACTS } from "../facts.js";
import { el } from "./dom.js";
import * as fmt from "./format.js";

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
    el("strong", { "data-testid": "cap-notice-title" }, `Too large to lay out (${capTitle(capped)}). `),
    document.createTextNode(say(capped.value, capped.limit, unit)),
    document.createTextNode(
      " The summary above is exact; the chunk cards and the JSON download are left out. " +
      capRemedies(capped.remedies, unit),
    ),
  );
  node.hidden = false;
}

const CAP_NAMES = { chunks: "chunk cap", processed_units: "processed-units cap" };

/** Every cap the engine says this result is over ("chunk cap and processed-units cap"). */
function capTitle(capped) {
  return (capped.over || [capped.cap]).map((cap) => CAP_NAMES[cap] || `${cap} cap`).join(" and ");
}

/** The engine's figures for what brings it under the caps, as one sentence. */
function capRemedies(r, unit) {
  if (!r) return "To bring it under the cap, use a larger chunk size, less overlap, or a shorter text.";
  const ways = [];
  if (r.size !== null) ways.push(`a chunk size of ${fmt.integer(r.size)} or more at this overlap`);
  if (r.overlap_zero) ways.push("overlap 0 at this size");
  ways.push(`a text of at most ${fmt.unitCount(r.max_units, unit)} at these settings`);
  const tail = [
    r.size === null
      ? ` No chunk size is enough for the ${fmt.integer(FACTS.caps.processed_units)}-unit processed-units cap: every size processes the whole text.`
      : "",
    r.overlap_zero === false ? " Overlap 0 alone would not be enough at this size." : "",
  ].join("");
  return `To bring it under the caps, use ${ways.join(", or ")}.${tail}`;
}

// ---------------------------------------------------------------- lifting the caps

/**
 * Past a cap: below the notice, a button that shows every chunk anyway, and what
 * that costs (the engine's estimate of the download's size). Nothing when not capped.
 */
export function renderLiftChoice(node, capped, chunks, { onLift }) {
  node.querySelector(".lift-choice")?.remove();
  if (!capped) return;
  const button = el("button", { type: "button", class: "button", "data-testid": "lift-caps" },
    `Show all ${fmt.integer(chunks)} ${chunks === 1 ? "chunk" : "chunks"} anyway`);
  button.addEventListener("click", onLift);
  const cost = el("p", { class: "lift-cost", "data-testid": "lift-cost" },
    `Every card is then laid out as you scroll, and the download holds every chunk: ${jsonSize(capped.export_bytes)}. ` +
    "The choice holds for this page, whatever text or settings you try, until you reload it.");
  const box = el("div", { class: "lift-choice" });
  box.append(button, cost);
  node.append(box);
}

/**
 * The caps lifted and this result past one: say so, offer to put the caps back, and
 * what the download costs. Hidden otherwise. The download's size comes after the
 * button: it follows the view (checksLanded), and a button placed after it moved
 * under the pointer as it came.
 */
export function renderLifted(node, lifted, unit, { onRestore }) {
  if (!lifted) {
    node.hidden = true;
    node.replaceChildren();
    return;
  }
  const cap = lifted.cap === "chunks"
    ? `${fmt.integer(lifted.value)} chunks, over the ${fmt.integer(lifted.limit)}-chunk cap`
    : `${fmt.integer(lifted.value)} processed ${fmt.unitPlural(unit)}, over the ${fmt.integer(lifted.limit)}-unit cap`;
  const button = el("button", { type: "button", class: "link-button", "data-testid": "restore-caps" }, "Put the caps back");
  button.addEventListener("click", onRestore);
  node.replaceChildren(
    el("strong", {}, "Caps lifted for this page. "),
    document.createTextNode(`This configuration makes ${cap}: every card is shown, laid out as you scroll. `),
    button,
    document.createTextNode(` The download holds every chunk: ${jsonSize(lifted.export_bytes)}.`),
  );
  node.hidden = false;
}

/** The download's estimated size, or that it is still being worked out (it follows the view). */
function jsonSize(bytes) {
  return bytes === undefined || bytes === null ? "its size follows in a moment" : `about ${fmt.byteSize(bytes, { about: true })} of JSON`;
}
