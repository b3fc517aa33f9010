// start.js: starts the engine as early as the page allows, and registers the
// service worker that serves repeat and offline visits (../sw.js).
//
// index.html loads this module with `async`, ahead of view/app.js: its graph is
// just this file, the engine client (engine/) and facts.js, so the worker (and
// with it the runtime and the memory snapshot downloads) starts while the page's
// other modules still load. view/app.js imports `engine` from here and calls
// engine.listen(), which replays the stages seen so far.

import { Engine } from "./engine/engine-client.js";
import { messageOf } from "./engine/protocol.js";

export const engine = new Engine();
engine.start();

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
