// models.js: the model select and what a preset sets. A preset (pyapp/models.json,
// read from FACTS.models) sets four figures at once: the encoding, the model's input
// limit (its special tokens included: [CLS] and [SEP] for BERT models), the embedding
// dimension (for index sizing) or the context window (for the context budget), and an
// example price where one exists. The figures card shows each with its source and
// date, and says when the field now holds the person's own value instead: every
// figure stays an ordinary field that can be overridden.
//
//   buildModelSelect(select)                  -> options, grouped, from FACTS.models
//   presetSettings(settings, "gte-base")      -> settings with that preset's figures put in
//   renderModelFigures(node, settings)        -> the card under the select (hidden for none)

import { FACTS } from "../facts.js";
import { el } from "./dom.js";
import * as fmt from "./format.js";

export const MODELS = new Map(FACTS.models.map((model) => [model.name, model]));

const KINDS = [
  ["embedding", "Embedding models"],
  ["llm", "LLMs, for the context budget"],
];

/** Fills the model select: "none", then the presets grouped by kind. */
export function buildModelSelect(select) {
  const groups = KINDS.map(([kind, label]) => {
    const group = el("optgroup", { label });
    for (const model of FACTS.models.filter((m) => m.kind === kind)) {
      group.append(el("option", { value: model.name }, model.label));
    }
    return group;
  });
  select.replaceChildren(el("option", { value: "" }, "None: set each figure yourself"), ...groups);
}

/**
 * `settings` with `name`'s figures put in: token unit (the limit is counted in the
 * model's own tokens), its encoding, its limit, and its price (empty where it lists none).
 * With "" (none) the model and its limit go; everything else stays as it is.
 */
export function presetSettings(settings, name) {
  const model = MODELS.get(name);
  if (!model) return { ...settings, model: "", maxTokens: "" };
  const next = { ...settings, model: name, unit: "token", encoding: model.encoding, maxTokens: String(model.max_tokens.value) };
  // As the engine writes it (0.02, exact); a model that lists no price empties the
  // field: no cost rather than one at a made-up price.
  next.price = model.price_per_million ? model.price_per_million.typed : "";
  return next;
}

/** Where a preset's figure goes on the page, when not the main form. */
export function presetForTools(name) {
  const model = MODELS.get(name);
  if (!model) return null;
  return {
    dim: model.dimension ? String(model.dimension.value) : null,
    window: model.kind === "llm" ? String(model.max_tokens.value) : null,
  };
}

function specials(model) {
  const n = model.special_tokens.value;
  if (n === 0) return "the model adds no special tokens";
  return `its ${n} special token${n === 1 ? "" : "s"} included`;
}

/** One row of the card: what, the preset's figure, and whether the field differs now. */
function row(key, what, shown, yours) {
  const div = el("div", { class: "preset-figure", "data-figure": key });
  div.append(el("dt", {}, what));
  const dd = el("dd", {}, shown);
  if (yours !== null) {
    dd.append(" ", el("span", { class: "preset-overridden", "data-testid": "preset-overridden" }, `(yours now: ${yours})`));
  }
  div.append(dd);
  return div;
}

function source(what, figure) {
  const li = el("li");
  li.append(`${what}: ${figure.source} (${figure.date}) `);
  li.append(el("a", { href: figure.url, rel: "noopener noreferrer", target: "_blank" }, "source"));
  return li;
}

/**
 * The card under the select: each figure the preset set, with its source, and the
 * person's own value where a field now differs. Hidden with no model.
 */
export function renderModelFigures(node, settings) {
  const model = MODELS.get(settings.model);
  node.hidden = !model;
  node.dataset.model = model ? model.name : "";
  if (!model) {
    node.replaceChildren();
    return;
  }
  const limit = model.max_tokens.value;
  const typedMax = settings.maxTokens.trim();
  const figures = el("dl", { class: "preset-figures" });
  figures.append(
    row("encoding", "Encoding", model.encoding, settings.encoding !== model.encoding ? settings.encoding : null),
    row(
      "max_tokens",
      model.kind === "llm" ? "Context window" : "Input limit",
      `${fmt.unitCount(limit, "token")}, ${specials(model)}${model.kind === "llm" ? " (also the context budget's window)" : ""}`,
      typedMax !== "" && typedMax !== String(limit) ? typedMax : null,
    ),
  );
  if (model.dimension) {
    figures.append(row("dimension", "Embedding dimension", `${fmt.integer(model.dimension.value)} (put into index sizing)`, null));
  }
  const price = model.price_per_million;
  figures.append(
    row(
      "price_per_million",
      "Example price",
      price ? `${fmt.dollars(price.value)} per million tokens` : "none listed: the model runs on your own hardware",
      price && Number(settings.price) !== price.value ? settings.price : null,
    ),
  );
  const list = el("ul");
  list.append(source("Input limit", model.max_tokens), source("Special tokens", model.special_tokens));
  if (model.dimension) list.append(source("Dimension", model.dimension));
  if (price) list.append(source("Price", price));
  const sources = el("details", { class: "preset-sources", "data-testid": "preset-sources" });
  sources.append(el("summary", {}, "Where these figures come from"), list);
  node.replaceChildren(figures, sources);
}
