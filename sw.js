// sw.js: the service worker that makes repeat visits start from cache and work offline.
//
// This file is a template: build.py writes dist/sw.js with the line below replaced
// by this build's version (a hash over every file the site serves) and the list of
// those files. Served from the site root so that its scope covers the page.
//
//   install   precaches every file of this build into the cache "rag-overlap-<version>"
//   activate  deletes the caches of every other build, then takes over open pages
//   fetch     network first, the cache when the network fails: an online visit never
//             sees a stale build (a rebuilt site is fetched as usual), an offline one
//             is served whole from the cache. A cache holds one build and is never
//             changed: a new build comes with a new sw.js, which precaches it anew.
//
// Files in BUILD.lazy (the vocabulary wheels, megabytes a person may never choose)
// are not precached: each is put in this build's cache when first fetched.
//
// Workers the page starts (the engine, from a blob: URL) are controlled too, so the
// runtime, the wheels and the memory snapshot come from the cache when offline.

const BUILD = null; // build.py replaces this line
const PREFIX = "rag-overlap-";
const CACHE = `${PREFIX}${BUILD.version}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      await cache.addAll(BUILD.files.map((name) => new Request(name, { cache: "no-cache" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(networkFirst(request));
});

const LAZY = new Set(BUILD.lazy.map((name) => new URL(name, self.registration.scope).href));

async function networkFirst(request) {
  try {
    const response = await fetch(request);
    const url = request.url.split("?")[0];
    if (response.ok && LAZY.has(url)) {
      const cache = await caches.open(CACHE);
      await cache.put(url, response.clone());
    }
    return response;
  } catch (error) {
    const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
    if (cached) return cached;
    throw error;
  }
}
