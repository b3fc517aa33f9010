// The planning tools below the chunk view: index sizing (sizing.js), context
// budget (budget.js) and the overlap sweep (sweep-chart.js). view/app.js mounts
// them once and tells them when a main result lands; they use the same engine,
// each call under its own purpose, so a stale answer of one never reaches the
// screen of another.

import { mountBudget } from "./budget.js";
import { mountSizing } from "./sizing.js";
import { mountSweep } from "./sweep-chart.js";

/**
 * @param {{engine: object,
 *   source: () => {text: string, unit: string, encoding: string},
 *   apply: (setting: {size: number, overlap: number}) => void}} options
 *   `source` reads the main text and unit now; `apply` puts a size and an overlap
 *   (whole units) into the main inputs and recomputes.
 */
export function mountTools({ engine, source, apply }) {
  const $ = (selector) => document.querySelector(selector);
  mountSizing({ engine, panel: $("#sizing-panel") });
  const budget = mountBudget({ engine, panel: $("#budget-panel"), source });
  const sweep = mountSweep({ engine, panel: $("#sweep-panel"), apply });
  // The unit decides whether the text's exact token count can feed the budget.
  $("#settings").addEventListener("change", () => budget.refresh());
  return {
    /** A main `chunk` result is on screen for `request`. */
    viewLanded(request) {
      budget.refresh();
      sweep.viewLanded(request);
    },
  };
}
