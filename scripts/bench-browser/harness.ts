/** What every group of `npm run bench:browser` shares: the server address, the browser, heap and memory readings. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config.js';

/** Port of the preview server; `VMEM_BENCH_PORT` moves it so two checkouts can measure side by side. */
export const PORT = Number(process.env.VMEM_BENCH_PORT ?? 4175);
export const BASE = `http://localhost:${PORT}/`;

export const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
export const log = (text: string) => console.error(`bench:browser: ${text}`);
/** A round count as figure ids spell it: 5000 → '5k'. */
export const sizeId = (rounds: number) => (rounds % 1000 === 0 ? `${rounds / 1000}k` : String(rounds));

export function launch(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', '--js-flags=--max-old-space-size=8192'],
  });
}

export async function firstPage(context: BrowserContext): Promise<Page> {
  return context.pages()[0] ?? (await context.newPage());
}

export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__vmem?.isReady === true || document.querySelector('#alerts .error') !== null, null, { timeout: 300_000 });
  const error = await page.evaluate(() => document.querySelector('#alerts .error')?.textContent);
  if (error) throw new Error(`the app failed to start: ${error}`);
}

/** What a page's JS holds after a full GC, via the DevTools protocol. */
export interface HeapReading {
  /** V8 heap objects (strings, objects, arrays). */
  readonly objects: number;
  /** ArrayBuffer backing stores, kept outside the V8 heap and not in `objects`. WebAssembly memory (where the vectors live) is in neither. */
  readonly buffers: number;
}

export async function heapUsed(page: Page): Promise<HeapReading> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize, backingStorageSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize: number };
  await cdp.detach();
  return { objects: usedSize, buffers: backingStorageSize };
}

/** What `after` holds beyond `before`, as a table cell and its parts. */
export function heapGrowth(after: HeapReading, before: HeapReading): { bytes: number; total: string; parts: string } {
  const objects = after.objects - before.objects;
  const buffers = after.buffers - before.buffers;
  return { bytes: objects + buffers, total: mb(objects + buffers), parts: `${mb(objects)} V8 heap objects + ${mb(buffers)} ArrayBuffer stores; the vectors' WebAssembly memory is in neither` };
}

/**
 * Resident memory of the renderer processes of the browser using `profileDir`, from /proc (Linux;
 * undefined elsewhere). It counts what the V8 counters miss: the vectors live in WebAssembly memory.
 */
export function rendererResidentBytes(profileDir: string): number | undefined {
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

/** A fresh tab on the bench harness. */
export async function benchPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${BASE}bench.html`);
  await page.waitForFunction(() => window.__bench !== undefined);
  return page;
}

