// audit.js: the "Audit chunks from another tool" panel. A chunks file (opened, dropped
// or pasted) is sent as it is to the engine's `audit` op, which recognizes its shape,
// re-anchors every chunk, measures it with the embedding model chosen here and answers
// every figure and the text cut into pieces; this module only draws them. Pinning the
// current settings as A compares them (`compare` op) with the current settings or the
// opened file as B. Nothing from the file is ever rendered as HTML: every string goes
// in through textContent.

import { PURPOSE } from "../engine/protocol.js";
import { askEngine } from "../engine/ask.js";
import { overByteLimit } from "../engine/text-limit.js";
import { FACTS } from "../facts.js";
import { el, saveFile } from "../view/dom.js";
import * as fmt from "../view/format.js";
import { EVIDENCE_EVENT } from "./evidence-store.js";

/** The main view's fields a chunking's settings are (the `chunk` op reads them). */
const SETTING_FIELDS = ["unit", "encoding", "size", "overlap", "overlap_mode", "tokens_per_unit", "model", "max_tokens"];
/** How long after the last keystroke in a field the audit follows it. */
const TYPING_MS = 300;

/**
 * @typedef {[string, "read" | "dropped" | "none", string | null]} Piece
 * @typedef {{ok: boolean, result?: any, error?: {field: string | null, message: string}}} Answer
 * @typedef {{call: (purpose: string, request: object) => Promise<Answer | null>}} Engine
 */

/**
 * Draws the text as its pieces: read text plain, the tails the model never reads
 * tinted, text no chunk holds faint, and a mark where each chunk (or only A, or only B)
 * begins.
 * @param {HTMLElement} root
 * @param {Piece[]} pieces
 */
function drawPieces(root, pieces) {
  const nodes = pieces.map(([text, look, edge]) => {
    const span = el("span", { class: `au-piece au-${look}` }, text);
    if (edge) span.dataset.edge = edge;
    if (look === "dropped") span.dataset.testid = "audit-dropped";
    return span;
  });
  root.replaceChildren(...nodes);
}

/**
 * The engine's sentence as the start of a line: its first letter a capital.
 * @param {string} sentence
 */
function sentenceCase(sentence) {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

/**
 * The file's bytes as base64, for the engine to decode (so a file that is not UTF-8
 * is refused in the command line's words, with the offset and line of the bad byte).
 * @param {Uint8Array} bytes
 */
function base64Of(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * @param {{engine: Engine, panel: HTMLElement, current: () => (Record<string, any> | null),
 *   showInMain: (ref: string | null) => void}} options
 *   `current` is the request of the main view on screen (its text and settings), or null;
 *   `showInMain` shows the held chunks file `ref` in the main view (null: the settings' chunks).
 */
export function mountAudit({ engine, panel, current, showInMain }) {
  /** @param {string} testid */
  const $ = (testid) => /** @type {HTMLElement} */ (panel.querySelector(`[data-testid="${testid}"]`));
  const ui = {
    file: /** @type {HTMLInputElement} */ ($("open-chunks")),
    drop: $("audit-drop"),
    paste: /** @type {HTMLTextAreaElement} */ ($("chunks-paste")),
    pasteUse: $("chunks-paste-use"),
    textField: /** @type {HTMLInputElement} */ ($("audit-text-field")),
    startField: /** @type {HTMLInputElement} */ ($("audit-start-field")),
    model: /** @type {HTMLSelectElement} */ ($("audit-model")),
    custom: $("audit-custom"),
    encoding: /** @type {HTMLSelectElement} */ ($("audit-encoding")),
    maxTokens: /** @type {HTMLInputElement} */ ($("audit-max-tokens")),
    error: $("audit-error"),
    out: $("audit-out"),
    source: $("audit-source"),
    verdicts: $("audit-verdicts"),
    counts: $("audit-counts"),
    lens: $("audit-lens"),
    figures: $("audit-figures"),
    missing: $("audit-missing"),
    evidence: $("audit-evidence"),
    text: $("audit-text"),
    textNote: $("audit-text-note"),
    rows: $("audit-chunks"),
    download: /** @type {HTMLButtonElement} */ ($("audit-download")),
    pin: /** @type {HTMLButtonElement} */ ($("pin-a")),
    pinned: $("pin-a-note"),
    sideA: /** @type {HTMLSelectElement} */ ($("compare-a")),
    against: /** @type {HTMLSelectElement} */ ($("compare-b")),
    compareOut: $("compare-out"),
    compareError: $("compare-error"),
    compareTable: $("compare-table"),
    moved: $("compare-moved"),
    flips: $("compare-flips"),
    recall: $("compare-recall"),
    compareText: $("compare-text"),
    compareDownload: /** @type {HTMLButtonElement} */ ($("compare-download")),
    lensOut: $("lens-out"),
    lensSentence: $("lens-sentence"),
    lensText: $("lens-text"),
    showMain: /** @type {HTMLInputElement} */ ($("audit-show-main")),
  };
  /** The ref of the chunks file the engine holds for the main view, or null. */
  let heldRef = null;

  /** The "opened chunks file" choice of A and of B: offered once a file is open. */
  const fileOptions = [ui.sideA, ui.against].map((select) => /** @type {HTMLOptionElement} */ (select.querySelector('option[value="file"]')));
  for (const model of FACTS.models) ui.model.append(el("option", { value: model.name }, model.label));
  ui.model.append(el("option", { value: "custom" }, "A custom limit…"));
  for (const encoding of FACTS.encodings) ui.encoding.append(el("option", { value: encoding.name }, encoding.name));

  /** The chunks file as the engine takes it: `{chunks}` text or `{chunks_base64}` bytes. */
  let source = null;
  /** Its name, for the notes. */
  let sourceName = "";
  /** The settings pinned as A, or null. */
  let pinnedA = null;
  /** The evidence list of the evidence panel, as its requests carry it (or null). */
  let evidenceFields = null;
  /** The last file the engine audited, and its name (what a refused file falls back to). */
  let lastGood = null;
  let auditJson = null;
  let compareJson = null;
  let version = 0;

  function lensFields() {
    const choice = ui.model.value;
    if (choice === "") return {};
    if (choice === "custom") return { lens_encoding: ui.encoding.value, lens_max_tokens: ui.maxTokens.value };
    return { lens_model: choice };
  }

  function measureOf(request) {
    return { unit: request.unit, encoding: request.encoding, price_per_million: request.price_per_million };
  }

  function settingsOf(request) {
    return Object.fromEntries(SETTING_FIELDS.filter((f) => f in request).map((f) => [f, request[f]]));
  }

  /** @param {string} purpose @param {object} request @returns {Promise<Answer | null>} */
  const call = (purpose, request) => askEngine(engine, purpose, request);

  function showError(node, message) {
    node.textContent = message;
    node.hidden = message === "";
  }

  async function refresh() {
    const request = current();
    if (request === null) return;
    const mine = ++version;
    await runLens(request, mine);
    if (source !== null && mine === version) await runAudit(request, mine);
    const fileAsA = ui.sideA.value === "file" && source !== null;
    if ((pinnedA !== null || fileAsA) && mine === version) await runCompare(request, mine);
  }

  /** What the chosen model reads of the chunks the current settings make. */
  async function runLens(request, mine) {
    const lens = lensFields();
    if (Object.keys(lens).length === 0) {
      ui.lensOut.hidden = true;
      return;
    }
    const answer = await call(PURPOSE.lens, { op: "lens", text: request.text, ...settingsOf(request), ...lens });
    if (answer === null || mine !== version) return;
    if (!answer.ok) {
      ui.lensOut.hidden = true;
      showError(ui.error, answer.error?.message ?? "");
      return;
    }
    showError(ui.error, "");
    ui.lensOut.hidden = false;
    ui.lensSentence.textContent = `These settings: ${answer.result.lens.sentence}`;
    ui.lensSentence.dataset.truncated = String(answer.result.lens.truncated_chunks);
    drawPieces(ui.lensText, answer.result.pieces);
  }

  async function runAudit(request, mine) {
    const answer = await call(PURPOSE.audit, {
      op: "audit",
      text: request.text,
      ...source,
      text_field: ui.textField.value.trim() || null,
      start_field: ui.startField.value.trim() || null,
      ...measureOf(request),
      ...lensFields(),
      ...(evidenceFields ?? {}),
    });
    if (answer === null || mine !== version) return;
    if (!answer.ok) {
      // A file refused loses nothing: the last audit stays, and its file stays open.
      panel.dataset.state = "refused";
      showError(ui.error, answer.error?.message ?? "");
      if (lastGood !== null && lastGood.source !== source) ({ source, sourceName } = lastGood);
      else {
        auditJson = null;
        ui.out.hidden = true;
        ui.download.disabled = true;
      }
      return;
    }
    showError(ui.error, "");
    panel.dataset.state = "audited";
    lastGood = { source, sourceName };
    const ref = answer.result.chunks_ref;
    if (ref !== heldRef) {
      heldRef = ref;
      ui.showMain.disabled = false;
      if (ui.showMain.checked) showInMain(ref); // a new file: the main view follows it
    }
    renderAudit(answer.result);
  }

  function renderAudit(result) {
    const doc = result.document;
    auditJson = { json: result.json, filename: result.filename };
    ui.download.disabled = false;
    ui.out.hidden = false;
    ui.source.textContent = `${sourceName}: read as ${doc.source.shape_label}, ${doc.source.format === "jsonl" ? "JSON Lines" : "JSON"}, ${fmt.integer(doc.source.chunks)} chunks.`;
    ui.verdicts.textContent = `${sentenceCase(doc.anchoring.summary)}.`;
    const a = doc.anchoring;
    ui.counts.replaceChildren(
      ...FACTS.verdicts.map((/** @type {string} */ v) => {
        const item = el("li", { class: `au-count au-${v}` }, `${v}: ${fmt.integer(a[v])}`);
        item.dataset.testid = `audit-count-${v}`;
        item.dataset.value = String(a[v]);
        return item;
      }),
    );
    ui.lens.textContent = doc.lens ? sentenceCase(doc.lens.sentence) : "Choose an embedding model to see what it drops.";
    ui.lens.dataset.truncated = doc.lens ? String(doc.lens.truncated_chunks) : "";
    const s = doc.summary;
    const unit = doc.measure.unit;
    ui.figures.replaceChildren(
      ...[
        ["Chunks found", `${fmt.integer(s.found)} of ${fmt.integer(s.chunks)}`],
        ["Processed", fmt.unitCount(s.processed_units, unit)],
        ["Inflation", s.inflation === null ? "–" : fmt.ratio(s.inflation)],
        ["Index entries", fmt.integer(s.index_entries)],
        ...(s.vector_bytes === null ? [] : [["Vectors (float32)", fmt.byteSize(s.vector_bytes)]]),
        ["Stored tokens", `${fmt.integer(s.stored_tokens)} (${s.stored_encoding})`],
        ["Cost", fmt.dollars(s.estimated_cost)],
        ["Repeated at the boundaries", fmt.unitCount(s.overlap_units, unit)],
        ["Text no chunk holds", `${fmt.integer(s.uncovered_chars)} characters`],
        ["Cut sentences", `${fmt.integer(s.cut_sentences)} of ${fmt.integer(s.sentences)}`],
        ...(s.dropped_units === null ? [] : [["Dropped by the model", fmt.unitCount(s.dropped_units, unit)]]),
        ...(s.recall_at_k === null ? [] : [["BM25 recall@k", fmt.percent(s.recall_at_k)]]),
      ].map(([name, value]) => {
        const figure = el("div", { class: "figure" });
        figure.append(el("dt", {}, name), el("dd", {}, value));
        return figure;
      }),
    );
    ui.missing.replaceChildren(
      ...a.missing_chunks.map((m) => el("li", {}, `Chunk ${fmt.integer(m.index + 1)} (${m.where}) was not found: “${m.text}”`)),
    );
    ui.evidence.replaceChildren(
      ...(doc.evidence ?? []).map((/** @type {Record<string, any>} */ row) => {
        const held = row.whole ? `whole in chunk ${fmt.integer(row.held_by + 1)}` : "split: no chunk holds it whole";
        const found = row.retrieved === null ? "" : row.retrieved ? `; BM25's top ${doc.top_k} hold it` : `; BM25's top ${doc.top_k} miss it`;
        const item = el("li", {}, `Evidence ${row.id}: ${held}${found}`);
        item.dataset.testid = "audit-evidence-item";
        item.dataset.whole = String(row.whole);
        return item;
      }),
    );
    drawPieces(ui.text, result.pieces);
    ui.textNote.textContent =
      result.shown_chars < result.text_chars
        ? `The first ${fmt.integer(result.shown_chars)} of ${fmt.integer(result.text_chars)} characters are shown.`
        : "";
    ui.rows.replaceChildren(...result.cards.map((card, i) => rowOf(doc.chunks[i], card)));
  }

  /**
   * One chunk's card: its verdict and place, its counts, and its text as the model
   * reads it with the dropped tail tinted.
   * @param {Record<string, any>} chunk @param {{read: string, dropped: string}} card
   */
  function rowOf(chunk, card) {
    const where = chunk.char_start === null ? "not found" : `${fmt.integer(chunk.char_start)}–${fmt.integer(chunk.char_end)}`;
    const given = chunk.given_start === null ? "" : ` (the file said ${fmt.integer(chunk.given_start)})`;
    const item = el("li", { class: `au-row au-${chunk.verdict}` });
    item.dataset.testid = "audit-chunk";
    item.dataset.verdict = chunk.verdict;
    item.append(el("span", { class: "au-verdict" }, chunk.verdict), el("span", {}, ` ${where}${given}`));
    if ("model_tokens" in chunk && chunk.model_tokens !== null) {
      const cut = chunk.truncated ? `, cut at ${fmt.integer(chunk.cut ?? 0)}: ${fmt.integer(chunk.dropped_tokens)} tokens dropped` : "";
      item.append(el("span", {}, ` · ${fmt.integer(chunk.model_tokens)} model tokens${cut}`));
    }
    const body = el("div", { class: "au-card-text" });
    body.append(el("span", { class: "au-piece au-read" }, card.read));
    if (card.dropped !== "") {
      const tail = el("span", { class: "au-piece au-dropped" }, card.dropped);
      tail.dataset.testid = "card-dropped";
      body.append(tail);
    }
    item.append(body);
    return item;
  }

  async function runCompare(request, mine) {
    const b = ui.against.value === "file" && source !== null ? { ...sourceSide() } : { settings: settingsOf(request), label: "current settings" };
    const a = ui.sideA.value === "file" && source !== null ? { ...sourceSide() } : { settings: pinnedA ?? settingsOf(request), label: "pinned A" };
    const answer = await call(PURPOSE.compare, {
      op: "compare",
      text: request.text,
      a,
      b,
      ...measureOf(request),
      ...lensFields(),
      ...(evidenceFields ?? {}),
    });
    if (answer === null || mine !== version) return;
    if (!answer.ok) {
      compareJson = null;
      ui.compareOut.hidden = true;
      showError(ui.compareError, answer.error?.message ?? "");
      return;
    }
    showError(ui.compareError, "");
    renderCompare(answer.result);
  }

  function sourceSide() {
    if (source === null) return {};
    return "chunks" in source ? { chunks: source.chunks, label: sourceName } : { chunks_base64: source.chunks_base64, label: sourceName };
  }

  function renderCompare(result) {
    const doc = result.document;
    compareJson = { json: result.json, filename: result.filename };
    ui.compareOut.hidden = false;
    ui.compareDownload.disabled = false;
    /** @type {Array<[string, string, (v: any) => string]>} */
    const rows = [
      ["Chunks", "chunks", fmt.integer],
      ["Processed units", "processed_units", fmt.integer],
      ["Inflation", "inflation", (v) => (v === null ? "–" : fmt.ratio(v))],
      ["Index entries", "index_entries", fmt.integer],
      ["Stored tokens", "stored_tokens", fmt.integer],
      ["Cost", "estimated_cost", fmt.dollars],
      ["Cut sentences", "cut_sentences", fmt.integer],
      ["Over the model's limit", "chunks_over_limit", (v) => (v === null ? "–" : fmt.integer(v))],
    ];
    ui.compareTable.replaceChildren(
      ...rows.map(([name, key, show]) => {
        const tr = el("tr");
        tr.dataset.key = key;
        const diff = doc.difference[key];
        tr.append(el("th", { scope: "row" }, name), el("td", {}, show(doc.a[key])), el("td", {}, show(doc.b[key])),
          el("td", {}, diff === undefined || diff === null ? "–" : `${diff > 0 ? "+" : ""}${show(diff)}`));
        return tr;
      }),
    );
    const m = doc.moved_boundaries;
    ui.moved.textContent = `${fmt.integer(m.only_in_a)} boundaries only in A, ${fmt.integer(m.only_in_b)} only in B.`;
    ui.moved.dataset.value = String(m.only_in_a + m.only_in_b);
    ui.flips.replaceChildren(
      ...doc.evidence_flips.map((f) => {
        const item = el("li", {}, `${f.id}: ${f.a} in A, ${f.b} in B`);
        item.dataset.testid = "compare-flip";
        return item;
      }),
    );
    ui.recall.textContent =
      doc.recall_change === null ? "" : `BM25 recall@${doc.top_k}: ${fmt.percent(doc.a.recall_at_k)} in A, ${fmt.percent(doc.b.recall_at_k)} in B.`;
    drawPieces(ui.compareText, result.pieces);
  }

  /** @param {File | undefined} file */
  async function openFile(file) {
    if (!file) return;
    const cap = FACTS.caps.chunks_file_bytes;
    if (file.size > cap) {
      showError(ui.error, overByteLimit({ what: file.name, size: `${fmt.integer(file.size)} bytes`, kind: "chunks_file", limit: cap, scope: " for a chunks file" }));
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    source = { chunks_base64: base64Of(bytes) };
    sourceName = file.name;
    for (const option of fileOptions) option.disabled = false;
    refresh();
  }

  ui.file.addEventListener("change", async () => {
    await openFile(ui.file.files?.[0]);
    ui.file.value = "";
  });
  const carriesFiles = (/** @type {DragEvent} */ event) => event.dataTransfer?.types?.includes("Files");
  ui.drop.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
  });
  ui.drop.addEventListener("drop", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    openFile(event.dataTransfer?.files?.[0]);
  });
  ui.pasteUse.addEventListener("click", () => {
    source = { chunks: ui.paste.value };
    sourceName = "The pasted chunks";
    for (const option of fileOptions) option.disabled = false;
    refresh();
  });
  ui.model.addEventListener("change", () => {
    ui.custom.hidden = ui.model.value !== "custom";
    refresh();
  });
  for (const node of [ui.encoding, ui.sideA, ui.against]) node.addEventListener("change", refresh);
  // Typed fields: the audit follows a moment after the typing stops.
  let typing = 0;
  for (const node of [ui.maxTokens, ui.textField, ui.startField]) {
    node.addEventListener("input", () => {
      clearTimeout(typing);
      typing = window.setTimeout(refresh, TYPING_MS);
    });
  }
  ui.showMain.addEventListener("change", () => showInMain(ui.showMain.checked ? heldRef : null));
  ui.download.addEventListener("click", () => auditJson && saveFile(auditJson.filename, auditJson.json));
  ui.compareDownload.addEventListener("click", () => compareJson && saveFile(compareJson.filename, compareJson.json));
  ui.pin.addEventListener("click", () => {
    const request = current();
    if (request === null) return;
    pinnedA = settingsOf(request);
    ui.pinned.textContent = `A is pinned: ${request.unit}, size ${request.size}, overlap ${request.overlap}${request.overlap_mode === "percent" ? "%" : ""}. Change a setting to compare.`;
    refresh();
  });
  document.addEventListener(EVIDENCE_EVENT, (event) => {
    const detail = /** @type {CustomEvent} */ (event).detail;
    evidenceFields = detail?.fields ?? null;
  });

  return {
    /** A main view is on screen: the audit and the comparison follow its text and settings. */
    viewLanded() {
      refresh();
    },
  };
}
