// The two planning calculators: index sizing (engine op `size`) and context
// budget (engine op `budget`). Each panel's form is static HTML in index.html;
// this module reads its fields as typed strings, asks the engine, and lays out
// what comes back. No figure is computed here: the engine validates every field
// and returns every number with its derivation (docs/protocol.md, section 4).

import { el } from "../view/dom.js";
import * as fmt from "../view/format.js";

const DEBOUNCE_MS = 150;

const tokens = (v) => (typeof v === "number" ? `${fmt.integer(v)}` : "–");
const bytes = (v) => {
  if (typeof v !== "number") return "–";
  if (v < 1000) return `${fmt.integer(v)} B`;
  // A readable size next to the exact byte count (decimal units, display only).
  const units = [["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];
  const [name, div] = units.find(([, d]) => v >= d);
  return `${fmt.plain(v / div)} ${name}`;
};

/**
 * One calculator: a form of typed fields -> one engine op -> figures and a
 * derivation table. Bad input shows next to its field; the last good result stays.
 */
class Calculator {
  /**
   * @param {{engine: object, panel: HTMLElement, op: string, prefix: string,
   *   figures: Record<string, {label: string, fmt: Function}>, extra?: Function,
   *   after?: Function}} options
   */
  constructor({ engine, panel, op, prefix, figures, extra = () => ({}), after = () => {} }) {
    this.engine = engine;
    this.panel = panel;
    this.op = op;
    this.prefix = prefix;
    this.figures = figures;
    this.extra = extra;
    this.after = after;
    this.inputs = Object.fromEntries(
      [...panel.querySelectorAll("input[data-param]")].map((input) => [input.dataset.param, input]),
    );
    this.stale = panel.querySelector(`[data-testid="${prefix}-stale"]`);
    this.timer = 0;
    this.lastGood = null;
    panel.querySelector("form").addEventListener("input", () => this.schedule());
    panel.querySelector("form").addEventListener("change", (event) => {
      if (event.target.type === "radio") this.schedule(0);
    });
    panel.querySelector("form").addEventListener("submit", (event) => event.preventDefault());
  }

  /** Set fields (strings) as a person would, then recompute at once. */
  set(values) {
    for (const [param, value] of Object.entries(values)) {
      if (this.inputs[param]) this.inputs[param].value = value;
    }
    this.schedule(0);
  }

  schedule(delay = DEBOUNCE_MS) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.compute(), delay);
  }

  request() {
    const request = { op: this.op };
    for (const [param, input] of Object.entries(this.inputs)) request[param] = input.value;
    return { ...request, ...this.extra() };
  }

  async compute() {
    let response;
    try {
      response = await this.engine.call(this.prefix, this.request());
    } catch (err) {
      this.showError({ field: null, message: `The engine failed: ${err && err.message ? err.message : err}` });
      return;
    }
    if (response === null) return; // a newer edit is on its way
    if (response.ok) {
      this.clearErrors();
      this.lastGood = response.result;
      this.render(response.result);
    } else {
      this.showError(response.error);
    }
  }

  clearErrors() {
    for (const node of this.panel.querySelectorAll('[data-testid="error"]')) {
      node.hidden = true;
      node.textContent = "";
    }
    for (const input of this.panel.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    this.stale.hidden = true;
    this.panel.classList.remove("is-stale");
  }

  showError(error) {
    this.clearErrors();
    const field = error && error.field;
    const node = this.panel.querySelector(`[data-testid="error"][data-field="${this.prefix}.${field}"]`) ||
      this.panel.querySelector(`[data-testid="error"][data-field="${this.prefix}.other"]`);
    node.textContent = (error && error.message) || "The engine refused this input.";
    node.hidden = false;
    const input = this.inputs[field] || (field === "overlap_mode" ? this.inputs.overlap : null);
    if (input) input.setAttribute("aria-invalid", "true");
    if (this.lastGood) {
      this.stale.hidden = false;
      this.panel.classList.add("is-stale");
    }
  }

  render(result) {
    const { derivation } = result;
    for (const dd of this.panel.querySelectorAll("[data-out] [data-key]")) {
      const key = dd.dataset.key;
      const spec = this.figures[key];
      if (!spec) continue;
      const value = result[key];
      dd.textContent = spec.fmt(value);
      dd.dataset.value = value === null || value === undefined ? "" : String(value);
      const d = derivation && derivation[key];
      dd.title = d ? `${d.formula} = ${d.inputs}` : "";
    }
    const rows = [];
    for (const [key, d] of Object.entries(derivation || {})) {
      const spec = this.figures[key];
      const tr = el("tr", { "data-key": key });
      const name = el("th", { scope: "row" }, spec ? spec.label : key);
      if (d.note) name.append(el("span", { class: "derivation-note" }, d.note));
      tr.append(
        name,
        el("td", { class: "mono" }, d.formula),
        el("td", { class: "mono" }, d.inputs),
        el("td", { class: "num" }, spec ? spec.fmt(d.value) : String(d.value)),
      );
      rows.push(tr);
    }
    this.panel.querySelector("[data-derivation]").replaceChildren(...rows);
    this.after(result);
  }
}

// ---------------------------------------------------------------- index sizing

export const SIZING_REFERENCE = Object.freeze({
  documents: "500", avg_tokens: "1200", size: "512", overlap: "15", top_k: "5", budget: "128000",
  dim: "", bytes_per_value: "4",
});

const SIZING_FIGURES = {
  overlap: { label: "Overlap (tokens)", fmt: tokens },
  stride: { label: "Stride (tokens)", fmt: tokens },
  effective_chunk: { label: "Chunk tokens, min(C, D)", fmt: tokens },
  chunks_per_document: { label: "Chunks per document", fmt: fmt.integer },
  index_entries: { label: "Index entries (vectors)", fmt: fmt.integer },
  top_k_used: { label: "Top-k used", fmt: fmt.integer },
  retrieved_tokens_per_query: { label: "Retrieved per query", fmt: tokens },
  budget_share: { label: "Budget used", fmt: fmt.percent },
  budget_left: { label: "Budget left", fmt: tokens },
  stored_tokens_nominal: { label: "Stored tokens, nominal", fmt: tokens },
  stored_tokens_actual: { label: "Stored tokens, actual", fmt: tokens },
  inflation_nominal: { label: "Inflation, nominal", fmt: fmt.ratio },
  inflation_actual: { label: "Inflation, actual", fmt: fmt.ratio },
  limit_inflation: { label: "Long-document limit", fmt: fmt.ratio },
  vector_bytes: { label: "Vector storage (bytes)", fmt: bytes },
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
    vb.textContent = `${bytes(result.vector_bytes)}`;
    vb.title = `${fmt.integer(result.vector_bytes)} bytes = ${result.derivation.vector_bytes.inputs}`;
  }
  const note = panel.querySelector('[data-testid="sizing-stored-note"]');
  const same = result.stored_tokens_nominal === result.stored_tokens_actual;
  const compare = panel.querySelector(".stored-compare");
  compare.dataset.agree = same ? "true" : "false";
  note.replaceChildren();
  if (same) {
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
        "each document once, plus the overlap each later chunk repeats, D + (N − 1) × O (reference 000).",
      ),
    );
  }
}

export function mountSizing({ engine, panel }) {
  const calc = new Calculator({
    engine,
    panel,
    op: "size",
    prefix: "sizing",
    figures: SIZING_FIGURES,
    extra: () => ({ overlap_mode: panel.querySelector('input[name="sizing-overlap-mode"]:checked').value }),
    after: (result) => renderSizingExtras(panel, result),
  });
  panel.querySelector('[data-testid="sizing-reference"]').addEventListener("click", () => {
    panel.querySelector('[data-testid="sizing-overlap-mode-percent"]').checked = true;
    calc.set(SIZING_REFERENCE);
  });
  calc.schedule(0);
  return calc;
}

// ---------------------------------------------------------------- context budget

const BUDGET_EXAMPLES = {
  fits: { window: "8192", system: "500", question: "100", answer: "0", top_k: "5", size: "512" },
  overflows: { window: "8192", system: "500", question: "100", answer: "0", top_k: "8", size: "1024" },
};

const BUDGET_FIGURES = {
  available: { label: "Available for retrieval", fmt: tokens },
  retrieved: { label: "Retrieval uses", fmt: tokens },
  fits: { label: "Fits", fmt: (v) => (v ? "yes" : "no") },
  left: { label: "Left after retrieval", fmt: tokens },
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

/**
 * @param {{engine: object, panel: HTMLElement, source: () => {text: string, unit: string, encoding: string}}} options
 *   `source` returns the main view's text and unit as they stand now.
 */
export function mountBudget({ engine, panel, source }) {
  const calc = new Calculator({
    engine,
    panel,
    op: "budget",
    prefix: "budget",
    figures: BUDGET_FIGURES,
    after: (result) => renderFits(panel, result),
  });
  for (const button of panel.querySelectorAll("[data-budget-example]")) {
    button.addEventListener("click", () => calc.set(BUDGET_EXAMPLES[button.dataset.budgetExample]));
  }

  // The pasted text's exact token count, from the engine's `counts` op.
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
      let response;
      try {
        response = await engine.call("budget-counts", { op: "counts", text, unit, encoding });
      } catch (err) {
        calc.showError({ field: null, message: `The engine failed: ${err && err.message ? err.message : err}` });
        return;
      }
      if (response === null) return;
      if (!response.ok) {
        calc.showError({ field: null, message: `The text's tokens could not be counted: ${response.error.message}` });
        return;
      }
      const count = response.result.tokens;
      calc.set({ [button.dataset.target]: String(count) });
      hint.textContent = `${fmt.integer(count)} tokens (${encoding}) put in as the ${button.textContent}.`;
    });
  }
  refresh();
  calc.schedule(0);
  return { calc, refresh };
}
