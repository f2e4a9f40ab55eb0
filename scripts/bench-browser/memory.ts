/** Persisted memories at scale: heap, resident memory, IndexedDB size and open time. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { benchPage, heapGrowth, heapUsed, log, mb, ms, rendererResidentBytes, sizeId } from './harness.js';
import { push, record } from './report.js';
import { openBreakdownNote } from './scale.js';

/** Bytes of the files under `dir` (0 when it does not exist). */
function bytesOnDisk(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(join(entry.parentPath, entry.name)).size, 0);
}

/**
 * Persisted memories of SMALL and LARGE synthetic rounds: JS heap, IndexedDB size, open time (and
 * where it goes). `profileDir` is the context's profile: its IndexedDB folder checks the browser's
 * estimate against the files on disk, and its renderer processes give the page's resident memory.
 */
export async function memoryAtScale(context: BrowserContext, profileDir: string, sizes: { readonly small: number; readonly large: number }): Promise<void> {
  const { small: SMALL, large: LARGE } = sizes;
  const indexedDbDir = join(profileDir, 'Default', 'IndexedDB');
  let page = await benchPage(context);
  const what = 'synthetic rounds (random unit vectors: 512-d for two text units a round, 1280-d for a caption unit every 10th round)';
  for (const rounds of [SMALL, LARGE]) {
    const label = rounds.toLocaleString('en');
    const reopens = rounds >= 100_000 ? 1 : 3;
    const heapBefore = await heapUsed(page);
    const idbBefore = await page.evaluate(() => window.__bench!.indexedDbBytes());
    const diskBefore = bytesOnDisk(indexedDbDir);
    log(`persisted memory of ${label} rounds: writing…`);
    const written = await page.evaluate((n) => window.__bench!.writePersisted(n), rounds);
    const heapWritten = heapGrowth(await heapUsed(page), heapBefore);
    await page.evaluate(() => window.__bench!.release());
    const idbAfter = await page.evaluate(() => window.__bench!.indexedDbBytes());
    const diskAfter = bytesOnDisk(indexedDbDir);
    // Reopen in a fresh tab, so nothing the writing left behind counts.
    await page.close();
    page = await benchPage(context);
    const heapFresh = await heapUsed(page);
    const residentBefore = rendererResidentBytes(profileDir);
    log(`persisted memory of ${label} rounds: reopening ${reopens}×…`);
    const reopened = await page.evaluate(([n, times]) => window.__bench!.persistedOpen(n, times), [rounds, reopens] as const);
    const heapReopened = heapGrowth(await heapUsed(page), heapFresh);
    const residentReopened = rendererResidentBytes(profileDir);
    const added = await addRun(page, rounds);
    await page.evaluate(() => window.__bench!.release());
    const breakdown = await openBreakdownNote(page, rounds, reopened.open.p50, reopens);
    await page.evaluate((n) => window.__bench!.deleteMemory(`bench-persisted-${n}`), rounds);
    const runs = reopens === 1 ? 'one run' : `median of ${reopens}`;
    const id = sizeId(rounds);
    record(`heap.${id}`, heapReopened.bytes / 1e6, 'MB');
    if (residentBefore !== undefined && residentReopened !== undefined) record(`rss.${id}`, (residentReopened - residentBefore) / 1e6, 'MB');
    record(`idb.${id}`, (idbAfter.bytes - idbBefore.bytes) / 1e6, 'MB');
    record(`open.${id}.firstRetrieval`, reopened.openToFirstRetrieval.p50, 'ms');
    record(`open.${id}.longestTask`, reopened.longestTask, 'ms');
    record(`add.${id}`, added.held.roundsPerSecond, 'rounds/s');
    push({ measure: `JS heap held by an open ${label}-round memory, reopened from IndexedDB in a fresh tab`, value: heapReopened.total, target: rounds === 100_000 ? '≤ 120 MB' : '—', note: `${heapReopened.parts}; ${what}; after a full GC; ${heapWritten.total} right after writing it (another tab)` });
    if (residentBefore !== undefined && residentReopened !== undefined) {
      push({
        measure: `  the same, as the page's renderer processes' resident memory (includes the vectors' WebAssembly memory)`,
        value: mb(residentReopened - residentBefore),
        target: rounds === 100_000 ? '≤ 300 MB' : '—',
        note: 'VmRSS growth of the fresh tab from before to after reopening it; the V8 counters above do not see WebAssembly memory',
      });
    }
    push({
      measure: `IndexedDB size of a ${label}-round memory`,
      value: mb(idbAfter.bytes - idbBefore.bytes),
      target: rounds === 100_000 ? '≤ 250 MB' : '—',
      note: `navigator.storage.estimate() ${idbAfter.detailed ? 'usageDetails.indexedDB' : 'usage'} after minus before (round facts and bodies, index segments, manifest); files in the profile's IndexedDB folder grew ${mb(diskAfter - diskBefore)}; written in ${(written.writeMs / 1000).toFixed(1)} s (adds of 2,000 rounds)`,
    });
    push({ measure: `open a persisted ${label}-round memory, until open returns`, value: ms(reopened.open.p50), target: '—', note: `${runs}; ${breakdown}` });
    push({
      measure: `open a persisted ${label}-round memory, until its first retrieval is done`,
      value: ms(reopened.openToFirstRetrieval.p50),
      target: OPEN_TARGETS[rounds] ?? '—',
      note: `${runs}; a retrieval on the open memory ${ms(reopened.warmRetrieval.p50)}`,
    });
    push({
      measure: `  the longest main-thread task meanwhile`,
      value: reopened.longestTask === 0 ? 'none ≥ 50 ms' : ms(reopened.longestTask),
      target: '—',
      note: `over ${reopens === 1 ? 'the reopen' : `all ${reopens} reopens`}, from the call to openMemory to the end of the first retrieval (the Long Tasks API reports tasks of 50 ms and more)`,
    });
    push({ measure: `add ${ADDED} text rounds, one add each, to the reopened ${label}-round memory`, value: `${added.held.roundsPerSecond.toFixed(0)} rounds/s`, target: '—', note: `${(added.held.ms / 1000).toFixed(2)} s (${addTimes(added.held)}); synthetic encoders, so this is storage and indexing` });
    if (rounds !== REFERENCE_ROUNDS) {
      if (rounds === LARGE) record(`add.${sizeId(REFERENCE_ROUNDS)}`, added.reference.roundsPerSecond, 'rounds/s');
      push({
        measure: `  adding to ${label} rounds against adding to ${REFERENCE_ROUNDS.toLocaleString('en')}`,
        value: `${(added.held.roundsPerSecond / added.reference.roundsPerSecond).toFixed(2)}×`,
        target: rounds === LARGE ? '≥ 0.8×' : '—',
        note: `${added.held.roundsPerSecond.toFixed(0)} against ${added.reference.roundsPerSecond.toFixed(0)} rounds/s (${addTimes(added.reference)}): ${ADDED} adds to each, the ${REFERENCE_ROUNDS.toLocaleString('en')}-round memory open beside it in the same page, in blocks of ${ADD_BLOCK} taken in turn`,
      });
    }
  }
  await page.close();
}

/**
 * `ADDED` adds to the memory the page holds and, unless it is the reference memory, as many to the
 * reference memory opened beside it, block by block in turn (`addPaired`): measured one after the
 * other, a minute apart, the two rates moved with the machine's load by up to 0.13 of their ratio.
 */
async function addRun(page: Page, rounds: number) {
  log(`persisted memory of ${rounds.toLocaleString('en')} rounds: adding ${ADDED} rounds one by one${rounds === REFERENCE_ROUNDS ? '' : `, and as many to a ${REFERENCE_ROUNDS.toLocaleString('en')}-round memory in turn`}…`);
  if (rounds === REFERENCE_ROUNDS) {
    const held = await page.evaluate((count) => window.__bench!.addToHeld(count), ADDED);
    return { held, reference: held };
  }
  return page.evaluate(([reference, count, block]) => window.__bench!.addPaired(reference, count, block), [REFERENCE_ROUNDS, ADDED, ADD_BLOCK] as const);
}

/** Where an add run's time went: the first adds after opening, and the adds' median and p95. */
function addTimes(added: { readonly firstMs: number; readonly each: { readonly p50: number; readonly p95: number } }): string {
  return `the first 5 adds ${ms(added.firstMs)}, an add's p50 ${added.each.p50.toFixed(1)} ms, p95 ${added.each.p95.toFixed(1)} ms`;
}

/** Rounds added one by one for the add-rate rows, to each memory. */
const ADDED = 200;
/** Adds in a row to one memory before the other's turn. */
const ADD_BLOCK = 25;
/** The memory size the add rates are compared with. */
const REFERENCE_ROUNDS = 1_000;
const OPEN_TARGETS: Record<number, string> = { 10_000: '≤ 250 ms', 100_000: '≤ 1.0 s' };

/**
 * IndexedDB against the origin-private file system (OPFS) for reading what opening reads: a few large
 * values (segments) and many small ones (per-round records), each store read whole, medians.
 */
export async function storageReads(context: BrowserContext): Promise<void> {
  const page = await benchPage(context);
  for (const [count, bytes] of [
    [8, 16 << 20],
    [4_000, 32 << 10],
  ] as const) {
    log(`reading ${count} values of ${bytes >> 10} kB from IndexedDB and from OPFS…`);
    const read = await page.evaluate(([n, size]) => window.__bench!.storageRead(n, size, 5), [count, bytes] as const);
    const label = `${count.toLocaleString('en')} × ${bytes >= 1 << 20 ? `${bytes >> 20} MB` : `${bytes >> 10} kB`}`;
    const id = `${count}x${bytes >> 10}k`;
    record(`read.idb.${id}`, read.idb.p50, 'ms');
    record(`read.idbBuffer.${id}`, read.idbBuffers.p50, 'ms');
    record(`read.opfs.${id}`, read.opfs.p50, 'ms');
    push({ measure: `read ${label} from IndexedDB (Blob values, one transaction)`, value: ms(read.idb.p50), target: '—', note: `median of 5; ${(((count * bytes) / 1e6 / read.idb.p50) * 1000).toFixed(0)} MB/s` });
    push({ measure: `  the same as ArrayBuffer values`, value: ms(read.idbBuffers.p50), target: '—', note: `median of 5; ${(((count * bytes) / 1e6 / read.idbBuffers.p50) * 1000).toFixed(0)} MB/s` });
    push({ measure: `  the same from OPFS (one file each, File.arrayBuffer)`, value: ms(read.opfs.p50), target: '—', note: `median of 5; ${(((count * bytes) / 1e6 / read.opfs.p50) * 1000).toFixed(0)} MB/s` });
  }
  await page.close();
}

