// number-keys.js: ArrowUp and ArrowDown step the number fields, as they do in a
// native number input (the fields are text inputs so that what a person types is
// kept as typed and judged by the engine). Shift steps by ten. The step is one unit
// of the last decimal place typed (0.25 steps by 0.01), never below the field's
// lower bound (FACTS.bounds, named by `data-bound`, or by `data-param` in the
// planning panels) nor above its upper one. The field gets an `input` event, as
// if typed.
//
//   stepText("40", +1)            -> "41"
//   stepText("0.25", -1)          -> "0.24"
//   stepText("1", -1, {low: 1})   -> "1"
//   stepText("12x", +1)           -> null   (not a number: the key does nothing)

import { FACTS } from "../facts.js";

const NUMBER = /^\s*(\d+)(?:\.(\d*))?\s*$/;

/**
 * `text` stepped by `direction` (+1 or -1) times `times` units of its last decimal
 * place, kept within `bound` (low and high; `low_open` keeps it above low); null when
 * `text` is not a plain decimal number. An empty field steps from the lower bound.
 */
export function stepText(text, direction, bound = {}, times = 1) {
  const low = bound.low ?? 0;
  const high = bound.high ?? Infinity;
  const trimmed = String(text).trim();
  if (trimmed === "") {
    const start = bound.low_open ? low + 1 : low;
    return String(Math.min(Math.max(start, bound.whole ? Math.ceil(start) : start), high));
  }
  const match = NUMBER.exec(trimmed);
  if (!match) return null;
  const places = bound.whole ? 0 : (match[2] ?? "").length;
  const scale = 10 ** places;
  const units = Number(match[1]) * scale + Number((match[2] ?? "").padEnd(places, "0") || 0);
  let next = units + direction * times;
  const lowest = bound.low_open ? Math.floor(low * scale) + 1 : Math.ceil(low * scale);
  next = Math.min(Math.max(next, lowest), Math.floor(high * scale));
  if (places === 0) return String(next);
  const whole = Math.floor(next / scale);
  return `${whole}.${String(next - whole * scale).padStart(places, "0")}`;
}

/** The bound of a field: `data-bound`, else the planning panels' `data-param`. */
function boundOf(input) {
  const name = input.dataset.bound ?? input.dataset.param;
  return (name && FACTS.bounds[name]) || {};
}

/**
 * Steps any text field with `inputmode` numeric or decimal under `root` (event
 * delegation: fields added later step too). `boundFor(input)` may name another
 * bound for a field (the overlap in percent).
 */
export function mountNumberKeys(root, boundFor = boundOf) {
  root.addEventListener("keydown", (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement) || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    const mode = input.getAttribute("inputmode");
    if (mode !== "numeric" && mode !== "decimal") return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const next = stepText(input.value, event.key === "ArrowUp" ? 1 : -1, boundFor(input), event.shiftKey ? 10 : 1);
    event.preventDefault(); // the caret stays where it is
    if (next === null || next === input.value) return;
    input.value = next;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}
