// derivation.js: an engine figure on the page, and its row in a "How each figure
// is derived" table, as the engine wrote the derivation (pyapp/figures.py builds
// every one the same way). The summary and the planning panels both use these.

import { el } from "./dom.js";

/**
 * Shows a figure in its element: the formatted value, the unrounded one in
 * data-value (empty when there is none), the derivation as a tooltip.
 * @param {HTMLElement} node
 * @param {unknown} value the engine's value
 * @param {string} shown the value, formatted
 * @param {{formula: string, inputs: string} | undefined} d the engine's derivation
 */
export function showFigure(node, value, shown, d) {
  node.textContent = shown;
  node.dataset.value = value === null || value === undefined ? "" : String(value);
  node.title = d ? `${d.formula} = ${d.inputs}` : "";
}

/**
 * One table row: the figure's name (and the engine's note, if any), the formula,
 * the formula with the numbers put in, and the value as the page shows it.
 * @param {string} key the figure's key in the engine's answer
 * @param {string} name what the page calls the figure
 * @param {{formula: string, inputs: string, note?: string}} d the engine's derivation
 * @param {string} shown the value, formatted
 */
export function derivationRow(key, name, d, shown) {
  const th = el("th", { scope: "row" }, name);
  if (d.note) th.append(el("span", { class: "derivation-note" }, d.note));
  const tr = el("tr", { "data-key": key });
  tr.append(th, el("td", { class: "mono" }, d.formula), el("td", { class: "mono" }, d.inputs), el("td", { class: "num" }, shown));
  return tr;
}
