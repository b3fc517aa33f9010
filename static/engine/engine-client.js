// engine-client.js: the page's only door to the Python engine.
//
// The page imports this module; it starts the worker (worker.js, beside it),
// follows its start-up stages and sends requests to `pyapp.web.api.handle`. The
// same API is written down in docs/protocol.md, section "engine-client.js"; the
// messages are declared in protocol.js. Keep them in step.
//
//   import { Engine } from "./engine-client.js";
//   import { PURPOSE, STAGES } from "./protocol.js";
//
//   const engine = new Engine({
//     onStage({ stage, detail }) {},     // "runtime" | "packages" | "engine" | "ready"
//     onReady({ timings }) {},           // {runtime_ms, packages_ms, engine_ms, total_ms}
//     onFatal({ stage, message }) {},    // start-up failed in `stage`; no call will succeed
//     onBusy(busy) {},                   // true while at least one call is in flight
//     onOutcome(error) {},               // a call settled: the Error when the engine failed
//                                        // on it (a bug), null when it was answered
//     onVocabulary({ encoding, state, message }) {}, // an encoding's vocabulary wheel:
//   });                                  // "loading" | "reading" | "ready" | "failed"
//   engine.start();                      // idempotent; calls made before "ready" wait for it
//
//   // Or start first and listen later (static/start.js starts the engine before the
//   // page's other modules load): listen() sets the callbacks and replays what
//   // already happened (the last stage, ready or fatal, busy).
//   const early = new Engine(); early.start(); ... early.listen({ onStage, onReady, ... });
//
//   const response = await engine.call(PURPOSE.view, { op: "chunk", text, unit, size, overlap });
//   if (response === null) return;       // superseded by a newer "view" call: drop it
//   if (response.ok) show(response.result); else showError(response.error);
//
// call(purpose, request) -> Promise<object | null>
//   - `purpose` is one of PURPOSE (pyapp/facts.py). "Newest call wins", and this
//     client is the one place that decides it (supersede() below): each new call
//     supersedes the pending call of the same purpose, and a new "view" call also
//     the pending calls of the purposes that follow a view (FACTS.view_followers:
//     its checks, the text view's pages, the cards by range, the sweep). The older
//     promise resolves to null at once, the worker is told to drop that call (it
//     never computes it if it has not begun it), and its answer, if one still
//     comes, is ignored.
//   - `request` is a plain object; it crosses to Python as JSON text. A `text`
//     over the engine's byte limit never crosses: the call is answered here, as
//     the engine would answer it (`ok: false`, field "text"), after bounded work.
//     A text of 4,096 characters or more crosses once; later calls with the same
//     text name it. The caller always passes `text` as it is.
//   - resolves to the parsed response object `{ok, op, result}` or `{ok, op, error}`
//     exactly as `pyapp.web.api.handle` returned it (bad input is `ok: false`, not a rejection).
//   - rejects with an Error only when `handle` itself raised (an engine bug: one
//     line here, the traceback on the console) or the engine failed to start
//     (`error.stage` then names the stage).
//
// engine.state -> "idle" | "loading" | "ready" | "failed"
// engine.stage -> the last stage reported ("runtime" ... "ready"), or null
// engine.timings -> the `timings` of the ready message, or null
// engine.vocabularies -> Map(encoding -> the last vocabulary message for it)
// engine.whenReady() -> Promise resolving with the timings once ready (never on failure)
// engine.whenRunning() -> Promise resolving once the worker runs (its first stage) or failed
// engine.terminate() -> stops the worker; pending calls resolve to null.
//
// The worker is a module worker started from a `blob:` URL whose only line
// imports worker.js. A worker started that way inherits the page's
// Content-Security-Policy, so the browser refuses any connection the policy does
// not allow, from the worker too.

import { FACTS } from "../facts.js";
import { messageOf, PURPOSE } from "./protocol.js";
import { measureText, overLimitMessage } from "./text-limit.js";

const WORKER_URL = new URL("./worker.js", import.meta.url).href;

// A text this long is sent to the engine once (op "text", under a ref this client
// chooses) and later requests name it (`text_ref`) instead of carrying it again.
const LONG_TEXT = 4096;
// Texts this client remembers having sent: fewer than the engine holds, so a ref
// it still uses is normally still held. One that is not gets sent again.
const TEXTS_KEPT = FACTS.texts_kept;
const PURPOSES = new Set(Object.values(PURPOSE));
const VIEW_FOLLOWERS = new Set(FACTS.view_followers);

export class Engine {
  /**
   * @param {{onStage?: Function, onReady?: Function, onFatal?: Function, onBusy?: Function,
   *   onOutcome?: Function, onVocabulary?: Function}} [callbacks]
   */
  constructor(callbacks = {}) {
    this._callbacks = callbacks;
    /** @type {{stage: string, detail: string} | null} the last stage message, for listen() */
    this._lastStage = null;
    /** Resolves when the engine is ready; never rejects (see whenReady). */
    this._readyPromise = new Promise((resolve) => {
      this._resolveReady = resolve;
    });
    /** Resolves at the worker's first stage message, or when start-up fails. */
    this._runningPromise = new Promise((resolve) => {
      this._resolveRunning = resolve;
    });
    this._worker = null;
    this._nextId = 1;
    /** @type {Map<number, {purpose: string, resolve: Function, reject: Function}>} */
    this._pending = new Map();
    /** @type {Map<string, string>} the ref of each long text the engine was sent */
    this._refs = new Map();
    this._nextRef = 1;
    this._fatal = null;
    this._busy = false;
    this.state = "idle";
    this.stage = null;
    this.timings = null;
    /** @type {Map<string, {encoding: string, state: string, message?: string}>} */
    this.vocabularies = new Map();
  }

  /**
   * Sets the callbacks, then replays what already happened: the last stage, or
   * ready, or fatal, and busy if a call is in flight.
   * @param {{onStage?: Function, onReady?: Function, onFatal?: Function, onBusy?: Function,
   *   onOutcome?: Function, onVocabulary?: Function}} callbacks
   */
  listen(callbacks = {}) {
    this._callbacks = callbacks;
    const { onStage, onReady, onFatal, onBusy, onVocabulary } = callbacks;
    if (this.state === "failed") {
      onFatal?.({ stage: this._fatal.stage, message: this._fatalMessage });
      return;
    }
    if (this._lastStage !== null) onStage?.(this._lastStage);
    if (this.state === "ready") onReady?.({ timings: this.timings });
    for (const vocabulary of this.vocabularies.values()) onVocabulary?.(vocabulary);
    if (this._busy) onBusy?.(true);
  }

  /** A promise that resolves once the engine is ready (never, if start-up fails). */
  whenReady() {
    return this._readyPromise;
  }

  /**
   * A promise that resolves once the worker runs: its modules are loaded and its first
   * stage has begun (or start-up failed). Never rejects.
   */
  whenRunning() {
    return this._runningPromise;
  }

  /** Starts the worker once; later calls do nothing. */
  start() {
    if (this._worker !== null || this.state === "failed") return;
    this.state = "loading";
    const source = `import ${JSON.stringify(WORKER_URL)};\n`;
    const blobUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    try {
      this._worker = new Worker(blobUrl, { type: "module", name: "engine" });
    } catch (err) {
      this._fail("runtime", `could not start the worker: ${messageOf(err)}`);
      return;
    } finally {
      URL.revokeObjectURL(blobUrl);
    }
    this._worker.onmessage = (event) => this._receive(event.data);
    this._worker.onerror = (event) => {
      event.preventDefault();
      this._fail(this.stage ?? "runtime", event.message || "the worker script failed to load");
    };
    this._worker.onmessageerror = () => this._fail(this.stage ?? "runtime", "a worker message could not be read");
  }

  /**
   * Sends one request to `pyapp.web.api.handle`. A text over the byte limit is
   * refused here. A long `text` crosses once: the request names it by `text_ref`;
   * if the engine no longer holds it (its answer blames `text_ref`), the text is
   * sent again and the request repeated, once.
   * @param {string} purpose one of PURPOSE
   * @param {object} request
   * @param {{field: string, bytes: ArrayBuffer} | null} [attachment] bytes the worker
   *   adds to the request as the base64 string `field` (the buffer is transferred)
   * @returns {Promise<object | null>}
   */
  call(purpose, request, attachment = null) {
    if (!PURPOSES.has(purpose)) return Promise.reject(new TypeError(`unknown call purpose ${JSON.stringify(purpose)}`));
    if (this._fatal !== null) return Promise.reject(this._fatal);
    this.start();
    const text = request.text;
    if (typeof text === "string") {
      const size = this._measure(text);
      if (size.over) return this._refuse(purpose, request.op, { field: "text", message: overLimitMessage(size) });
    }
    if (typeof text !== "string" || text.length < LONG_TEXT) return this._send(purpose, JSON.stringify(request), attachment);
    const { text: _, ...rest } = request;
    const named = () => JSON.stringify({ ...rest, text_ref: this._holdText(text) });
    return this._send(purpose, named()).then((response) => {
      if (response === null || response.ok || response.error?.field !== "text_ref") return response;
      this._refs.delete(text);
      return this._send(purpose, named());
    });
  }

  /**
   * measureText, remembered for the last text: every call about one text (the view,
   * its text view pages, the sweep) measures it once, not a megabyte per call.
   */
  _measure(text) {
    if (this._measured?.text !== text) this._measured = { text, size: measureText(text) };
    return this._measured.size;
  }

  /** Answers a call here, as the engine would have: it supersedes as a posted one does. */
  _refuse(purpose, op, error) {
    this._supersede(purpose);
    return Promise.resolve({ ok: false, op: op ?? null, error });
  }

  /**
   * "Newest call wins", the one rule for it: a new call of `purpose` supersedes the
   * pending call of that purpose, and a new view call those of the purposes that
   * follow a view too. Each superseded call resolves to null now, and the worker
   * drops it ({type: "drop", id}) unless it has begun it.
   */
  _supersede(purpose) {
    for (const [id, entry] of [...this._pending]) {
      if (entry.purpose !== purpose && !(purpose === PURPOSE.view && VIEW_FOLLOWERS.has(entry.purpose))) continue;
      this._settle(id, null);
      /** @type {import("./protocol.js").PageMessage} */
      const drop = { type: "drop", id };
      this._worker?.postMessage(drop);
    }
  }

  /** Posts one call; the promise settles with its parsed answer (null if superseded). */
  _send(purpose, requestJson, attachment = null) {
    const id = this._nextId++;
    this._supersede(purpose);
    const promise = new Promise((resolve, reject) => {
      this._pending.set(id, { purpose, resolve, reject });
    });
    this._busyChanged();
    /** @type {import("./protocol.js").PageMessage} */
    const message = attachment ? { type: "call", id, purpose, request: requestJson, attachment } : { type: "call", id, purpose, request: requestJson };
    this._worker?.postMessage(message, attachment ? [attachment.bytes] : []);
    return promise;
  }

  /**
   * The ref under which the engine holds `text`, sending it first if needed (a
   * call of purpose "text", which the worker never skips and answers before any
   * call posted after it). Its answer is not waited for: a failure shows up as the
   * next request's `text_ref` error.
   */
  _holdText(text) {
    let ref = this._refs.get(text);
    if (ref !== undefined) return ref;
    ref = `t${this._nextRef++}`;
    this._refs.set(text, ref);
    if (this._refs.size > TEXTS_KEPT) this._refs.delete(this._refs.keys().next().value);
    /** @type {import("./protocol.js").PageMessage} */
    const message = { type: "call", id: this._nextId++, purpose: PURPOSE.text, request: JSON.stringify({ op: "text", ref, text }) };
    this._worker?.postMessage(message);
    return ref;
  }

  /**
   * The page is about to lay out and draw a large new text: the engine's background
   * warm-up waits until `drawn` settles, so it does not take the processor meanwhile.
   * @param {Promise<unknown>} drawn
   */
  holdBackground(drawn) {
    /** @type {import("./protocol.js").PageMessage} */
    const hold = { type: "hold", on: true };
    this._worker?.postMessage(hold);
    const release = () => this._worker?.postMessage({ type: "hold", on: false });
    drawn.then(release, release);
  }

  /**
   * Lets a peer worker call the engine through `port` (transferred), with the same
   * `call`/`result` messages as the page: the embedder's, so the ids and hidden
   * states of a dense job go from worker to worker, not through the page's thread.
   * @param {MessagePort} port
   */
  connect(port) {
    this.start();
    /** @type {import("./protocol.js").PageMessage} */
    const message = { type: "port", port };
    this._worker?.postMessage(message, [port]);
  }

  /** Stops the worker; pending calls resolve to null. */
  terminate() {
    this._worker?.terminate();
    this._worker = null;
    this._refs.clear(); // a new worker holds no text
    for (const id of [...this._pending.keys()]) this._settle(id, null);
    this.state = "idle";
  }

  /** @param {import("./protocol.js").WorkerMessage} message */
  _receive(message) {
    switch (message.type) {
      case "stage":
        this._resolveRunning();
        this.stage = message.stage;
        this._lastStage = { stage: message.stage, detail: message.detail };
        this._callbacks.onStage?.({ stage: message.stage, detail: message.detail });
        break;
      case "ready":
        this.stage = "ready";
        this.state = "ready";
        this.timings = message.timings;
        this._resolveReady(message.timings);
        this._callbacks.onReady?.({ timings: message.timings });
        break;
      case "fatal":
        this._fail(message.stage, message.message);
        break;
      case "result": {
        // When the newest answer of each purpose reached the page (for profilers
        // and the benchmark): what follows is parsing and rendering.
        const purpose = this._pending.get(message.id)?.purpose;
        if (purpose !== undefined) {
          performance.clearMarks(`engine:answer:${purpose}`);
          performance.mark(`engine:answer:${purpose}`);
        }
        let response;
        try {
          response = JSON.parse(message.response);
        } catch (err) {
          this._settle(message.id, new Error(`the engine answered with text that is not JSON: ${err.message}`));
          break;
        }
        this._settle(message.id, response);
        break;
      }
      case "vocabulary": {
        const { encoding, state, message: why } = message;
        const vocabulary = why === undefined ? { encoding, state } : { encoding, state, message: why };
        this.vocabularies.set(encoding, vocabulary);
        this._callbacks.onVocabulary?.(vocabulary);
        break;
      }
      case "error":
        this._settle(message.id, new Error(`the engine failed on this request: ${message.message}`));
        break;
      default:
        console.warn("engine-client: unknown worker message", message);
    }
  }

  /**
   * Resolves (or rejects, for an Error) the pending call `id`, once. An answer or an
   * engine failure is reported to onOutcome, so a failure shows only until the
   * next call is answered; a superseded call (null) reports nothing.
   */
  _settle(id, outcome) {
    const entry = this._pending.get(id);
    if (entry === undefined) return;
    this._pending.delete(id);
    if (outcome instanceof Error) entry.reject(outcome);
    else entry.resolve(outcome);
    if (outcome !== null && this._fatal === null) this._callbacks.onOutcome?.(outcome instanceof Error ? outcome : null);
    this._busyChanged();
  }

  _fail(stage, message) {
    if (this._fatal !== null) return;
    const error = /** @type {Error & {stage?: string}} */ (new Error(`the engine failed to start (${stage}): ${message}`));
    error.stage = stage;
    this._fatal = error;
    this._fatalMessage = message;
    this.state = "failed";
    this._resolveRunning();
    this._worker?.terminate();
    this._worker = null;
    for (const id of [...this._pending.keys()]) this._settle(id, error);
    this._callbacks.onFatal?.({ stage, message });
  }

  _busyChanged() {
    const busy = this._pending.size > 0;
    if (busy !== this._busy) {
      this._busy = busy;
      this._callbacks.onBusy?.(busy);
    }
  }
}
