// paste-guard.js: a paste or a drop that would take the text box over the
// engine's byte limit is refused before the text box holds it, so the browser
// never lays out tens of megabytes and nothing of it crosses to the worker. The
// text box keeps its previous text; `onRefused` says why, in a sentence. A file
// dropped on the box is file-open.js's to read (after the same limit); this
// guard looks at dropped text only.
//
// Typing cannot get there quickly, and a text that gets there another way is
// refused by the engine client before it crosses (engine/engine-client.js).
//
// A long paste (or a paste over a long selection) is put in by the page itself,
// with setRangeText, as if the browser had: the same text in the same place, the
// caret after it, one `input` event (inputType "insertFromPaste"). The browser's
// own paste inserts a document line by line, each line a DOM edit followed by a
// forced style and layout; in this page each of those costs far more than in a
// bare textarea (a megabyte of 20,000 lines pasted over the sample froze the tab
// for seconds to tens of seconds, over a megabyte for minutes), while a single
// value change lays the box out once. What is lost is the browser's undo step for
// that paste (Ctrl+Z does not take it back); a short paste keeps it.

import { bytesText, MAX_BYTES, measureText, overByteLimit } from "../engine/text-limit.js";

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

/**
 * A paste of at least this many UTF-16 units, or over a selection of that many, is
 * put in by the page (one value change) instead of by the browser's editing.
 */
export const LONG_PASTE_UNITS = 20_000;

/**
 * Puts `added` in place of the box's selection in one value change, the caret after
 * it, and fires the `input` event the browser's paste would have.
 * @param {HTMLTextAreaElement} box
 * @param {string} added
 */
function insertWhole(box, added) {
  box.setRangeText(added, box.selectionStart, box.selectionEnd, "end");
  box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertFromPaste" }));
}

/** Every refusal of a text for the box: the engine's sentence, and that nothing was lost. */
export function refusedText(lead, what, size) {
  return `${lead}: ${overByteLimit({ what, size })}. The previous text is kept.`;
}

/**
 * @param {HTMLTextAreaElement} box
 * @param {(message: string) => void} onRefused
 */
export function guardPaste(box, onRefused) {
  const check = (event, data, verb) => {
    if (verb === "dropped" && data?.types?.includes("Files")) return; // a file: file-open.js
    const added = data?.getData("text/plain") ?? "";
    const size = sizeWith(box, added);
    if (!size.over) {
      const long = added.length >= LONG_PASTE_UNITS || box.selectionEnd - box.selectionStart >= LONG_PASTE_UNITS;
      if (verb === "pasted" && long) {
        event.preventDefault();
        insertWhole(box, added);
      }
      return;
    }
    event.preventDefault();
    onRefused(refusedText(`The ${verb} text was not put in`, "the text", `${bytesText(size)} of UTF-8`));
  };
  box.addEventListener("paste", (event) => check(event, event.clipboardData, "pasted"));
  box.addEventListener("drop", (event) => check(event, event.dataTransfer, "dropped"));
}
