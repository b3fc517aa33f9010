// file-open.js: a local text file put into the text box, from the file input or
// dropped onto the box. The file is read here, in the page: nothing is uploaded
// (the page's security policy forbids connecting anywhere but this site anyway).
//
// - A file over the byte limit is refused from its size alone, before a byte of it
//   is read, in the words paste-guard.js uses for a paste.
// - A file that is not UTF-8 is refused with the offset of the first byte that is
//   not part of a valid character, as the command line says it
//   (`byte 0xff at offset 1,234`).
// - A leading byte-order mark is kept in the box, as the command line reads the
//   file, so the download stays the command line's: the engine leaves it out of
//   every count and offset and says so (`bom_removed`), and the page shows a note.
//
// - From the moment a file is chosen or dropped until its text is drawn in the box,
//   `onOpening(drawn)` lets the page hold its background work (`drawn` settles then):
//   laying out a megabyte is the box's one big cost, and on a busy machine the
//   engine's warm-up took the processor from it.
//
//   firstInvalidUtf8(Uint8Array.of(0x61, 0xff)) -> 1
//   mountFileOpen({ input, box, onText(text, name) {}, onRefused(message) {}, onOpening(drawn) {} })

import { MAX_BYTES } from "../engine/text-limit.js";
import * as fmt from "./format.js";
import { refusedText } from "./paste-guard.js";

/**
 * The offset of the first byte that starts no valid UTF-8 sequence (the start of a
 * sequence cut short or malformed), or -1 when every byte is valid. The same offset
 * Python's strict decoder reports (`UnicodeDecodeError.start`).
 * @param {Uint8Array} bytes
 */
export function firstInvalidUtf8(bytes) {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    let follow;
    if (lead >= 0xc2 && lead <= 0xdf) follow = 1;
    else if (lead >= 0xe0 && lead <= 0xef) follow = 2;
    else if (lead >= 0xf0 && lead <= 0xf4) follow = 3;
    else return i; // a continuation byte, an overlong lead (C0, C1) or past U+10FFFF
    // The second byte's range excludes overlong forms, surrogates and past U+10FFFF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    if (i + 1 >= n || bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (let k = 2; k <= follow; k += 1) {
      if (i + k >= n || bytes[i + k] < 0x80 || bytes[i + k] > 0xbf) return i;
    }
    i += follow + 1;
  }
  return -1;
}

/** A file name as a message quotes it: at most 40 characters. */
function shortName(name) {
  if (!name) return "The file";
  return name.length > 40 ? `${name.slice(0, 24)}…${name.slice(-15)}` : name;
}

/**
 * Reads `file` as UTF-8 text: `{text}`, or `{refused: message}` (too large, not
 * UTF-8, unreadable). The size is checked before anything is read.
 * @param {File} file
 */
export async function readTextFile(file) {
  const name = shortName(file.name);
  if (file.size > MAX_BYTES) {
    return { refused: refusedText(`${name} not opened`, "it", `${fmt.integer(file.size)} bytes`) };
  }
  let bytes;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (err) {
    return { refused: `${name} could not be read (${err?.message || err}). The previous text is kept.` };
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    const at = firstInvalidUtf8(bytes);
    const byte = bytes[at].toString(16).padStart(2, "0");
    return {
      refused: `${name} not opened: it is not UTF-8 (byte 0x${byte} at offset ${fmt.integer(at)}). Convert it to UTF-8 first.`,
    };
  }
}

/** Resolves once the next frame is drawn (a task after its animation frame). */
function afterNextFrame() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve(undefined);
      channel.port2.postMessage(null);
    });
  });
}

/**
 * Wires the file input and drops onto the box. `onText(text, name)` gets a file's
 * text; `onRefused(message)` says why a file was not opened; `onOpening(drawn)` is
 * told a file is being opened, `drawn` settling once the box is drawn with it (or
 * the file refused).
 * @param {{input: HTMLInputElement, box: HTMLTextAreaElement, onText: Function, onRefused: Function,
 *   onOpening?: (drawn: Promise<unknown>) => void}} options
 */
export function mountFileOpen({ input, box, onText, onRefused, onOpening }) {
  const open = async (files) => {
    const file = files?.[0];
    if (!file) return;
    /** @type {(value?: unknown) => void} */
    let drawn = () => {};
    onOpening?.(new Promise((resolve) => { drawn = resolve; }));
    try {
      const got = await readTextFile(file);
      if (got.refused) onRefused(got.refused);
      else {
        onText(got.text, file.name, files.length);
        await afterNextFrame();
      }
    } finally {
      drawn();
    }
  };
  input.addEventListener("change", async () => {
    await open(input.files);
    input.value = ""; // the same file can be opened again
  });
  const carriesFiles = (event) => event.dataTransfer?.types?.includes("Files");
  box.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault(); // without it the browser would open the file in the tab
    event.dataTransfer.dropEffect = "copy";
    box.classList.add("is-drop-target");
  });
  box.addEventListener("dragleave", () => box.classList.remove("is-drop-target"));
  box.addEventListener("drop", (event) => {
    box.classList.remove("is-drop-target");
    if (!carriesFiles(event)) return; // dropped text: the box takes it (paste-guard.js checks it)
    event.preventDefault();
    open(event.dataTransfer.files);
  });
}
