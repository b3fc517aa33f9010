// dense.js: the page's side of dense retrieval (all-MiniLM-L6-v2): the embeddings an
// evidence check needs, from this browser's cache (IndexedDB) or from the model.
//
// Every rule is the engine's: op `dense_plan` names the texts to embed (by key, the
// sha256 of the text) and, for those the cache lacks, the model's ids in batches;
// the model runs in a worker of its own (engine/embed-worker.js, ONNX Runtime Web),
// started on first use; op `dense_pool` pools and normalizes what it returns. The two
// workers trade the ids and the hidden states over a MessageChannel this module makes
// for each job, so those megabytes never cross the page's thread; this module only
// keeps the vectors each batch yields, keyed by the model file's sha256 and the
// text's key, so an edit re-embeds only the chunks it changed and a second check of
// the same settings embeds nothing. Its progress reaches the page at most once a
// frame within a stage (every change of stage at once).
//
// The runtime (ort/) and the model (models/) are not part of a first visit's
// download: they are fetched here, the first time, with progress; the service
// worker then keeps them, and `offlineReady()` says whether it has them all.

import { PURPOSE } from "../engine/protocol.js";

const WORKER_URL = new URL("../engine/embed-worker.js", import.meta.url).href;
const SITE = new URL("../../", import.meta.url);
const RUNTIME_URL = new URL("ort/ort.wasm.min.mjs", SITE).href;
const WASM_URL = new URL("ort/ort-wasm-simd-threaded.wasm", SITE).href;
const GLUE_URL = new URL("ort/ort-wasm-simd-threaded.mjs", SITE).href;
const DB_NAME = "rag-overlap-dense";
const STORE = "vectors";

/**
 * @typedef {{stage: "plan" | "cache" | "runtime" | "model" | "session" | "embed" | "done",
 *   loaded: number, total: number, embedded: number, cached: number, calls: number}} DenseProgress
 *   `loaded` of `total` bytes (runtime, model) or texts (embed); `embedded` texts the
 *   model embedded this time, `cached` those the cache answered, `calls` model runs.
 */

export class Cancelled extends Error {}

/**
 * `onProgress`, called at once for a new stage and at most once an animation frame
 * within one (the last report of the frame wins); `stop()` drops a report not yet made.
 * @param {(p: DenseProgress) => void} onProgress
 */
function throttled(onProgress) {
  /** @type {DenseProgress | null} */
  let waiting = null;
  let frame = 0;
  let stage = "";
  const stop = () => {
    if (frame !== 0) cancelAnimationFrame(frame);
    frame = 0;
    waiting = null;
  };
  /** @param {DenseProgress} p */
  const report = (p) => {
    if (p.stage !== stage || typeof requestAnimationFrame !== "function") {
      stop();
      stage = p.stage;
      onProgress(p);
      return;
    }
    waiting = p;
    if (frame === 0) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        const last = waiting;
        waiting = null;
        if (last !== null) onProgress(last);
      });
    }
  };
  return { report, stop };
}

/** @type {DenseRetriever | null} */
let shared = null;

/**
 * The page's one retriever (one model worker, one cache), shared by the evidence
 * panel and the sweep.
 * @param {{call: (purpose: string, request: object, attachment?: any) => Promise<any>, connect: (port: MessagePort) => void}} engine
 */
export function denseRetriever(engine) {
  shared ??= new DenseRetriever({ engine });
  return shared;
}

/** @returns {Promise<IDBDatabase>} */
function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export class DenseRetriever {
  /** @param {{engine: {call: (purpose: string, request: object, attachment?: any) => Promise<any>, connect: (port: MessagePort) => void}}} options */
  constructor({ engine }) {
    this._engine = engine;
    /** @type {Worker | null} */
    this._worker = null;
    /** @type {Promise<void> | null} */
    this._loaded = null;
    /** @type {Map<number, (message: any) => void>} the embedder's jobs, by id */
    this._jobs = new Map();
    this._nextJob = 1;
    /** @type {((message: any) => void) | null} */
    this._onLoad = null;
    /** @type {Promise<IDBDatabase> | null} */
    this._db = null;
    /** Model runs since the page loaded (the browser test reads it off the panel). */
    this.calls = 0;
    /** @type {number | null} ms the first load took (runtime, model, session) */
    this.loadMs = null;
  }

  /** Whether the service worker holds the runtime and the model (dense retrieval offline). */
  async offlineReady(/** @type {{file: string}} */ model) {
    if (typeof caches === "undefined") return false;
    const urls = [RUNTIME_URL, WASM_URL, GLUE_URL, new URL(model.file, SITE).href];
    const found = await Promise.all(urls.map((url) => caches.match(url, { ignoreSearch: true })));
    return found.every((response) => response !== undefined);
  }

  /**
   * Has the service worker keep the runtime and the model, when it controls this page
   * and lacks them (a first visit's worker controls the page only from the next visit
   * on): each missing file fetched once more through it, which keeps what it serves.
   * @returns {Promise<boolean>} whether dense retrieval now works offline
   */
  async keepOffline(/** @type {{file: string}} */ model) {
    if (await this.offlineReady(model)) return true;
    if (typeof navigator === "undefined" || !navigator.serviceWorker?.controller) return false;
    const urls = [RUNTIME_URL, WASM_URL, GLUE_URL, new URL(model.file, SITE).href];
    for (const url of urls) {
      if ((await caches.match(url, { ignoreSearch: true })) !== undefined) continue;
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
      } catch {
        return false;
      }
    }
    return this.offlineReady(model);
  }

  /**
   * What `vectorsFor(request)` would do, without doing it: how many texts, how many
   * of them this browser's cache holds, and about how long the model would take.
   * @returns {Promise<{texts: number, cached: number, embed: number, seconds: number}>}
   */
  async preview(/** @type {object} */ request) {
    const { model, keys } = await this._call({ ...request, op: "dense_plan" });
    const held = await this._get(model.sha256, keys);
    if (held.size === keys.length) return { texts: keys.length, cached: held.size, embed: 0, seconds: 0 };
    await this._call({ op: "warm", encoding: model.encoding });
    const work = await this._call({ ...request, op: "dense_plan", held: [...held.keys()], batches: false });
    return { texts: keys.length, cached: held.size, embed: work.texts, seconds: work.page_seconds };
  }

  /**
   * The vectors a check needs, `{key: base64}`, for `request` (the evidence op's
   * setting and evidence; `scope: "sweep"` for the sweep's settings).
   * @param {object} request
   * @param {{onProgress?: (p: DenseProgress) => void, cancelled?: () => boolean}} [options]
   * @returns {Promise<{vectors: Record<string, string>, model: any, embedded: number, cached: number}>}
   */
  async vectorsFor(request, { onProgress = () => {}, cancelled = () => false } = {}) {
    const state = { embedded: 0, cached: 0, calls: this.calls };
    const progress = throttled(onProgress);
    const say = (/** @type {string} */ stage, loaded = 0, total = 0) =>
      progress.report(/** @type {DenseProgress} */ ({ stage, loaded, total, ...state, calls: this.calls }));
    try {
      say("plan");
      const { model, keys } = await this._call({ ...request, op: "dense_plan" });
      say("cache", 0, keys.length);
      const held = await this._get(model.sha256, keys);
      state.cached = held.size;
      /** @type {Record<string, string>} */
      const vectors = Object.fromEntries(held);
      if (held.size < keys.length) {
        if (cancelled()) throw new Cancelled();
        // The model's tokenizer: the worker installs its vocabulary on first use.
        await this._call({ op: "warm", encoding: model.encoding });
        await this._load(model, (stage, loaded, all) => say(stage, loaded, all));
        if (cancelled()) throw new Cancelled();
        await this._embed({ ...request, op: "dense_plan", held: [...held.keys()] }, {
          sha: model.sha256,
          cancelled,
          onPlanned: (total) => say("embed", 0, total),
          onBatch: (entries, total) => {
            for (const [key, vector] of entries) vectors[key] = vector;
            state.embedded += entries.length;
            say("embed", state.embedded, total);
          },
        });
      }
      say("done", keys.length, keys.length);
      return { vectors, model, embedded: state.embedded, cached: state.cached };
    } finally {
      progress.stop();
    }
  }

  /**
   * One job of the embedder: it asks the engine for the batches of `planRequest` (op
   * `dense_plan` with `held`) and runs and pools each, over a MessageChannel between
   * the two workers; each batch's vectors come here, to be kept. Resolves once every
   * batch is embedded and stored; rejects with Cancelled when `cancelled()` turned
   * true (checked as each batch arrives: the batch under way is kept), or with the
   * engine's or the model's failure. A job that ends with every batch done resolves,
   * as the caller checks for staleness itself.
   * @param {object} planRequest
   * @param {{sha: string, cancelled: () => boolean, onPlanned: (total: number) => void,
   *   onBatch: (entries: string[][], total: number) => void}} hooks
   * @returns {Promise<void>}
   */
  _embed(planRequest, { sha, cancelled, onPlanned, onBatch }) {
    const job = this._nextJob++;
    const channel = new MessageChannel();
    this._engine.connect(channel.port2);
    return new Promise((resolve, reject) => {
      /** @type {Promise<void>[]} */
      const stored = [];
      let total = 0;
      const end = (/** @type {Error | null} */ failure) => {
        this._jobs.delete(job);
        Promise.all(stored).then(() => (failure === null ? resolve() : reject(failure)));
      };
      this._jobs.set(job, (message) => {
        switch (message.type) {
          case "planned":
            total = message.texts;
            onPlanned(total);
            break;
          case "embedded":
            this.calls += 1;
            stored.push(this._put(sha, message.entries));
            onBatch(message.entries, total);
            if (cancelled()) this._worker?.postMessage({ type: "cancel", job });
            break;
          case "finished":
            end(null);
            break;
          case "cancelled":
            end(new Cancelled());
            break;
          case "refused":
            end(cancelled() ? new Cancelled() : new Error(message.message));
            break;
          default:
            console.warn("dense: unknown job message", message);
        }
      });
      this._worker?.postMessage({ type: "embed", job, port: channel.port1, request: planRequest }, [channel.port1]);
    });
  }

  /**
   * One engine call of purpose "dense"; an engine refusal becomes an Error.
   * @param {object} request
   * @param {{field: string, bytes: ArrayBuffer} | null} [attachment]
   */
  async _call(request, attachment = null) {
    const response = await this._engine.call(PURPOSE.dense, request, attachment);
    if (response === null) throw new Cancelled();
    if (!response.ok) throw new Error(response.error.message);
    return response.result;
  }

  /** Starts the model's worker and loads the runtime and the model, once. */
  _load(/** @type {any} */ model, /** @type {(stage: string, loaded: number, total: number) => void} */ progress) {
    if (this._loaded === null) {
      this._loaded = new Promise((resolve, reject) => {
        const source = `import ${JSON.stringify(WORKER_URL)};\n`;
        const blobUrl = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
        try {
          this._worker = new Worker(blobUrl, { type: "module", name: "embedder" });
        } finally {
          URL.revokeObjectURL(blobUrl);
        }
        this._worker.onmessage = (event) => this._receive(event.data);
        let started = false;
        this._onLoad = (message) => {
          if (message.type === "progress") progress(message.stage, message.loaded, message.total);
          else if (message.type === "loaded") {
            started = true;
            this.loadMs = message.ms;
            resolve(undefined);
          } else if (message.type === "failed") reject(new Error(`the model could not be loaded (${message.stage}): ${message.message}`));
        };
        this._worker.onerror = (event) => {
          event.preventDefault();
          const why = event.message || "script error";
          if (!started) {
            reject(new Error(`the model's worker failed to start: ${why}`));
            return;
          }
          // Failed after loading: its jobs end with the failure, the next check starts a new one.
          this._worker?.terminate();
          this._worker = null;
          this._loaded = null;
          for (const job of [...this._jobs.values()]) job({ type: "refused", message: `the model's worker failed: ${why}` });
        };
        this._worker.postMessage({ type: "load", runtime: RUNTIME_URL, wasm: WASM_URL, model: new URL(model.file, SITE).href, sha256: model.sha256, bytes: model.bytes });
      });
      this._loaded.catch(() => {
        this._worker?.terminate();
        this._worker = null;
        this._loaded = null; // the next check tries again
      });
    }
    return this._loaded;
  }

  _receive(/** @type {any} */ message) {
    switch (message.type) {
      case "progress":
      case "loaded":
      case "failed":
        this._onLoad?.(message);
        break;
      case "planned":
      case "embedded":
      case "finished":
      case "cancelled":
      case "refused":
        this._jobs.get(message.job)?.(message);
        break;
      default:
        console.warn("dense: unknown embedder message", message);
    }
  }

  _database() {
    this._db ??= openDb();
    return this._db;
  }

  /** @returns {Promise<Map<string, string>>} the cached vectors of `keys` */
  async _get(/** @type {string} */ sha, /** @type {string[]} */ keys) {
    /** @type {Map<string, string>} */
    const found = new Map();
    let db;
    try {
      db = await this._database();
    } catch {
      return found; // no IndexedDB (a private window may refuse it): embed everything
    }
    await new Promise((resolve) => {
      const tx = db.transaction(STORE, "readonly");
      const store = tx.objectStore(STORE);
      for (const key of keys) {
        const get = store.get(`${sha}:${key}`);
        get.onsuccess = () => {
          if (typeof get.result === "string") found.set(key, get.result);
        };
      }
      tx.oncomplete = tx.onerror = tx.onabort = () => resolve(undefined);
    });
    return found;
  }

  async _put(/** @type {string} */ sha, /** @type {string[][]} */ entries) {
    let db;
    try {
      db = await this._database();
    } catch {
      return;
    }
    await new Promise((resolve) => {
      const tx = db.transaction(STORE, "readwrite");
      const store = tx.objectStore(STORE);
      for (const [key, vector] of entries) store.put(vector, `${sha}:${key}`);
      tx.oncomplete = tx.onerror = tx.onabort = () => resolve(undefined);
    });
  }
}
