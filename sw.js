// sw.js: the service worker that makes repeat visits start from cache, work offline,
// and never mix two builds.
//
// This file is a template: build.py writes dist/sw.js with the line below replaced
// by this build's version (a hash over every file the site serves) and every file
// to precache with its sha256. Served from the site root so its scope covers the page.
//
//   install   fetches every file of this build, checks each against its sha256, and
//             only then writes them all into the cache "rag-overlap-<version>". A file
//             that fails or does not match fails the whole install and its cache is
//             deleted: the version already running stays, whole. (A cache left by an
//             install that died midway is deleted first.)
//   activate  happens once no page uses the previous version any more (or when a page
//             asks for it with {type: "skip-waiting"} and reloads itself); it deletes
//             the caches of every other build.
//   fetch     answers from this build's cache, so a page and everything it loads (its
//             modules, the worker, the runtime, the wheels) come from one build. Only
//             what is not part of the build goes to the network.
//
// Files in BUILD.lazy (ONNX Runtime Web in ort/ and the embedding model in models/:
// megabytes a person may never ask for) are not precached: each is fetched when
// first asked for, checked against its sha256 like the rest, and kept in this
// build's cache (one that fails its check is answered 502, with the reason as text).
// The vocabulary wheels are not lazy: they are precached, so every encoding works
// offline.
//
// The engine's worker (started from a blob: URL) is controlled too, so the runtime,
// the wheels and the memory snapshot come from the same cache.

const BUILD = null; // build.py replaces this line
const PREFIX = "rag-overlap-";
const CACHE = `${PREFIX}${BUILD.version}`;

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** One file of this build, fetched anew and checked against its sha256. */
async function fetchChecked([name, sha256]) {
  // Revalidated: an unchanged file comes from the HTTP cache, and the sha256 check
  // below catches a server that wrongly calls a changed file unchanged.
  const response = await fetch(new Request(name, { cache: "no-cache" }));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  const body = await response.arrayBuffer();
  const got = hex(await crypto.subtle.digest("SHA-256", body));
  if (got !== sha256) {
    throw new Error(`${name} has sha256 ${got.slice(0, 12)}…, not this build's ${sha256.slice(0, 12)}…`);
  }
  return [name, new Response(body, { status: 200, headers: response.headers })];
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      await caches.delete(CACHE); // what an install that died midway left behind
      try {
        const entries = await Promise.all(BUILD.files.map(fetchChecked));
        const cache = await caches.open(CACHE);
        for (const [name, response] of entries) await cache.put(name, response);
      } catch (error) {
        await caches.delete(CACHE);
        console.warn(`service worker: version ${BUILD.version} not installed, the running one stays: ${error.message}`);
        throw error;
      }
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
    })(),
  );
});

self.addEventListener("message", (event) => {
  if (event.data?.type === "skip-waiting") self.skipWaiting();
});

/** Lazy files by their full URL, for the fetch handler. */
const LAZY = new Map(BUILD.lazy.map((entry) => [new URL(entry[0], self.registration.scope).href, entry]));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(fromThisBuild(request));
});

async function fromThisBuild(request) {
  const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
  if (cached) return cached;
  const lazy = LAZY.get(request.url.split("?")[0]);
  if (lazy === undefined) return fetch(request); // not part of the build (the benchmark's pages)
  let name, response;
  try {
    [name, response] = await fetchChecked(lazy);
  } catch (error) {
    // Said, not a bare network error: the page can show why (a damaged file, say).
    return new Response(error.message, { status: 502, statusText: "Bad Gateway", headers: { "content-type": "text/plain; charset=utf-8" } });
  }
  const cache = await caches.open(CACHE);
  await cache.put(name, response.clone());
  return response;
}
