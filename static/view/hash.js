// Settings <-> URL hash. The text never goes into the URL; only the settings,
// so a link shares a configuration and not a document.
//
//   #unit=word&size=4&overlap=1&om=units&enc=o200k_base&price=1
//   (&tpu=1.5 only when the user typed a custom ratio, &tb=1 for token boundaries)

export const DEFAULTS = Object.freeze({
  unit: "word",
  size: "40",
  overlap: "8",
  om: "units",
  enc: "o200k_base",
  tpu: null, // null: the preset for the unit
  price: "1",
  tb: false,
});

const UNITS = new Set(["word", "char", "token"]);
const MODES = new Set(["units", "percent"]);
const ENCODINGS = new Set(["o200k_base", "cl100k_base"]);
const MAX_FIELD = 32; // a field value longer than this is not a setting anyone typed

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
  params.set("price", s.price);
  if (s.tb) params.set("tb", "1");
  return `#${params.toString()}`;
}
