/** src/sync, loaded on a memory's first `sync()` (the drop-in build swaps this module for src/sync/without-sync.ts). */
export function loadSync(): Promise<typeof import('../sync/session.js')> {
  return import('../sync/session.js');
}
