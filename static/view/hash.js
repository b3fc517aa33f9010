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

export const DEFAULTS = Object.freeze({
  unit: CHUNK.unit,
  size: CHUNK.size,
  overlap: CHUNK.overlap,
  om: CHUNK.overlap_mode,
  enc: CHUNK.encoding,
  tpu: null, // null: the preset for the unit
  price: CHUNK.price_per_million,
  tb: false,
  model: "", // "": no model preset
  max: "", // the model's input limit as typed; "": the preset's, or none
  cm: true, // cut sentences marked in the cards
  sp: "fixed", // the splitter
  sepPreset: "default", // the recursive splitter's separators preset
  seps: null, // its separators as typed (a list), or null for the preset's
  rx: false, // typed separators are regular expressions
  keep: FACTS.keep_separator[0], // where a kept separator goes
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
const MODES = new Set(["units", "percent"]);
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
  const om = params.get("om");
  const enc = params.get("enc");
  const tpu = params.get("tpu");
  return {
    unit: UNITS.has(unit) ? unit : DEFAULTS.unit,
    size: field(params.get("size"), DEFAULTS.size),
    overlap: field(params.get("overlap"), DEFAULTS.overlap),
    om: MODES.has(om) ? om : DEFAULTS.om,
    enc: ENCODINGS.has(enc) ? enc : DEFAULTS.enc,
    tpu: tpu === null || tpu === "" ? null : tpu.slice(0, MAX_FIELD),
    price: field(params.get("price"), DEFAULTS.price),
    tb: params.get("tb") === "1",
    model: MODELS.has(params.get("model")) ? params.get("model") : DEFAULTS.model,
    max: field(params.get("max"), DEFAULTS.max),
    cm: params.get("cm") !== "0",
    sp: SPLITTERS.has(params.get("sp") ?? "") ? /** @type {string} */ (params.get("sp")) : DEFAULTS.sp,
    sepPreset: SEPARATOR_PRESETS.has(params.get("sep") ?? "") ? /** @type {string} */ (params.get("sep")) : DEFAULTS.sepPreset,
    seps: separatorList(params.get("seps")),
    rx: params.get("rx") === "1",
    keep: KEEP.has(params.get("keep") ?? "") ? /** @type {string} */ (params.get("keep")) : DEFAULTS.keep,
    strip: params.get("strip") !== "0",
  };
}

/** Settings -> "#unit=...&..." (stable key order, so equal settings give equal URLs). */
export function writeHash(s) {
  const params = new URLSearchParams();
  params.set("unit", s.unit);
  params.set("size", s.size);
  params.set("overlap", s.overlap);
  params.set("om", s.om);
  params.set("enc", s.enc);
  if (s.tpu !== null) params.set("tpu", s.tpu);
  if (s.price !== "") params.set("price", s.price); // none: no price, so no cost
  if (s.tb) params.set("tb", "1");
  if (s.model) params.set("model", s.model);
  if (s.max) params.set("max", s.max);
  if (!s.cm) params.set("cm", "0");
  if (s.sp !== "fixed") {
    params.set("sp", s.sp);
    if (s.seps === null) params.set("sep", s.sepPreset);
    else params.set("seps", JSON.stringify(s.seps));
    if (s.seps !== null && s.rx) params.set("rx", "1");
    if (s.keep !== DEFAULTS.keep) params.set("keep", s.keep);
    if (!s.strip) params.set("strip", "0");
  }
  return `#${params.toString()}`;
}
