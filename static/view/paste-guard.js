// paste-guard.js: a paste or a drop that would take the text box over the
// engine's byte limit is refused before the text box holds it, so the browser
// never lays out tens of megabytes and nothing of it crosses to the worker. The
// text box keeps its previous text; `onRefused` says why, in a sentence. A file
// dropped on the box is file-open.js's to read (after the same limit); this
// guard looks at dropped text only.
//
// Typing cannot get there quickly, and a text that gets there another way is
// refused by the engine client before it crosses (engine/engine-client.js).

import { bytesText, MAX_BYTES, measureText } from "../engine/text-limit.js";
import * as fmt from "./format.js";

/**
 * The size of the box's text with `added` in place of its selection. Bounded
 * work: a result longer in UTF-16 units than the limit is over it unbuilt.
 */
function sizeWith(box, added) {
  const { value, selectionStart: start, selectionEnd: end } = box;
  const length = value.length - (end - start) + added.length;
  if (length > MAX_BYTES) return { bytes: length, chars: null, exact: false, over: true };
  return measureText(value.slice(0, start) + added + value.slice(end));
}

/** The second half of every refusal: the limit, and that nothing was lost. */
export function overLimitTail() {
  return `over the ${fmt.integer(MAX_BYTES)}-byte limit. The previous text is kept.`;
}

/**
 * @param {HTMLTextAreaElement} box
 * @param {(message: string) => void} onRefused
 */
export function guardPaste(box, onRefused) {
  const check = (event, data, verb) => {
    if (verb === "dropped" && data?.types?.includes("Files")) return; // a file: file-open.js
    const size = sizeWith(box, data?.getData("text/plain") ?? "");
    if (!size.over) return;
    event.preventDefault();
    onRefused(`The ${verb} text was not put in: the text would be ${bytesText(size)}, ${overLimitTail()}`);
  };
  box.addEventListener("paste", (event) => check(event, event.clipboardData, "pasted"));
  box.addEventListener("drop", (event) => check(event, event.dataTransfer, "dropped"));
}
