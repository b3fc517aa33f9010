// The evidence check (engine op `evidence`, docs/protocol.md section 5): the passages
// the user's answers need, checked against the current setting. For each one, whether
// some chunk holds it whole; the smallest overlap that keeps every one whole, and
// what it costs; and, for passages with a question, whether a lexical retriever
// (Okapi BM25), a dense one (all-MiniLM-L6-v2, run in this browser: dense.js), or both
// rank a chunk holding it among the top k, with Chroma's range metrics for each.
//
// Passages come from a selection in the text box (or the text view), from a JSON
// Lines file, or pasted JSON Lines. The list (evidence-store.js) follows edits of
// the text and is kept for the page session. Every figure is the engine's; this
// module lays them out, marks the cards and the text view (view/evidence-marks.js),
// and tells the sweep what to check at every setting (EVIDENCE_EVENT).
//
// Calls run one at a time (a load never races a check), and an answer that a newer
// edit made stale is dropped before it reaches the screen.

import { messageOf, PURPOSE } from "../engine/protocol.js";
import { askEngine } from "../engine/ask.js";
import { overByteLimit } from "../engine/text-limit.js";
import { FACTS } from "../facts.js";
import { derivationRow } from "../view/derivation.js";
import { el, saveFile } from "../view/dom.js";
import { CardMarks, selectedInterval, TextViewMarks } from "../view/evidence-marks.js";
import * as fmt from "../view/format.js";
import { utf16Indexer } from "../view/text-offsets.js";
import { Cancelled, denseRetriever } from "./dense.js";
import { bodyOf, codePointsIn, EVIDENCE_EVENT, EvidenceList, idKey } from "./evidence-store.js";

const MAX_ITEMS = FACTS.caps.evidence_items;
const MAX_BYTES = FACTS.caps.bytes;
const DEFAULT_K = FACTS.defaults.evidence.top_k;
const SHOWN = 200; // list entries drawn at first; "Show more" draws as many again
const LINKED = 4; // chunks linked one by one; a longer run shows its two ends
const QUOTED = 160; // code units of a passage shown in full; a longer one is shortened
/** The fields of a main-view request that decide the chunks. */
// The splitter and its settings too: the evidence is checked against the view's chunks.
const SETTING_FIELDS = ["text", "unit", "encoding", "size", "overlap", "overlap_mode", ...FACTS.splitter_fields];

/** @type {[string, string, (v: any) => string][]} */
const DERIVED = [
  ["evidence_coverage", "Evidence whole", fmt.percent],
  ["min_overlap_for_evidence", "Smallest overlap keeping these passages whole", (v) => fmt.integer(v)],
  ["processed_units_at_min_overlap", "Processed units at that overlap", fmt.integer],
  ["extra_volume_at_min_overlap", "Extra volume at that overlap", fmt.percent],
  ["overlap_for_any_placement", "Overlap keeping any passage that long whole", (v) => fmt.integer(v)],
  ["extra_volume_at_any_placement", "Extra volume at that overlap", fmt.percent],
  ["recall_at_k", "Recall@k (BM25)", fmt.percent],
  ["dense_recall_at_k", "Recall@k (all-MiniLM-L6-v2)", fmt.percent],
];
/** Chroma's four range metrics: the document's name, the testid's, the column's. */
const RANGE_METRICS = [
  ["recall", "recall"],
  ["precision", "precision"],
  ["iou", "iou"],
  ["precision_omega", "precision-omega"],
];
const STAGE_WORDS = {
  plan: "Listing the texts to embed…",
  cache: "Looking in this browser's cache…",
  runtime: "Loading ONNX Runtime Web (first use only)…",
  model: "Loading the model, all-MiniLM-L6-v2 (first use only)…",
  session: "Preparing the model…",
  embed: "Embedding",
  done: "Embedded",
};

/** Whitespace trimmed off both ends of s[a, b) (UTF-16 units); null if nothing is left. */
function trimmed(s, a, b) {
  while (a < b && /\s/.test(s[a])) a += 1;
  while (b > a && /\s/.test(s[b - 1])) b -= 1;
  return a < b ? [a, b] : null;
}

/**
 * [a, b) in UTF-16 units of `s`, widened to whole code points: an end inside a
 * surrogate pair moves out of it (a start back to the pair's high half, an end past
 * its low half).
 * @param {string} s
 * @param {number} a
 * @param {number} b
 * @returns {[number, number]}
 */
export function wholeCharacters(s, a, b) {
  const inside = (i) => i > 0 && i < s.length && (s.charCodeAt(i) & 0xfc00) === 0xdc00 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800;
  return [inside(a) ? a - 1 : a, inside(b) ? b + 1 : b];
}

/** "chunks 3, 4" or "chunks 3–9": 1-based, as the cards are titled. */
function chunkWords(indices) {
  if (indices.length === 1) return `chunk ${fmt.integer(indices[0] + 1)}`;
  const first = fmt.integer(indices[0] + 1);
  const last = fmt.integer(indices[indices.length - 1] + 1);
  return indices.length <= LINKED ? `chunks ${indices.map((i) => fmt.integer(i + 1)).join(", ")}` : `chunks ${first}–${last}`;
}

/**
 * `textOf()` is the text the engine computes on (the box's, or a file's exact text the
 * box shows with LF line breaks), `fromBox(at)` a UTF-16 index of the box in that text.
 * @param {{engine: object, panel: HTMLElement, textBox: HTMLTextAreaElement,
 *   textOf?: () => string, fromBox?: (at: number) => number,
 *   chunkList: HTMLElement, topK: HTMLInputElement | null,
 *   goTo: (index: number) => void, apply: (setting: {overlap: number}) => void,
 *   documentName?: () => string | null}} options
 *   `topK` is the budget panel's top-k field (its value is k; empty: the default);
 *   `goTo` shows a chunk's card; `apply` puts an overlap (whole units) into the main view.
 */
export function mountEvidence({ engine, panel, textBox, textOf = () => textBox.value, fromBox = (at) => at, chunkList, topK, goTo, apply, documentName = () => null }) {
  const $ = (testid) => panel.querySelector(`[data-testid="${testid}"]`);
  const ui = {
    question: $("evidence-question"),
    add: $("evidence-add"),
    addNote: $("evidence-add-note"),
    file: $("evidence-file"),
    paste: $("evidence-jsonl"),
    pasteAdd: $("evidence-paste-add"),
    loadNote: $("evidence-load-note"),
    lineErrors: $("evidence-line-errors"),
    error: $("evidence-error"),
    out: $("evidence-out"),
    empty: $("evidence-empty"),
    coverage: $("evidence-coverage"),
    whole: $("evidence-whole"),
    minOverlap: $("evidence-min-overlap"),
    minCost: $("evidence-min-overlap-cost"),
    useMin: $("evidence-use-min-overlap"),
    anyOverlap: $("evidence-any-overlap"),
    anyCost: $("evidence-any-overlap-cost"),
    useAny: $("evidence-use-any-overlap"),
    recall: $("retrieval-recall"),
    recallNote: $("retrieval-note"),
    context: $("retrieval-context"),
    repeated: $("retrieval-repeated"),
    kNote: $("retrieval-k"),
    list: $("evidence-list"),
    more: $("evidence-more"),
    derivation: panel.querySelector("[data-evidence-derivation]"),
    exportJsonl: $("evidence-export-jsonl"),
    exportReport: $("evidence-download"),
    clear: $("evidence-clear"),
    kept: $("evidence-kept"),
    retriever: $("retriever"),
    offline: $("dense-offline"),
    progress: $("dense-progress"),
    progressBar: $("dense-progress-bar"),
    progressText: $("dense-progress-text"),
    denseRecall: $("dense-recall"),
    denseFigure: panel.querySelector("[data-dense-figure]"),
    rangeBox: $("range-metrics-box"),
    rangeRows: panel.querySelector("[data-range-rows]"),
    denseStatus: $("dense-status"),
  };
  /** The panel's first words on adding a passage (index.html), said again after a clear. */
  const howToAdd = ui.addNote.textContent;
  const dense = denseRetriever(engine);

  const list = new EvidenceList({ onProblem: (message) => (ui.kept.textContent = message) });
  const cards = new CardMarks(chunkList);
  // The text view (when the page has one): its segments are marked as they are drawn.
  const textViewRoot = document.querySelector('[data-testid="text-view"]');
  const textMarks = textViewRoot ? new TextViewMarks(textViewRoot) : null;

  /** The last main-view request that landed (its settings are valid), or null. */
  let view = null;
  /** What is on screen: {request, result, k} of the last check drawn, or null. */
  let shown = null;
  let shownCount = SHOWN;
  let dirty = false; // a check is needed (the list, the setting or k changed)
  let running = false;
  const tasks = [];
  /** The selection when the add button was pressed (before a click could move it). */
  let pressed = null;
  /** Whether the text box was the last place focused (its selection is then the one meant). */
  let boxLast = false;
  /** k as typed when the last check was asked for, and what the sweep was last told. */
  let kAsked = null;
  let announced = null;

  // ------------------------------------------------------------ k

  /** k for the retrieval check: the budget panel's top-k, or the default when it is empty. */
  function kTyped() {
    const typed = topK?.value.trim() ?? "";
    return typed === "" ? { k: DEFAULT_K, from: "default" } : { k: typed, from: "budget" };
  }

  // ------------------------------------------------------------ the calls, one at a time

  function settingOf(request) {
    return Object.fromEntries(SETTING_FIELDS.filter((f) => f in request).map((f) => [f, request[f]]));
  }

  function needCheck() {
    dirty = true;
    pump();
  }

  async function pump() {
    if (running) return;
    running = true;
    try {
      while (tasks.length > 0 || dirty) {
        if (tasks.length > 0) {
          await tasks.shift()();
        } else {
          dirty = false;
          await check();
        }
      }
    } finally {
      running = false;
    }
  }

  function queue(task) {
    tasks.push(task);
    pump();
  }

  const call = (purpose, request) => askEngine(engine, purpose, request);

  // ------------------------------------------------------------ the check

  /** Tells the sweep the evidence to check at every setting, when it changed. */
  function announce() {
    // Clear empties the list whatever its check is doing (one still on its way too).
    ui.clear.disabled = list.items.length === 0;
    const k = shown?.k ?? kTyped().k;
    const key = `${list.version}|${k}`;
    if (key === announced) return;
    announced = key;
    let detail = null;
    if (list.items.length > 0) {
      // The sweep op itself leaves the questions out past its work limit, and says so.
      detail = { fields: { evidence: list.request(), top_k: k } };
    }
    document.dispatchEvent(new CustomEvent(EVIDENCE_EVENT, { detail }));
  }

  async function check() {
    if (view === null) return;
    if (list.items.length === 0) {
      showEmpty();
      return;
    }
    panel.dataset.state = "checking";
    // The list already follows a newer text (a passage added while an edit was on its
    // way): the view of that text is about to land, and its check follows.
    if (bodyOf(view.text) !== list.text) return;
    const retriever = ui.retriever.value;
    /** @type {Record<string, any>} */
    const base = { op: "evidence", ...settingOf(view), evidence: list.request(), retriever };
    let { k, from } = kTyped();
    kAsked = k;
    let denseFailed = null;
    if (retriever !== "bm25") {
      const embedded = await embed(base);
      if (embedded === null) return; // a newer edit: its own check follows
      // The model failed: BM25's figures, with the failure said above them (the
      // retriever choice stays in reach; the next check tries the model again).
      if ("failed" in embedded) [denseFailed, base.retriever] = [embedded.failed, "bm25"];
      else base.vectors = embedded.vectors;
    }
    let response = await call(PURPOSE.evidence, { ...base, top_k: k });
    if (dirty || response === null) return; // a newer edit: its own check follows
    let kRefused = null;
    if (!response.ok && response.error.field === "top_k" && from === "budget") {
      kRefused = response.error.message;
      ({ k, from } = { k: DEFAULT_K, from: "default" });
      response = await call(PURPOSE.evidence, { ...base, top_k: k });
      if (dirty || response === null) return;
    }
    if (!response.ok) {
      showRefused(response.error.message);
      return;
    }
    shown = { request: { ...base, top_k: k }, result: response.result, k, from, kRefused, denseFailed };
    announce();
    render();
  }

  /**
   * The vectors of every text the dense check of `base` needs: from this browser's
   * cache, or from the model (loaded on first use), with progress. Null when a newer
   * edit made the check stale (what was embedded is kept for the next one);
   * `{failed: message}` when the model could not be loaded or run.
   */
  async function embed(base) {
    ui.progress.hidden = false;
    panel.dataset.dense = "working";
    try {
      const out = await dense.vectorsFor(base, { onProgress: showProgress, cancelled: () => dirty });
      ui.denseStatus.dataset.embedded = String(out.embedded);
      ui.denseStatus.dataset.cached = String(out.cached);
      ui.denseStatus.dataset.calls = String(dense.calls);
      ui.denseStatus.dataset.loadMs = dense.loadMs === null ? "" : String(fmt.wholeNumber(dense.loadMs));
      ui.denseStatus.textContent =
        `${fmt.integer(out.embedded + out.cached)} texts (chunks and questions): ${fmt.integer(out.embedded)} embedded now, ` +
        `${fmt.integer(out.cached)} from this browser's cache.` + (dense.loadMs !== null ? ` Loading the model took ${fmt.integer(dense.loadMs)} ms.` : "");
      panel.dataset.dense = "ready";
      dense.keepOffline(out.model).then(() => sayOffline(out.model));
      return out;
    } catch (err) {
      if (err instanceof Cancelled || dirty) return null;
      panel.dataset.dense = "failed";
      ui.progress.hidden = true;
      return { failed: messageOf(err) };
    }
  }

  function showProgress(p) {
    const words = STAGE_WORDS[p.stage] ?? "";
    ui.progress.dataset.stage = p.stage;
    ui.progressBar.max = p.total > 0 ? p.total : 1;
    ui.progressBar.value = p.total > 0 ? p.loaded : 0;
    if (p.stage === "runtime" || p.stage === "model") {
      ui.progressText.textContent = `${words} ${fmt.byteSize(p.loaded, { about: true })} of ${fmt.byteSize(p.total, { about: true })}`;
    } else if (p.stage === "embed" || p.stage === "done") {
      ui.progressText.textContent = `${words} ${fmt.integer(p.loaded)} of ${fmt.integer(p.total)} texts.`;
    } else {
      ui.progressText.textContent = words;
    }
  }

  async function sayOffline(model) {
    const ready = await dense.offlineReady(model);
    ui.offline.dataset.value = ready ? "yes" : "no";
    ui.offline.textContent = ready
      ? "Dense retrieval works offline now: the model and its runtime are kept in this browser."
      : `Dense retrieval is not available offline yet: the model (${fmt.byteSize(model.bytes, { about: true })}) and its runtime load the first time you choose it, and are kept then.`;
  }

  function showEmpty() {
    shown = null;
    panel.dataset.state = "empty";
    ui.out.hidden = true;
    ui.empty.hidden = false;
    ui.error.hidden = true;
    for (const node of [ui.coverage, ui.minOverlap, ui.recall, ui.denseRecall]) node.dataset.value = "";
    ui.list.replaceChildren();
    ui.more.hidden = true;
    ui.exportJsonl.disabled = true;
    ui.exportReport.disabled = true;
    ui.clear.disabled = true;
    cards.clear();
    textMarks?.show([]);
  }

  function showRefused(message) {
    shown = null;
    panel.dataset.state = "refused";
    ui.error.textContent = message;
    ui.error.hidden = false;
    ui.out.hidden = true;
    ui.empty.hidden = true;
    ui.exportJsonl.disabled = true;
    ui.exportReport.disabled = true;
    ui.clear.disabled = false;
    renderList(null); // the list as it stands, every item marked "not checked"
    cards.clear();
    textMarks?.show([]);
  }

  // ------------------------------------------------------------ rendering

  /**
   * The second suggestion: the overlap that keeps any passage up to the longest one's
   * length whole wherever it falls (the engine's `overlap_for_any_placement`), its
   * cost, and whether it guarantees that (the engine's reason when it does not).
   */
  function renderAnyPlacement(summary, params) {
    const unit = params.unit;
    const overlap = summary.overlap_for_any_placement;
    const longest = fmt.unitCount(summary.longest_item_units, unit);
    ui.anyOverlap.dataset.value = String(overlap);
    ui.anyOverlap.dataset.guaranteed = String(summary.any_placement_guaranteed);
    ui.anyOverlap.textContent = fmt.unitCount(overlap, unit);
    const cost =
      `${fmt.integer(summary.chunks_at_any_placement)} chunks, ${fmt.unitCount(summary.processed_units_at_any_placement, unit)} processed, ` +
      `${fmt.percent(summary.extra_volume_at_any_placement)} extra volume`;
    ui.anyCost.textContent = summary.any_placement_guaranteed
      ? `Overlap ${fmt.integer(overlap)} (the longest passage less one) keeps any passage of up to ${longest} whole, wherever it falls: ${cost}. ` +
        "The smallest overlap above fits only these passages where they are: another passage, or one moved, can be cut."
      : `Overlap ${fmt.integer(overlap)} cannot keep any passage of ${longest} whole wherever it falls: ${summary.any_placement_reason} (at it: ${cost}).`;
    ui.useAny.hidden = !summary.any_placement_guaranteed || overlap === params.overlap;
    ui.useAny.textContent = `Use overlap ${fmt.integer(overlap)}`;
    ui.useAny.dataset.overlap = String(overlap);
  }

  function render() {
    const { result } = shown;
    const { summary, params, derivation } = result;
    // BM25's figures, or empty ones when only the dense check was asked for.
    const retrieval = result.retrieval ?? { recall_at_k: null, skipped: "BM25 was not asked for", context_units: null, context_repeated_units: null };
    const unit = params.unit;
    panel.dataset.state = "ready";
    ui.error.hidden = shown.denseFailed === null;
    ui.error.textContent = shown.denseFailed === null ? "" : `Dense retrieval failed: ${shown.denseFailed}. The figures below are BM25's.`;
    ui.out.hidden = false;
    ui.empty.hidden = true;
    ui.exportJsonl.disabled = false;
    ui.exportReport.disabled = false;
    ui.clear.disabled = false;

    // Whole evidence.
    ui.coverage.dataset.value = String(summary.evidence_coverage);
    ui.coverage.textContent = fmt.percent(summary.evidence_coverage);
    ui.coverage.title = derivation.evidence_coverage ? `${derivation.evidence_coverage.formula} = ${derivation.evidence_coverage.inputs}` : "";
    ui.whole.textContent =
      `${fmt.integer(summary.evidence_whole)} of ${fmt.integer(summary.items)} passage${summary.items === 1 ? "" : "s"} ` +
      `held whole by some chunk; ${fmt.integer(summary.evidence_split)} split.` +
      (summary.longer_than_size > 0
        ? ` ${fmt.integer(summary.longer_than_size)} ${summary.longer_than_size === 1 ? "is" : "are"} longer than the chunk size: no overlap can keep ${summary.longer_than_size === 1 ? "it" : "them"} whole.`
        : "");
    panel.dataset.whole = String(summary.evidence_whole);
    panel.dataset.split = String(summary.evidence_split);

    // The smallest overlap, and its cost.
    const min = summary.min_overlap_for_evidence;
    ui.minOverlap.dataset.value = min === null ? "" : String(min);
    ui.useMin.hidden = min === null || min === params.overlap;
    if (min === null) {
      ui.minOverlap.textContent = "none";
      ui.minCost.textContent = summary.min_overlap_reason ?? "";
    } else {
      ui.minOverlap.textContent = fmt.unitCount(min, unit);
      ui.minCost.textContent =
        `These passages, exactly where they are: at size ${fmt.unitCount(params.size, unit)}, overlap ${fmt.integer(min)} makes ${fmt.integer(summary.chunks_at_min_overlap)} chunks and processes ` +
        `${fmt.unitCount(summary.processed_units_at_min_overlap, unit)}: ${fmt.percent(summary.extra_volume_at_min_overlap)} extra volume ` +
        `(now: ${fmt.integer(summary.chunks)} chunks, ${fmt.percent(summary.extra_volume)} extra at overlap ${fmt.integer(params.overlap)}).` +
        (min < params.overlap ? " A larger overlap does not always keep every passage whole: the windows move." : "");
      ui.useMin.textContent = `Use overlap ${fmt.integer(min)}`;
      ui.useMin.dataset.overlap = String(min);
    }

    renderAnyPlacement(summary, params);

    // Retrieval.
    const k = params.top_k;
    const kWords =
      shown.from === "budget"
        ? `k = ${fmt.integer(k)}, the context budget's top-k.`
        : shown.kRefused
          ? `k = ${fmt.integer(k)}, the default: the context budget's top-k is not usable here (${shown.kRefused}).`
          : `k = ${fmt.integer(k)}, the default (the context budget's top-k is empty).`;
    ui.kNote.textContent = kWords;
    ui.recall.dataset.value = retrieval.recall_at_k === null ? "" : String(retrieval.recall_at_k);
    if (retrieval.recall_at_k === null) {
      ui.recall.textContent = "–";
      ui.recallNote.textContent = retrieval.skipped ? `Not checked: ${retrieval.skipped}.` : "";
      ui.context.textContent = "–";
      ui.repeated.textContent = "–";
    } else {
      ui.recall.textContent = fmt.percent(retrieval.recall_at_k);
      ui.recallNote.textContent =
        `Questions whose passage one of BM25's top ${fmt.integer(k)} chunks holds whole: ` +
        `${derivation.recall_at_k?.inputs ?? fmt.percent(retrieval.recall_at_k)}.`;
      ui.context.textContent = fmt.unitCount(retrieval.context_units, unit);
      ui.repeated.textContent = fmt.unitCount(retrieval.context_repeated_units, unit);
    }
    ui.recall.title = derivation.recall_at_k ? `${derivation.recall_at_k.formula} = ${derivation.recall_at_k.inputs}` : "";
    renderDense(result);

    // How each figure is derived.
    const rows = [];
    const figures = { ...summary, recall_at_k: retrieval.recall_at_k, dense_recall_at_k: result.dense_retrieval?.recall_at_k ?? null };
    for (const [key, name, show] of DERIVED) {
      const d = derivation[key];
      if (d) rows.push(derivationRow(key, name.replace("units", fmt.unitPlural(unit)), d, figures[key] === null ? "none" : show(figures[key])));
    }
    ui.derivation.replaceChildren(...rows);

    renderList(result);
    if (result.card_marks === null) cards.clear();
    else cards.show(result.card_marks, result.evidence);
    textMarks?.show(result.evidence.map(({ id, start, end, status }) => ({ id, start, end, status })));
  }

  /** The passage's text as the list shows it (a long one shortened in the middle). */
  function passage(at, item) {
    const text = list.text.slice(at(item.start), at(item.end));
    if (text.length <= QUOTED) return text;
    return `${text.slice(0, QUOTED - 60)} … ${text.slice(-50)}`;
  }

  /** The dense figures and both retrievers' range metrics. */
  function renderDense(result) {
    const d = result.dense_retrieval;
    ui.progress.hidden = d === null;
    ui.denseFigure.hidden = d === null;
    ui.denseRecall.dataset.value = d?.recall_at_k == null ? "" : String(d.recall_at_k);
    ui.denseRecall.textContent = d?.recall_at_k == null ? "–" : fmt.percent(d.recall_at_k);
    ui.denseRecall.title = d?.skipped ? `Not checked: ${d.skipped}.` : "";
    const rows = [];
    for (const [name, block] of [["bm25", result.retrieval], ["minilm", d]]) {
      const metrics = block?.range_metrics;
      if (!metrics) continue;
      const row = el("tr", { "data-retriever": name });
      row.append(el("th", { scope: "row" }, name === "bm25" ? "BM25" : "all-MiniLM-L6-v2"));
      for (const [key, testid] of RANGE_METRICS) {
        const { mean, std } = metrics[key];
        row.append(el("td", { "data-testid": `range-${name}-${testid}`, "data-value": String(mean), "data-std": String(std) },
          `${fmt.percent(mean)} ± ${fmt.percent(std)}`));
      }
      rows.push(row);
    }
    ui.rangeRows.replaceChildren(...rows);
    ui.rangeBox.hidden = rows.length === 0;
  }

  /** Links to chunks `indices` (a run) when the cards are on screen, else their numbers. */
  function chunkLinks(indices, linked) {
    const span = el("span", { class: "ev-chunks" });
    if (!linked) {
      span.textContent = chunkWords(indices);
      return span;
    }
    const ends = indices.length <= LINKED ? indices : [indices[0], indices[indices.length - 1]];
    span.append(indices.length === 1 ? "chunk " : "chunks ");
    ends.forEach((index, i) => {
      if (i > 0) span.append(indices.length <= LINKED ? ", " : "–");
      span.append(el("button", { type: "button", class: "link-button", "data-testid": "evidence-go", "data-chunk": String(index), "aria-label": `Go to chunk ${index + 1}` }, fmt.integer(index + 1)));
    });
    return span;
  }

  /** The list: every item, with its status from `result` (null: not checked). */
  function renderList(result) {
    const at = utf16Indexer(list.text ?? "");
    const byLine = new Map();
    const errors = new Map();
    if (result) {
      for (const item of result.evidence) byLine.set(item.line, item);
      for (const error of result.errors) errors.set(error.line, error.message);
    }
    const unit = result?.params.unit;
    const linked = Boolean(result && result.card_marks !== null);
    const entries = [];
    const count = Math.min(list.items.length, shownCount);
    for (let i = 0; i < count; i += 1) {
      const item = list.items[i];
      const checked = byLine.get(i + 1);
      entries.push(checked ? usedEntry(item, checked, unit, linked, at, result.params) : unusedEntry(item, errors.get(i + 1), at));
    }
    ui.list.replaceChildren(...entries);
    ui.list.dataset.items = String(list.items.length);
    const rest = list.items.length - count;
    ui.more.hidden = rest <= 0;
    ui.more.textContent = `Show ${fmt.integer(Math.min(rest, SHOWN))} more of ${fmt.integer(rest)}`;
  }

  function usedEntry(item, checked, unit, linked, at, params) {
    const split = checked.status === "split";
    const li = el("li", {
      class: `ev-item ${split ? "is-split" : "is-whole"}`,
      "data-testid": "evidence-item",
      "data-status": checked.status,
      "data-chunks": (checked.whole_in ?? []).join(" "),
      "data-id": String(item.id),
      "data-start": String(checked.start),
      "data-end": String(checked.end),
    });
    const head = el("div", { class: "ev-item-head" });
    head.append(
      el("span", { class: "ev-status", "data-testid": "evidence-status" }, split ? "⚠ split" : "✓ whole"),
      el("span", { class: "ev-id" }, String(item.id)),
      el("span", { class: "ev-units", "data-testid": "evidence-units", "data-value": String(checked.units) }, fmt.unitCount(checked.units, unit)),
    );
    if (checked.longer_than_size) {
      head.append(el("span", { class: "ev-flag", "data-testid": "evidence-too-long" },
        `longer than the chunk size (${fmt.integer(params.size)}): no overlap can keep it whole`));
    }
    const where = el("span", { class: "ev-where" });
    if (checked.whole_in === null) {
      where.append("chunk lists left out (too many to list)");
    } else if (split) {
      where.append("split across ", chunkLinks(checked.touches, linked), ": none holds it whole");
    } else {
      where.append("whole in ", chunkLinks(checked.whole_in, linked));
    }
    head.append(where, removeButton(item));
    li.append(head, el("p", { class: "ev-passage" }, passage(at, item)));
    if (item.question) {
      const q = el("p", { class: "ev-question" });
      q.append(el("span", { class: "ev-q-label" }, "Question: "), item.question);
      const r = checked.retrieval;
      if (r) q.append(el("span", { class: "ev-rank", "data-testid": "evidence-rank", "data-rank-whole": r.rank_whole === null ? "" : String(r.rank_whole) }, rankWords(r, params.top_k, "BM25")));
      const dr = checked.dense_retrieval;
      if (dr) {
        q.append(el("span", {
          class: "ev-rank", "data-testid": "evidence-dense-rank",
          "data-rank-whole": dr.rank_whole === null ? "" : String(dr.rank_whole),
          "data-rank-touching": String(dr.rank_touching),
        }, rankWords(dr, params.top_k, "all-MiniLM-L6-v2")));
      }
      li.append(q);
    }
    return li;
  }

  function rankWords(r, k, by) {
    const whole = r.rank_whole === null ? "no retrieved chunk holds it whole" : `first chunk holding it whole at rank ${fmt.integer(r.rank_whole)}${r.rank_whole <= k ? " (in the top k)" : " (below the top k)"}`;
    const touching = r.rank_touching === null ? "none touches it" : `first touching it at rank ${fmt.integer(r.rank_touching)}`;
    return ` ${by}: ${whole}; ${touching}.`;
  }

  function unusedEntry(item, message, at) {
    const li = el("li", { class: "ev-item is-unused", "data-testid": "evidence-unused", "data-id": String(item.id) });
    const head = el("div", { class: "ev-item-head" });
    head.append(
      el("span", { class: "ev-status" }, message ? "✕ not used" : "… not checked"),
      el("span", { class: "ev-id" }, String(item.id)),
      el("span", { class: "ev-where" }, message ?? ""),
      removeButton(item),
    );
    li.append(head, el("p", { class: "ev-passage" }, passage(at, item)));
    return li;
  }

  function removeButton(item) {
    return el("button", { type: "button", class: "link-button ev-remove", "data-testid": "evidence-remove", "data-id": String(item.id), "aria-label": `Remove evidence ${item.id}` }, "remove");
  }

  // ------------------------------------------------------------ changes

  function listChanged() {
    announce();
    needCheck();
  }

  /** The list follows the text in the box now (typed since the last view landed). */
  function followBox() {
    const dropped = list.follow(textOf());
    if (dropped.length > 0) sayDropped(dropped);
  }

  function sayDropped(ids) {
    const shownIds = ids.slice(0, 5).map(String).join(", ") + (ids.length > 5 ? ` and ${ids.length - 5} more` : "");
    ui.addNote.textContent = `An edit of the text changed the ends of ${ids.length === 1 ? "passage" : "passages"} ${shownIds}: removed from the list.`;
    ui.addNote.dataset.kind = "warning";
  }

  /** The passage selected now: in the text view when it holds the selection, else in the box. */
  function selection() {
    const inView = selectedInterval(textViewRoot);
    if (inView) {
      const lead = inView.text.length - inView.text.trimStart().length;
      const kept = inView.text.trim();
      if (kept === "") return { empty: true };
      const start = inView.start + codePointsIn(inView.text, lead);
      return { start, end: start + codePointsIn(kept) };
    }
    const { selectionStart, selectionEnd } = textBox;
    if (!boxLast || selectionStart === selectionEnd) return null;
    // The place in the text the engine computes on, which may hold CRLF where the box
    // shows LF. A selection that cuts a surrogate pair takes the whole character: the
    // engine counts code points, and half of one is none (it was an empty [n, n) item).
    const value = textOf();
    const [a, b] = wholeCharacters(value, fromBox(selectionStart), fromBox(selectionEnd));
    const range = trimmed(value, a, b);
    if (range === null) return { empty: true };
    const bom = value.length - bodyOf(value).length;
    return { start: codePointsIn(value, range[0]) - bom, end: codePointsIn(value, range[1]) - bom };
  }

  function addSelection() {
    const recent = pressed !== null && performance.now() - pressed.at < 2000;
    const chosen = recent ? pressed.chosen : selection();
    pressed = null;
    if (chosen === null) {
      say(ui.addNote, "Select a passage in the text box first (or in the text view), then press the button.", "warning");
      return;
    }
    if (chosen.empty) {
      say(ui.addNote, "The selection holds only spaces or line breaks: select the words of the passage.", "warning");
      return;
    }
    if (list.items.length >= MAX_ITEMS) {
      say(ui.addNote, `The list holds ${fmt.integer(MAX_ITEMS)} passages, the most one check takes: remove some first.`, "warning");
      return;
    }
    followBox();
    const question = ui.question.value.trim() || null;
    const same = list.sameAs({ start: chosen.start, end: chosen.end, question });
    if (same !== null) {
      say(ui.addNote, `That passage is already in the list as ${same.id}, ${question ? "with the same question" : "with no question"}: it is not added twice.`, "warning");
      return;
    }
    const id = list.freshId();
    list.add([{ id, start: chosen.start, end: chosen.end, question }]);
    ui.question.value = "";
    say(ui.addNote, `Added ${id}${question ? ", with its question" : ""}.`, "done");
    listChanged();
  }

  function say(node, text, kind = "") {
    node.textContent = text;
    node.dataset.kind = kind;
  }

  // ------------------------------------------------------------ JSON Lines in

  /** Reads JSON Lines (a file's or pasted) against the text now, and adds what can be used. */
  function load(jsonl, source) {
    queue(async () => {
      if (view === null) return;
      say(ui.loadNote, `Reading ${source}…`);
      ui.lineErrors.replaceChildren();
      followBox(); // the quotes are found in the text as the box holds it now
      const request = { op: "evidence", ...settingOf(view), text: textOf(), top_k: DEFAULT_K, evidence_jsonl: jsonl };
      const response = await call(PURPOSE.evidence, request);
      if (response === null) {
        // An edit or a setting sent a newer view, which drops this call: the lines are
        // read again, against the text as the box holds it then (never lost to a keystroke).
        load(jsonl, source);
        return;
      }
      if (!response.ok) {
        say(ui.loadNote, `${source}: ${response.error.message}`, "warning");
        return;
      }
      const { evidence, errors } = response.result;
      const problems = errors.map((e) => ({ line: e.line, id: e.id ?? null, message: e.message }));
      const fresh = [];
      const seen = new Set(list.items.map((item) => idKey(item.id)));
      for (const item of evidence) {
        const same = list.sameAs(item);
        if (same !== null) {
          problems.push({ line: item.line, id: item.id, message: `the passage [${fmt.integer(item.start)}, ${fmt.integer(item.end)}) is already in the list as ${same.id} ${item.question ? "with the same question" : "with no question"}: it is not added twice` });
        } else if (seen.has(idKey(item.id))) {
          problems.push({ line: item.line, id: item.id, message: `the id ${JSON.stringify(item.id)} is already in the list: remove that passage first, or give this line another id` });
        } else if (list.items.length + fresh.length >= MAX_ITEMS) {
          problems.push({ line: item.line, id: item.id, message: `the list is full (${fmt.integer(MAX_ITEMS)} passages, the most one check takes)` });
        } else {
          fresh.push({ id: item.id, start: item.start, end: item.end, question: item.question });
        }
      }
      problems.sort((a, b) => a.line - b.line);
      list.add(fresh);
      const lines = problems.length === 1 ? "1 line" : `${fmt.integer(problems.length)} lines`;
      say(ui.loadNote,
        `${source}: added ${fmt.integer(fresh.length)} passage${fresh.length === 1 ? "" : "s"}` +
        (problems.length > 0 ? `; ${lines} not used (below).` : "."),
        problems.length > 0 ? "warning" : "done");
      ui.lineErrors.replaceChildren(...problems.map((p) => el("li", {
        "data-testid": "evidence-line-error", "data-line": String(p.line),
      }, `Line ${fmt.integer(p.line)}${p.id === null ? "" : ` (${p.id})`}: ${p.message}`)));
      if (fresh.length > 0) listChanged();
    });
  }

  async function openFile(file) {
    if (file.size > MAX_BYTES) {
      say(ui.loadNote, `${overByteLimit({ what: file.name, size: `${fmt.integer(file.size)} bytes`, kind: "evidence" })}.`, "warning");
      return;
    }
    let text;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
    } catch (err) {
      const why = err instanceof TypeError ? "it is not UTF-8 text" : messageOf(err);
      say(ui.loadNote, `${file.name} could not be read (${why}): save it as UTF-8 JSON Lines.`, "warning");
      return;
    }
    load(text, file.name);
  }

  // ------------------------------------------------------------ out

  async function exportFile(which) {
    if (!shown) return;
    const response = await call(PURPOSE["evidence-export"], { ...shown.request, export: true, document_name: documentName() });
    if (response === null) return;
    if (!response.ok) {
      ui.error.textContent = response.error.message;
      ui.error.hidden = false;
      return;
    }
    const { filename, json, jsonl } = response.result;
    if (which === "jsonl") saveFile("evidence.jsonl", jsonl, "application/jsonl");
    else saveFile(filename, json);
  }

  // ------------------------------------------------------------ events

  // The box's selection counts while the box was the last place a person worked in
  // (the question field and this button aside): a selection left there long ago,
  // no longer shown, is not added by surprise.
  document.addEventListener("focusin", (event) => {
    const target = event.target;
    if (target === textBox) boxLast = true;
    else if (target !== ui.add && target !== ui.question) boxLast = false;
  });
  // The selection is read when the button is pressed, before the click can move it.
  ui.add.addEventListener("pointerdown", () => {
    pressed = { chosen: selection(), at: performance.now() };
  });
  ui.add.addEventListener("click", addSelection);
  ui.question.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      addSelection();
    }
  });
  ui.file.addEventListener("change", () => {
    const file = ui.file.files?.[0];
    ui.file.value = ""; // the same file can be opened again
    if (file) openFile(file);
  });
  ui.pasteAdd.addEventListener("click", () => {
    const text = ui.paste.value;
    if (text.trim() === "") {
      say(ui.loadNote, "Paste JSON Lines first: one passage per line.", "warning");
      return;
    }
    load(text, "The pasted lines");
  });
  ui.list.addEventListener("click", (event) => {
    const go = /** @type {Element} */ (event.target).closest("[data-testid='evidence-go']");
    if (go) {
      goTo(Number(go.dataset.chunk));
      return;
    }
    const remove = /** @type {Element} */ (event.target).closest("[data-testid='evidence-remove']");
    if (remove) {
      list.remove(list.items.find((item) => String(item.id) === remove.dataset.id)?.id ?? remove.dataset.id);
      listChanged();
    }
  });
  ui.more.addEventListener("click", () => {
    shownCount += SHOWN;
    renderList(shown?.result ?? null);
  });
  ui.useMin.addEventListener("click", () => apply({ overlap: Number(ui.useMin.dataset.overlap) }));
  ui.useAny.addEventListener("click", () => apply({ overlap: Number(ui.useAny.dataset.overlap) }));
  ui.retriever.addEventListener("change", () => {
    if (list.items.length > 0) needCheck();
  });
  ui.exportJsonl.addEventListener("click", () => exportFile("jsonl"));
  ui.exportReport.addEventListener("click", () => exportFile("report"));
  ui.clear.addEventListener("click", () => {
    list.clear();
    ui.lineErrors.replaceChildren();
    say(ui.loadNote, "");
    say(ui.addNote, howToAdd); // the list itself says it is empty: how to begin again
    listChanged();
  });
  // k follows the budget panel's top-k, however it changes (typed, an example, a preset).
  const budgetPanel = topK?.closest("section") ?? null;
  for (const type of ["input", "click", "change"]) {
    budgetPanel?.addEventListener(type, () => queueMicrotask(() => {
      if (list.items.length > 0 && kAsked !== null && kTyped().k !== kAsked) needCheck();
    }));
  }
  // Written at once when the page is hidden or left, not after the pause.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") list.flush();
  });
  window.addEventListener("pagehide", () => list.flush());

  showEmpty();
  sayOffline(FACTS.embedding_model);
  ui.add.disabled = true;
  ui.pasteAdd.disabled = true;
  ui.file.disabled = true;

  return {
    /** A main `chunk` result is on screen for `request`: check the evidence against it. */
    viewLanded(request) {
      if (request.text !== textOf()) return; // the box moved on: a newer view follows
      view = request;
      ui.add.disabled = false;
      ui.pasteAdd.disabled = false;
      ui.file.disabled = false;
      const dropped = list.follow(request.text);
      if (dropped.length > 0) sayDropped(dropped);
      // The marks on screen belong to the last setting: gone until this one is checked.
      cards.clear();
      textMarks?.show([]);
      announce(); // the offsets may have moved with an edit
      needCheck();
    },
  };
}
