/**
 * `npm run bench:browser`: serves the built app and drives headless Chromium to measure
 *   - cold start to first retrieval with the models already cached (a second browser start),
 *   - ingest speed with the real encoders (text rounds; photo rounds with `describe: 'wait'` and
 *     `'background'`), each beside the model's own time on the same inputs,
 *   - retrieval p95 without an LLM at 10k and 100k rounds (synthetic rounds, random unit vectors),
 *   - JS heap held by a 10k-round in-memory memory,
 *   - open time of a persisted 5k-round memory, and how it divides (IndexedDB, BM25, the rest),
 *   - persisted 10k- and 100k-round memories: JS heap, IndexedDB size, open time,
 *   - plain Orama hybrid search on the same data, as the reference,
 *   - the offline describer's time per picture in the worker (detection; OCR when it runs).
 * Prints a Markdown table. Options: --quick (1k/10k instead of 10k/100k);
 * --only=cold,scale,open,memory,describe to run some of the five groups (cold start and ingest;
 * index scale; persisted 5k open; memory at scale; describer).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { preview } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { APP_OUT_DIR } from '../vite.config.js';
import { parseDialogueFile } from '../app/dialogue-import.js';
import { BENCH_DATA_DIR, FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';
import { renderDialog } from '../src/testing/render-text.js';

const root = resolve(import.meta.dirname, '..');
/** Port of the preview server; `VMEM_BENCH_PORT` moves it so two checkouts can measure side by side. */
const PORT = Number(process.env.VMEM_BENCH_PORT ?? 4175);
const BASE = `http://localhost:${PORT}/`;
const quick = process.argv.includes('--quick');
const SMALL = quick ? 1_000 : 10_000;
const LARGE = quick ? 10_000 : 100_000;
const onlyArg = process.argv.find((arg) => arg.startsWith('--only='));
const groups = new Set((onlyArg ? onlyArg.slice('--only='.length) : 'cold,scale,open,memory,describe').split(','));

interface Row {
  readonly measure: string;
  readonly value: string;
  readonly target: string;
  readonly note?: string;
}
const rows: Row[] = [];
/** Records a row and prints it at once, so a later failure still leaves the numbers measured so far. */
const push = (row: Row) => {
  rows.push(row);
  console.error(`bench:browser: ${row.measure.trim()}: ${row.value} (${row.note ?? ''})`);
};
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
const log = (text: string) => console.error(`bench:browser: ${text}`);

function launch(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', '--js-flags=--max-old-space-size=8192'],
  });
}

async function firstPage(context: BrowserContext): Promise<Page> {
  return context.pages()[0] ?? (await context.newPage());
}

async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__vmem?.isReady === true || document.querySelector('#alerts .error') !== null, null, { timeout: 300_000 });
  const error = await page.evaluate(() => document.querySelector('#alerts .error')?.textContent);
  if (error) throw new Error(`the app failed to start: ${error}`);
}

/** What a page's JS holds after a full GC, via the DevTools protocol. */
interface HeapReading {
  /** V8 heap objects (strings, objects, arrays). */
  readonly objects: number;
  /** ArrayBuffer backing stores, kept outside the V8 heap and not in `objects`. WebAssembly memory (where the vectors live) is in neither. */
  readonly buffers: number;
}

async function heapUsed(page: Page): Promise<HeapReading> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize, backingStorageSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize: number };
  await cdp.detach();
  return { objects: usedSize, buffers: backingStorageSize };
}

/** What `after` holds beyond `before`, as a table cell and its parts. */
function heapGrowth(after: HeapReading, before: HeapReading): { total: string; parts: string } {
  const objects = after.objects - before.objects;
  const buffers = after.buffers - before.buffers;
  return { total: mb(objects + buffers), parts: `${mb(objects)} V8 heap objects + ${mb(buffers)} ArrayBuffer stores; the vectors' WebAssembly memory is in neither` };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/**
 * Resident memory of the renderer processes of the browser using `profileDir`, from /proc (Linux;
 * undefined elsewhere). It counts what the V8 counters miss: the vectors live in WebAssembly memory.
 */
function rendererResidentBytes(profileDir: string): number | undefined {
  if (!existsSync('/proc/self/status')) return undefined;
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    let status: string;
    try {
      // Chromium rewrites its children's titles: their arguments are joined by spaces, not NULs.
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      continue; // the process ended while we looked
    }
    if (!args.includes('--type=renderer') || !args.includes(`--user-data-dir=${profileDir}`)) continue;
    total += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  }
  return total;
}

async function coldStart(profile: string): Promise<void> {
  log('first visit (fills the HTTP and service-worker caches, loads the sample)…');
  let context = await launch(profile);
  let page = await firstPage(context);
  await page.goto(BASE);
  await waitReady(page);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.getByRole('button', { name: 'Load sample conversation' }).click();
  await page.locator('#memory-alerts .notice', { hasText: 'Loaded the sample conversation' }).waitFor({ timeout: 300_000 });
  await context.close();

  const times: number[] = [];
  const parts: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    context = await launch(profile);
    page = await firstPage(context);
    await page.goto(BASE);
    await waitReady(page);
    // performance.now() counts from the navigation start.
    const run = await page.evaluate(async () => {
      const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      const ready = performance.now();
      await window.__vmem!.app.memory.retrieve('What did my cat look like?');
      const total = performance.now();
      return { total, retrieval: total - ready, page: navigation!.domContentLoadedEventEnd, models: window.__vmem!.app.engine!.info.loadMs, open: window.__vmem!.app.session!.openMs };
    });
    times.push(run.total);
    parts.push(`page parsed ${Math.round(run.page)} ms, models ${Math.round(run.models)} ms, open ${Math.round(run.open)} ms, retrieval ${Math.round(run.retrieval)} ms`);
    if (attempt === 2) await ingest(page);
    await context.close();
  }
  times.sort((a, b) => a - b);
  push({ measure: 'cold start to first retrieval, models cached (median of 3 browser starts)', value: ms(times[1]!), target: '≤ 3 s', note: `runs: ${times.map((t) => Math.round(t)).join(', ')} ms; of each (DOMContentLoaded from navigation; model load in the worker; openMemory; the first retrieval): ${parts.join('; ')}` });
}

async function ingest(page: Page): Promise<void> {
  log('ingest with the real encoders…');
  // Real chat text: the first 200 rounds of a LoCoMo conversation (captions of its photos included).
  const locomo = JSON.parse(readFileSync(join(BENCH_DATA_DIR, 'locomo/locomo-dev.json'), 'utf8')) as unknown;
  const textRounds = parseDialogueFile(locomo, 'locomo-dev.json').rounds.slice(0, 200);
  const result = await page.evaluate(async (rounds) => {
    const app = window.__vmem!.app;
    const engine = app.engine!;
    // Long tasks on the page while the worker encodes: the main thread should stay responsive.
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((entry) => entry.duration)));
    observer.observe({ type: 'longtask' });
    await app.openMemory('bench-ingest');
    await app.memory.clear();
    const files = ['sk_chelsea.jpg', 'sk_coffee.jpg', 'sk_rocket.jpg', 'sk_astronaut.jpg', 'sk_horse.jpg', 'sk_coins.jpg', 'mate_LadyBird.jpg', 'mate_Storm.jpg', 'mate_Dune.jpg', 'sk_motorcycle_left.jpg'];
    const photos = await Promise.all(files.map(async (file) => new Uint8Array(await (await fetch(`samples/${file}`)).arrayBuffer())));
    // The worker is ready once USE-Lite is loaded; MobileNetV2 and its warm-up follow, in the same
    // queue. Wait for them (and load the describer's detector), so the rates below are steady ones.
    const tSettle = performance.now();
    await engine.imageEncoder!.embed([{ bytes: photos[0]!, mimeType: 'image/jpeg' }]);
    const settleMs = performance.now() - tSettle;
    const tDescriber = performance.now();
    await engine.describer!.describe([{ bytes: photos[0]!, mimeType: 'image/jpeg' }]);
    const describerLoadMs = performance.now() - tDescriber;
    const t0 = performance.now();
    await app.memory.add(rounds);
    const textMs = performance.now() - t0;
    observer.disconnect();
    // The model alone on the same texts, in add's slices of 32 rounds: the rest of add is storage and indexing.
    const texts = rounds.map((round) => [round.user.text, round.assistant?.text, ...(round.user.images ?? []).map((image) => image.caption)].filter((text): text is string => Boolean(text)));
    const t0Model = performance.now();
    for (let start = 0; start < texts.length; start += 32) await engine.textEncoder.embed(texts.slice(start, start + 32).flat());
    const textModelMs = performance.now() - t0Model;

    // 80 distinct JPEGs: each photo re-cropped 8 ways, so no two rounds share bytes (identical images
    // in one call are encoded once, which would flatter the rate).
    const distinct = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const bitmap = await createImageBitmap(new Blob([photos[i % photos.length]!], { type: 'image/jpeg' }));
        const crop = Math.floor(i / photos.length) * 8;
        const canvas = new OffscreenCanvas(bitmap.width - crop, bitmap.height - crop);
        canvas.getContext('2d')!.drawImage(bitmap, -crop, -crop);
        return new Uint8Array(await (await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.9 })).arrayBuffer());
      }),
    );
    const photoRounds = distinct.map((bytes, i) => ({ user: { text: `photo ${i}`, images: [{ bytes, mimeType: 'image/jpeg' }] } }));
    const waited = photoRounds.slice(0, 40);
    const backgrounded = photoRounds.slice(40);
    const t1 = performance.now();
    await app.memory.add(waited, { describe: 'wait' });
    const photoWaitMs = performance.now() - t1;
    const t2 = performance.now();
    await app.memory.add(backgrounded, { describe: 'background' });
    const photoBackgroundMs = performance.now() - t2;
    // The round is found by its picture at once, before its description is written.
    const probe = await app.memory.retrieve({ image: { bytes: backgrounded[0]!.user.images[0]!.bytes, mimeType: 'image/jpeg' } });
    const foundAtOnce = probe.blocks.some((block) => block.rounds.some((round) => round.user.text === backgrounded[0]!.user.text));
    const t3 = performance.now();
    await app.memory.describePending();
    const describeAfterMs = performance.now() - t3;
    // MobileNetV2 alone on the same pictures, in slices of 32 as add sends them.
    const t4 = performance.now();
    for (let start = 0; start < waited.length; start += 32) {
      await engine.imageEncoder!.embed(backgrounded.slice(start, start + 32).map((round) => ({ bytes: round.user.images[0]!.bytes, mimeType: 'image/jpeg' })));
    }
    const imageModelMs = performance.now() - t4;
    await app.openMemory('sample');
    return {
      settleMs,
      describerLoadMs,
      textMs,
      textModelMs,
      text: rounds.length,
      textUnits: texts.flat().length,
      photo: waited.length,
      photoWaitMs,
      photoBackgroundMs,
      foundAtOnce,
      describeAfterMs,
      imageModelMs,
      longest: Math.max(0, ...longTasks),
      longTasks: longTasks.length,
    };
  }, textRounds);
  const rate = (count: number, spentMs: number, digits = 0) => `${((count / spentMs) * 1000).toFixed(digits)} rounds/s`;
  push({
    measure: 'ingest, text rounds (USE-Lite int8, WASM)',
    value: rate(result.text, result.textMs),
    target: '≥ 50 rounds/s',
    note: `${result.text} LoCoMo rounds (two chat turns each) in one add, ${(result.textMs / 1000).toFixed(1)} s; USE-Lite alone on the same ${result.textUnits} texts in add's slices: ${(result.textModelMs / 1000).toFixed(1)} s (${((result.textModelMs / result.textMs) * 100).toFixed(0)} % of add; the model alone would allow ${rate(result.text, result.textModelMs)}), storage and indexing the rest; timed after the worker finished loading MobileNetV2 (${ms(result.settleMs)} still to go when the first retrieval was done)`,
  });
  push({ measure: 'longest main-thread task during that ingest', value: ms(result.longest), target: '—', note: `${result.longTasks} tasks over 50 ms` });
  const imageModelPerRound = result.imageModelMs / result.photo;
  push({
    measure: "ingest, photo rounds, describe: 'wait' (USE-Lite + MobileNetV2 + describer, WASM)",
    value: rate(result.photo, result.photoWaitMs, 1),
    target: '≥ 20 rounds/s',
    note: `${result.photo} rounds, one distinct ≤640 px JPEG each; each picture is described (CenterNet, text-line test, OCR when it finds text) before add returns, as the demo does: ${ms(result.photoWaitMs / result.photo)} a round, of which MobileNetV2 ${ms(imageModelPerRound)}; timed after the describer's first call (model load, ${ms(result.describerLoadMs)})`,
  });
  push({
    measure: "ingest, photo rounds, describe: 'background' (USE-Lite + MobileNetV2, WASM; description follows)",
    value: rate(result.photo, result.photoBackgroundMs, 1),
    target: '≥ 20 rounds/s',
    note: `${result.photo} other distinct JPEGs; add returns once rounds and image vectors are stored; ${result.foundAtOnce ? 'the first round was' : 'the first round was NOT'} retrieved by its picture right after add; the descriptions then took ${(result.describeAfterMs / 1000).toFixed(1)} s more (describePending); MobileNetV2 alone on the same pictures in add's slices: ${ms(imageModelPerRound)} a picture (${((result.imageModelMs / result.photoBackgroundMs) * 100).toFixed(0)} % of add)`,
  });
}

/** Pictures for the describer rows: sample photos and a printed page (plus a rendered error dialog). */
const DESCRIBE_PHOTOS = ['sk_chelsea.jpg', 'sk_coffee.jpg', 'sk_astronaut.jpg', 'sk_horse.jpg', 'sk_motorcycle_left.jpg', 'mate_Storm.jpg', 'mate_Dune.jpg', 'sk_page.jpg'];

async function describerTimes(context: BrowserContext): Promise<void> {
  log('the offline describer in the worker…');
  const page = await context.newPage();
  await page.goto(BASE);
  await waitReady(page);
  const dialog = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] });
  const pictures = [
    ...DESCRIBE_PHOTOS.map((name) => ({ name, base64: readFileSync(join(FIXTURE_PHOTOS_DIR, name)).toString('base64'), mimeType: 'image/jpeg' })),
    { name: 'error dialog screenshot (PNG)', base64: Buffer.from(dialog).toString('base64'), mimeType: 'image/png' },
  ];
  const result = await page.evaluate(async (files) => {
    const describer = window.__vmem!.app.engine!.describer;
    if (!describer) throw new Error('the worker hosts no describer');
    // (No named helper functions in here: the bundler would wrap them in a helper the page lacks.)
    const all = files.map((file) => ({ name: file.name, bytes: Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0)), mimeType: file.mimeType }));
    // The first call loads CenterNet, and the first OCR starts Tesseract: time them apart.
    const t0 = performance.now();
    await describer.describe([{ bytes: all[0]!.bytes, mimeType: all[0]!.mimeType }]);
    const firstMs = performance.now() - t0;
    const rows: { name: string; detect: number[]; ocr: number[] }[] = [];
    for (const picture of all) {
      const row = { name: picture.name, detect: [] as number[], ocr: [] as number[] };
      for (let run = 0; run < 4; run++) {
        const [description] = await describer.describe([{ bytes: picture.bytes, mimeType: picture.mimeType }]);
        // Run 0 of a text picture pays Tesseract's start; keep the three after it.
        if (run === 0) continue;
        row.detect.push(description!.timings.detect);
        if (description!.timings.ocr !== undefined) row.ocr.push(description!.timings.ocr);
      }
      rows.push(row);
    }
    return { firstMs, rows };
  }, pictures);
  await page.close();
  const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const detect = result.rows.map((row) => median(row.detect));
  const ocr = result.rows.filter((row) => row.ocr.length > 0);
  push({
    measure: 'describer: object detection per picture (CenterNet, ONNX Runtime WASM, in the worker)',
    value: ms(median(detect)),
    target: '≤ 150 ms',
    note: `median over ${detect.length} pictures (each the median of 3 runs); per picture: ${result.rows.map((row, i) => `${row.name} ${Math.round(detect[i]!)}`).join(', ')} ms; first call with model load ${ms(result.firstMs)}`,
  });
  push({
    measure: 'describer: OCR per picture when it runs (Tesseract WASM)',
    value: ocr.length ? ms(median(ocr.map((row) => median(row.ocr)))) : 'never ran',
    target: '—',
    note: `OCR ran on ${ocr.length} of ${result.rows.length} pictures (${ocr.map((row) => `${row.name} ${Math.round(median(row.ocr))} ms`).join(', ')}); the others cost only the text-line test`,
  });
}

/** A fresh tab on the bench harness. */
async function benchPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${BASE}bench.html`);
  await page.waitForFunction(() => window.__bench !== undefined);
  return page;
}

async function indexScale(context: BrowserContext): Promise<void> {
  const page = await benchPage(context);
  const baseline = await heapUsed(page);
  for (const rounds of groups.has('scale') ? [SMALL, LARGE] : []) {
    log(`vmem, ${rounds} synthetic rounds…`);
    const vmem = await page.evaluate((n) => window.__bench!.vmemScale(n, 103), rounds);
    if (rounds === SMALL) {
      const heap = heapGrowth(await heapUsed(page), baseline);
      push({ measure: `JS heap held by a ${SMALL.toLocaleString('en')}-round in-memory memory`, value: heap.total, target: '—', note: `${heap.parts}: the BM25 index, rounds and units; not the 512-d text and 1280-d caption vectors (see memory at scale for the page's resident memory)` });
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
    push({
      measure: `retrieval p95, no LLM, ${rounds.toLocaleString('en')} rounds (vmem routed)`,
      value: ms(vmem.latency.p95),
      target: rounds === 10_000 ? '≤ 30 ms' : rounds === 100_000 ? '≤ 150 ms' : '—',
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

/** How a reopen's time divides: reading IndexedDB, building BM25, the rest (vectors, history). */
async function openBreakdownNote(page: Page, rounds: number, idbOpenMs: number, times: number): Promise<string> {
  const parts = await page.evaluate(([n, count]) => window.__bench!.openBreakdown(n, count), [rounds, times] as const);
  await page.evaluate(() => window.__bench!.release());
  const bm25 = parts.inMemory.p50 - parts.withoutBm25Text.p50;
  return (
    `from in-memory storage (no IndexedDB; medians of ${times}): ${ms(parts.inMemory.p50)} with texts, ${ms(parts.withoutBm25Text.p50)} with the text units' texts empty, ` +
    `so BM25 indexing is ${ms(bm25)} (${((bm25 / idbOpenMs) * 100).toFixed(0)} % of this open); IndexedDB adds ${ms(idbOpenMs - parts.inMemory.p50)} on top ` +
    '(it reads the vectors while BM25 indexes, so this can come out near or below 0 on a loaded machine)'
  );
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
  push({
    measure: 'open a persisted 5,000-round memory, until its first retrieval is done',
    value: ms(persisted.openToFirstRetrieval.p50),
    target: '≤ 1 s',
    note: `median of 5; p95 ${ms(persisted.openToFirstRetrieval.p95)}; a retrieval on an open memory ${ms(persisted.warmRetrieval.p50)}`,
  });
}

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
async function memoryAtScale(context: BrowserContext, profileDir: string): Promise<void> {
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
    await page.evaluate(() => window.__bench!.release());
    const breakdown = await openBreakdownNote(page, rounds, reopened.open.p50, reopens);
    await page.evaluate((n) => window.__bench!.deleteMemory(`bench-persisted-${n}`), rounds);
    const runs = reopens === 1 ? 'one run' : `median of ${reopens}`;
    push({ measure: `JS heap held by an open ${label}-round memory, reopened from IndexedDB in a fresh tab`, value: heapReopened.total, target: '—', note: `${heapReopened.parts}; ${what}; after a full GC; ${heapWritten.total} right after writing it (another tab)` });
    if (residentBefore !== undefined && residentReopened !== undefined) {
      push({
        measure: `  the same, as the page's renderer processes' resident memory (includes the vectors' WebAssembly memory)`,
        value: mb(residentReopened - residentBefore),
        target: '—',
        note: 'VmRSS growth of the fresh tab from before to after reopening it; the V8 counters above do not see WebAssembly memory',
      });
    }
    push({
      measure: `IndexedDB size of a ${label}-round memory`,
      value: mb(idbAfter.bytes - idbBefore.bytes),
      target: '—',
      note: `navigator.storage.estimate() ${idbAfter.detailed ? 'usageDetails.indexedDB' : 'usage'} after minus before (rounds, units with their vectors, manifest); files in the profile's IndexedDB folder grew ${mb(diskAfter - diskBefore)}; written in ${(written.writeMs / 1000).toFixed(1)} s (adds of 2,000 rounds)`,
    });
    push({ measure: `open a persisted ${label}-round memory, until open returns`, value: ms(reopened.open.p50), target: '—', note: `${runs}; ${breakdown}` });
    push({ measure: `open a persisted ${label}-round memory, until its first retrieval is done`, value: ms(reopened.openToFirstRetrieval.p50), target: '—', note: `${runs}; a retrieval on the open memory ${ms(reopened.warmRetrieval.p50)}` });
  }
  await page.close();
}

if (!existsSync(join(root, APP_OUT_DIR, 'bench.html'))) {
  log('no build found; running scripts/build-app.ts…');
  const built = spawnSync('npx', ['tsx', 'scripts/build-app.ts'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const server = await preview({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn', preview: { port: PORT, strictPort: true } });
const profile = mkdtempSync(join(tmpdir(), 'vmem-bench-'));
try {
  if (groups.has('cold')) await coldStart(profile);
  const scaleProfile = join(profile, 'scale');
  const context = await launch(scaleProfile);
  try {
    if (groups.has('scale') || groups.has('open')) await indexScale(context);
    if (groups.has('memory')) await memoryAtScale(context, scaleProfile);
    if (groups.has('describe')) await describerTimes(context);
  } finally {
    await context.close();
  }
} finally {
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}

const version = spawnSync(CHROMIUM_PATH ?? 'chromium', ['--version'], { encoding: 'utf8' }).stdout.trim();
console.log(`\nvmem browser benchmark — headless ${version}, ${(await import('node:os')).cpus().length} cores${quick ? ' (quick mode)' : ''}\n`);
console.log('| measure | result | target | note |\n| --- | --- | --- | --- |');
for (const row of rows) console.log(`| ${row.measure} | ${row.value} | ${row.target} | ${row.note ?? ''} |`);
