// puffin-lens service worker: the app works offline after the first visit.
// BUILD and FILES are stamped by web/post_build.py at every build, so a new
// build gets a new cache and never is shadowed by a stale one; old caches
// are deleted when the new worker activates. Trace data is never cached.
const BUILD = "__BUILD_ID__";
const FILES = __FILES__;
const CACHE = "puffin-lens-" + BUILD;
const PREFIX = "puffin-lens-";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(["./", ...FILES]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k)),
      ))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // The page: network first (a new build shows at once), cache offline.
    event.respondWith(
      fetch(request).catch(() =>
        caches.open(CACHE).then((cache) => cache.match("./"))
          .then((hit) => hit || new Response("offline", { status: 503 }))),
    );
    return;
  }
  // Build files have content hashes in their names: cache first.
  event.respondWith(
    caches.open(CACHE)
      .then((cache) => cache.match(request, { ignoreSearch: true }))
      .then((hit) => hit || fetch(request)),
  );
});
