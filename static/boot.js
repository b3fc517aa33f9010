// boot.js: the page's entry (index.html loads it, with `async`). It imports nothing,
// so the first frame waits for no module but this one: once that frame is on screen,
// it puts back the rest of the page, which build.py kept in templates (the first frame
// is the page's shell: the header and the text box), and imports start.js, which
// starts the engine's worker and loads the page's own modules.
//
// start.js and its imports (the engine client, facts.js, …) used to come in beside the
// first frame: fetched and compiled then, they held it back (measured interleaved with
// bench/bench_first_paint.py), and starting the worker a frame later brought ready no
// later (row 2 of the site benchmark).

// How long the page waits for the first paint at most (a page hidden meanwhile, or a
// browser that reports no paint timing, draws or says nothing).
const FIRST_PAINT_WAIT_MS = 1000;

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

/** Resolves once the page's first contentful frame is on screen (or none is coming). */
function firstPaint() {
  return new Promise((resolve) => {
    if (document.visibilityState !== "visible") {
      resolve(undefined);
      return;
    }
    setTimeout(resolve, FIRST_PAINT_WAIT_MS);
    document.addEventListener("visibilitychange", resolve, { once: true });
    try {
      new PerformanceObserver((list, observer) => {
        if (list.getEntriesByName("first-contentful-paint").length === 0) return;
        observer.disconnect();
        resolve(undefined);
      }).observe({ type: "paint", buffered: true });
    } catch {
      resolve(undefined);
    }
  });
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

/** Resolves once the first frame is drawn and the rest of the page is back in place. */
export const painted = firstPaint().then(() => putBack("template[data-later]"));

painted
  .then(() => import("./start.js"))
  .catch((err) => {
    // Without start.js nothing else can say it: the status in the header does.
    const why = err instanceof Error ? err.message : String(err);
    console.error(`the engine could not be started: ${why}`);
    document.querySelector('[data-testid="status"]')?.setAttribute("data-state", "error");
    const line = document.getElementById("status-text");
    if (line) line.textContent = `The engine could not be started (${why}): reload the page.`;
  });
