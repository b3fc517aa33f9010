// Display formatting only. Every value shown here comes from the engine
// unrounded; these functions decide how many digits a person sees.
//
//   ratio(1.3333333333333333)  -> "1.333×"     (at most 3 decimals)
//   percent(0.2)               -> "20%"        (at most 2 decimals)
//   integer(1500)              -> "1,500"
//   dollars(1.2e-05)           -> "$0.000012"  (3 significant digits below a cent)
//   byteSize(1536000)          -> "1.536 MB"   (decimal units; the exact count goes in a title)
//   byteSize(2149000, {about: true}) -> "2.1 MB" (an estimate: 2 significant digits)
//   wholeNumber(1234.6)        -> 1235         (for a data attribute; integer() for people)
//   percentValue(15)           -> "15%"        (a figure already in percent)
//   unitCount(3, "word")       -> "3 words"    (unit names from pyapp/facts.py)

import { FACTS } from "../facts.js";

// Each formatter is made when first used: start.js imports this module (through the
// engine client) before it starts the engine's worker, and making all eight at once
// held that start back (about 40 ms of the page's thread, profiled on a cold visit).
/** @param {Intl.NumberFormatOptions} options */
function formatter(options) {
  /** @type {Intl.NumberFormat | null} */
  let made = null;
  return () => (made ??= new Intl.NumberFormat("en-US", options));
}
const intFmt = formatter({ maximumFractionDigits: 0 });
const ratioFmt = formatter({ maximumFractionDigits: 3 });
const pctFmt = formatter({ maximumFractionDigits: 2 });
const tokensFmt = formatter({ maximumFractionDigits: 2 });
const aboutFmt = formatter({ maximumSignificantDigits: 2 });
const bigDollars = formatter({ style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const centsDollars = formatter({ style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 4 });
const smallDollars = formatter({ style: "currency", currency: "USD", maximumSignificantDigits: 3 });

const isNum = (v) => typeof v === "number" && Number.isFinite(v);

// Intl writes negatives with a hyphen; a typeset minus sign reads as a number.
const minus = (text) => text.replace("-", "\u2212");

export function integer(v) {
  return isNum(v) ? minus(intFmt().format(v)) : "–";
}

export function ratio(v) {
  return isNum(v) ? `${ratioFmt().format(v)}×` : "–";
}

export function percent(fraction) {
  return isNum(fraction) ? `${pctFmt().format(fraction * 100)}%` : "–";
}

/** A figure the engine gives in percent (15 for 15%): at most 2 decimals. */
export function percentValue(v) {
  return isNum(v) ? `${pctFmt().format(v)}%` : "–";
}

/** A measured figure (milliseconds, seconds) as a whole number, for an attribute. */
export function wholeNumber(v) {
  return Math.round(v);
}

/** An estimate of tokens, which may be fractional: at most 2 decimals. */
export function tokens(v) {
  return isNum(v) ? tokensFmt().format(v) : "–";
}

export function dollars(v) {
  if (!isNum(v)) return "–";
  if (v === 0) return "$0";
  const a = Math.abs(v);
  if (a >= 1) return bigDollars().format(v);
  return a >= 0.01 ? centsDollars().format(v) : smallDollars().format(v);
}

/** A short plain number for hints, e.g. a tokens-per-unit ratio. */
export function plain(v) {
  return isNum(v) ? ratioFmt().format(v) : "–";
}

/** @type {[string, number][]} */
const BYTE_UNITS = [["TB", 1e12], ["GB", 1e9], ["MB", 1e6], ["kB", 1e3]];

/**
 * A readable size for a byte count (decimal units, display only): at most 3 decimals,
 * or with `about` (an estimate) 2 significant digits ("68 MB", "2.1 MB", "94 kB").
 * @param {number} v
 * @param {{about?: boolean}} [how]
 */
export function byteSize(v, { about = false } = {}) {
  if (!isNum(v)) return "–";
  if (v < 1000) return `${integer(v)} B`;
  const [name, div] = BYTE_UNITS.find(([, d]) => v >= d);
  return `${(about ? aboutFmt : ratioFmt)().format(v / div)} ${name}`;
}

const UNITS = new Map(FACTS.units.map((unit) => [unit.name, unit]));

/** "1 word", "3 words", "1,500 characters". */
export function unitCount(n, unit) {
  return `${integer(n)} ${n === 1 ? unitSingular(unit) : unitPlural(unit)}`;
}

export function unitSingular(unit) {
  return UNITS.get(unit)?.singular ?? "unit";
}

export function unitPlural(unit) {
  return UNITS.get(unit)?.plural ?? "units";
}
