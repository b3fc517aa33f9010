// The cap notice: shown instead of the chunk cards when a result is over the
// chunk or processed-unit cap, with the engine's figures for what brings it under.

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
