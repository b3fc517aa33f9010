// protocol.js: what the page and the engine's worker say to each other. Both
// sides import it; docs/protocol.md, section 1, is the contract in prose.
//
// Messages are tagged objects, each side with one `switch` on `type`:
/**
 * @typedef {{type: "stage", stage: string, detail: string}
 *   | {type: "ready", timings: Record<string, number | string>}
 *   | {type: "fatal", stage: string, message: string}
 *   | {type: "result", id: number, response: string}
 *   | {type: "error", id: number, message: string}
 *   | {type: "vocabulary", encoding: string, state: "loading" | "reading" | "ready" | "failed",
 *      message?: string}} WorkerMessage
 */
//   `response` is the JSON text handle() returned; `error`: handle() itself raised (a bug, never
//   bad input), `message` one line naming the exception, the traceback on the console;
//   `vocabulary`: how far the load of an encoding's vocabulary wheel got (the call
//   that needed it is answered after "ready", or as an encoding error after "failed").
//
/**
 * @typedef {{type: "call", id: number, purpose: string, request: string, attachment?: {field: string, bytes: ArrayBuffer}}
 *   | {type: "drop", id: number} | {type: "hold", on: boolean} | {type: "port", port: MessagePort}} PageMessage
 */
//   `request` is JSON text for pyapp.web.api.handle. `attachment` (transferred, not
//   copied): bytes the worker adds to the request as the base64 string `field`.
//   `drop`: the page no longer wants the answer to call `id` (a newer call superseded
//   it, engine-client.js decides which): the worker forgets it unless it has begun it.
//   `hold`: the page draws a large new text; the warm-up waits from `on: true` to `on: false`.
//   `port` (transferred): a peer worker (the embedder) sends `call` messages through it
//   and gets their `result`/`error` back on it; the page cannot drop those calls.

import { FACTS } from "../facts.js";

/** Start-up stages, in order: the worker reports each; the page names them. */
export const STAGES = Object.freeze(["runtime", "packages", "engine", "ready"]);

/**
 * Call purposes, by name (pyapp/facts.py PURPOSES): a newer call of a purpose
 * supersedes the older one, whose answer is dropped. `PURPOSE.view` and so on.
 */
export const PURPOSE = Object.freeze(Object.fromEntries(FACTS.purposes.map((name) => [name, name])));

/** Purposes whose calls wait while a call of any other purpose waits. */
export const BACKGROUND = Object.freeze(new Set(FACTS.background_purposes));

/** The message of anything thrown (an Error, a PythonError, a string), trimmed. */
export function messageOf(err) {
  if (err && typeof err === "object" && "message" in err) return String(err.message).trim();
  return String(err);
}

/** The sha256 of `bytes`, in lowercase hex: how the workers check what they fetched. */
export async function sha256Hex(/** @type {ArrayBuffer} */ bytes) {
  return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join("");
}
