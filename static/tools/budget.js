// Context budget (engine op `budget`): do top-k chunks fit the model's window next
// to the prompt? The fields start from the main view (tools.js puts in the main
// chunk size, and a model preset's context window); buttons put in each worked
// example (pyapp/facts.py BUDGET_EXAMPLES). The pasted text's exact token count
// (engine op `counts`) can stand in for the question or system prompt.

import { FACTS } from "../facts.js";
import { el } from "../view/dom.js";
import * as fmt from "../view/format.js";
import { askEngine } from "../engine/ask.js";
import { PURPOSE } from "../engine/protocol.js";
import { Calculator } from "./calculator.js";

const BUDGET_FIGURES = {
  available: { label: "Available for retrieval", fmt: fmt.integer },
  retrieved: { label: "Retrieval uses", fmt: fmt.integer },
  fits: { label: "Fits", fmt: (v) => (v ? "yes" : "no") },
  left: { label: "Left after retrieval", fmt: fmt.integer },
  max_top_k: { label: "Largest top-k that fits", fmt: fmt.integer },
  chunks_in_window: { label: "Chunks in the whole window", fmt: fmt.integer },
};

function renderFits(panel, result) {
  const banner = panel.querySelector('[data-testid="budget-fits"]');
  const p = result.params;
  banner.dataset.value = String(result.fits);
  banner.replaceChildren();
  if (result.fits) {
    banner.append(
      el("span", { class: "fits-mark", "aria-hidden": "true" }, "✓"),
      el("strong", {}, "Fits. "),
      document.createTextNode(
        `${fmt.integer(p.top_k)} × ${fmt.integer(p.size)} = ${fmt.integer(result.retrieved)} tokens of ` +
        `${fmt.integer(result.available)} available, ${fmt.integer(result.left)} to spare.`,
      ),
    );
  } else {
    banner.append(
      el("span", { class: "fits-mark", "aria-hidden": "true" }, "✕"),
      el("strong", {}, "Overflows. "),
      document.createTextNode(
        result.available <= 0
          ? `The prompt alone takes the whole window (${fmt.integer(result.available)} tokens left for retrieval).`
          : `${fmt.integer(p.top_k)} × ${fmt.integer(p.size)} = ${fmt.integer(result.retrieved)} tokens, ` +
            `but only ${fmt.integer(result.available)} are available. At most ${fmt.integer(result.max_top_k)} ` +
            `chunk${result.max_top_k === 1 ? "" : "s"} of this size fit.`,
      ),
    );
  }
}

const EXAMPLES = FACTS.examples.budget;

/** The example buttons' words, from the examples themselves. */
function exampleLabel(name) {
  const x = EXAMPLES[name];
  return `k ${x.top_k}, C ${fmt.integer(Number(x.size))} (${name})`;
}

/**
 * Mounts the budget panel (empty until tools.js fills it from the main view).
 * @param {{engine: object, panel: HTMLElement, source: () => {text: string, unit: string, encoding: string}}} options
 *   `source` returns the main view's text and unit as they stand now.
 */
export function mountBudget({ engine, panel, source }) {
  const calc = new Calculator({
    engine,
    panel,
    op: "budget",
    purpose: PURPOSE.budget,
    prefix: "budget",
    figures: BUDGET_FIGURES,
    after: (result) => renderFits(panel, result),
  });
  for (const button of panel.querySelectorAll("[data-budget-example]")) {
    const name = button.dataset.budgetExample;
    button.textContent = exampleLabel(name);
    button.addEventListener("click", () => calc.reset({ ...FACTS.defaults.budget, ...EXAMPLES[name] }));
  }

  // The pasted text's exact token count, from the engine's `counts` op. It is asked
  // under the panel's own purpose: a newer edit of the panel supersedes it.
  const hint = panel.querySelector('[data-testid="budget-tokens-hint"]');
  const feeders = [...panel.querySelectorAll("[data-target]")];
  const refresh = () => {
    const { unit, encoding } = source();
    const on = unit === "token";
    for (const b of feeders) b.disabled = !on;
    hint.textContent = on
      ? `Counts the text above with ${encoding}, exactly.`
      : "Switch the unit above to Token to use the text's exact token count.";
  };
  for (const button of feeders) {
    button.addEventListener("click", async () => {
      const { text, unit, encoding } = source();
      if (unit !== "token") return;
      const response = await askEngine(engine, PURPOSE.budget, { op: "counts", text, unit, encoding });
      if (response === null) return;
      if (!response.ok) {
        const why = response.failed ? response.error.message : `The text's tokens could not be counted: ${response.error.message}`;
        calc.showError({ field: null, message: why });
        return;
      }
      const count = response.result.tokens;
      calc.set({ [button.dataset.target]: String(count) });
      hint.textContent = `${fmt.integer(count)} tokens (${encoding}) put in as the ${button.textContent}.`;
    });
  }
  refresh();
  return { calc, refresh };
}
