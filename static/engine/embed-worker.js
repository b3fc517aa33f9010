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
// hands back `last_hidden_state` as it came out (float32, row by row). Pooling,
// normalization, ranking and every figure are the engine's (pyapp/core/dense.py).
//
// Messages, one switch on `type` each way:
//
/** @typedef {{type: "load", runtime: string, wasm: string, model: string, sha256: string, bytes: number} | {type: "run", id: number, rows: number[][]}} EmbedRequest */
//   `runtime`: ort.wasm.min.mjs's URL; `wasm`: its .wasm; `model`: model.onnx's URL.
//   `rows`: id rows of one length (a batch the engine made).
//
/** @typedef {{type: "progress", stage: "runtime" | "model" | "session", loaded: number, total: number} | {type: "loaded", ms: number} | {type: "failed", stage: string, message: string} | {type: "hidden", id: number, rows: number, length: number, bytes: ArrayBuffer, ms: number} | {type: "error", id: number, message: string}} EmbedMessage */
//   `bytes` (transferred): rows x length x 384 little-endian float32; the page hands
//   them on to the engine's worker, which encodes them, so the page never copies them.

/** @type {any} the ONNX Runtime Web module */
let ort = null;
/** @type {any} the inference session, once loaded */
let session = null;

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
  post({ type: "progress", stage, loaded, total });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    post({ type: "progress", stage, loaded, total });
  }
  const body = new Uint8Array(loaded);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body.buffer;
}

function hex(/** @type {ArrayBuffer} */ buffer) {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
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
    const got = hex(await crypto.subtle.digest("SHA-256", model));
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

/** @param {Extract<EmbedRequest, {type: "run"}>} request */
async function run({ id, rows }) {
  const began = performance.now();
  try {
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
    const bytes = hidden.slice().buffer; // its own buffer, handed over (not copied) to the page
    post({ type: "hidden", id, rows: rows.length, length, bytes, ms: performance.now() - began }, [bytes]);
    for (const tensor of Object.values(output)) tensor.dispose?.();
  } catch (err) {
    post({ type: "error", id, message: messageOf(err) });
  }
}

self.onmessage = (/** @type {MessageEvent<EmbedRequest>} */ event) => {
  const request = event.data;
  switch (request.type) {
    case "load":
      load(request);
      break;
    case "run":
      run(request);
      break;
    default:
      console.warn("embed-worker: unknown message", request);
  }
};
