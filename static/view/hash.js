// Settings <-> URL hash. The text never goes into the URL; only the settings,
// so a link shares a configuration and not a document.
//
//   #unit=word&size=4&overlap=1&om=units&enc=<encoding>
//   (&price=1 once a price is entered, &tpu=1.5 only when the user typed a custom ratio, &tb=1 for token boundaries,
//   &model=<preset> and &max=<input limit> for a model, &cm=0 with cut marks off;
//   for LangChain's recursive splitter &sp=recursive, &sep=<preset> or &seps=<JSON list>
//   with &rx=1 for regular expressions, &keep=<start|end|none>, &strip=0)
//
// The defaults, the units and encodings a link may name, and the longest field
// it may carry are the engine's (pyapp/facts.py), read from FACTS.

import { FACTS } from "../facts.js";

const CHUNK = FACTS.defaults.chunk;
const FIELDS = FACTS.defaults.fields;

/**
 * The settings' names and the link's short keys (links already shared keep working):
 * each setting is named in whole words here and in the page, and its key in the URL.
 */
export const DEFAULTS = Object.freeze({
  unit: CHUNK.unit,
  size: CHUNK.size,
  overlap: CHUNK.overlap,
  overlapMode: CHUNK.overlap_mode, // om
  encoding: CHUNK.encoding, // enc
  tokensPerUnit: null, // tpu; null: the preset for the unit
  price: CHUNK.price_per_million,
  tokenBoundaries: false, // tb
  model: "", // "": no model preset
  maxTokens: "", // max: the model's input limit as typed; "": the preset's, or none
  cutMarks: true, // cm: cut sentences marked in the cards
  splitter: FIELDS.splitter, // sp
  separatorsPreset: FIELDS.separators_preset, // sep: the recursive splitter's separators preset
  separators: null, // seps: its separators as typed (a list), or null for the preset's
  separatorRegex: false, // rx: typed separators are regular expressions
  keepSeparator: FIELDS.keep_separator, // keep: where a kept separator goes
  strip: true, // strip whitespace at chunk edges
});

const SPLITTERS = new Set(Object.keys(FACTS.splitters));
const SEPARATOR_PRESETS = new Set(Object.keys(FACTS.separator_presets));
const KEEP = new Set(FACTS.keep_separator);

/**
 * A typed separator list from a link, or null when it is not a JSON list of strings.
 * @param {string | null} raw
 * @returns {string[] | null}
 */
function separatorList(raw) {
  if (raw === null || raw.length > MAX_SEPARATORS_CHARS) return null;
  try {
    const list = JSON.parse(raw);
    return Array.isArray(list) && list.every((x) => typeof x === "string") ? list : null;
  } catch {
    return null;
  }
}

const UNITS = new Set(FACTS.units.map((unit) => unit.name));
const MODES = new Set(FACTS.overlap_modes);
const ENCODINGS = new Set(FACTS.encodings.map((encoding) => encoding.name));
const MODELS = new Set(FACTS.models.map((model) => model.name));
const MAX_FIELD = FACTS.max_field_chars; // longer is not a setting anyone typed
const MAX_SEPARATORS_CHARS = 100 * MAX_FIELD; // a separator list from a link, at most

function field(value, fallback) {
  if (value === null) return fallback;
  return value.slice(0, MAX_FIELD);
}

/** Parse a location hash into settings; unknown or malformed keys fall back to defaults. */
export function readHash(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const unit = params.get("unit");
  const overlapMode = params.get("om");
  const encoding = params.get("enc");
  const tokensPerUnit = params.get("tpu");
  return {
    unit: UNITS.has(unit) ? unit : DEFAULTS.unit,
    size: field(params.get("size"), DEFAULTS.size),
    overlap: field(params.get("overlap"), DEFAULTS.overlap),
    overlapMode: MODES.has(overlapMode) ? overlapMode : DEFAULTS.overlapMode,
    encoding: ENCODINGS.has(encoding) ? encoding : DEFAULTS.encoding,
    tokensPerUnit: tokensPerUnit === null || tokensPerUnit === "" ? null : tokensPerUnit.slice(0, MAX_FIELD),
    price: field(params.get("price"), DEFAULTS.price),
    tokenBoundaries: params.get("tb") === "1",
    model: MODELS.has(params.get("model")) ? params.get("model") : DEFAULTS.model,
    maxTokens: field(params.get("max"), DEFAULTS.maxTokens),
    cutMarks: params.get("cm") !== "0",
    splitter: SPLITTERS.has(params.get("sp") ?? "") ? /** @type {string} */ (params.get("sp")) : DEFAULTS.splitter,
    separatorsPreset: SEPARATOR_PRESETS.has(params.get("sep") ?? "") ? /** @type {string} */ (params.get("sep")) : DEFAULTS.separatorsPreset,
    separators: separatorList(params.get("seps")),
    separatorRegex: params.get("rx") === "1",
    keepSeparator: KEEP.has(params.get("keep") ?? "") ? /** @type {string} */ (params.get("keep")) : DEFAULTS.keepSeparator,
    strip: params.get("strip") !== "0",
  };
}

/** Settings -> "#unit=...&..." (stable key order, so equal settings give equal URLs). */
export function writeHash(s) {
  const params = new URLSearchParams();
  params.set("unit", s.unit);
  params.set("size", s.size);
  params.set("overlap", s.overlap);
  params.set("om", s.overlapMode);
  params.set("enc", s.encoding);
  if (s.tokensPerUnit !== null) params.set("tpu", s.tokensPerUnit);
  if (s.price !== "") params.set("price", s.price); // none: no price, so no cost
  if (s.tokenBoundaries) params.set("tb", "1");
  if (s.model) params.set("model", s.model);
  if (s.maxTokens) params.set("max", s.maxTokens);
  if (!s.cutMarks) params.set("cm", "0");
  if (s.splitter !== DEFAULTS.splitter) {
    params.set("sp", s.splitter);
    if (s.separators === null) params.set("sep", s.separatorsPreset);
    else params.set("seps", JSON.stringify(s.separators));
    if (s.separators !== null && s.separatorRegex) params.set("rx", "1");
    if (s.keepSeparator !== DEFAULTS.keepSeparator) params.set("keep", s.keepSeparator);
    if (!s.strip) params.set("strip", "0");
  }
  return `#${params.toString()}`;
}
