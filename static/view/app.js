// app.js: wires the page. It reads the controls, asks the engine (through
// engine/engine-client.js) for the view of the current configuration, and hands
// the answer to the modules that draw it. No figure is computed and nothing is
// drawn here: the arithmetic is the engine's, the drawing the other view modules'.

import { askEngine } from "../engine/ask.js";
import { PURPOSE } from "../engine/protocol.js";
import { measureText } from "../engine/text-limit.js";
import { FACTS } from "../facts.js";
import { engine, typedBeforeWiring, wired } from "../start.js"; // started before this module graph loaded
import { mountAudit } from "../tools/audit.js";
import { mountEvidence } from "../tools/evidence.js";
import { FieldErrors } from "../tools/forms.js";
import { mountTools } from "../tools/tools.js";
import { BoundaryView } from "./boundaries.js";
import { renderCapNotice } from "./cap-notice.js";
import { CardRenderer } from "./cards.js";
import { mountCentre } from "./centre.js";
import { buildControls, customRatioHint, showSettings, showUnit } from "./controls.js";
import { saveFile, textWithCode } from "./dom.js";
import { EncodingInfo } from "./encodings.js";
import { mountFit } from "./fit.js";
import { mountFileOpen } from "./file-open.js";
import * as fmt from "./format.js";
import { readHash, writeHash } from "./hash.js";
import { LimitView } from "./limits.js";
import { ExactText } from "./line-breaks.js";
import { buildModelSelect, presetForTools, presetSettings, renderModelFigures } from "./models.js";
import { mountNarrowTables } from "./narrow-tables.js";
import { mountNumberKeys } from "./number-keys.js";
import { guardPaste } from "./paste-guard.js";
import { Status } from "./status.js";
import { mountSplitter, splitterFields } from "./splitter.js";
import { renderSummary } from "./summary.js";
import { mountSettingsBar } from "./settings-bar.js";
import { mountSliders } from "./sliders.js";
import { TextStore, keepSettings, keptSettings } from "./text-store.js";

// The page's first frame (the text box painted and usable) comes before any of what
// follows. When the modules are loaded by the time parsing ends (a warm HTTP cache, a
// quick server), the browser runs a deferred module before it paints anything: traced
// on a cold visit, wiring the page here took 45-345 ms of a first paint it then held
// back. The engine is already starting (static/start.js). A page that is not visible
// draws no frame, so it waits for none.
await new Promise((resolve) => {
  if (document.visibilityState !== "visible") resolve();
  requestAnimationFrame(() => setTimeout(resolve, 0));
  setTimeout(resolve, 500); // hidden meanwhile: no frame is coming
});

// A keystroke in the text box, like an edit of a field (size, overlap, ratio, price),
// is sent at once: the engine client supersedes the older call of its purpose (and,
// for the view, the background calls that followed it), and the worker never begins
// a call the client dropped, so fast typing costs at most the one computation already
// running. A paste, a drop or a file opened waits this long, so the box is drawn
// before the worker starts on a megabyte.
const DEBOUNCE_MS = 150;
const FIELD_DELAY_MS = 0;
// A refusal that lands while a number is being typed in a setting waits for a pause
// this long (or for the field to be left): "5" on the way to "512" is not an error.
// The last good result stays on screen meanwhile.
const TYPING_PAUSE_MS = 1000;

const EXAMPLE_TEXT = "one two three four five six seven eight nine ten";
const OVERLAP_HINT = "How much of each chunk repeats the end of the one before.";

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
  tokensPerUnit: $("#tokens-per-unit-input"),
  tokensPerUnitReset: $("#tpu-reset"),
  tokensPerUnitHint: $("#tpu-hint"),
  price: $("#price-input"),
  encoding: $("#encoding-select"),
  encodingRow: $("#encoding-row"),
  unitHint: $("#unit-hint"),
  overlapResolved: $("#overlap-resolved"),
  summary: $("#summary"),
  overview: $("#overview"),
  overviewNote: $("#overview-note"),
  chunkList: $("#chunk-list"),
  chunksPanel: $("#chunks-panel"),
  emptyNote: $("#empty-note"),
  capNotice: $("#cap-notice"),
  download: $("#download-json"),
  tokenBreaks: $("#token-breaks"),
  tokenBreaksWrap: $("#token-breaks-wrap"),
  legendWs: $("#legend-ws"),
  legendNorm: $("#legend-norm"),
  countTokensWrap: $("#count-tokens-wrap"),
  countBytes: $('[data-testid="count-bytes"]'),
  // Models, limits, the kept text, files (static/view/models.js, limits.js,
  // text-store.js, file-open.js).
  model: $("#model-select"),
  modelFigures: $("#model-figures"),
  maxTokens: $("#max-tokens-input"),
  maxTokensSetting: $("#max-tokens-setting"),
  tokensPerUnitSetting: $("#tpu-setting"),
  cutMarks: $("#cut-marks"),
  clearText: $("#clear-text"),
  openFile: $("#open-file"),
  bomNote: $("#bom-note"),
  breaksNote: $("#breaks-note"),
  textKept: $("#text-kept"),
  shareLink: $("#share-link"),
  overlapSentence: $('[data-testid="overlap-sentence"]'),
  wordUnitReason: $('[data-testid="word-unit-reason"]'),
  downloadReason: $("#download-reason"),
};

/** The control each engine field is shown against. */
const FIELD_INPUT = {
  text: ui.text,
  size: ui.size,
  overlap: ui.overlap,
  tokens_per_unit: ui.tokensPerUnit,
  price_per_million: ui.price,
  encoding: ui.encoding,
  model: ui.model,
  max_tokens: ui.maxTokens,
};

buildControls(document, ui.encoding);
buildModelSelect(ui.model);
$("#no-offline-tokenizer").textContent = FACTS.no_offline_tokenizer;
textWithCode($("#sentence-rule-text"), FACTS.sentence_rule);
const status = new Status($('[data-testid="status"]'));
const errors = new FieldErrors({
  roots: [ui.form, ui.summary],
  fallback: "general",
  input: (field) => FIELD_INPUT[field] ?? null,
  staleNote: $("#stale-note"),
  staleTarget: document.body,
});
const cards = new CardRenderer(ui.chunkList);
const boundaries = new BoundaryView({ list: ui.chunkList, summary: $('[data-testid="boundary-summary"]') });
const limits = new LimitView({ list: ui.chunkList, summary: $('[data-testid="limit-summary"]') });
const encodingInfo = new EncodingInfo({ licence: $("#encoding-licence"), status: $("#vocabulary-status") });
const textStore = new TextStore({ onProblem: (message) => (ui.textKept.textContent = message) });
// The centre of the page: the text view, and the caps as a choice (static/view/centre.js).
const centre = mountCentre({
  engine,
  cards,
  boundaries,
  nodes: {
    view: $("#text-view"),
    caption: $("#text-view-focus"),
    note: $("#text-view-note"),
    overview: ui.overview,
    readout: ui.overviewNote,
    goto: $("#tv-goto"),
    find: $("#tv-find"),
    found: $("#tv-found"),
    list: ui.chunkList,
    notice: ui.capNotice,
    liftNote: $("#lift-note"),
  },
  recompute: () => schedule(0),
});

/**
 * The exact text of a file (or a kept text) with CR line breaks, while the box shows it
 * with LF ones (static/view/line-breaks.js); null when the box's text is the text.
 * @type {ExactText | null}
 */
let exact = null;

/** The text the engine computes on: the box's, or the exact text it shows. */
function theText() {
  return exact ? exact.text : ui.text.value;
}

/** Puts `text` in the box, keeping it exact when the box would change its line breaks. */
function holdText(text) {
  exact = ExactText.of(text);
  ui.text.value = text;
  if (exact) {
    ui.breaksNote.textContent = `${exact.breaks} line breaks, shown here as LF: the counts, chunks, offsets and downloads keep them, as the command line does.`;
    ui.breaksNote.dataset.state = "exact";
  }
  ui.breaksNote.hidden = !exact;
}

/** Settings as the user typed them (strings; the engine validates). */
let settings = readHash("");
/** The last configuration the engine accepted, and its result. */
let lastGood = null;
/** The audit panel's chunks file shown in the main view instead of the settings' chunks (its ref), or null. */
let mainChunks = null;
let timer = 0;
let ready = false;

// ---------------------------------------------------------------- settings

function saveHash() {
  const hash = writeHash(settings);
  if (location.hash !== hash) history.replaceState(null, "", hash);
  ui.shareLink.href = hash;
  keepSettings(hash); // beside the text, for the next visit (static/view/text-store.js)
}

function buildRequest(op) {
  return {
    op,
    text: theText(),
    unit: settings.unit,
    encoding: settings.encoding,
    size: settings.size,
    overlap: settings.overlap,
    overlap_mode: settings.overlapMode,
    tokens_per_unit: settings.unit === "token" ? null : settings.tokensPerUnit,
    price_per_million: settings.price,
    model: settings.model || null,
    // The input limit is a count of tokens, shown and checked in token mode only.
    max_tokens: settings.unit === "token" ? settings.maxTokens : null,
    ...splitterFields(settings),
    ...centre.requestFields(),
    ...(mainChunks === null ? {} : { chunks_ref: mainChunks }),
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

/** Asks the engine; an engine failure is the status line's to show (onOutcome). */
async function ask(purpose, request) {
  const response = await askEngine(engine, purpose, request);
  return response?.failed ? null : response;
}

/**
 * One call for what the screen needs first: the figures, the cards and the text view's
 * pages in sight come in one answer. The sentence check and the full download's size
 * follow in a background call of their own (askChecks), which a newer edit drops.
 */
async function compute() {
  if (!ready) return;
  // One view call at a time: the edits made while it is computed are asked for together
  // as soon as it lands, so a slow machine draws every answer it can get, not none.
  if (viewInFlight) {
    viewAgain = true;
    return;
  }
  viewInFlight = true;
  const request = { ...buildRequest("chunk"), checks: false, ...centre.viewFields() };
  const response = await ask(PURPOSE.view, request);
  viewInFlight = false;
  if (viewAgain) {
    viewAgain = false;
    schedule(0); // posted from a microtask, after this answer's figures are drawn
  }
  if (response === null) return; // superseded: a newer edit's call is on its way
  if (response.ok) {
    dropHeld();
    errors.clear();
    lastGood = { request, result: response.result };
    renderFigures(response.result);
    drawTheRest();
  } else if (typingIn() !== null) {
    holdRefusal(response.error);
    refreshCounts(request);
  } else {
    showRefusal(response.error);
    refreshCounts(request);
  }
}

let restWaits = false;
let viewInFlight = false;
let viewAgain = false;

/**
 * The figures are drawn in the task the answer lands in; the rest of the newest result
 * (the strip, the cards, the text view, the panels that follow it, its checks) in the
 * task after the next frame, so the figures reach the screen first. Answers that land
 * faster than frames are drawn once: the newest. While a newer view call is computed
 * (typing goes on), the panels and the checks wait for its answer instead.
 */
function drawTheRest() {
  if (restWaits) return;
  restWaits = true;
  const draw = () => {
    restWaits = false;
    const { request, result } = lastGood;
    render(result);
    centre.landed(request, result, { showBreaks: result.params.unit === "token" && settings.tokenBoundaries });
    if (viewInFlight) return; // the panels and the checks follow the newer view, when it lands
    tools.viewLanded(request);
    evidence.viewLanded(request);
    fit.viewLanded(request, result);
    audit.viewLanded();
    askChecks(request, result);
  };
  if (document.visibilityState !== "visible") setTimeout(draw, 0); // no frame is coming
  else requestAnimationFrame(() => setTimeout(draw, 0));
}

// ---------------------------------------------------------------- refusals while typing

/** The setting's number field with the focus, where a number may be half typed. */
const TYPED_FIELDS = [ui.size, ui.overlap, ui.price, ui.tokensPerUnit, ui.maxTokens];
let held = null; // {error, timer}: a refusal waiting for a pause in the typing

function typingIn() {
  const focused = document.activeElement;
  return TYPED_FIELDS.includes(focused) ? focused : null;
}

function showRefusal(error) {
  dropHeld();
  errors.show(error, { stale: lastGood !== null });
  blockDownload(error);
}

/** Keeps the refusal back until a pause in the typing or the field is left. */
function holdRefusal(error) {
  dropHeld();
  held = { error, timer: 0 };
  waitForPause();
  ui.form.dataset.held = error?.field ?? "other"; // a refusal is waiting (tests read it)
}

/** (Re)starts the pause a held refusal waits for: each keystroke starts it again. */
function waitForPause() {
  clearTimeout(held.timer);
  held.timer = setTimeout(() => showRefusal(held.error), TYPING_PAUSE_MS);
}

function dropHeld() {
  if (held === null) return;
  clearTimeout(held.timer);
  held = null;
  delete ui.form.dataset.held;
}

for (const input of TYPED_FIELDS) {
  // Leaving the field says the number is typed: a refusal held back shows at once.
  input.addEventListener("blur", () => {
    if (held !== null) showRefusal(held.error);
  });
  input.addEventListener("input", () => {
    if (held !== null) waitForPause();
  });
}

/**
 * The view's checks: the sentence check, each card's cut marks and, past a cap, the
 * full download's size. At a megabyte they cost more than the chunking itself, so
 * they come in a call of their own, a background one, after the figures and cards
 * are on screen. A newer edit's view call drops it (engine-client.js), so an answer
 * that comes is this view's: the view with them replaces it, and the last good result.
 */
async function askChecks(request, result) {
  const { text_view: _, ...fields } = request;
  const response = await ask(PURPOSE.checks, { ...fields, op: "checks" });
  if (response === null || !response.ok) return;
  const checked = withChecks(result, response.result);
  lastGood = { request, result: checked };
  if (!checked.lifted) boundaries.update(checked);
  centre.checksLanded(checked);
}

/** A view's result with its checks' answer put in (a new object; the answers are kept as they came). */
function withChecks(result, { boundaries: found, cut_marks: marks, export_bytes: bytes }) {
  const chunks = marks ? result.chunks.map((chunk, i) => ({ ...chunk, cut_marks: marks[i] })) : result.chunks;
  const past = (cap) => (cap ? { ...cap, export_bytes: bytes } : cap);
  return { ...result, boundaries: found, chunks, capped: past(result.capped), lifted: past(result.lifted) };
}

/** While a field is refused the download waits, and says why beside the button. */
function blockDownload(error) {
  ui.download.disabled = true;
  const field = FIELD_INPUT[error?.field]?.labels?.[0]?.textContent?.trim();
  ui.downloadReason.textContent = field
    ? `The download waits until the field marked in red is valid (${field.replace(/\s+/g, " ")}).`
    : "The download waits until the settings are valid: see the message in red.";
  ui.downloadReason.hidden = false;
}

/**
 * Keeps the live counts true while the chunk request is refused. A text over the
 * byte limit is not sent: its counts are what the page measured (no more).
 */
async function refreshCounts(request) {
  const { text, unit, encoding } = request;
  const size = measureText(text);
  if (size.over) {
    renderCounts({ bytes: size.exact ? size.bytes : null, chars: size.chars });
    if (!size.exact) ui.countBytes.textContent = `${fmt.integer(size.bytes)} or more`;
    return;
  }
  const response = await ask(PURPOSE.counts, { op: "counts", text, unit, encoding });
  if (response === null) return;
  renderCounts(response.ok ? response.result : null);
}

// ---------------------------------------------------------------- render

/** The counts under the text box; null: not known (a text refused before it crossed). */
function renderCounts(counts) {
  for (const node of document.querySelectorAll("[data-count]")) {
    const value = counts?.[node.dataset.count];
    node.textContent = value === null || value === undefined ? "–" : fmt.integer(value);
    node.dataset.value = value === null || value === undefined ? "" : String(value);
  }
}

/** What a person reads first: the summary, the counts, the overlap and what it costs. */
function renderFigures(result) {
  const { params, summary, capped } = result;
  sliders.landed(result);
  settingsBar.landed(result);
  renderSummary(ui.summary, result);
  renderCounts(result.counts);
  // What the boundaries got, in the engine's plain words (a fixed window gets what it asks).
  ui.overlapSentence.textContent = result.overlap && result.splitter.name !== "fixed" ? result.overlap.sentence : "";
  ui.overlapSentence.hidden = !ui.overlapSentence.textContent;
  if (settings.overlapMode === "percent") {
    ui.overlapResolved.textContent = `= ${fmt.unitCount(params.overlap, params.unit)} of overlap (rounded half up to whole ${fmt.unitPlural(params.unit)})`;
  } else {
    ui.overlapResolved.textContent = OVERLAP_HINT;
  }
  ui.overlapResolved.dataset.value = String(params.overlap);
  if (params.unit !== "token" && settings.tokensPerUnit === null) {
    ui.tokensPerUnit.value = fmt.plain(params.tokens_per_unit);
  }
  renderCapNotice(ui.capNotice, capped, params.unit);
  ui.download.hidden = Boolean(capped);
  ui.download.disabled = Boolean(capped);
  ui.downloadReason.hidden = true;
  ui.bomNote.hidden = !result.bom_removed;
  renderModelFigures(ui.modelFigures, settings);
  ui.emptyNote.hidden = summary.chunks !== 0;
}

/** The rest of a result: the limits and boundaries, the cards (centre.js draws the strip). */
function render(result) {
  const { params, capped, chunks } = result;
  limits.update(result);
  boundaries.update(result);
  cards.render(capped ? [] : chunks, params.unit, params.unit === "token" && settings.tokenBoundaries, params.model ?? "");
}

function rerenderCards() {
  if (!lastGood || lastGood.result.capped || centre.redrawCards(settings.tokenBoundaries)) return;
  const { params, chunks } = lastGood.result;
  cards.render(chunks, params.unit, params.unit === "token" && settings.tokenBoundaries, params.model ?? "");
}

// ---------------------------------------------------------------- download

/** The name of the file the text was opened from (the download is named after it); null once cleared. */
let documentName = null;

/** Exports the configuration in the fields now (what the screen shows, or is about to). */
async function download() {
  const response = await ask(PURPOSE.export, { ...buildRequest("export"), document_name: documentName });
  if (response === null) return;
  if (!response.ok) {
    errors.show(response.error, { stale: lastGood !== null });
    return;
  }
  const { filename, json } = response.result;
  saveFile(filename, json);
}

// ---------------------------------------------------------------- events

function onSettingsEdited({ delay = FIELD_DELAY_MS } = {}) {
  schedule(delay);
  // After the call is posted (with no delay, schedule() posts it from a microtask
  // queued first): writing the URL takes a few ms and need not hold the engine up.
  queueMicrotask(saveHash);
}

/** Settings replaced at once (a link, an example, a sweep point): show them, compute. */
function applySettings(next) {
  settings = next;
  showSettings(ui, settings);
  encodingInfo.show(settings.encoding); // a model may bring another encoding: its licence line too
  splitter.show();
  showSplitterUnit();
  onSettingsEdited({ delay: 0 });
}

ui.text.addEventListener("input", (event) => {
  if (exact) {
    // An edit: the text is now the box's, whose line breaks are LF. Said, not silent.
    ui.breaksNote.textContent = `Edited: the text is now the box's, so its line breaks are LF (they were ${exact.breaks}).`;
    ui.breaksNote.dataset.state = "edited";
    exact = null;
  }
  textStore.save(ui.text.value);
  // A keystroke is computed at once; a paste or a drop (a megabyte, maybe) after the pause.
  const pasted = event.inputType === "insertFromPaste" || event.inputType === "insertFromDrop";
  schedule(pasted ? DEBOUNCE_MS : 0);
});

// A paste (or drop) over the byte limit is refused before the text box holds it.
guardPaste(ui.text, (message) => errors.show({ field: "text", message }, { mark: false }));

for (const [input, key] of [[ui.size, "size"], [ui.overlap, "overlap"], [ui.price, "price"]]) {
  input.addEventListener("input", () => {
    settings[key] = input.value;
    onSettingsEdited();
  });
}

ui.tokensPerUnit.addEventListener("input", () => {
  const value = ui.tokensPerUnit.value.trim();
  settings.tokensPerUnit = value === "" ? null : ui.tokensPerUnit.value;
  ui.tokensPerUnit.dataset.mode = settings.tokensPerUnit === null ? "preset" : "custom";
  ui.tokensPerUnitReset.hidden = settings.tokensPerUnit === null;
  if (settings.tokensPerUnit !== null) ui.tokensPerUnitHint.textContent = customRatioHint(settings.tokensPerUnit, settings.unit);
  onSettingsEdited();
});

ui.tokensPerUnit.addEventListener("change", () => {
  if (settings.tokensPerUnit === null) showUnit(ui, settings); // an emptied field goes back to showing the preset
});

ui.tokensPerUnitReset.addEventListener("click", () => {
  settings.tokensPerUnit = null;
  showUnit(ui, settings);
  ui.tokensPerUnit.focus();
  onSettingsEdited();
});

ui.encoding.addEventListener("change", () => {
  settings.encoding = ui.encoding.value;
  onSettingsEdited({ delay: 0 });
});

ui.form.addEventListener("change", (event) => {
  const target = event.target;
  if (target.name === "unit") {
    settings.unit = target.value;
    showUnit(ui, settings);
    onSettingsEdited({ delay: 0 });
  } else if (target.name === "overlap-mode") {
    settings.overlapMode = target.value;
    onSettingsEdited({ delay: 0 });
  }
});

ui.form.addEventListener("submit", (event) => event.preventDefault());

// ---------------------------------------------------------------- the splitter

/** Word mode is none of LangChain's length functions: its radio is disabled, with why. */
function showSplitterUnit() {
  const recursive = settings.splitter === "recursive";
  const allowed = FACTS.splitters[settings.splitter].units;
  for (const radio of ui.form.querySelectorAll('input[name="unit"]')) {
    const input = /** @type {HTMLInputElement} */ (radio);
    input.disabled = !allowed.includes(input.value);
  }
  ui.wordUnitReason.hidden = !recursive;
  ui.wordUnitReason.textContent = recursive ? `Words are not offered: ${FACTS.no_word_unit}.` : "";
  if (!allowed.includes(settings.unit)) {
    settings.unit = allowed[0];
    ui.form.querySelector(`input[name="unit"][value="${settings.unit}"]`).checked = true;
    showUnit(ui, settings);
  }
}

const splitter = mountSplitter(ui.form, () => settings, () => {
  showSplitterUnit();
  onSettingsEdited({ delay: 0 });
});

ui.tokenBreaks.addEventListener("change", () => {
  settings.tokenBoundaries = ui.tokenBreaks.checked;
  saveHash();
  rerenderCards();
});

ui.download.addEventListener("click", () => {
  download();
});

for (const button of document.querySelectorAll("[data-example]")) {
  button.addEventListener("click", () => {
    holdText(EXAMPLE_TEXT);
    textStore.save(EXAMPLE_TEXT);
    const overlap = button.dataset.example === "overlap" ? "1" : "0";
    applySettings({ ...settings, unit: "word", size: "4", overlap, overlapMode: "units", tokensPerUnit: "1", price: "1" });
  });
}

/**
 * Takes the settings the link names into the form and what shows them; `hash`, when
 * given, instead of the link's own (the settings kept by the last visit).
 */
function takeLinkSettings(hash = location.hash) {
  settings = readHash(hash);
  showSettings(ui, settings);
  splitter.show();
  showSplitterUnit();
  encodingInfo.show(settings.encoding);
  renderModelFigures(ui.modelFigures, settings);
}

window.addEventListener("hashchange", () => {
  takeLinkSettings();
  keepSettings(writeHash(settings)); // a link opened in place: kept, as an edit is
  schedule(0);
});

// ---------------------------------------------------------------- models, files, the kept text

ui.model.addEventListener("change", () => {
  applySettings(presetSettings(settings, ui.model.value));
  const preset = presetForTools(settings.model);
  if (preset) tools.usePreset(preset);
  renderModelFigures(ui.modelFigures, settings);
});

ui.maxTokens.addEventListener("input", () => {
  settings.maxTokens = ui.maxTokens.value;
  renderModelFigures(ui.modelFigures, settings);
  onSettingsEdited();
});

ui.encoding.addEventListener("change", () => {
  encodingInfo.show(settings.encoding);
  renderModelFigures(ui.modelFigures, settings);
});
ui.price.addEventListener("input", () => renderModelFigures(ui.modelFigures, settings));

ui.cutMarks.addEventListener("change", () => {
  settings.cutMarks = ui.cutMarks.checked;
  ui.chunksPanel.dataset.cutMarks = settings.cutMarks ? "on" : "off";
  saveHash();
});

/** Puts a new text in the box (a file, or Clear) as if it had been typed. */
function replaceText(text) {
  holdText(text);
  ui.text.scrollTop = 0;
  errors.clear();
  // After the pause a paste gets, so the box is drawn before the worker starts on a
  // megabyte (on a busy two-core machine they share the time the frame needs).
  schedule();
}

ui.clearText.addEventListener("click", () => {
  replaceText("");
  documentName = null;
  ui.text.focus();
  textStore.clear();
});

mountFileOpen({
  input: ui.openFile,
  box: ui.text,
  onText: (text, name, count) => {
    replaceText(text);
    documentName = name;
    textStore.save(text);
    if (count > 1) ui.textKept.textContent = `Opened ${name}, the first of the ${count} files dropped.`;
  },
  onRefused: (message) => errors.show({ field: "text", message }, { mark: false }),
  // The engine's warm-up waits while the box lays out the file's text (file-open.js).
  onOpening: (drawn) => engine.holdBackground(drawn),
});

// Written at once when the page is hidden (a tab closed or switched), not after the pause.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") textStore.flush();
});
window.addEventListener("pagehide", () => textStore.flush());

// ArrowUp and ArrowDown step every number field on the page, within its bounds
// (the overlap's are a percentage's in percent mode).
mountNumberKeys(document, (input) => {
  if (input === ui.overlap && settings.overlapMode === "percent") return FACTS.bounds.overlap_percent;
  return FACTS.bounds[input.dataset.bound ?? input.dataset.param] ?? {};
});

// The size and overlap sliders beside their fields; the narrow screen's settings bar.
const sliders = mountSliders(ui.form, { size: ui.size, overlap: ui.overlap });
const settingsBar = mountSettingsBar($('[data-testid="settings-bar"]'), $("#settings-more"));
mountNarrowTables(document); // a wide table shown row by row on a phone

// ---------------------------------------------------------------- planning tools

const tools = mountTools({
  engine,
  source: () => ({ text: theText(), unit: settings.unit, encoding: settings.encoding }),
  // The panels start from the main settings and this text's own counts.
  main: () => ({ settings, result: lastGood?.result ?? null }),
  // A sweep point chosen: its size and overlap (whole units) go into the main inputs.
  apply: ({ size, overlap }) => applySettings({ ...settings, size: String(size), overlap: String(overlap), overlapMode: "units" }),
});

// ---------------------------------------------------------------- evidence check

const evidence = mountEvidence({
  engine,
  panel: $("#evidence-panel"),
  textBox: ui.text,
  // The text the engine computes on, and a place in the box as a place in that text.
  textOf: theText,
  fromBox: (at) => (exact ? exact.fromBox(at) : at),
  chunkList: ui.chunkList,
  topK: $("#budget-top-k"), // k for the retrieval check is the budget panel's top-k
  goTo: (index) => centre.goTo(index), // the card's top in view, and its text in the text view
  documentName: () => documentName, // the report's download is named after the opened file
  // The smallest overlap that keeps every passage whole, put into the main inputs.
  apply: ({ overlap }) => applySettings({ ...settings, overlap: String(overlap), overlapMode: "units" }),
});

// ---------------------------------------------------------------- fit the size to the model

// The largest size whose chunks all fit the model (the engine's), put into the size field.
const fit = mountFit({
  engine,
  node: $("#fit-line"),
  apply: ({ size }) => applySettings({ ...settings, size: String(size) }),
});

// ---------------------------------------------------------------- audit and compare

const audit = mountAudit({
  engine,
  panel: $("#audit-panel"),
  // The main view on screen: the audit reads its text, unit and price; pinning takes its settings.
  current: () => lastGood?.request ?? null,
  // "Show these chunks in the main view": the cards, the text view and the figures follow.
  showInMain: (ref) => {
    mainChunks = ref;
    schedule(0);
  },
});

// ---------------------------------------------------------------- start

// A link's settings win; a page opened without any takes those kept by the last visit;
// what a person typed in a field before this module wired it wins over both.
takeLinkSettings(location.hash.length > 1 ? location.hash : keptSettings());
wired();
for (const [id, value] of typedBeforeWiring) {
  const field = document.getElementById(id);
  if (!(field instanceof HTMLInputElement) || field.value === value) continue;
  field.value = value;
  field.dispatchEvent(new Event("input", { bubbles: true })); // read as the person's typing
}
if (settings.model) tools.usePreset(presetForTools(settings.model));
saveHash();

/**
 * The text kept from the last visit (an empty box after Clear; the sample on a first
 * visit), before the first computation. What was typed meanwhile is not overwritten.
 */
const restored = textStore.load().then((kept) => {
  if (ui.text.value !== "") return;
  if (kept?.text !== undefined) holdText(kept.text);
  else if (!kept?.emptied) holdText(SAMPLE_TEXT);
});

engine.listen({
  onStage: ({ stage, detail }) => status.stage(stage, detail),
  onReady: async () => {
    await restored;
    ready = true;
    status.stage("ready", "");
    schedule(0);
  },
  onVocabulary: (vocabulary) => encodingInfo.update(vocabulary),
  onFatal: ({ stage, message }) => status.failedToStart(stage, message),
  onBusy: (busy) => status.busyChanged(busy),
  onOutcome: (error) => status.outcome(error),
}); // replays the stages seen before this module ran
