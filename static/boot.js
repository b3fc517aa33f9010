// boot.js: the page's entry. The page's inline script (loader.js, which build.py puts
// into index.html) adds it once the first frame is on screen: that frame is the page's
// shell (the header and the text box). build.py kept the rest of the page, and the
// whole stylesheet, in static/later.html: this module fetches it and puts each part in
// place of its placeholder at once, and imports start.js meanwhile, which starts the
// engine's worker and loads the page's own modules. It imports nothing itself.
//
// start.js and its imports (the engine client, facts.js, …) used to come in beside the
// first frame: fetched and compiled then, they held it back (measured interleaved with
// bench/bench_first_paint.py), and starting the worker a frame later brought ready no
// later (row 2 of the site benchmark).

/**
 * The settings fields a person typed in before view/app.js wired them (their id →
 * the value typed): view/app.js puts them back over the link's or the last visit's
 * settings, as it keeps the text typed meanwhile.
 * @type {Map<string, string>}
 */
export const typedBeforeWiring = new Map();
/** @param {Event} event */
function noteTyping(event) {
  const field = event.target;
  if (field instanceof HTMLInputElement && field.type === "text" && field.id) typedBeforeWiring.set(field.id, field.value);
}
document.addEventListener("input", noteTyping, true);
/** view/app.js wired the fields: typing is its own from now on. */
export function wired() {
  document.removeEventListener("input", noteTyping, true);
}

/**
 * Puts the markup of each template `selector` finds in the page in its place.
 * @param {string} selector
 */
export function putBack(selector) {
  for (const kept of document.querySelectorAll(selector)) {
    if (kept instanceof HTMLTemplateElement) kept.replaceWith(kept.content);
  }
}

/**
 * Fetches the parts of the page kept out of its first frame (build.py's later_parts)
 * and puts each in place of its placeholder, all in one task, the whole stylesheet
 * first; then removes the first frame's own rules (build.py's first_frame_css), which
 * the whole sheet repeats, so that the page has one sheet to match.
 */
async function putBackLater() {
  const response = await fetch(new URL("./later.html", import.meta.url));
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  // Markup of this build's own (the service worker checks its sha256 with the rest).
  const kept = new DOMParser().parseFromString(await response.text(), "text/html");
  const parts = [...document.querySelectorAll("template[data-later]")].map((placeholder) => {
    const part = kept.querySelector(`template[data-later="${placeholder.getAttribute("data-later")}"]`);
    if (!(placeholder instanceof HTMLTemplateElement) || !(part instanceof HTMLTemplateElement)) {
      throw new Error(`no part ${placeholder.getAttribute("data-later")}`);
    }
    return [placeholder, part];
  });
  for (const [placeholder, part] of parts) placeholder.replaceWith(document.importNode(part.content, true));
  document.querySelector("style[data-first-frame]")?.remove();
}

/** Resolves once the rest of the page is in place (start.js waits for it to wire it). */
export const laterInPlace = putBackLater();

laterInPlace.catch((err) => {
  const why = err instanceof Error ? err.message : String(err);
  failed(`The rest of the page could not be loaded (${why}): reload the page.`);
});

import("./start.js").catch((err) => {
  const why = err instanceof Error ? err.message : String(err);
  failed(`The engine could not be started (${why}): reload the page.`);
});

/**
 * Says in the header's status what stopped the page (nothing else could say it yet).
 * @param {string} message
 */
function failed(message) {
  console.error(message);
  document.querySelector('[data-testid="status"]')?.setAttribute("data-state", "error");
  const line = document.getElementById("status-text");
  if (line) line.textContent = message;
}
