/**
 * Ends the current task, so that the page paints and handles input before the rest of a long piece
 * of work (opening a memory: the Long Tasks API counts every task of 50 ms or more). Uses
 * `scheduler.yield` where there is one (Chromium 129+: the rest runs ahead of other queued tasks),
 * else a macrotask.
 * @example for (const part of parts) { work(part); await yieldTask(); }
 */
export function yieldTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * For a loop of steps of uneven cost: a function that yields (`yieldTask`) only once `budgetMs`
 * have passed since it last did, so small loops run in one task and large ones stay responsive.
 * The default leaves room for a step of up to 40 ms under the 50 ms the Long Tasks API counts.
 * @example const pause = yieldAfter(); for (const part of parts) { work(part); await pause(); }
 */
export function yieldAfter(budgetMs = 10): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < budgetMs) return;
    await yieldTask();
    since = performance.now();
  };
}
