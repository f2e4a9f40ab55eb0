/**
 * Bytes on the wire of three first visits, each in a fresh browser profile (empty HTTP cache, no
 * service worker), counted by a proxy in front of the server, so the page's, its workers' and the
 * service worker's requests all count, compressed as they travel:
 *   - the drop-in example, text only: the widget opens its memory, is told one thing and asked one
 *     question (`bytes.dropin.firstVisit`);
 *   - the demo: the app opens, its offline copy is stored, and the sample conversation (31 photos) is
 *     loaded (`bytes.demo.firstVisit`);
 *   - the consumer test app (`e2e/consumer-app/`, installed from the packed tarball and built with
 *     plain `vite build`, served with the same brotli/gzip copies): a memory opened, one photo round
 *     added, a text question asked (`bytes.app.firstVisit`).
 * `bytes.duplicates`: the bytes of every file downloaded again within one visit (a 304 revalidation
 * is not a download), over the three visits.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { FIXTURE_PHOTOS_DIR } from '../../src/testing/shared-data.js';
import { precompress } from '../compress.js';
import { serveCompressed } from '../serve-compressed.js';
import { BASE, firstPage, launch, log, waitReady } from './harness.js';
import { push, record } from './report.js';

const root = resolve(import.meta.dirname, '../..');
/** The network is taken as idle after this long without a request in flight. */
const QUIET_MS = 3_000;

/** One response as it crossed the wire. */
interface Transfer {
  readonly path: string;
  readonly status: number;
  /** Body bytes as sent (compressed when the response was). */
  readonly bytes: number;
}

/** A proxy that forwards to `target` and counts what it sends back. */
interface CountingProxy {
  readonly url: string;
  readonly transfers: Transfer[];
  /** Resolves once nothing has been in flight for `QUIET_MS`. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

async function countingProxy(target: URL): Promise<CountingProxy> {
  const transfers: Transfer[] = [];
  let inFlight = 0;
  let lastActivity = Date.now();
  const server = createServer((incoming, outgoing) => {
    inFlight += 1;
    lastActivity = Date.now();
    const path = new URL(incoming.url ?? '/', 'http://localhost').pathname;
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } }, (answer) => {
      let bytes = 0;
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        lastActivity = Date.now();
      });
      answer.pipe(outgoing);
      answer.on('end', () => {
        transfers.push({ path, status: answer.statusCode ?? 0, bytes });
        inFlight -= 1;
        lastActivity = Date.now();
      });
    });
    upstream.on('error', () => {
      inFlight -= 1;
      outgoing.writeHead(502).end();
    });
    incoming.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    transfers,
    async idle() {
      while (inFlight > 0 || Date.now() - lastActivity < QUIET_MS) await new Promise((wait) => setTimeout(wait, 250));
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** Total bytes, and the bytes of every file downloaded more than once (by path, 200 responses with a body). */
function tally(transfers: readonly Transfer[]): { total: number; duplicateBytes: number; duplicates: string[] } {
  const seen = new Set<string>();
  let duplicateBytes = 0;
  const duplicates: string[] = [];
  for (const transfer of transfers) {
    if (transfer.status !== 200 || transfer.bytes === 0) continue;
    if (seen.has(transfer.path)) {
      duplicateBytes += transfer.bytes;
      duplicates.push(transfer.path);
    }
    seen.add(transfer.path);
  }
  return { total: transfers.reduce((sum, transfer) => sum + transfer.bytes, 0), duplicateBytes, duplicates };
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** The largest downloads of a visit, for the table's note. */
function largest(transfers: readonly Transfer[]): string {
  return [...transfers]
    .filter((transfer) => transfer.status === 200)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map((transfer) => `${transfer.path.split('/').pop()} ${megabytes(transfer.bytes)}`)
    .join(', ');
}

/** Every file of a visit with its bytes on the wire, largest first (what `--bytes-files` prints). */
function fileTable(name: string, transfers: readonly Transfer[]): string {
  const byPath = new Map<string, { bytes: number; count: number }>();
  for (const transfer of transfers) {
    const entry = byPath.get(transfer.path) ?? { bytes: 0, count: 0 };
    byPath.set(transfer.path, { bytes: entry.bytes + transfer.bytes, count: entry.count + 1 });
  }
  const lines = [...byPath].sort((a, b) => b[1].bytes - a[1].bytes).map(([path, { bytes, count }]) => `${(bytes / 1e6).toFixed(3).padStart(8)} MB  ${count > 1 ? `×${count} ` : ''}${path}`);
  return [`bytes: files of the ${name} (${transfers.length} responses):`, ...lines].join('\n');
}

/** One first visit in a fresh profile through a proxy to `target`; `visit` drives the page. */
async function firstVisit(name: string, target: URL, visit: (page: Page, base: string) => Promise<void>): Promise<{ total: number; duplicateBytes: number; duplicates: string[]; transfers: Transfer[] }> {
  log(`bytes: first visit of the ${name}…`);
  const proxy = await countingProxy(target);
  const profile = mkdtempSync(join(tmpdir(), 'vmem-bytes-'));
  const context = await launch(profile);
  try {
    const page = await firstPage(context);
    await visit(page, proxy.url);
    await proxy.idle();
    if (process.argv.includes('--bytes-files')) log(fileTable(name, proxy.transfers));
    return { ...tally(proxy.transfers), transfers: proxy.transfers };
  } finally {
    await context.close();
    await proxy.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function dropinVisit(page: Page, base: string): Promise<void> {
  await page.goto(`${base}dropin-example.html`);
  await page.locator('#widget-status', { hasText: 'Memory ready' }).waitFor({ timeout: 300_000 });
  const input = page.getByRole('textbox', { name: 'Message' });
  await input.fill('My order number is 4417 and the rake never arrived');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('#widget-log li.bot').first().waitFor();
  await input.fill('what was my order number?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('#widget-log li.bot').nth(1).waitFor({ timeout: 120_000 });
}

async function demoVisit(page: Page, base: string): Promise<void> {
  await page.goto(base);
  await waitReady(page);
  await page.locator('#offline-status[data-state="ready"], #offline-status[data-state="failed"]').waitFor({ timeout: 300_000 });
  await page.getByRole('button', { name: 'Load sample conversation' }).click();
  await page.locator('#memory-alerts .notice', { hasText: 'Loaded the sample conversation' }).waitFor({ timeout: 600_000 });
}

async function appVisit(page: Page, base: string): Promise<void> {
  await page.goto(base);
  await page.waitForFunction(() => 'consumer' in window);
  await page.evaluate(async () => {
    const consumer = (window as unknown as { consumer: { open(): Promise<unknown>; addPhotos(photos: unknown[]): Promise<number>; ask(query: { text: string }): Promise<unknown> } }).consumer;
    await consumer.open();
    await consumer.addPhotos([{ id: 'cat', text: 'Here is my cat Chelsea', url: '/photos/sk_chelsea.jpg' }]);
    await consumer.ask({ text: 'What did my cat look like?' });
  });
}

/** The consumer test app, installed from a packed tarball of `dist/` and built; returns its `dist/` and the folder to remove. */
function buildConsumerApp(): { dist: string; work: string } {
  const work = mkdtempSync(join(tmpdir(), 'vmem-bytes-app-'));
  const run = (command: string, args: string[], cwd: string) => {
    const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
    return result.stdout;
  };
  log('bytes: packing dist/ and building the consumer app…');
  // dist/ is built already (the bench checks); packing it as it is keeps the figure that of this build.
  const tarball = join(work, run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], root).trim().split('\n').at(-1)!);
  const app = join(work, 'app');
  cpSync(join(root, 'e2e/consumer-app'), app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'vmem-bytes-consumer', private: true, type: 'module' }));
  const vite = (JSON.parse(readFileSync(join(root, 'node_modules/vite/package.json'), 'utf8')) as { version: string }).version;
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `vite@${vite}`], app);
  run('npx', ['vite', 'build'], app);
  return { dist: join(app, 'dist'), work };
}

/** Serves a built folder with its brotli/gzip copies, and the fixture photos under `/photos/`. */
async function serveBuilt(folder: string): Promise<{ url: URL; server: Server }> {
  const compressed = serveCompressed(folder);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = path.startsWith('/photos/') ? join(FIXTURE_PHOTOS_DIR, path.slice('/photos/'.length)) : join(folder, path === '/' ? 'index.html' : path);
    compressed(request, response, () => {
      try {
        const body = readFileSync(file);
        response.writeHead(200, { 'Content-Type': file.endsWith('.html') ? 'text/html' : file.endsWith('.js') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream', 'Cache-Control': 'no-cache' }).end(body);
      } catch {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), server };
}

export async function firstVisitBytes(): Promise<void> {
  const app = new URL(BASE);
  const dropin = await firstVisit('drop-in example (text only)', app, dropinVisit);
  const demo = await firstVisit('demo (offline copy stored, sample conversation loaded)', app, demoVisit);
  const consumer = buildConsumerApp();
  let built: { url: URL; server: Server } | undefined;
  let consumerVisit: Awaited<ReturnType<typeof firstVisit>>;
  try {
    await precompress(consumer.dist);
    built = await serveBuilt(consumer.dist);
    consumerVisit = await firstVisit('consumer test app (one photo)', built.url, appVisit);
  } finally {
    await new Promise<void>((done) => (built ? built.server.close(() => done()) : done()));
    rmSync(consumer.work, { recursive: true, force: true });
  }
  const rows: [string, string, typeof dropin, string][] = [
    ['bytes.dropin.firstVisit', 'drop-in example, first visit, text only', dropin, '≤ 10 MB'],
    ['bytes.demo.firstVisit', 'demo, first visit (offline copy, sample conversation)', demo, '≤ 30 MB'],
    ['bytes.app.firstVisit', 'consumer test app, first visit with a photo', consumerVisit, '≤ 20 MB'],
  ];
  for (const [id, measure, visit, target] of rows) {
    record(id, visit.total, 'bytes');
    push({ measure: `bytes on the wire: ${measure}`, value: megabytes(visit.total), target, note: `${visit.transfers.length} responses; largest: ${largest(visit.transfers)}` });
  }
  const duplicateBytes = dropin.duplicateBytes + demo.duplicateBytes + consumerVisit.duplicateBytes;
  const duplicates = [...dropin.duplicates, ...demo.duplicates, ...consumerVisit.duplicates];
  record('bytes.duplicates', duplicateBytes, 'bytes');
  push({ measure: 'bytes downloaded twice within a first visit (all three)', value: megabytes(duplicateBytes), target: '0', note: duplicates.length ? duplicates.join(', ') : 'none' });
}
