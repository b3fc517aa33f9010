// centre.js: the centre of the page, wired in one place so app.js only calls it.
//
//   - the text view (text-view.js): the text once, tinted by chunk, in step with
//     the overview strip (overview.js: the chunks pointed at, the part in sight),
//     with "go to chunk N" and a find box (the engine's `goto` and `find`);
//   - the strip, one bar per pixel: its width goes with every chunk request
//     (`columns`), and a resized strip asks the engine's `strip` op again;
//   - the caps as a choice: past a cap the notice offers to show every chunk anyway,
//     with what that costs; once lifted (for this page, until it is reloaded) the
//     chunk and export requests say `caps: false`, and the cards past the caps are
//     drawn as they scroll near (virtual-cards.js).
//
// app.js calls `requestFields()` when it builds a chunk or export request,
// `viewFields()` for the main view's chunk request (the text view's pages in sight,
// answered with the figures), `landed(request, result, {showBreaks})` when a chunk
// result is on screen, `checksLanded(result)` when its checks came, and `goTo(i)` when
// a chunk is asked for from elsewhere (an evidence link); `redrawCards(tb)` when the
// token-boundary toggle changes (true when it redrew the lifted cards itself).

import { askEngine } from "../engine/ask.js";
import { PURPOSE } from "../engine/protocol.js";
import { FACTS } from "../facts.js";
import { renderLiftChoice, renderLifted } from "./cap-notice.js";
import * as fmt from "./format.js";
import { OverviewStrip } from "./overview.js";
import { TextView } from "./text-view.js";
import { VirtualCards } from "./virtual-cards.js";

/**
 * @param {{engine: object, cards: object, boundaries: object,
 *   nodes: {view: HTMLElement, caption: HTMLElement, note: HTMLElement, overview: HTMLElement,
 *           readout: HTMLElement, list: HTMLElement, notice: HTMLElement, liftNote: HTMLElement,
 *           goto: HTMLInputElement, find: HTMLInputElement, found: HTMLElement},
 *   recompute: () => void}} options
 *   `cards` is the page's CardRenderer (under the caps), `boundaries` its
 *   BoundaryView; `recompute` asks for the current settings' result again.
 */
export function mountCentre({ engine, cards, boundaries, nodes, recompute }) {
  let lifted = false;
  let current = null; // {request, result} on screen

  // An engine failure is the status line's to show: here it is no answer.
  const ask = async (purpose, request) => {
    const response = await askEngine(engine, purpose, request);
    return response?.ok ? response.result : null;
  };

  const textView = new TextView({
    root: nodes.view,
    caption: nodes.caption,
    note: nodes.note,
    fetch: (base, page, pages) => ask(PURPOSE.segments, { ...base, op: "segments", page, pages }),
    onGo: (index) => goToCard(index),
    onActive: (indices, span) => strip.point(span),
    onVisible: (start, end, total) => strip.show([start, end, total]),
  });

  const strip = new OverviewStrip({
    container: nodes.overview,
    readout: nodes.readout,
    onPick: (chunk, start) => {
      textView.scrollToOffset(start);
      if (chunk >= 0) goToCard(chunk);
    },
    onResize: () => restrip(), // a new width: new bars
  });
  async function restrip() {
    if (!current) return;
    const shown = current;
    const answer = await ask(PURPOSE.strip, { ...shown.request, op: "strip", columns: stripColumns() });
    if (answer === null || current !== shown) return;
    drawStrip(shown.result, answer);
  }

  const stripColumns = () => Math.min(strip.width, FACTS.strip_columns_max);

  function drawStrip(result, answer) {
    strip.render(answer, { chunks: result.summary.chunks, unit: result.params.unit, capped: Boolean(result.capped) });
  }

  const virtual = new VirtualCards({
    list: nodes.list,
    fetch: (base, from, to) => ask(PURPOSE.cards, { ...base, op: "cards", caps: false, from, to }),
  });

  /**
   * Chunk `index`'s text shown in the text view (from `start`, its first code point,
   * or where the engine says it begins), and its card's top (when the cards are shown).
   */
  async function goToChunk(index, start = null) {
    if (!current) return;
    const where = start ?? (await ask(PURPOSE.goto, { ...current.request, op: "goto", chunk: String(index + 1) }))?.char_start;
    if (where !== undefined && where !== null) textView.scrollToOffset(where);
    goToCard(index);
  }

  const find = mountFind({ engine, nodes, ask, textView, goToChunk, request: () => current?.request ?? null });

  function goToCard(index) {
    if (!current) return;
    const { result } = current;
    if (result.lifted) virtual.goTo(index);
    else if (!result.capped) cards.goTo(index);
  }

  /** The cap notice's choice to lift the caps, or the note that they are lifted (with the download's size once known). */
  function showCaps({ capped, lifted, summary, params }) {
    renderLiftChoice(nodes.notice, capped, summary.chunks, { onLift: lift });
    renderLifted(nodes.liftNote, lifted, params.unit, { onRestore: restore });
  }

  function lift() {
    lifted = true;
    recompute();
  }

  function restore() {
    lifted = false;
    recompute();
  }

  return {
    /** Fields every chunk and export request carries: the caps choice, the strip's width. */
    requestFields() {
      return { ...(lifted ? { caps: false } : {}), columns: stripColumns() };
    },

    /**
     * What the main view's chunk request asks for beyond the settings: the text view's
     * pages in sight and, with the caps lifted, the cards in sight.
     */
    viewFields() {
      return { text_view: textView.wanted(), ...(lifted ? { cards: virtual.wanted() } : {}) };
    },

    /** A chunk result is on screen for `request` (token boundaries drawn or not). */
    landed(request, result, { showBreaks }) {
      current = { request, result };
      const { params, summary, capped } = result;
      if (result.lifted) {
        const known = virtual.show(request, summary.chunks, params.unit, showBreaks, result.cards ?? null);
        boundaries.update({ ...result, chunks: known });
      } else {
        virtual.hide();
      }
      showCaps(result);
      drawStrip(result, result.overview);
      if (result.overview.columns !== stripColumns()) restrip();
      textView.cardsShown = !capped;
      textView.update(request, { chars: result.counts.chars }, result.text_view ?? null);
      find.landed();
    },

    /**
     * The view's checks came (app.js askChecks): `result` is the view on screen with
     * them (the sentence check, the download's size). A newer view drops the checks
     * call (engine-client.js), so they are always this view's.
     */
    checksLanded(result) {
      if (current === null) return;
      current = { request: current.request, result };
      if (result.lifted) boundaries.update({ ...result, chunks: virtual.known });
      showCaps(result);
    },

    goToCard,

    /** A chunk asked for from elsewhere (an evidence link): its card, and its text in the view. */
    goTo(index) {
      goToChunk(index);
    },

    /** The token-boundary toggle: true when the lifted cards were redrawn here. */
    redrawCards(showBreaks) {
      if (!current?.result.lifted) return false;
      virtual.redraw(showBreaks);
      return true;
    },
  };
}

// ---------------------------------------------------------------- go to chunk N, and find

/**
 * Whether two chunk requests ask about the same text with the same settings: what
 * the text view and the cards in sight ask for is left out, so scrolling is no change.
 * @param {object | null} a
 * @param {object | null} b
 */
function sameChunks(a, b) {
  if (!a || !b) return false;
  const settings = ({ text: _text, text_view: _view, cards: _cards, columns: _columns, ...rest }) => JSON.stringify(rest);
  return a.text === b.text && settings(a) === settings(b);
}

/**
 * The text view's control row: "go to chunk N" (Enter), and a find box whose
 * matches the engine finds (`find`: where each is, which chunks hold it whole, how
 * many no chunk holds whole); the text view highlights them, Enter goes to the next
 * (Shift+Enter the previous), Escape clears.
 */
function mountFind({ engine, nodes, ask, textView, goToChunk, request }) {
  const { goto, find, found } = nodes;
  find.maxLength = FACTS.find.max_chars;
  let answer = null;
  let at = -1;
  let timer = 0;
  let seq = 0;

  // The text and settings the note answers (null: it answers none), so that a new
  // text or setting takes away a "go to" answer about chunks no longer on screen.
  let noteFor = null;
  const say = (text, state = "") => {
    found.textContent = text;
    found.dataset.state = state;
    noteFor = text === "" ? null : request();
  };

  goto.addEventListener("keydown", async (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    const base = request();
    if (!base) return;
    let response = null;
    try {
      response = await engine.call(PURPOSE.goto, { ...base, op: "goto", chunk: goto.value });
    } catch {
      return; // an engine failure is the status line's to show
    }
    if (!response) return;
    if (!response.ok) {
      goto.setAttribute("aria-invalid", "true");
      say(response.error.message, "error");
      return;
    }
    const where = response.result;
    goto.removeAttribute("aria-invalid");
    say(`Chunk ${fmt.integer(where.index + 1)}: characters [${fmt.integer(where.char_start)}, ${fmt.integer(where.char_end)}).`);
    goToChunk(where.index, where.char_start);
  });

  find.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(search, 250);
  });
  find.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      find.value = "";
      search();
    } else if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(timer);
      if (answer === null || answer.query !== find.value) search().then(() => next(1));
      else next(event.shiftKey ? -1 : 1);
    }
  });

  async function search() {
    const mine = ++seq;
    const base = request();
    const query = find.value;
    if (!base || query === "") {
      answer = null;
      at = -1;
      textView.showMatches(null);
      say("");
      return;
    }
    const got = await ask(PURPOSE.find, { ...base, op: "find", query });
    if (mine !== seq) return;
    answer = got;
    at = -1;
    textView.showMatches(got);
    if (got === null) {
      say("The search could not be run.", "error");
      return;
    }
    say(describe(got));
  }

  function describe(got) {
    if (got.count === 0) return `No match for “${got.query}”.`;
    const shown = got.chunks.slice(0, 8).map((k) => fmt.integer(k + 1));
    const more = got.chunk_count > shown.length ? ` and ${fmt.integer(got.chunk_count - shown.length)} more` : "";
    const matches = `${fmt.integer(got.count)} ${got.count === 1 ? "match" : "matches"}`;
    const held = got.chunk_count === 0 ? "no chunk holds one whole"
      : `in ${got.chunk_count === 1 ? "chunk" : "chunks"} ${shown.join(", ")}${more}`;
    const cut = got.cut ? `; ${fmt.integer(got.cut)} cut across chunks (no chunk holds ${got.cut === 1 ? "it" : "them"} whole)` : "";
    const place = at >= 0 ? ` Match ${fmt.integer(at + 1)} of ${fmt.integer(got.count)}.` : " Enter goes to the next.";
    return `${matches} ${held}${cut}.${place}`;
  }

  function next(direction) {
    if (!answer || answer.starts.length === 0) return;
    const n = answer.starts.length;
    at = at < 0 ? (direction > 0 ? 0 : n - 1) : (at + direction + n) % n;
    textView.currentMatch(answer.starts[at], answer.ends[at]);
    say(describe(answer));
  }

  return {
    /** A new result: the same search, over the new chunks; a "go to" answer about other chunks goes. */
    landed() {
      if (find.value !== "") search();
      else if (noteFor !== null && !sameChunks(noteFor, request())) {
        goto.removeAttribute("aria-invalid");
        say("");
      }
    },
  };
}
