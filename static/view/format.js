// Display formatting only. Every value shown here comes from the engine
// unrounded; these functions decide how many digits a person sees.
//
//   ratio(1.3333333333333333)  -> "1.333×"     (at most 3 decimals)
//   percent(0.2)               -> "20%"        (at most 2 decimals)
//   integer(1500)              -> "1,500"
//   dollars(1.2e-05)           -> "$0.000012"  (3 significant digits below a cent)

const intFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const ratioFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });
const pctFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const tokensFmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const bigDollars = new Intl.NumberFormat("en-US", {
  style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2,
});
const centsDollars = new Intl.NumberFormat("en-US", {
  style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4,
});
const smallDollars = new Intl.NumberFormat("en-US", {
  style: "currency", currency: "USD", maximumSignificantDigits: 3,
});

const isNum = (v) => typeof v === "number" && Number.isFinite(v);

// Intl writes negatives with a hyphen; a typeset minus sign reads as a number.
const minus = (text) => text.replace("-", "\u2212");

export function integer(v) {
  return isNum(v) ? minus(intFmt.format(v)) : "–";
}

export function ratio(v) {
  return isNum(v) ? `${ratioFmt.format(v)}×` : "–";
}

export function percent(fraction) {
  return isNum(fraction) ? `${pctFmt.format(fraction * 100)}%` : "–";
}

export function tokens(v) {
  return isNum(v) ? tokensFmt.format(v) : "–";
}

export function dollars(v) {
  if (!isNum(v)) return "–";
  if (v === 0) return "$0";
  const a = Math.abs(v);
  if (a >= 1) return bigDollars.format(v);
  return a >= 0.01 ? centsDollars.format(v) : smallDollars.format(v);
}

/** A short plain number for hints, e.g. the tokens-per-unit preset 1.333. */
export function plain(v) {
  return isNum(v) ? ratioFmt.format(v) : "–";
}

const UNIT_NAMES = {
  word: ["word", "words"],
  char: ["character", "characters"],
  token: ["token", "tokens"],
};

/** "1 word", "3 words", "1,500 characters". */
export function unitCount(n, unit) {
  const [one, many] = UNIT_NAMES[unit] || ["unit", "units"];
  return `${integer(n)} ${n === 1 ? one : many}`;
}

export function unitSingular(unit) {
  return (UNIT_NAMES[unit] || ["unit"])[0];
}

export function unitPlural(unit) {
  return (UNIT_NAMES[unit] || ["unit", "units"])[1];
}

/** The summary figures: key in the engine's summary, testid, formatter, label. */
export const FIGURES = [
  { key: "chunks", testid: "summary-chunks", label: "Chunks", fmt: integer },
  { key: "stride", testid: "summary-stride", label: "Stride", fmt: integer, unit: true },
  { key: "processed_units", testid: "summary-processed", label: "Processed units", fmt: integer, unit: true },
  { key: "repeated_units", testid: "summary-repeated", label: "Repeated units", fmt: integer, unit: true },
  { key: "extra_volume", testid: "summary-extra", label: "Extra volume", fmt: percent },
  { key: "inflation", testid: "summary-inflation", label: "Inflation", fmt: ratio },
  { key: "limit_inflation", testid: "summary-limit", label: "Long-document limit", fmt: ratio },
  { key: "estimated_tokens", testid: "summary-tokens", label: "Estimated tokens", fmt: tokens },
  { key: "estimated_cost", testid: "summary-cost", label: "Estimated cost", fmt: dollars },
];
