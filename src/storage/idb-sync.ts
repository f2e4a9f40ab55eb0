/**
 * Coordination between tabs that open the same memory: a Web Lock serialises writes, and a
 * BroadcastChannel tells the other tabs that the stored memory changed so they can reopen it.
 */

/** What one tab tells the others about a memory. */
export type MemoryChange =
  | { readonly type: 'written'; readonly name: string; readonly revision: number }
  | { readonly type: 'deleted'; readonly name: string };

/** Name used for both the lock and the channel of a memory. */
export function syncKey(name: string): string {
  return `vmem:${name}`;
}

/**
 * Runs `task` while holding the memory's exclusive Web Lock. Where Web Locks are missing (Node,
 * very old browsers) the task runs directly: there is no second tab to race with there.
 */
export async function withWriteLock<T>(name: string, task: () => Promise<T>): Promise<T> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return task();
  return locks.request(syncKey(name), { mode: 'exclusive' }, task) as Promise<T>;
}

/** Sends a change notice to every other context that listens on the memory's channel. */
export function announceChange(change: MemoryChange): void {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel(syncKey(change.name));
  channel.postMessage(change);
  channel.close();
}

/** Calls `listener` for changes other contexts announce on the memory. Returns the unsubscribe. */
export function listenForChanges(name: string, listener: (change: MemoryChange) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => {};
  const channel = new BroadcastChannel(syncKey(name));
  channel.onmessage = (event: MessageEvent<MemoryChange>) => listener(event.data);
  return () => channel.close();
}
