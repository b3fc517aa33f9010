// centre.js: the centre of the page, wired in one place so app.js only calls it.
//
//   - the text view (text-view.js): the text once, tinted by chunk, in step with
//     the overview strip (the chunks pointed at, the part in sight);
//   - the caps as a choice: past a cap the notice offers to show every chunk anyway,
//     with what that costs; once lifted (for this page, until it is reloaded) the
//     chunk and export requests say `caps: false`, and the cards past the caps are
//     drawn as they scroll near (virtual-cards.js).
//
// app.js calls `requestFields()` when it builds a chunk or export request,
// `viewFields()` for the main view's chunk request (the text view's pages in sight,
// answered with the figures), `landed(request, result, {showBreaks})` when a chunk
// result is on screen, `checksLanded(result)` when its checks came, and `goToCard(i)` /
// `stripClicked(i, start)` when a card is asked for; `redrawCards(tb)` when the
// token-boundary toggle changes (true when it redrew the lifted cards itself).

import { askEngine } from "../engine/ask.js";
import { PURPOSE } from "../engine/protocol.js";
import { renderLiftChoice, renderLifted } from "./cap-notice.js";
import { markOverview } from "./overview.js";
import { TextView } from "./text-view.js";
import { VirtualCards } from "./virtual-cards.js";

/**
 * @param {{engine: object, cards: object, boundaries: object,
 *   nodes: {view: HTMLElement, caption: HTMLElement, note: HTMLElement, overview: HTMLElement,
 *           list: HTMLElement, notice: HTMLElement, liftNote: HTMLElement},
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
    onActive: (indices) => markOverview(nodes.overview, { active: indices }),
    onVisible: (start, end, total) => markOverview(nodes.overview, { visible: [start, end, total] }),
  });

  const virtual = new VirtualCards({
    list: nodes.list,
    fetch: (base, from, to) => ask(PURPOSE.cards, { ...base, op: "cards", caps: false, from, to }),
  });

  // A click on the strip away from a bar: the text view shows that part of the text.
  nodes.overview.addEventListener("click", (event) => {
    const target = /** @type {Element} */ (event.target);
    const strip = target.closest?.("svg.overview-svg");
    if (!strip || target.closest("[data-index]") || !current) return;
    const box = strip.getBoundingClientRect();
    const fraction = Math.min(1, Math.max(0, (event.clientX - box.left) / box.width));
    textView.scrollToOffset(Math.floor(fraction * current.result.counts.chars));
  });

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
    /** Fields every chunk and export request carries: the caps choice. */
    requestFields() {
      return lifted ? { caps: false } : {};
    },

    /** What the main view's chunk request asks for beyond the settings: the text view's pages. */
    viewFields() {
      return { text_view: textView.wanted() };
    },

    /** A chunk result is on screen for `request` (token boundaries drawn or not). */
    landed(request, result, { showBreaks }) {
      current = { request, result };
      const { params, summary, capped } = result;
      if (result.lifted) {
        const known = virtual.show(request, summary.chunks, params.unit, showBreaks);
        boundaries.update({ ...result, chunks: known });
      } else {
        virtual.hide();
      }
      showCaps(result);
      textView.cardsShown = !capped;
      textView.update(request, { chars: result.counts.chars }, result.text_view ?? null);
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

    /** A bar of the overview strip chosen: the view moves there, and to the card if any. */
    stripClicked(index, start) {
      textView.scrollToOffset(start);
      goToCard(index);
    },

    /** The token-boundary toggle: true when the lifted cards were redrawn here. */
    redrawCards(showBreaks) {
      if (!current?.result.lifted) return false;
      virtual.redraw(showBreaks);
      return true;
    },
  };
}
