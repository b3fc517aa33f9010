// embed-worker.js: runs the all-MiniLM-L6-v2 ONNX model with ONNX Runtime Web
// (WebAssembly, one thread), off the page's thread and beside the Python engine's
// worker, so neither is ever blocked by the model.
//
// Started by static/tools/dense.js, only when dense retrieval is first asked for, as
// a module worker from a blob: URL that imports this file (so the page's
// Content-Security-Policy applies here too). Everything comes from this site:
// ONNX Runtime Web from ort/, the model from models/ (the service worker keeps both
// once they have been fetched). The model's bytes are checked against the sha256 the
// engine names before a session is made from them.
//
// This worker holds no rule: it runs the session on the ids the engine gave it and
// hands the engine `last_hidden_state` as it came out (float32, row by row). Pooling,
// normalization, ranking and every figure are the engine's (pyapp/core/dense.py).
//
// It talks to the engine's worker directly, over a MessageChannel the page makes for
// each job ({type: "port"} to the engine's worker, `port` here): the ids (megabytes
// for a long text) and the hidden states (3 MB a batch) go from worker to worker and
// never through the page's thread. The page only gets each batch's pooled vectors
// (to keep in IndexedDB) and a count. On the port this worker is an engine client
// like the page: `{type: "call", id, purpose, request, attachment?}` out,
// `{type: "result" | "error", id, ...}` back (docs/protocol.md, section 1).
//
// Messages with the page, one switch on `type` each way:
//
/** @typedef {{type: "load", runtime: string, wasm: string, model: string, sha256: string, bytes: number} | {type: "embed", job: number, port: MessagePort, request: object} | {type: "cancel", job: number}} EmbedRequest */
//   `runtime`: ort.wasm.min.mjs's URL; `wasm`: its .wasm; `model`: model.onnx's URL.
//   `embed`: `request` is op `dense_plan` with `held` (the keys the page's cache has);
//   each batch of its answer is run and pooled (op `dense_pool`, the hidden states as
//   the call's transferred attachment), in order. `cancel`: stop before the next batch.
//
/** @typedef {{type: "progress", stage: "runtime" | "model" | "session", loaded: number, total: number} | {type: "loaded", ms: number} | {type: "failed", stage: string, message: string} | {type: "planned", job: number, texts: number, tokens: number} | {type: "embedded", job: number, entries: string[][], ms: number} | {type: "finished" | "cancelled", job: number} | {type: "refused", job: number, message: string}} EmbedMessage */
//   `planned`: how many texts the job embeds; `embedded`: one batch, `[key, base64
//   vector]` per text (`ms`: the session's run); `refused`: the engine refused a call
//   or the model failed on a batch (`message` says which and why).

import { sha256Hex } from "./protocol.js";

/** @type {any} the ONNX Runtime Web module */
let ort = null;
/** @type {any} the inference session, once loaded */
let session = null;

/** How often, at most, a download says how far it got. */
const PROGRESS_MS = 100;

/** @type {Set<number>} jobs the page cancelled */
const cancelledJobs = new Set();
/** @type {Promise<unknown>} session runs, one at a time (two jobs at once take turns) */
let runs = Promise.resolve();

/** @param {EmbedMessage} message @param {Transferable[]} [transfer] */
function post(message, transfer = []) {
  self.postMessage(message, { transfer });
}

/** The message of anything thrown, in one line. */
function messageOf(/** @type {unknown} */ err) {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The body of `url` with progress reports for `stage`.
 * @param {string} url @param {"runtime" | "model"} stage @param {number} expected
 * @returns {Promise<ArrayBuffer>}
 */
async function fetchWithProgress(url, stage, expected) {
  const response = await fetch(url);
  if (!response.ok || response.body === null) {
    // The service worker answers a file that fails its sha256 check 502, saying why.
    const said = response.headers.get("content-type")?.startsWith("text/plain") ? (await response.text()).slice(0, 300) : "";
    throw new Error(`${url}: HTTP ${response.status}${said ? `: ${said}` : ""}`);
  }
  const total = Number(response.headers.get("content-length")) || expected;
  const reader = response.body.getReader();
  const parts = [];
  let loaded = 0;
  let said = performance.now();
  post({ type: "progress", stage, loaded, total });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    // At most one message per PROGRESS_MS (a 23 MB model arrives in hundreds of parts).
    if (performance.now() - said >= PROGRESS_MS) {
      said = performance.now();
      post({ type: "progress", stage, loaded, total });
    }
  }
  post({ type: "progress", stage, loaded, total });
  const body = new Uint8Array(loaded);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body.buffer;
}

/** @param {Extract<EmbedRequest, {type: "load"}>} request */
async function load(request) {
  const began = performance.now();
  let stage = "runtime";
  try {
    ort = await import(request.runtime);
    const wasm = await fetchWithProgress(request.wasm, "runtime", 0);
    ort.env.wasm.wasmBinary = wasm;
    ort.env.wasm.numThreads = 1; // no cross-origin isolation: no shared memory
    ort.env.wasm.proxy = false;
    stage = "model";
    const model = await fetchWithProgress(request.model, "model", request.bytes);
    const got = await sha256Hex(model);
    if (got !== request.sha256) {
      throw new Error(`the model file has sha256 ${got.slice(0, 12)}…, not the pinned ${request.sha256.slice(0, 12)}…: it is damaged`);
    }
    stage = "session";
    post({ type: "progress", stage: "session", loaded: 0, total: 1 });
    session = await ort.InferenceSession.create(new Uint8Array(model), { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
    post({ type: "progress", stage: "session", loaded: 1, total: 1 });
    post({ type: "loaded", ms: performance.now() - began });
  } catch (err) {
    post({ type: "failed", stage, message: messageOf(err) });
  }
}

/**
 * The model's `last_hidden_state` for `rows` (id rows of one length), as its own buffer.
 * @param {number[][]} rows
 * @returns {Promise<{length: number, bytes: ArrayBuffer, ms: number}>}
 */
function runSession(rows) {
  const turn = runs.then(async () => {
    const began = performance.now();
    const length = rows[0].length;
    const ids = new BigInt64Array(rows.length * length);
    rows.forEach((row, r) => row.forEach((value, t) => (ids[r * length + t] = BigInt(value))));
    const shape = [rows.length, length];
    const feeds = {
      input_ids: new ort.Tensor("int64", ids, shape),
      attention_mask: new ort.Tensor("int64", new BigInt64Array(ids.length).fill(1n), shape),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(ids.length), shape),
    };
    const output = await session.run(feeds, ["last_hidden_state"]);
    const hidden = /** @type {Float32Array} */ (output.last_hidden_state.data);
    const bytes = hidden.slice().buffer; // its own buffer, handed over (not copied) to the engine
    for (const tensor of Object.values(output)) tensor.dispose?.();
    return { length, bytes, ms: performance.now() - began };
  });
  runs = turn.catch(() => {});
  return turn;
}

/**
 * An engine client on `port` (the page's MessageChannel to the engine's worker):
 * `call(request, attachment?)` resolves to the engine's result, or rejects with its
 * refusal's message.
 * @param {MessagePort} port
 */
function engineOn(port) {
  /** @type {Map<number, {resolve: Function, reject: Function}>} */
  const waiting = new Map();
  let next = 1;
  port.onmessage = (event) => {
    const message = event.data;
    const call = waiting.get(message?.id);
    if (call === undefined) return;
    waiting.delete(message.id);
    if (message.type === "error") {
      call.reject(new Error(`the engine failed on this request: ${message.message}`));
      return;
    }
    const response = JSON.parse(message.response);
    if (response.ok) call.resolve(response.result);
    else call.reject(new Error(response.error.message));
  };
  return {
    /** @param {object} request @param {{field: string, bytes: ArrayBuffer} | null} [attachment] */
    call(request, attachment = null) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        const message = { type: "call", id, purpose: "dense", request: JSON.stringify(request), ...(attachment ? { attachment } : {}) };
        port.postMessage(message, attachment ? [attachment.bytes] : []);
      });
    },
    close() {
      port.close();
      for (const call of waiting.values()) call.reject(new Error("the job ended"));
    },
  };
}

/** @param {Extract<EmbedRequest, {type: "embed"}>} request */
async function embed({ job, port, request }) {
  const engine = engineOn(port);
  try {
    if (session === null) throw new Error("the model is not loaded");
    const work = await engine.call(request);
    post({ type: "planned", job, texts: work.texts, tokens: work.tokens });
    // The engine pools a batch while the model runs the next: one batch ahead at most,
    // its vectors told to the page in order.
    /** @type {Promise<void> | null} */
    let pooling = null;
    for (const batch of work.batches) {
      if (cancelledJobs.has(job)) break;
      const rows = batch.map((/** @type {{ids: number[]}} */ entry) => entry.ids);
      let out;
      try {
        out = await runSession(rows);
      } catch (err) {
        throw new Error(`the model failed on a batch: ${messageOf(err)}`);
      }
      await pooling;
      const { length, bytes, ms } = out;
      pooling = engine.call({ op: "dense_pool", rows: rows.length, length }, { field: "hidden", bytes }).then((pooled) => {
        const entries = batch.map((/** @type {{key: string}} */ entry, /** @type {number} */ i) => [entry.key, pooled.vectors[i]]);
        post({ type: "embedded", job, entries, ms });
      });
      pooling.catch(() => {}); // awaited (and its failure thrown) before the next batch's pooling
    }
    await pooling;
    if (cancelledJobs.has(job)) {
      post({ type: "cancelled", job });
      return;
    }
    post({ type: "finished", job });
  } catch (err) {
    post({ type: "refused", job, message: messageOf(err) });
  } finally {
    cancelledJobs.delete(job);
    engine.close();
  }
}

self.onmessage = (/** @type {MessageEvent<EmbedRequest>} */ event) => {
  const request = event.data;
  switch (request.type) {
    case "load":
      load(request);
      break;
    case "embed":
      embed(request);
      break;
    case "cancel":
      cancelledJobs.add(request.job);
      break;
    default:
      console.warn("embed-worker: unknown message", request);
  }
};
