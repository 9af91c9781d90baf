// Soundtrail's service worker: an offline page, and nothing else of the person's.
//
// It precaches only /offline.html and the static files it shows. Page navigations go to the
// network as always; only when the network fails does the offline page answer. Everything else
// (data requests, the live event stream /api/events, forms, media) is not touched at all: no
// personal page or API answer is ever stored here. Registered by app/root.tsx in production.
const VERSION = "__OFFLINE_VERSION__";
const CACHE = `soundtrail-offline-${VERSION}`;
const OFFLINE_URL = "/offline.html";
const PRECACHE = [OFFLINE_URL, "/icon-192.png", "/favicon.svg"];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((key) => key.startsWith("soundtrail-offline-") && key !== CACHE)
            .map((key) => caches.delete(key)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(
      fetch(request).catch(async () => {
        const cached = await caches.match(OFFLINE_URL, { cacheName: CACHE });
        return cached ?? Response.error();
      }),
    );
    return;
  }
  // The offline page's own files, from the cache when the network is gone.
  if (PRECACHE.includes(url.pathname) && url.search === "") {
    event.respondWith(
      fetch(request).catch(async () => {
        const cached = await caches.match(url.pathname, { cacheName: CACHE });
        return cached ?? Response.error();
      }),
    );
  }
});
