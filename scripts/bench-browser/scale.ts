/** Index scale (retrieval latency and heap of in-memory memories, the Orama reference) and the persisted 5k open. */
import type { BrowserContext, Page } from 'playwright-core';
import { benchPage, heapGrowth, heapUsed, log, ms, sizeId } from './harness.js';
import { push, record } from './report.js';

export async function indexScale(context: BrowserContext, sizes: { readonly small: number; readonly large: number }, groups: ReadonlySet<string>): Promise<void> {
  const { small: SMALL, large: LARGE } = sizes;
  const page = await benchPage(context);
  const baseline = await heapUsed(page);
  for (const rounds of groups.has('scale') ? [SMALL, LARGE] : []) {
    log(`vmem, ${rounds} synthetic rounds…`);
    const vmem = await page.evaluate((n) => window.__bench!.vmemScale(n, 103), rounds);
    if (rounds === SMALL) {
      const heap = heapGrowth(await heapUsed(page), baseline);
      push({ measure: `JS heap held by a ${SMALL.toLocaleString('en')}-round in-memory memory`, value: heap.total, target: '—', note: `${heap.parts}: the BM25 index, rounds and units; not the 512-d text and 1280-d caption vectors (see memory at scale for the page's resident memory)` });
    }
    if (rounds === LARGE) {
      log(`int8 against exact float32 dense ranking, ${rounds} rounds…`);
      const quality = await page.evaluate(([n]) => window.__bench!.denseOverlap(n, 20, 23), [rounds] as const);
      record(`recall.${sizeId(rounds)}.top23`, quality.overlap, 'ratio');
      push({
        measure: `dense search, ${rounds.toLocaleString('en')} rounds: share of the exact float32 top 23 rounds the int8 search returns`,
        value: quality.overlap.toFixed(3),
        target: '≥ 0.98',
        note: `mean over ${quality.queries} queries; random unit vectors, the hardest case for quantization (scores crowd together)`,
      });
    }
    await page.evaluate(() => window.__bench!.release());
    log(`Orama hybrid reference, ${rounds} rounds…`);
    let orama: { latency: { p50: number; p95: number }; buildMs: number } | undefined;
    let oramaError = '';
    try {
      orama = await page.evaluate(([n, count]) => window.__bench!.oramaScale(n, count), [rounds, rounds >= 100_000 ? 33 : 103] as const);
    } catch (error) {
      // A reference that breaks is a result too; keep measuring the rest.
      oramaError = String(error).split('\n')[0]!.replace(/^page\.evaluate: /, '');
    }
    await page.evaluate(() => window.__bench!.release());
    record(`p95.${sizeId(rounds)}`, vmem.latency.p95, 'ms');
    push({
      measure: `retrieval p95, no LLM, ${rounds.toLocaleString('en')} rounds (vmem routed)`,
      value: ms(vmem.latency.p95),
      target: rounds === 10_000 ? '≤ 10 ms' : rounds === 100_000 ? '≤ 25 ms' : '—',
      note: `p50 ${ms(vmem.latency.p50)}; alone: BM25 p50 ${ms(vmem.bm25.p50)}, dense p50 ${ms(vmem.dense.p50)}; build ${(vmem.buildMs / 1000).toFixed(1)} s`,
    });
    push(
      orama
        ? { measure: `  reference: plain Orama hybrid, ${rounds.toLocaleString('en')} rounds`, value: ms(orama.latency.p95), target: '—', note: `p50 ${ms(orama.latency.p50)}; build ${(orama.buildMs / 1000).toFixed(1)} s` }
        : { measure: `  reference: plain Orama hybrid, ${rounds.toLocaleString('en')} rounds`, value: 'failed', target: '—', note: oramaError },
    );
  }
  if (groups.has('open')) await persistedOpen(page);
  await page.close();
}

/** How a reopen's time divides: opening the same memory from in-memory storage, and what IndexedDB adds. */
export async function openBreakdownNote(page: Page, rounds: number, idbOpenMs: number, times: number): Promise<string> {
  const parts = await page.evaluate(([n, count]) => window.__bench!.openBreakdown(n, count), [rounds, times] as const);
  await page.evaluate(() => window.__bench!.release());
  return `from in-memory storage (no IndexedDB; median of ${times}): ${ms(parts.inMemory.p50)}, so reading IndexedDB adds ${ms(idbOpenMs - parts.inMemory.p50)}`;
}

async function persistedOpen(page: Page): Promise<void> {
  log('persisted 5k-round memory…');
  const persisted = await page.evaluate(() => window.__bench!.persistedOpen(5_000, 5));
  await page.evaluate(() => window.__bench!.release());
  push({
    measure: 'open a persisted 5,000-round memory (IndexedDB → indexes), until open returns',
    value: ms(persisted.open.p50),
    target: '—',
    note: `median of 5; p95 ${ms(persisted.open.p95)}; ${await openBreakdownNote(page, 5_000, persisted.open.p50, 5)}`,
  });
  record('open.5k.firstRetrieval', persisted.openToFirstRetrieval.p50, 'ms');
  push({
    measure: 'open a persisted 5,000-round memory, until its first retrieval is done',
    value: ms(persisted.openToFirstRetrieval.p50),
    target: '≤ 150 ms',
    note: `median of 5; p95 ${ms(persisted.openToFirstRetrieval.p95)}; a retrieval on an open memory ${ms(persisted.warmRetrieval.p50)}`,
  });
}

