// engine-client.js: the page's only door to the Python engine.
//
// The page imports this module; it starts the worker (static/worker.js), follows
// its start-up stages and sends requests to `pyapp.api.handle`. The same API is
// written down in docs/protocol.md, section "engine-client.js". Keep them in step.
//
//   import { Engine, STAGES } from "./engine-client.js";
//
//   const engine = new Engine({
//     onStage({ stage, detail }) {},     // "runtime" | "packages" | "engine" | "ready"
//     onReady({ timings }) {},           // {runtime_ms, packages_ms, engine_ms, total_ms}
//     onFatal({ stage, message }) {},    // start-up failed in `stage`; no call will succeed
//     onBusy(busy) {},                   // true while at least one call is in flight
//   });
//   engine.start();                      // idempotent; calls made before "ready" wait for it
//
//   // Or start first and listen later (static/start.js starts the engine before the
//   // page's other modules load): listen() sets the callbacks and replays what
//   // already happened (the last stage, ready or fatal, busy).
//   const early = new Engine(); early.start(); ... early.listen({ onStage, onReady, ... });
//
//   const response = await engine.call("view", { op: "chunk", text, unit, size, overlap });
//   if (response === null) return;       // superseded by a newer "view" call: drop it
//   if (response.ok) show(response.result); else showError(response.error);
//
// call(purpose, request) -> Promise<object | null>
//   - `purpose` is any short string ("view", "counts", "export", ...). Each new
//     call supersedes the pending call of the same purpose: the older promise
//     resolves to null at once, and its answer, if it still comes, is ignored.
//   - `request` is a plain object; it crosses to Python as JSON text.
//   - resolves to the parsed response object `{ok, op, result}` or `{ok, op, error}`
//     exactly as `pyapp.api.handle` returned it (bad input is `ok: false`, not a rejection).
//   - rejects with an Error only when `handle` itself raised (an engine bug) or the
//     engine failed to start (`error.stage` then names the stage).
//
// engine.state -> "idle" | "loading" | "ready" | "failed"
// engine.stage -> the last stage reported ("runtime" ... "ready"), or null
// engine.timings -> the `timings` of the ready message, or null
// engine.whenReady() -> Promise resolving with the timings once ready (never on failure)
// engine.terminate() -> stops the worker; pending calls resolve to null.
//
// The worker is a module worker started from a `blob:` URL whose only line
// imports static/worker.js. A worker started that way inherits the page's
// Content-Security-Policy, so the browser refuses any connection the policy does
// not allow, from the worker too.

/** Start-up stages, in order. */
export const STAGES = Object.freeze(["runtime", "packages", "engine", "ready"]);

const WORKER_URL = new URL("./worker.js", import.meta.url).href;

/**
 * @typedef {{type: "stage", stage: string, detail: string}
 *   | {type: "ready", timings: Record<string, number>}
 *   | {type: "fatal", stage: string, message: string}
 *   | {type: "result", id: number, response: string}
 *   | {type: "skipped", id: number}
 *   | {type: "error", id: number, message: string}} WorkerMessage
 * @typedef {{type: "call", id: number, purpose: string, request: string}} PageMessage
 */

export class Engine {
  /**
   * @param {{onStage?: Function, onReady?: Function, onFatal?: Function, onBusy?: Function}} [callbacks]
   */
  constructor({ onStage, onReady, onFatal, onBusy } = {}) {
    this._callbacks = { onStage, onReady, onFatal, onBusy };
    /** @type {{stage: string, detail: string} | null} the last stage message, for listen() */
    this._lastStage = null;
    /** Resolves when the engine is ready; never rejects (see whenReady). */
    this._readyPromise = new Promise((resolve) => {
      this._resolveReady = resolve;
    });
    this._worker = null;
    this._nextId = 1;
    /** @type {Map<number, {purpose: string, resolve: Function, reject: Function}>} */
    this._pending = new Map();
    /** @type {Map<string, number>} newest id per purpose */
    this._newest = new Map();
    /** @type {Map<string, string>} JSON text of the last few long request texts */
    this._textJson = new Map();
    this._fatal = null;
    this._busy = false;
    this.state = "idle";
    this.stage = null;
    this.timings = null;
  }

  /**
   * Sets the callbacks, then replays what already happened: the last stage, or
   * ready, or fatal, and busy if a call is in flight.
   * @param {{onStage?: Function, onReady?: Function, onFatal?: Function, onBusy?: Function}} callbacks
   */
  listen({ onStage, onReady, onFatal, onBusy } = {}) {
    this._callbacks = { onStage, onReady, onFatal, onBusy };
    if (this.state === "failed") {
      onFatal?.({ stage: this._fatal.stage, message: this._fatalMessage });
      return;
    }
    if (this._lastStage !== null) onStage?.(this._lastStage);
    if (this.state === "ready") onReady?.({ timings: this.timings });
    if (this._busy) onBusy?.(true);
  }

  /** A promise that resolves once the engine is ready (never, if start-up fails). */
  whenReady() {
    return this._readyPromise;
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
      this._fail("runtime", `could not start the worker: ${err && err.message ? err.message : err}`);
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
   * Sends one request to `pyapp.api.handle`.
   * @param {string} purpose
   * @param {object} request
   * @returns {Promise<object | null>}
   */
  call(purpose, request) {
    if (this._fatal !== null) return Promise.reject(this._fatal);
    this.start();
    const id = this._nextId++;
    const older = this._newest.get(purpose);
    if (older !== undefined) this._settle(older, null);
    this._newest.set(purpose, id);
    const promise = new Promise((resolve, reject) => {
      this._pending.set(id, { purpose, resolve, reject });
    });
    this._busyChanged();
    /** @type {PageMessage} */
    const message = { type: "call", id, purpose, request: this._requestJson(request) };
    this._worker?.postMessage(message);
    return promise;
  }

  /**
   * The request as JSON text. The text of the last few requests is encoded once
   * (the page sends the same megabyte on every edit of a field), and the request
   * is written as `{"text": <that>, ...the other members}`: the same JSON value.
   */
  _requestJson(request) {
    if (typeof request.text !== "string" || request.text.length < 4096) return JSON.stringify(request);
    const { text, ...rest } = request;
    let encoded = this._textJson.get(text);
    if (encoded === undefined) {
      encoded = JSON.stringify(text);
      this._textJson.set(text, encoded);
      if (this._textJson.size > 2) this._textJson.delete(this._textJson.keys().next().value);
    }
    const others = JSON.stringify(rest);
    return `{"text":${encoded}${others === "{}" ? "" : `,${others.slice(1, -1)}`}}`;
  }

  /** Stops the worker; pending calls resolve to null. */
  terminate() {
    this._worker?.terminate();
    this._worker = null;
    for (const id of [...this._pending.keys()]) this._settle(id, null);
    this.state = "idle";
  }

  /** @param {WorkerMessage} message */
  _receive(message) {
    switch (message.type) {
      case "stage":
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
      case "skipped":
        this._settle(message.id, null);
        break;
      case "error":
        this._settle(message.id, new Error(`the engine raised: ${message.message}`));
        break;
      default:
        console.warn("engine-client: unknown worker message", message);
    }
  }

  /** Resolves (or rejects, for an Error) the pending call `id`, once. */
  _settle(id, outcome) {
    const entry = this._pending.get(id);
    if (entry === undefined) return;
    this._pending.delete(id);
    if (this._newest.get(entry.purpose) === id) this._newest.delete(entry.purpose);
    if (outcome instanceof Error) entry.reject(outcome);
    else entry.resolve(outcome);
    this._busyChanged();
  }

  _fail(stage, message) {
    if (this._fatal !== null) return;
    const error = new Error(`the engine failed to start (${stage}): ${message}`);
    error.stage = stage;
    this._fatal = error;
    this._fatalMessage = message;
    this.state = "failed";
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
