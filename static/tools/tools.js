// The planning tools below the chunk view: index sizing (sizing.js), context
// budget (budget.js) and the overlap sweep (sweep-chart.js). view/app.js mounts
// them once and tells them when a main result lands; they use the same engine,
// each call under its own purpose, so a stale answer of one never reaches the
// screen of another.
//
// Each panel is folded until opened, so the chunk view comes first. Sizing and
// budget start from the main view: this text's tokens as one document, the main
// chunk size and overlap in tokens (exact in token mode; in word and character
// mode estimated with the tokens-per-unit ratio, and said so), and a model preset's
// dimension or context window. They follow the main view until a person edits one
// of their fields; "Use this text" puts them back in step. The sweep runs only
// while its panel is open.

import { FACTS } from "../facts.js";
import * as fmt from "../view/format.js";
import { mountBudget } from "./budget.js";
import { mountSizing } from "./sizing.js";
import { mountSweep } from "./sweep-chart.js";

/**
 * The main view's figures in tokens, as the engine answered them (`in_tokens`: exact
 * in token mode, else estimated with the tokens-per-unit ratio), and the words that
 * say where they came from. Null before a result.
 */
export function mainInTokens(result) {
  if (!result) return null;
  const { params, summary, in_tokens: inTokens } = result;
  const ratio = params.tokens_per_unit;
  return {
    tokens: inTokens.tokens,
    size: inTokens.size,
    overlap: inTokens.overlap,
    how: inTokens.exact
      ? `this text's ${fmt.unitCount(inTokens.tokens, "token")} (${params.encoding}, exact)`
      : `this text's ${fmt.unitCount(summary.units, params.unit)} at ${fmt.plain(ratio)} ` +
        `token${ratio === 1 ? "" : "s"} per ${fmt.unitSingular(params.unit)}, about ` +
        fmt.unitCount(inTokens.tokens, "token"),
  };
}

/**
 * @param {{engine: object,
 *   source: () => {text: string, unit: string, encoding: string},
 *   main: () => {settings: object, result: object | null},
 *   apply: (setting: {size: number, overlap: number}) => void}} options
 *   `source` reads the main text and unit now; `main` the main settings and the last
 *   result; `apply` puts a size and an overlap (whole units) into the main inputs.
 */
export function mountTools({ engine, source, main, apply }) {
  const $ = (selector) => document.querySelector(selector);
  const folds = { sizing: $("#sizing-fold"), budget: $("#budget-fold"), sweep: $("#sweep-fold") };
  /**
   * The main view's recursive splitter in tokens and its text: sizing measures its
   * chunks while the panel's length, size and overlap are still the main view's
   * (the number of documents may be typed); other figures are sized by the formula.
   */
  let measureFrom = null;
  let mainFigures = null;
  const sizingFields = ["avg_tokens", "size", "overlap"];
  const sameAsMain = () =>
    mainFigures !== null && sizingFields.every((key) => sizing.inputs[key]?.value === mainFigures[key]) &&
    (sizing.choices.overlap_mode ?? []).every((radio) => radio.checked === (radio.value === "units"));
  const sizing = mountSizing({
    engine,
    panel: $("#sizing-panel"),
    extra: () => (measureFrom && sameAsMain() ? measureFrom : {}),
  });
  const budget = mountBudget({ engine, panel: $("#budget-panel"), source });
  const sweep = mountSweep({ engine, panel: $("#sweep-panel"), apply, isOpen: () => folds.sweep.open });
  folds.sweep.addEventListener("toggle", () => {
    if (folds.sweep.open) sweep.opened();
  });
  // The unit decides whether the text's exact token count can feed the budget.
  $("#settings").addEventListener("change", () => budget.refresh());

  /** Whether each panel follows the main view (until a person edits one of its fields). */
  const following = { sizing: true, budget: true };
  const words = {
    sizing: $('[data-testid="sizing-source"] [data-source-words]'),
    budget: $('[data-testid="budget-source"] [data-source-words]'),
  };

  function say(name, text) {
    words[name].textContent = text;
    words[name].closest("[data-testid]").dataset.following = String(following[name]);
  }

  /** A model preset's figures for the panels (kept for the first fill too). */
  const preset = { dim: null, window: null };
  let filled = false;

  /**
   * Puts the main view's figures into the panels that follow it. The first time,
   * every field is filled (the engine's defaults where the main view has no figure),
   * and the panels compute for the first time.
   */
  function seed() {
    const tokens = mainInTokens(main().result);
    if (!tokens) return;
    const overlap = String(tokens.overlap);
    const fromMain = { documents: "1", avg_tokens: String(tokens.tokens), size: String(tokens.size), overlap, overlap_mode: "units" };
    mainFigures = fromMain;
    if (!filled) {
      filled = true;
      sizing.reset({ ...FACTS.defaults.sizing, ...fromMain, ...(preset.dim ? { dim: preset.dim } : {}) });
      budget.calc.reset({
        ...FACTS.defaults.budget,
        window: preset.window ?? FACTS.examples.budget.fits.window,
        top_k: FACTS.defaults.sizing.top_k,
        size: String(tokens.size),
      });
    } else {
      if (following.sizing) {
        sizing.set(fromMain);
        for (const radio of $("#sizing-panel").querySelectorAll('input[data-param="overlap_mode"]')) radio.checked = radio.value === "units";
      }
      if (following.budget) budget.calc.set({ size: String(tokens.size) });
    }
    say(
      "sizing",
      following.sizing
        ? `From the main view: one document of ${tokens.how}, chunks of ${fmt.unitCount(tokens.size, "token")} overlapping by ${overlap}. Type how many documents your corpus holds.`
        : "Your own figures.",
    );
    say("budget", following.budget ? `From the main view: chunks of ${fmt.unitCount(tokens.size, "token")}.` : "Your own figures.");
  }

  for (const name of ["sizing", "budget"]) {
    const panel = $(`#${name}-panel`);
    // A person's edit (typed, stepped, or a worked example) ends following.
    panel.querySelector("form").addEventListener("input", () => {
      following[name] = false;
      say(name, "Your own figures.");
    });
    for (const button of panel.querySelectorAll("[data-budget-example], [data-testid='sizing-reference']")) {
      button.addEventListener("click", () => {
        following[name] = false;
        say(name, "A worked example.");
      });
    }
    panel.querySelector(`[data-testid="${name}-use-text"]`).addEventListener("click", () => {
      following[name] = true;
      seed();
    });
  }

  return {
    /** A main `chunk` result is on screen for `request`. */
    viewLanded(request) {
      const before = JSON.stringify(measureFrom);
      measureFrom = request.splitter === "recursive" && request.unit === "token"
        ? Object.fromEntries(
          ["text", "unit", "encoding", ...FACTS.splitter_fields].filter((key) => key in request).map((key) => [key, request[key]]),
        )
        : null;
      seed();
      if (filled && JSON.stringify(measureFrom) !== before) sizing.schedule(0);
      budget.refresh();
      sweep.viewLanded(request);
    },
    /** A model preset was chosen: its dimension to index sizing, its context window to the budget. */
    usePreset({ dim, window }) {
      preset.dim = dim;
      preset.window = window;
      if (!filled) return; // the first fill puts them in
      if (dim !== null) sizing.set({ dim });
      if (window !== null) budget.calc.set({ window });
    },
  };
}
