// The service worker: the site's own files, cache-first, so vramfit works offline after one
// visit. Every file name but this one and the pages carries a content hash, and the cache name
// carries the build's version: a new version installs beside the old, then deletes it.
// It answers only requests to the site's own origin and never asks any other.
const VERSION = '{{VERSION}}';
const CACHE = 'vramfit-' + VERSION;
const ASSETS = {{ASSETS}};
// Each module is built twice, plain and precompressed (`NAME.gz`); boot.js loads the second
// where the browser can inflate it, so only the copy this browser loads is kept.
const PACKED = typeof DecompressionStream === 'function';
const PRECACHE = ASSETS.filter((a) => (PACKED ? !ASSETS.includes(`${a}.gz`) : !a.endsWith('.wasm.gz')));

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((k) => k.startsWith('vramfit-') && k !== CACHE).map((k) => caches.delete(k)),
      ))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (request.mode === 'navigate' && url.pathname === new URL('./', self.location).pathname) {
    // The app shell: state lives in the hash and query, so any query gets the one page.
    event.respondWith(
      caches.open(CACHE)
        .then((cache) => cache.match('./'))
        .then((hit) => hit || fetch(request)),
    );
    return;
  }
  event.respondWith(
    caches.open(CACHE).then((cache) => cache.match(request).then((hit) => {
      if (hit) return hit;
      return fetch(request).then((response) => {
        // Pages outside the app (the book) are kept once seen, so they work offline too.
        if (response.ok && response.type === 'basic') cache.put(request, response.clone());
        return response;
      });
    })),
  );
});
