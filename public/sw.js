/**
 * vmem's offline service worker. At install it caches the files listed in `precache.json`
 * (generated at build from the output folder: app shell, model files, WASM, sample photos), so
 * after one online visit the app starts and retrieves with the network cut.
 *
 * Pages: network first (updates arrive when online), cache when offline.
 * Everything else in the precache: cache first. Other requests: the network, untouched.
 * Pages and workers it serves carry the cross-origin isolation headers (see `withIsolation`).
 */
/* eslint-env serviceworker */
const CACHE_PREFIX = 'vmem-app-';
const RUNTIME_CACHE = 'vmem-runtime';
const MANIFEST_URL = new URL('precache.json', self.location.href).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const response = await fetch(MANIFEST_URL, { cache: 'no-store' });
      if (!response.ok) throw new Error(`precache.json: HTTP ${response.status}`);
      const { version, urls } = await response.json();
      const cache = await caches.open(CACHE_PREFIX + version);
      // addAll is atomic: one failed file fails the install, and the previous version stays in charge.
      await cache.addAll(urls.map((url) => new Request(new URL(url, self.location.href), { cache: 'reload' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const current = await currentCacheName();
      const names = await caches.keys();
      await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== current).map((name) => caches.delete(name)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(networkFirst(request).then((response) => withIsolation(request, response)));
    return;
  }
  event.respondWith(cacheFirst(request).then((response) => withIsolation(request, response)));
});

/** Stand-ins for a third-party site embedding the drop-in: never isolated (as in vite.config.ts). */
const NOT_ISOLATED = [/\/dropin-example\.html$/, /\/dropin\//];

/**
 * Pages and workers get COOP/COEP when the server sent none (a plain static host), so the app is
 * cross-origin isolated and TF.js may run WASM on several threads, offline too.
 */
function withIsolation(request, response) {
  if (request.destination !== 'document' && request.destination !== 'worker') return response;
  if (response.type !== 'basic' && response.type !== 'default') return response;
  if (response.headers.has('Cross-Origin-Embedder-Policy')) return response;
  if (NOT_ISOLATED.some((pattern) => pattern.test(new URL(request.url).pathname))) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The precache this worker installed: caches.keys() lists caches in creation order. */
async function currentCacheName() {
  const names = (await caches.keys()).filter((name) => name.startsWith(CACHE_PREFIX));
  return names[names.length - 1];
}

async function networkFirst(request) {
  try {
    return await fetch(request);
  } catch (error) {
    const cached = (await caches.match(request, { ignoreSearch: true, ignoreVary: true })) ?? (await caches.match(new URL('index.html', self.location.href).href));
    if (cached) return cached;
    throw error;
  }
}

/** Precached files first; other same-origin build assets (e.g. the hub encoders' runtime) are cached on first use. */
async function cacheFirst(request) {
  const cached = await caches.match(request, { ignoreSearch: true, ignoreVary: true });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok && new URL(request.url).pathname.includes('/assets/')) {
    const copy = response.clone();
    const cache = await caches.open(RUNTIME_CACHE);
    await cache.put(request, copy);
  }
  return response;
}
