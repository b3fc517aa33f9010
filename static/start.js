// start.js: starts the engine as early as the page allows, loads the page's own
// modules once its first frame is on screen, and registers the service worker that
// serves repeat and offline visits (../sw.js).
//
// index.html loads this module (with `async`), and its small graph follows it: just
// this file, the engine client (engine/), facts.js and page-modules.js, so the worker
// (and with it the runtime and the memory snapshot downloads) starts while the page
// is read and drawn. They are not preloaded: fetched and compiled beside the first
// frame, they held it back, and brought the engine no sooner (measured interleaved,
// bench/bench_first_paint.py and row 2 of the site benchmark). view/app.js and the
// modules it imports (PAGE_MODULES, listed by build.py) come after the first paint:
// fetched and compiled while the browser lays out and draws the first frame, about
// fifty modules held that frame back (traced on a cold visit, the raster of the first
// frame waited behind their compiling on a two-core machine). That frame is the
// page's shell (the header and the text box): build.py keeps the rest in templates,
// put back as soon as the frame is drawn, and the closed folds' contents, put back
// before the page's modules run. view/app.js imports `engine` from here and calls
// engine.listen(), which replays the stages seen so far.

import { Engine } from "./engine/engine-client.js";
import { messageOf } from "./engine/protocol.js";
import { PAGE_MODULES } from "./page-modules.js";

export const engine = new Engine();
engine.start();

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

// How long the page's modules wait for the first paint at most (a page hidden
// meanwhile, or a browser that reports no paint timing, draws or says nothing).
const FIRST_PAINT_WAIT_MS = 1000;
// How long they wait for the engine's worker to run at most (a slow start-up, or
// one that failed without a word, does not keep the page from wiring itself).
const ENGINE_WAIT_MS = 5000;

/** @param {number} ms */
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
function putBack(selector) {
  for (const kept of document.querySelectorAll(selector)) {
    if (kept instanceof HTMLTemplateElement) kept.replaceWith(kept.content);
  }
}

// The page's modules, all requested at once (not import by import), then the page,
// once the first frame is drawn and the engine's worker runs: the worker's own modules
// are fetched through this page's thread, which wiring the page keeps busy (traced:
// the worker's first import waited 400 ms behind view/app.js). Not awaited here:
// view/app.js imports this module, which must have finished.
const painted = firstPaint();
// The rest of the page, which build.py kept out of the first frame (its shell: the
// header and the text box): back as soon as that frame is drawn, the summary first.
painted.then(() => putBack("template[data-later]"));
Promise.all([painted, Promise.race([engine.whenRunning(), wait(ENGINE_WAIT_MS)])])
  .then(() => {
    putBack("template[data-later]"); // a page that never painted: still whole
    // The closed folds' contents, which build.py kept out of the first frame.
    putBack("template[data-folded]");
    for (const path of PAGE_MODULES) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = new URL(path, import.meta.url).href;
      document.head.append(link);
    }
    return import("./view/app.js");
  })
  .catch((err) => {
    console.error(`the page's modules did not load: ${messageOf(err)}`);
  });

// Registered once the engine is ready, so that precaching the build (about 25 MB,
// mostly from the HTTP cache by then) does not compete with the first start-up.
// Scope: the site root, which covers the page. A failure only costs the offline
// copy; the page works the same without it.
if ("serviceWorker" in navigator) {
  engine.whenReady().then(() =>
    navigator.serviceWorker.register(new URL("../sw.js", import.meta.url), { scope: "../", updateViaCache: "none" }).catch((err) => {
      console.warn(`service worker not registered (repeat visits will not work offline): ${messageOf(err)}`);
    }),
  );
}
