// calculator.js: one planning calculator, a form of typed fields -> one engine op
// -> figures and a derivation table. No figure is computed here: the engine
// validates every field and returns every number with its derivation
// (docs/protocol.md, section 4). Bad input shows next to its field (forms.js) and
// the last good result stays on screen, marked stale.
//
// The form's fields are the panel's inputs with a `data-param` (text inputs, and
// radio groups whose checked value is sent); they start empty in index.html and
// get their first values from the engine's facts (sizing.js, budget.js).

import { askEngine } from "../engine/ask.js";
import { derivationRow, showFigure } from "../view/derivation.js";
import { FieldErrors } from "./forms.js";

const DEBOUNCE_MS = 150;

export class Calculator {
  /**
   * @param {{engine: object, panel: HTMLElement, op: string, purpose: string, prefix: string,
   *   figures: Record<string, {label: string, fmt: Function}>, after?: Function,
   *   extra?: () => object}} options
   *   `prefix` names the panel's testids and error slots (`<prefix>-stale`,
   *   `<prefix>.<field>`); `after(result)` lays out what the figures do not; `extra()`
   *   gives request fields that are not the panel's own (sent beneath its fields).
   */
  constructor({ engine, panel, op, purpose, prefix, figures, after = () => {}, extra = () => ({}) }) {
    this.engine = engine;
    this.extra = extra;
    this.panel = panel;
    this.op = op;
    this.purpose = purpose;
    this.figures = figures;
    this.after = after;
    const params = [...panel.querySelectorAll("input[data-param]")];
    /** @type {Record<string, HTMLInputElement>} the text fields, by param */
    this.inputs = Object.fromEntries(params.filter((i) => i.type !== "radio").map((i) => [i.dataset.param, i]));
    /** @type {Record<string, HTMLInputElement[]>} the radio groups, by param */
    this.choices = {};
    for (const radio of params.filter((i) => i.type === "radio")) {
      (this.choices[radio.dataset.param] ??= []).push(radio);
    }
    this.errors = new FieldErrors({
      roots: [panel],
      name: (field) => `${prefix}.${field}`,
      fallback: `${prefix}.other`,
      // A mode is blamed on the field it measures (overlap_mode -> overlap).
      input: (field) => this.inputs[field] ?? this.inputs[String(field).replace(/_mode$/, "")] ?? null,
      staleNote: panel.querySelector(`[data-testid="${prefix}-stale"]`),
      staleTarget: panel,
    });
    this.timer = 0;
    this.lastGood = null;
    const form = panel.querySelector("form");
    form.addEventListener("input", () => this.schedule());
    form.addEventListener("change", (event) => {
      if (/** @type {HTMLInputElement} */ (event.target).type === "radio") this.schedule(0);
    });
    form.addEventListener("submit", (event) => event.preventDefault());
  }

  /**
   * Puts `values` (strings, by param) into the fields as a person would, every
   * field not named emptied, then recomputes at once.
   */
  reset(values) {
    for (const [param, input] of Object.entries(this.inputs)) input.value = values[param] ?? "";
    for (const [param, radios] of Object.entries(this.choices)) {
      if (param in values) for (const radio of radios) radio.checked = radio.value === values[param];
    }
    this.schedule(0);
  }

  /** Sets the named fields only, then recomputes at once if any of them changed. */
  set(values) {
    let changed = false;
    for (const [param, value] of Object.entries(values)) {
      const input = this.inputs[param];
      if (input && input.value !== value) {
        input.value = value;
        changed = true;
      }
    }
    if (changed) this.schedule(0);
  }

  schedule(delay = DEBOUNCE_MS) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compute(), delay);
  }

  request() {
    const request = { ...this.extra(), op: this.op };
    for (const [param, input] of Object.entries(this.inputs)) request[param] = input.value;
    for (const [param, radios] of Object.entries(this.choices)) {
      const checked = radios.find((radio) => radio.checked);
      if (checked) request[param] = checked.value;
    }
    return request;
  }

  async compute() {
    const response = await askEngine(this.engine, this.purpose, this.request());
    if (response === null) return; // a newer edit is on its way
    if (response.ok) {
      this.errors.clear();
      this.lastGood = response.result;
      this.render(response.result);
    } else {
      this.showError(response.error);
    }
  }

  /** An error next to its field (or the panel's general slot); the last result stays. */
  showError(error) {
    this.errors.show(error, { stale: this.lastGood !== null });
  }

  render(result) {
    const { derivation } = result;
    for (const dd of this.panel.querySelectorAll("[data-out] [data-key]")) {
      const key = dd.dataset.key;
      const spec = this.figures[key];
      if (spec) showFigure(dd, result[key], spec.fmt(result[key]), derivation?.[key]);
    }
    const rows = Object.entries(derivation || {}).map(([key, d]) => {
      const spec = this.figures[key];
      return derivationRow(key, spec ? spec.label : key, d, spec ? spec.fmt(d.value) : String(d.value));
    });
    this.panel.querySelector("[data-derivation]").replaceChildren(...rows);
    this.after(result);
  }
}
