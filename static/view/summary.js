// The summary panel: the engine's figures and how each was derived. Nothing here
// computes a figure; it lays out what the engine returned.

import { derivationRow, showFigure } from "./derivation.js";
import * as fmt from "./format.js";

/** The summary figures: key in the engine's summary, testid, formatter, label. */
export const FIGURES = [
  { key: "chunks", testid: "summary-chunks", label: "Chunks", fmt: fmt.integer },
  { key: "stride", testid: "summary-stride", label: "Stride", fmt: fmt.integer, unit: true },
  { key: "processed_units", testid: "summary-processed", label: "Processed units", fmt: fmt.integer, unit: true },
  { key: "repeated_units", testid: "summary-repeated", label: "Repeated units", fmt: fmt.integer, unit: true },
  { key: "extra_volume", testid: "summary-extra", label: "Extra volume", fmt: fmt.percent },
  { key: "inflation", testid: "summary-inflation", label: "Inflation", fmt: fmt.ratio },
  { key: "limit_inflation", testid: "summary-limit", label: "Long-document limit", fmt: fmt.ratio },
  { key: "estimated_tokens", testid: "summary-tokens", label: "Estimated tokens", fmt: fmt.tokens },
  { key: "estimated_cost", testid: "summary-cost", label: "Estimated cost", fmt: fmt.dollars },
];

/** Fill the summary figures and the derivation table. */
export function renderSummary(root, result) {
  const { summary, derivation, params } = result;
  for (const f of FIGURES) {
    const dd = root.querySelector(`[data-testid="${f.testid}"]`);
    if (dd) showFigure(dd, summary[f.key], f.fmt(summary[f.key]), derivation?.[f.key]);
    // No price given (the field empty, or a model that lists none): no cost is shown.
    if (dd && f.key === "estimated_cost") dd.closest(".figure").hidden = summary.estimated_cost === null;
  }
  const body = root.querySelector("#derivation-body");
  const rows = [];
  for (const f of FIGURES) {
    const d = derivation && derivation[f.key];
    if (!d) continue;
    const label = f.unit ? f.label.replace("units", fmt.unitPlural(params.unit)) : f.label;
    rows.push(derivationRow(f.key, label, d, f.fmt(summary[f.key])));
  }
  body.replaceChildren(...rows);
}
