// Index sizing (engine op `size`): a corpus of documents of one average length,
// chunked by a fixed window; entries, stored tokens nominal and actual, budget
// share, vector bytes. The fields start from the main view (tools.js puts in this
// text's tokens and the main chunk size and overlap); a button puts in the engine's
// worked example (pyapp/facts.py SIZING_EXAMPLE over SIZING_DEFAULTS).

import { FACTS } from "../facts.js";
import { el } from "../view/dom.js";
import * as fmt from "../view/format.js";
import { PURPOSE } from "../engine/protocol.js";
import { Calculator } from "./calculator.js";

/** The sizing fields as the page opens, and as the example button puts them back. */
export const SIZING_START = Object.freeze({ ...FACTS.defaults.sizing, ...FACTS.examples.sizing });

const SIZING_FIGURES = {
  overlap: { label: "Overlap (tokens)", fmt: fmt.integer },
  stride: { label: "Stride (tokens)", fmt: fmt.integer },
  effective_chunk: { label: "Chunk tokens, min(C, D)", fmt: fmt.integer },
  chunks_per_document: { label: "Chunks per document", fmt: fmt.integer },
  index_entries: { label: "Index entries (vectors)", fmt: fmt.integer },
  top_k_used: { label: "Top-k used", fmt: fmt.integer },
  retrieved_tokens_per_query: { label: "Retrieved per query", fmt: fmt.integer },
  budget_share: { label: "Budget used", fmt: fmt.percent },
  budget_left: { label: "Budget left", fmt: fmt.integer },
  stored_tokens_nominal: { label: "Stored tokens, nominal", fmt: fmt.integer },
  stored_tokens_actual: { label: "Stored tokens, actual", fmt: fmt.integer },
  inflation_nominal: { label: "Inflation, nominal", fmt: fmt.ratio },
  inflation_actual: { label: "Inflation, actual", fmt: fmt.ratio },
  limit_inflation: { label: "Long-document limit", fmt: fmt.ratio },
  vector_bytes: { label: "Vector storage (bytes)", fmt: fmt.byteSize },
};

function renderSizingExtras(panel, result) {
  const p = result.params;
  const resolved = panel.querySelector('[data-testid="sizing-overlap-resolved"]');
  resolved.textContent = p.overlap_percent === null
    ? ""
    : `= ${fmt.unitCount(p.overlap, "token")} (rounded half up to whole tokens)`;
  resolved.dataset.value = String(p.overlap);
  const vb = panel.querySelector('[data-testid="sizing-vector-bytes"]');
  vb.classList.toggle("is-missing", result.vector_bytes === null);
  if (result.vector_bytes === null) {
    vb.textContent = "enter a dimension";
    vb.title = "Enter an embedding dimension to size the vectors.";
  } else {
    vb.textContent = fmt.byteSize(result.vector_bytes);
    vb.title = `${fmt.integer(result.vector_bytes)} bytes = ${result.derivation.vector_bytes.inputs}`;
  }
  const note = panel.querySelector('[data-testid="sizing-stored-note"]');
  const same = result.stored_tokens_nominal === result.stored_tokens_actual;
  const compare = panel.querySelector(".stored-compare");
  compare.dataset.agree = same ? "true" : "false";
  note.replaceChildren();
  const measured = panel.querySelector('[data-testid="sizing-measured"]');
  measured.hidden = !result.measured;
  measured.textContent = result.measured
    ? `Measured from this text's ${fmt.integer(result.measured.chunks)} chunks by the recursive ` +
      `splitter (${result.measured.encoding}), not the formula: every document is modelled as this text.`
    : "";
  if (result.measured) {
    note.append(
      el("strong", {}, "The actual figure is the right one. "),
      document.createTextNode(
        "It adds up the tokens of the chunks the splitter really made; the nominal figure " +
        `counts all ${fmt.integer(result.index_entries)} entries as full chunks.`,
      ),
    );
  } else if (same) {
    note.append(
      el("strong", {}, "Here both agree. "),
      document.createTextNode(
        result.chunks_per_document === 1
          ? "Each document fits in one chunk, so every entry is exactly as long as its document."
          : "Each document's last chunk is full, so counting every chunk at the full size is exact.",
      ),
    );
  } else {
    note.append(
      el("strong", {}, "The actual figure is the right one. "),
      document.createTextNode(
        `The nominal figure counts all ${fmt.integer(result.index_entries)} entries as full ` +
        `${fmt.integer(result.effective_chunk)}-token chunks, but the last chunk of each document is ` +
        "partial, so it overstates storage. The actual figure adds up the real chunk lengths: " +
        "each document once, plus the overlap each later chunk repeats, D + (N − 1) × O.",
      ),
    );
  }
}

/** The example button's words, from the example itself. */
function exampleLabel(x) {
  const overlap = x.overlap_mode === "percent" ? `${x.overlap}%` : fmt.unitCount(Number(x.overlap), "token");
  return `Worked example: ${fmt.integer(Number(x.documents))} documents × ${fmt.integer(Number(x.avg_tokens))} tokens, ` +
    `chunk ${fmt.integer(Number(x.size))}, overlap ${overlap}, top-k ${x.top_k}, budget ${fmt.integer(Number(x.budget))}`;
}

/**
 * Mounts the sizing panel (empty until tools.js fills it from the main view);
 * `extra()` gives the main view's recursive splitter and text to measure, or nothing.
 */
export function mountSizing({ engine, panel, extra = () => ({}) }) {
  const calc = new Calculator({
    engine,
    panel,
    op: "size",
    purpose: PURPOSE.size,
    prefix: "sizing",
    figures: SIZING_FIGURES,
    after: (result) => renderSizingExtras(panel, result),
    extra,
  });
  const example = panel.querySelector('[data-testid="sizing-reference"]');
  example.textContent = exampleLabel(FACTS.examples.sizing);
  example.addEventListener("click", () => calc.reset(SIZING_START));
  return calc;
}
