// controls.js: the main form's controls as the engine's facts make them. At
// start-up it builds the unit radios and the encoding options, and fills every
// text that quotes a fact (`data-fact`); then it shows the settings in the
// controls, and everything that follows the chosen unit (labels, hints, the
// tokens-per-unit field with its preset).

import { FACTS } from "../facts.js";
import { el } from "./dom.js";
import * as fmt from "./format.js";

/** A list read aloud: "a", "a or b", "a, b or c". */
function either(items) {
  return items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** What each `data-fact` names. */
const FACT_TEXT = {
  "caps.bytes": () => fmt.integer(FACTS.caps.bytes),
  "caps.chunks": () => fmt.integer(FACTS.caps.chunks),
  "caps.processed_units": () => fmt.integer(FACTS.caps.processed_units),
  encodings: () => either(FACTS.encodings.map((encoding) => encoding.name)),
  "preset.word": () => FACTS.presets_shown.word,
  "preset.char": () => FACTS.presets_shown.char,
};

/**
 * Builds the unit radios in `#unit-options` and the options of `select`, and
 * fills the `[data-fact]` texts under `root`.
 */
export function buildControls(root, select) {
  const radios = FACTS.units.map((unit) => {
    const label = el("label");
    label.append(
      el("input", { type: "radio", name: "unit", value: unit.name, "data-testid": `unit-${unit.name}` }),
      el("span", {}, unit.label),
    );
    return label;
  });
  root.querySelector("#unit-options").replaceChildren(...radios);
  select.replaceChildren(...FACTS.encodings.map((encoding) => el("option", { value: encoding.name }, encoding.label)));
  for (const node of root.querySelectorAll("[data-fact]")) {
    const text = FACT_TEXT[node.dataset.fact];
    if (text) node.textContent = text();
  }
}

const UNITS = new Map(FACTS.units.map((unit) => [unit.name, unit]));

/** "1 token", "1.333 tokens", "2 tokens": a ratio as typed, with its noun. */
function tokens(ratio) {
  return `${ratio} ${Number(ratio) === 1 ? "token" : "tokens"}`;
}

/** The tokens-per-unit field's value and hint for `unit` with no ratio typed. */
function preset(unit) {
  const shown = FACTS.presets_shown[unit];
  if (unit === "token") return { value: shown, hint: "" }; // the field is hidden: tokens are counted exactly
  return {
    value: shown,
    hint: `English preset: ${tokens(shown)} per ${fmt.unitSingular(unit)} (OpenAI's rule of thumb). Type your own ratio to override it.`,
  };
}

/** The hint for a ratio the person typed. */
export function customRatioHint(ratio, unit) {
  return `Your ratio: ${tokens(ratio.trim())} per ${fmt.unitSingular(unit)}. It stays when you change the unit.`;
}

/**
 * Puts `settings` (as in hash.js) into the controls in `ui`, then shows the unit.
 * @param {Record<string, HTMLInputElement>} ui
 */
export function showSettings(ui, settings) {
  ui.form.querySelector(`input[name="unit"][value="${settings.unit}"]`).checked = true;
  ui.form.querySelector(`input[name="overlap-mode"][value="${settings.overlapMode}"]`).checked = true;
  ui.size.value = settings.size;
  ui.overlap.value = settings.overlap;
  ui.price.value = settings.price;
  ui.encoding.value = settings.encoding;
  ui.tokenBreaks.checked = settings.tokenBoundaries;
  ui.model.value = settings.model;
  ui.maxTokens.value = settings.maxTokens;
  ui.cutMarks.checked = settings.cutMarks;
  ui.chunksPanel.dataset.cutMarks = settings.cutMarks ? "on" : "off"; // style.css hides the marks
  showUnit(ui, settings);
}

/** Everything that follows the unit: labels, hints, the tokens-per-unit field, legends. */
export function showUnit(ui, settings) {
  const unit = settings.unit;
  for (const node of document.querySelectorAll("[data-unit-plural]")) node.textContent = fmt.unitPlural(unit);
  for (const node of document.querySelectorAll("[data-unit-singular]")) node.textContent = fmt.unitSingular(unit);
  const exact = unit === "token";
  ui.encodingRow.hidden = !exact;
  ui.unitHint.textContent = UNITS.get(unit)?.hint ?? "";
  ui.tokenBreaksWrap.hidden = !exact;
  ui.legendWs.hidden = unit === "word";
  ui.legendNorm.hidden = unit !== "word";
  ui.countTokensWrap.hidden = !exact;
  // Tokens are exact in token mode: no ratio to estimate, so no ratio field. The
  // model's input limit is counted in tokens: only token mode checks it.
  ui.tokensPerUnitSetting.hidden = exact;
  ui.maxTokensSetting.hidden = !exact;
  const mode = exact ? "exact" : settings.tokensPerUnit === null ? "preset" : "custom";
  ui.tokensPerUnit.disabled = exact;
  ui.tokensPerUnit.dataset.mode = mode;
  ui.tokensPerUnitReset.hidden = mode !== "custom";
  if (mode === "custom") {
    ui.tokensPerUnit.value = settings.tokensPerUnit;
    ui.tokensPerUnitHint.textContent = customRatioHint(settings.tokensPerUnit, unit);
  } else {
    ({ value: ui.tokensPerUnit.value, hint: ui.tokensPerUnitHint.textContent } = preset(unit));
  }
}
