/**
 * Registers the offline service worker (production builds only; it would fight Vite's dev server)
 * and follows whether offline use really works: the service worker reports its precache
 * (`vmem:precache` messages from public/sw.js), so the page can say "works offline" only when it
 * is true, and say why not (and what to do) when it is not.
 */

/** Whether the app works offline, as the page should say it. */
export type OfflineState =
  | { readonly state: 'pending' }
  | { readonly state: 'ready' }
  | { readonly state: 'unsupported'; readonly why: string }
  /** `reason`: `quota`, `network`, `storage`, `evicted` or `unknown`; `stillOffline`: an older copy still serves offline. */
  | { readonly state: 'failed'; readonly reason: string; readonly detail: string; readonly stillOffline: boolean };

/** What a `vmem:precache` message carries. */
interface PrecacheMessage {
  readonly type: 'vmem:precache';
  readonly state: 'ready' | 'failed';
  readonly reason?: string;
  readonly detail?: string;
}

/**
 * Registers `url` as the service worker for the app's folder and reports the offline state as it
 * becomes known. Resolves with the registration, or undefined where service workers are unavailable
 * (file://, some private modes) or during `vite dev`.
 */
export async function registerServiceWorker(url: string, report: (state: OfflineState) => void): Promise<ServiceWorkerRegistration | undefined> {
  if (import.meta.env.DEV) {
    report({ state: 'unsupported', why: 'offline use is off while developing (vite dev)' });
    return undefined;
  }
  if (!('serviceWorker' in navigator)) {
    report({ state: 'unsupported', why: 'this browser (or this private window) has no service workers' });
    return undefined;
  }
  report({ state: 'pending' });
  let settled = false;
  const settle = (state: OfflineState) => {
    settled = true;
    report(state);
  };
  /** The service worker's own report says why; this covers one that died without a word. */
  const settleSilentFailure = () => {
    if (settled) return;
    settle({ state: 'failed', reason: 'unknown', detail: 'the offline copy could not be made', stillOffline: container.controller !== null });
  };
  const container = navigator.serviceWorker;
  container.addEventListener('message', (event: MessageEvent<PrecacheMessage>) => {
    if (event.data?.type !== 'vmem:precache') return;
    if (event.data.state === 'ready') settle({ state: 'ready' });
    else settle({ state: 'failed', reason: event.data.reason ?? 'unknown', detail: event.data.detail ?? '', stillOffline: container.controller !== null });
  });
  // Messages sent before this point (the install may finish first) are queued until now.
  container.startMessages();
  let registration: ServiceWorkerRegistration;
  try {
    registration = await container.register(url, { scope: './' });
  } catch (error) {
    settle({ state: 'failed', reason: 'unknown', detail: `the service worker could not be registered (${error instanceof Error ? error.message : String(error)})`, stillOffline: false });
    return undefined;
  }
  const installing = registration.installing ?? registration.waiting;
  if (installing) {
    installing.addEventListener('statechange', () => {
      // Its message may still be on the way: give it a moment before saying "unknown".
      if (installing.state === 'redundant') setTimeout(settleSilentFailure, SILENT_FAILURE_WAIT_MS);
    });
  } else if (registration.active) {
    registration.active.postMessage({ type: 'vmem:precache?' });
  }
  return registration;
}

/** How long after a failed install its report may still arrive. */
const SILENT_FAILURE_WAIT_MS = 2_000;

/** The footer's wording for each state, and what to do when offline use is not available. */
export function describeOffline(offline: OfflineState): { readonly text: string; readonly advice?: string } {
  switch (offline.state) {
    case 'pending':
      return { text: 'Preparing offline use: downloading the app and its models once…' };
    case 'ready':
      return { text: 'Works offline: the app and its models are stored on this device.' };
    case 'unsupported':
      return { text: `Not available offline: ${offline.why}.` };
    case 'failed': {
      const advice = ADVICE[offline.reason] ?? ADVICE.unknown!;
      if (offline.stillOffline) return { text: `Works offline with the previous version; the update could not be stored (${offline.detail}).`, advice };
      return { text: `Not available offline: ${offline.detail}.`, advice };
    }
  }
}

const ADVICE: Record<string, string> = {
  quota: 'Free up space for this site (remove other site data or old memories), or leave private browsing, then reload the page to try again.',
  network: 'Check the connection and reload the page to try again.',
  evicted: 'The browser removed part of the offline copy to save space; reload the page while online to store it again.',
  storage: 'Reload the page to try again; if it keeps failing, this browser may not allow this site to store data.',
  unknown: 'Reload the page to try again.',
};
