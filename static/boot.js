// boot.js: the page's entry. The page's inline script (loader.js, which build.py puts
// into index.html) adds it once the first frame is on screen: that frame is the page's
// shell (the header and the text box), and build.py kept the rest of the page in
// templates. This module puts it back at once, and imports start.js, which starts the
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

putBack("template[data-later]");
// The whole stylesheet is back with the rest: the first frame's own rules (build.py's
// first_frame_css), which it repeats, go, so that the page has one sheet to match.
document.querySelector("style[data-first-frame]")?.remove();

import("./start.js").catch((err) => {
  // Without start.js nothing else can say it: the status in the header does.
  const why = err instanceof Error ? err.message : String(err);
  console.error(`the engine could not be started: ${why}`);
  document.querySelector('[data-testid="status"]')?.setAttribute("data-state", "error");
  const line = document.getElementById("status-text");
  if (line) line.textContent = `The engine could not be started (${why}): reload the page.`;
});
