// start.js: starts the engine, loads the page's own modules once the engine's worker
// runs, and registers the service worker that serves repeat and offline visits
// (../sw.js).
//
// boot.js (the page's entry) imports this module once the first frame is on screen,
// as it fetches the rest of the page to put back. Its small graph (this file, the
// engine client in engine/, facts.js, page-modules.js) is all the engine needs, so the
// worker (and with it the runtime and the memory snapshot downloads) starts at once.
// view/app.js and the modules it imports (PAGE_MODULES, listed by build.py) come
// after: about fifty modules, fetched and compiled beside the first frame, held it
// back (traced on a cold visit, its raster waited behind their compiling on a
// two-core machine), and the worker's own modules, fetched through this page's
// thread, behind their wiring. The closed folds' contents are put back before the
// page's modules run. view/app.js imports `engine` from here and calls
// engine.listen(), which replays the stages seen so far.

import { laterInPlace, putBack, typedBeforeWiring, wired } from "./boot.js";
import { Engine } from "./engine/engine-client.js";
import { messageOf } from "./engine/protocol.js";
import { PAGE_MODULES } from "./page-modules.js";

export const engine = new Engine();
engine.start();

// What view/app.js takes from here besides the engine: boot.js notes the settings typed
// before the page is wired, from the first frame on.
export { typedBeforeWiring, wired };

// How long the page's modules wait for the engine's worker to run at most (a slow
// start-up, or one that failed without a word, does not keep the page from wiring
// itself).
const ENGINE_WAIT_MS = 5000;

/** @param {number} ms */
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The page's modules, all requested at once (not import by import), then the page,
// once the engine's worker runs (the first frame is drawn already: boot.js imports this
// module only then): the worker's own modules are fetched through this page's thread,
// which wiring the page keeps busy (traced: the worker's first import waited 400 ms
// behind view/app.js). Not awaited here: view/app.js imports this module, which must
// have finished.
Promise.race([engine.whenRunning(), wait(ENGINE_WAIT_MS)])
  .then(() => laterInPlace) // the rest of the page, which the page's modules wire
  .then(() => {
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
