// ask.js: one call to the engine that never throws. engine.call rejects when the
// engine itself failed (the worker died, handle() raised); every panel shows that as
// it shows a refusal, so here it becomes one, in the engine's answer shape, marked
// `failed`. A superseded call stays null (a newer call of its purpose is on its way).
//
//   await askEngine(engine, PURPOSE.budget, {op: "counts", text})
//     -> {ok: true, result} | {ok: false, error: {field, message}}
//      | {ok: false, failed: true, error: {field: null, message: "The engine failed: …"}} | null

import { messageOf } from "./protocol.js";

/**
 * @typedef {{ok: boolean, op?: string, failed?: boolean, result?: any,
 *   error?: {field: string | null, message: string}}} Answer
 */

/**
 * `engine.call(purpose, request, attachment)`, with a failure of the engine answered
 * as a refusal (`failed: true`) instead of thrown.
 * @param {{call: (purpose: string, request: object, attachment?: any) => Promise<any>}} engine
 * @param {string} purpose
 * @param {object} request
 * @param {any} [attachment]
 * @returns {Promise<Answer | null>}
 */
export async function askEngine(engine, purpose, request, attachment) {
  try {
    return await engine.call(purpose, request, attachment);
  } catch (err) {
    return { ok: false, failed: true, error: { field: null, message: `The engine failed: ${messageOf(err)}` } };
  }
}
