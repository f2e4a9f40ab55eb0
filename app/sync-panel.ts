/**
 * "Sync with…": replicates the open memory with a CouchDB database (docs/sync.md), once or live,
 * with pause, resume and stop, and says where it stands. The URL is remembered on this device; the
 * sync passphrase stays in the form (this tab) only, as the lock's passphrase does.
 */
import type { BrowserMemory } from 'vmem/browser';
import type { SyncHandle, SyncState } from 'vmem';
import type { Act } from './alerts.js';
import type { AppState } from './app-state.js';
import { byId } from './dom.js';
import { plural } from './task-progress.js';

const URL_KEY = 'vmem.sync.url';
/** How often the status line is read again while a sync runs (a live sync's waiting changes no progress). */
const STATUS_EVERY_MS = 1_000;
/** Received rounds re-render the history at most this often. */
const REDRAW_EVERY_MS = 1_000;

export interface SyncPanelHooks {
  /** Reports failures in the panel's own alert region. */
  readonly act: Act;
  /** Rounds arrived or were forgotten by another device: the history and the size need redrawing. */
  readonly changed: () => void;
}

/** What the status line says of a sync's state. */
export function describeSyncState(state: SyncState, live: boolean): string {
  const counts = `sent ${plural(state.pushed, 'round')}, received ${plural(state.pulled, 'round')}${state.forgotten > 0 ? `, ${state.forgotten} forgotten elsewhere` : ''}`;
  const when = state.lastSyncedAt === undefined ? '' : ` Last synced at ${new Date(state.lastSyncedAt).toLocaleTimeString()}.`;
  switch (state.status) {
    case 'active':
      return `Syncing with ${state.url}: ${counts}…`;
    case 'waiting':
      return `Up to date with ${state.url} (${counts}); watching for changes.${when}`;
    case 'paused':
      return `Paused (${counts}). Resume goes on where it stopped.`;
    case 'failed':
      return `Sync stopped: ${state.error?.code ?? 'error'}.${when}`;
    case 'idle':
      return state.url === undefined ? 'Not synced in this tab yet.' : `${live ? 'Stopped' : 'Synced'} with ${state.url}: ${counts}.${when}`;
  }
}

/** Binds the panel; `memoryChanged` is called when another memory opens (its sync ends with it). */
export function bindSyncPanel(app: AppState, hooks: SyncPanelHooks): { memoryChanged(): void } {
  const form = byId('sync-form', HTMLFormElement);
  const url = byId('sync-url', HTMLInputElement);
  const passphrase = byId('sync-passphrase', HTMLInputElement);
  const live = byId('sync-live', HTMLInputElement);
  const start = byId('sync-start', HTMLButtonElement);
  const pause = byId('sync-pause', HTMLButtonElement);
  const stop = byId('sync-stop', HTMLButtonElement);
  const status = byId('sync-status', HTMLParagraphElement);
  url.value = localStorage.getItem(URL_KEY) ?? '';

  let running: { readonly handle: SyncHandle; readonly memory: BrowserMemory; readonly live: boolean } | undefined;
  /** The memory the status line speaks of, and whether its last sync was live. */
  let shown: { memory: BrowserMemory; live: boolean } | undefined;
  let paused = false;
  let received = 0;
  let redrawAt = 0;

  const show = () => {
    const memory = app.session?.memory;
    const state = memory && shown?.memory === memory ? memory.syncState() : undefined;
    status.textContent = state ? describeSyncState(state, shown!.live) : 'Not synced in this tab yet.';
    if (state) {
      const moved = state.pulled + state.forgotten;
      if (moved !== received && Date.now() >= redrawAt) {
        received = moved;
        redrawAt = Date.now() + REDRAW_EVERY_MS;
        hooks.changed();
      }
    }
    start.disabled = running !== undefined;
    pause.disabled = running === undefined;
    stop.disabled = running === undefined;
    pause.textContent = paused ? 'Resume' : 'Pause';
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void hooks.act(async () => {
      const memory = app.memory;
      const target = url.value.trim();
      localStorage.setItem(URL_KEY, target);
      const handle = memory.sync({ url: target, live: live.checked, ...(passphrase.value ? { passphrase: passphrase.value } : {}), onProgress: show });
      running = { handle, memory, live: live.checked };
      shown = { memory, live: live.checked };
      paused = false;
      received = 0;
      const ticking = setInterval(show, STATUS_EVERY_MS);
      show();
      try {
        await handle.done;
      } finally {
        clearInterval(ticking);
        if (running?.handle === handle) running = undefined;
        redrawAt = 0;
        show();
      }
    });
  });
  pause.addEventListener('click', () => {
    if (!running) return;
    if (paused) running.handle.resume();
    else running.handle.pause();
    paused = !paused;
    show();
  });
  stop.addEventListener('click', () => running?.handle.cancel());
  show();

  return {
    memoryChanged: () => {
      // Closing the memory ended its sync; a sync of the memory now open starts from the form.
      if (running && running.memory !== app.session?.memory) running.handle.cancel();
      show();
    },
  };
}
