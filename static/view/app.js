// The visualizer page: reads the controls, asks the engine (through
// engine-client.js) for the view of the current configuration, and renders it.
// The arithmetic is all the engine's; this module only wires and renders.

import { STAGES } from "../engine/engine-client.js";
import * as fmt from "./format.js";
import { DEFAULTS, readHash, writeHash } from "./hash.js";
import { CardRenderer, renderCapNotice, renderOverview, renderSummary } from "./render.js";
import { engine } from "../start.js"; // started before this module graph loaded
import { mountTools } from "../tools/tools.js";

// Typing in the text box waits for a pause; an edit of a field (size, overlap,
// ratio, price) is sent at once: the engine client drops a superseded call's
// answer and the worker skips a call a newer one of the same purpose replaced,
// so fast typing costs at most the one computation already running.
const DEBOUNCE_MS = 150;
const FIELD_DELAY_MS = 0;

// The preset tokens-per-unit, for display in the field only (the engine applies
// the preset itself when it receives `tokens_per_unit: null`).
const PRESET = {
  word: { value: "1.333", hint: "English preset: 4/3 tokens per word (OpenAI's rule of thumb). Type your own ratio to override it." },
  char: { value: "0.25", hint: "English preset: 0.25 tokens per character (OpenAI's rule of thumb). Type your own ratio to override it." },
  token: { value: "1", hint: "Exact: token mode counts real tokens, so the ratio is 1." },
};

const UNIT_HINT = {
  word: "Runs of non-whitespace. Splits on whitespace only; not language-aware.",
  char: "Unicode code points, whitespace included.",
  token: "Real tokens from the chosen encoding, counted exactly here in your browser.",
};

const EXAMPLE_TEXT = "one two three four five six seven eight nine ten";

const SAMPLE_TEXT =
  "Retrieval-augmented generation splits each document into chunks before it is embedded. " +
  "A fixed window takes the first chunk, steps forward by the stride, and repeats until a window reaches the end.\n\n" +
  "Overlap repeats the end of one chunk at the start of the next, so a sentence that straddles a boundary " +
  "is still found whole in at least one chunk. It is paid for in volume: every repeated word is embedded, " +
  "stored and retrieved again. A smaller stride also means more chunks to cover the same text.\n\n" +
  "Paste your own text here, then change the size, the overlap and the unit to see every window, " +
  "the repeated prefix of each chunk, and what the extra volume costs.";

const $ = (selector) => document.querySelector(selector);

const ui = {
  form: $("#settings"),
  text: $("#text-input"),
  size: $("#size-input"),
  overlap: $("#overlap-input"),
  tpu: $("#tokens-per-unit-input"),
  tpuReset: $("#tpu-reset"),
  tpuHint: $("#tpu-hint"),
  price: $("#price-input"),
  encoding: $("#encoding-select"),
  encodingRow: $("#encoding-row"),
  unitHint: $("#unit-hint"),
  overlapResolved: $("#overlap-resolved"),
  status: $('[data-testid="status"]'),
  statusText: $("#status-text"),
  stages: $("#stages"),
  summary: $("#summary"),
  staleNote: $("#stale-note"),
  overview: $("#overview"),
  overviewNote: $("#overview-note"),
  chunkList: $("#chunk-list"),
  emptyNote: $("#empty-note"),
  capNotice: $("#cap-notice"),
  download: $("#download-json"),
  tokenBreaks: $("#token-breaks"),
  tokenBreaksWrap: $("#token-breaks-wrap"),
  legendWs: $("#legend-ws"),
  legendNorm: $("#legend-norm"),
  countTokensWrap: $("#count-tokens-wrap"),
};

/** Settings as the user typed them (strings; the engine validates). */
let settings = { ...DEFAULTS };
/** The last configuration the engine accepted, and its result. */
let lastGood = null;
let timer = 0;
let viewSeq = 0;
let ready = false;
let busy = false;
const cards = new CardRenderer(ui.chunkList);

const engineCallbacks = {
  onStage: ({ stage, detail }) => showStage(stage, detail),
  onReady: () => {
    ready = true;
    showStage("ready", "");
    schedule(0);
  },
  onFatal: ({ stage, message }) => {
    setStatus("error", `Python failed to start in the ${stage} stage: ${message}. The text box still works; reload to try again.`);
  },
  onBusy: (isBusy) => {
    busy = isBusy;
    if (ready && ui.status.dataset.state !== "error") setStatus(isBusy ? "busy" : "ready");
  },
};

// ---------------------------------------------------------------- status

function setStatus(state, text) {
  ui.status.dataset.state = state;
  const words = { loading: "Starting Python…", busy: "Computing…", ready: "Ready", error: "Error" };
  ui.statusText.textContent = text ?? words[state];
  ui.stages.hidden = state !== "loading";
}

function showStage(stage, detail) {
  if (stage === "ready") {
    setStatus(busy ? "busy" : "ready");
    return;
  }
  const at = STAGES.indexOf(stage);
  for (const li of ui.stages.children) {
    const i = STAGES.indexOf(li.dataset.stage);
    li.dataset.progress = i < at ? "done" : i === at ? "active" : "todo";
  }
  setStatus("loading", `Starting Python: ${stage}${detail ? ` (${detail})` : ""}…`);
}

// ---------------------------------------------------------------- settings <-> controls

function applySettingsToControls() {
  ui.form.querySelector(`input[name="unit"][value="${settings.unit}"]`).checked = true;
  ui.form.querySelector(`input[name="overlap-mode"][value="${settings.om}"]`).checked = true;
  ui.size.value = settings.size;
  ui.overlap.value = settings.overlap;
  ui.price.value = settings.price;
  ui.encoding.value = settings.enc;
  ui.tokenBreaks.checked = settings.tb;
  applyUnit();
}

/** Everything that follows the unit: labels, the tokens-per-unit field, legends. */
function applyUnit() {
  const unit = settings.unit;
  for (const node of document.querySelectorAll("[data-unit-plural]")) node.textContent = fmt.unitPlural(unit);
  for (const node of document.querySelectorAll("[data-unit-singular]")) node.textContent = fmt.unitSingular(unit);
  ui.encodingRow.hidden = unit !== "token";
  ui.unitHint.textContent = UNIT_HINT[unit];
  ui.tokenBreaksWrap.hidden = unit !== "token";
  ui.legendWs.hidden = unit === "word";
  ui.legendNorm.hidden = unit !== "word";
  ui.countTokensWrap.hidden = unit !== "token";
  if (unit === "token") {
    ui.tpu.value = PRESET.token.value;
    ui.tpu.disabled = true;
    ui.tpu.dataset.mode = "exact";
    ui.tpuHint.textContent = PRESET.token.hint;
    ui.tpuReset.hidden = true;
  } else if (settings.tpu === null) {
    ui.tpu.value = PRESET[unit].value;
    ui.tpu.disabled = false;
    ui.tpu.dataset.mode = "preset";
    ui.tpuHint.textContent = PRESET[unit].hint;
    ui.tpuReset.hidden = true;
  } else {
    ui.tpu.value = settings.tpu;
    ui.tpu.disabled = false;
    ui.tpu.dataset.mode = "custom";
    ui.tpuHint.textContent = `Your ratio: ${settings.tpu} tokens per ${fmt.unitSingular(unit)}. It stays when you change the unit.`;
    ui.tpuReset.hidden = false;
  }
}

function saveHash() {
  const hash = writeHash(settings);
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

function buildRequest(op) {
  return {
    op,
    text: ui.text.value,
    unit: settings.unit,
    encoding: settings.enc,
    size: settings.size,
    overlap: settings.overlap,
    overlap_mode: settings.om,
    tokens_per_unit: settings.unit === "token" ? null : settings.tpu,
    price_per_million: settings.price,
  };
}

// ---------------------------------------------------------------- compute

let queued = false;

/** Computes after `delay` ms of quiet; with 0, at the end of this task (before the page renders). */
function schedule(delay = DEBOUNCE_MS) {
  clearTimeout(timer);
  if (delay > 0) {
    timer = setTimeout(compute, delay);
    return;
  }
  if (queued) return; // several edits in one task: one call
  queued = true;
  queueMicrotask(() => {
    queued = false;
    compute();
  });
}

async function compute() {
  if (!ready) return;
  const request = buildRequest("chunk");
  const seq = ++viewSeq;
  let response;
  try {
    response = await engine.call("view", request);
  } catch (err) {
    showEngineError(err);
    return;
  }
  if (response === null || seq !== viewSeq) return; // a newer edit is on its way
  if (response.ok) {
    clearErrors();
    lastGood = { request, result: response.result };
    render(response.result);
    tools.viewLanded(request, response.result);
  } else {
    showFieldError(response.error);
    refreshCounts(request);
  }
}

/** Keeps the live counts true while the chunk request is refused for another field. */
async function refreshCounts(request) {
  let response;
  try {
    response = await engine.call("counts", { op: "counts", text: request.text, unit: request.unit, encoding: request.encoding });
  } catch (err) {
    showEngineError(err);
    return;
  }
  if (response && response.ok) renderCounts(response.result);
}

function showEngineError(err) {
  const message = err && err.message ? err.message : String(err);
  setStatus("error", `The engine failed: ${message}`);
}

// ---------------------------------------------------------------- errors

function errorNode(field) {
  return ui.form.querySelector(`[data-testid="error"][data-field="${field}"]`) ||
    document.querySelector('[data-testid="error"][data-field="general"]');
}

function clearErrors() {
  // The main view's own messages only: the panels in #tools keep theirs.
  for (const node of document.querySelectorAll('#inputs [data-testid="error"], #summary [data-testid="error"]')) {
    node.hidden = true;
    node.textContent = "";
  }
  for (const input of ui.form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  ui.staleNote.hidden = true;
  document.body.classList.remove("is-stale");
}

const FIELD_INPUT = {
  text: "text",
  size: "size",
  overlap: "overlap",
  tokens_per_unit: "tpu",
  price_per_million: "price",
  encoding: "encoding",
};

function showFieldError(error) {
  clearErrors();
  const field = error && error.field;
  const node = errorNode(field);
  node.textContent = (error && error.message) || "The engine refused this input.";
  node.hidden = false;
  const input = ui[FIELD_INPUT[field]];
  if (input) input.setAttribute("aria-invalid", "true");
  if (lastGood) {
    ui.staleNote.hidden = false;
    document.body.classList.add("is-stale");
  }
}

// ---------------------------------------------------------------- render

function renderCounts(counts) {
  if (!counts) return;
  for (const node of document.querySelectorAll("[data-count]")) {
    const value = counts[node.dataset.count];
    node.textContent = value === null || value === undefined ? "–" : fmt.integer(value);
    node.dataset.value = value === null || value === undefined ? "" : String(value);
  }
}

function render(result) {
  const { params, summary, capped, chunks } = result;
  renderSummary(ui.summary, result);
  renderCounts(result.counts);
  if (settings.om === "percent") {
    ui.overlapResolved.textContent = `= ${fmt.unitCount(params.overlap, params.unit)} of overlap (rounded half up to whole ${fmt.unitPlural(params.unit)})`;
  } else {
    ui.overlapResolved.textContent = "";
  }
  ui.overlapResolved.dataset.value = String(params.overlap);
  if (params.unit !== "token" && settings.tpu === null) {
    ui.tpu.value = fmt.plain(params.tokens_per_unit);
  }
  renderOverview(ui.overview, result.overview, summary.chunks, params.unit, Boolean(capped));
  const shown = result.overview ? result.overview.windows.length : 0;
  ui.overviewNote.hidden = shown >= summary.chunks;
  ui.overviewNote.textContent = `Showing the first ${fmt.integer(shown)} of ${fmt.integer(summary.chunks)} windows.`;
  renderCapNotice(ui.capNotice, capped, params.unit);
  ui.download.hidden = Boolean(capped);
  ui.download.disabled = Boolean(capped);
  ui.emptyNote.hidden = summary.chunks !== 0;
  cards.render(capped ? [] : chunks, params.unit, params.unit === "token" && settings.tb);
}

function rerenderCards() {
  if (!lastGood || lastGood.result.capped) return;
  const { params, chunks } = lastGood.result;
  cards.render(chunks, params.unit, params.unit === "token" && settings.tb);
}

// ---------------------------------------------------------------- download

/** Exports the configuration in the fields now (what the screen shows, or is about to). */
async function download() {
  const request = buildRequest("export");
  let response;
  try {
    response = await engine.call("export", request);
  } catch (err) {
    showEngineError(err);
    return;
  }
  if (response === null) return;
  if (!response.ok) {
    showFieldError(response.error);
    return;
  }
  const { filename, json } = response.result;
  const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---------------------------------------------------------------- overview -> card

function goToCard(index) {
  if (!lastGood || lastGood.result.capped) return;
  cards.ensure(index);
  const card = document.getElementById(`chunk-${index}`);
  if (!card) return;
  card.scrollIntoView({ block: "center", behavior: "auto" });
  card.focus({ preventScroll: true });
  card.classList.remove("flash");
  void card.offsetWidth; // restart the highlight animation
  card.classList.add("flash");
}

// ---------------------------------------------------------------- events

function onSettingsEdited({ delay = FIELD_DELAY_MS } = {}) {
  schedule(delay);
  // After the call is posted (with no delay, schedule() posts it from a microtask
  // queued first): writing the URL takes a few ms and need not hold the engine up.
  queueMicrotask(saveHash);
}

ui.text.addEventListener("input", () => schedule());

ui.size.addEventListener("input", () => {
  settings.size = ui.size.value;
  onSettingsEdited();
});

ui.overlap.addEventListener("input", () => {
  settings.overlap = ui.overlap.value;
  onSettingsEdited();
});

ui.price.addEventListener("input", () => {
  settings.price = ui.price.value;
  onSettingsEdited();
});

ui.tpu.addEventListener("input", () => {
  const value = ui.tpu.value.trim();
  settings.tpu = value === "" ? null : ui.tpu.value;
  ui.tpu.dataset.mode = settings.tpu === null ? "preset" : "custom";
  ui.tpuReset.hidden = settings.tpu === null;
  if (settings.tpu !== null) {
    ui.tpuHint.textContent = `Your ratio: ${settings.tpu.trim()} tokens per ${fmt.unitSingular(settings.unit)}. It stays when you change the unit.`;
  }
  onSettingsEdited();
});

ui.tpu.addEventListener("change", () => {
  if (settings.tpu === null) applyUnit(); // an emptied field goes back to showing the preset
});

ui.tpuReset.addEventListener("click", () => {
  settings.tpu = null;
  applyUnit();
  ui.tpu.focus();
  onSettingsEdited();
});

ui.encoding.addEventListener("change", () => {
  settings.enc = ui.encoding.value;
  onSettingsEdited({ delay: 0 });
});

ui.form.addEventListener("change", (event) => {
  const target = event.target;
  if (target.name === "unit") {
    settings.unit = target.value;
    applyUnit();
    onSettingsEdited({ delay: 0 });
  } else if (target.name === "overlap-mode") {
    settings.om = target.value;
    onSettingsEdited({ delay: 0 });
  }
});

ui.form.addEventListener("submit", (event) => event.preventDefault());

ui.tokenBreaks.addEventListener("change", () => {
  settings.tb = ui.tokenBreaks.checked;
  saveHash();
  rerenderCards();
});

ui.download.addEventListener("click", () => {
  download();
});

ui.overview.addEventListener("click", (event) => {
  const bar = event.target.closest("[data-index]");
  if (bar) goToCard(Number(bar.getAttribute("data-index")));
});

for (const button of document.querySelectorAll("[data-example]")) {
  button.addEventListener("click", () => {
    ui.text.value = EXAMPLE_TEXT;
    settings = {
      ...settings,
      unit: "word",
      size: "4",
      overlap: button.dataset.example === "overlap" ? "1" : "0",
      om: "units",
      tpu: "1",
      price: "1",
    };
    applySettingsToControls();
    onSettingsEdited({ delay: 0 });
  });
}

window.addEventListener("hashchange", () => {
  settings = readHash(location.hash);
  applySettingsToControls();
  schedule(0);
});

// ---------------------------------------------------------------- planning tools

/** A sweep point chosen: its size and overlap (whole units) go into the main inputs. */
function applySetting({ size, overlap }) {
  settings = { ...settings, size: String(size), overlap: String(overlap), om: "units" };
  applySettingsToControls();
  onSettingsEdited({ delay: 0 });
}

const tools = mountTools({
  engine,
  source: () => ({ text: ui.text.value, unit: settings.unit, encoding: settings.enc }),
  apply: applySetting,
});

// ---------------------------------------------------------------- start

settings = readHash(location.hash);
if (!ui.text.value) ui.text.value = SAMPLE_TEXT;
applySettingsToControls();
saveHash();
setStatus("loading");
engine.listen(engineCallbacks); // replays the stages seen before this module ran
