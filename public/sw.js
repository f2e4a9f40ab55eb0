/**
 * vmem's offline service worker. At install it caches the files listed in `precache.json`
 * (generated at build from the output folder: app shell, model files, WASM, sample photos, the
 * drop-in script and worker), so after one online visit the app and the drop-in example start and
 * retrieve with the network cut. Each file is revalidated against the browser's HTTP cache, never
 * fetched afresh: what the page already downloaded costs a 304, so nothing is downloaded twice.
 *
 * It tells the open pages how that went (`vmem:precache` messages, see app/sw-register.ts): a
 * failed install says why (the quota is too small for the files, a file could not be downloaded)
 * instead of leaving "works offline" quietly untrue.
 *
 * Pages: network first (updates arrive when online), cache when offline.
 * Everything else in the precache: cache first; a drop-in model file is served from the app's
 * identical copy (`aliases`). Other requests: the network, untouched.
 * Pages and workers it serves carry the cross-origin isolation headers (see `withIsolation`).
 */
/* eslint-env serviceworker */
const CACHE_PREFIX = 'vmem-app-';
const RUNTIME_CACHE = 'vmem-runtime';
/** Build output left out of the precache (the optional runtimes), cached when first fetched. */
const RUNTIME_CACHED = /\/(assets|dropin\/chunks)\//;
const MANIFEST_URL = new URL('precache.json', self.location.href).href;
/** Room kept free beyond the files themselves: the browser's own overhead per cached response. */
const QUOTA_MARGIN = 1.05;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      let cacheName;
      let bytes;
      try {
        const response = await fetch(MANIFEST_URL, { cache: 'no-store' });
        if (!response.ok) throw new PrecacheError('network', `precache.json could not be downloaded (HTTP ${response.status})`);
        const manifest = await response.json();
        bytes = manifest.bytes;
        await assertRoomFor(bytes);
        cacheName = CACHE_PREFIX + manifest.version;
        const cache = await caches.open(cacheName);
        // The first failure stops the other downloads, and every write has settled before the
        // half-filled cache is removed below (a write still running would keep its bytes).
        const stop = new AbortController();
        const outcomes = await Promise.allSettled(
          manifest.urls.map(async (url) => {
            // Revalidated, not reloaded: a file the page already fetched comes from the HTTP cache
            // after a 304, so the first visit downloads each file once.
            const request = new Request(new URL(url, self.location.href), { cache: 'no-cache' });
            try {
              const file = await fetch(request, { signal: stop.signal }).catch((error) => {
                throw stop.signal.aborted ? error : new PrecacheError('network', `${url} could not be downloaded (${error.message})`);
              });
              if (!file.ok) throw new PrecacheError('network', `${url} could not be downloaded (HTTP ${file.status})`);
              await cache.put(request, file);
            } catch (error) {
              stop.abort();
              throw error;
            }
          }),
        );
        const failures = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason);
        if (failures.length > 0) throw failures.find((error) => error instanceof PrecacheError || error?.name === 'QuotaExceededError') ?? failures[0];
        // The manifest itself goes in last: its presence says the cache is complete, and it holds the aliases.
        await cache.put(MANIFEST_URL, new Response(JSON.stringify(manifest), { headers: { 'Content-Type': 'application/json' } }));
        await tellPages({ type: 'vmem:precache', state: 'ready', files: manifest.urls.length, bytes: manifest.bytes });
        await self.skipWaiting();
      } catch (error) {
        // A half-filled cache is removed, so the previous version (if any) stays in charge, whole.
        if (cacheName) await caches.delete(cacheName);
        const failure = error instanceof PrecacheError ? error : classify(error, bytes);
        await tellPages({ type: 'vmem:precache', state: 'failed', reason: failure.reason, detail: failure.message });
        throw error;
      }
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const current = await currentCacheName();
      const names = await caches.keys();
      await Promise.all(names.filter((name) => name.startsWith(CACHE_PREFIX) && name !== current).map((name) => caches.delete(name)));
      aliases = undefined;
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  // A page that opened after the install asks whether offline use is ready.
  if (event.data?.type !== 'vmem:precache?') return;
  event.waitUntil(
    (async () => {
      const name = await currentCacheName();
      const complete = name !== undefined && (await (await caches.open(name)).match(MANIFEST_URL)) !== undefined;
      event.source?.postMessage(complete ? { type: 'vmem:precache', state: 'ready' } : { type: 'vmem:precache', state: 'failed', reason: 'evicted', detail: 'the offline copy is incomplete' });
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

/** A failed precache, with what a page can tell the user: `quota`, `network` or `storage`. */
class PrecacheError extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** Refuses to start a download the quota cannot hold, with both sizes in the message. */
async function assertRoomFor(bytes) {
  const estimate = await self.navigator.storage?.estimate?.();
  if (!estimate || estimate.quota === undefined) return;
  const free = estimate.quota - (estimate.usage ?? 0);
  if (free < bytes * QUOTA_MARGIN) {
    throw new PrecacheError('quota', `the offline copy needs ${megabytes(bytes)}, and this site may store only ${megabytes(Math.max(0, free))} more here`);
  }
}

function classify(error, bytes) {
  if (error?.name === 'QuotaExceededError') {
    return new PrecacheError('quota', `browser storage for this site filled up while storing the offline copy${bytes === undefined ? '' : ` (${megabytes(bytes)})`}`);
  }
  return new PrecacheError('storage', `caching failed (${error?.message ?? String(error)})`);
}

function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Every page of this app, controlled or not yet (during a first install none is controlled). */
async function tellPages(message) {
  for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage(message);
}

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

/** Drop-in path → app path, read once from the manifest stored with the cache. */
let aliases;
function aliasOf(url) {
  aliases ??= (async () => {
    const name = await currentCacheName();
    const stored = name === undefined ? undefined : await (await caches.open(name)).match(MANIFEST_URL);
    return stored ? (await stored.json()).aliases ?? {} : {};
  })();
  const path = new URL(url).pathname.slice(new URL('./', self.location.href).pathname.length);
  return aliases.then((map) => (map[path] === undefined ? undefined : new URL(map[path], self.location.href).href));
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

/** Precached files first; other same-origin build output (e.g. the hub encoders' runtime) is cached on first use. */
async function cacheFirst(request) {
  const cached = await caches.match(request, { ignoreSearch: true, ignoreVary: true });
  if (cached) return cached;
  const twin = await aliasOf(request.url);
  const aliased = twin === undefined ? undefined : await caches.match(twin, { ignoreSearch: true, ignoreVary: true });
  if (aliased) return aliased;
  const response = await fetch(request);
  if (response.ok && RUNTIME_CACHED.test(new URL(request.url).pathname)) {
    const copy = response.clone();
    const cache = await caches.open(RUNTIME_CACHE);
    await cache.put(request, copy);
  }
  return response;
}
