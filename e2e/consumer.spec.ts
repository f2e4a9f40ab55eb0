/**
 * The package as a user meets it: `npm pack`, installed from the tarball into a throwaway Vite app
 * (`e2e/consumer-app/`, copied to a temporary folder) that imports `openMemory` from `vmem/browser`,
 * built with plain `vite build` (no config, and no warning printed), served WITHOUT cross-origin isolation headers and
 * driven in Chromium: photo rounds in, a reload with nothing re-encoded, export, import into a
 * fresh browser profile, and the package's worker folder served from another origin (`baseUrl`),
 * also without its word-vector file.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { closeServers, npmInstall, packedTarball, serveFolder, userEnvironment } from './consumer-helpers.js';

const root = resolve(import.meta.dirname, '..');
const PHOTOS = [
  { id: 'cat', text: 'Here is my cat Chelsea', url: '/photos/sk_chelsea.jpg' },
  { id: 'coffee', text: 'My morning coffee', url: '/photos/sk_coffee.jpg' },
  { id: 'rocket', text: 'We watched the rocket launch', url: '/photos/sk_rocket.jpg' },
  { id: 'motorcycle', text: 'I bought a motorcycle', url: '/photos/sk_motorcycle_left.jpg' },
];
const QUERIES = [{ text: 'What did my cat look like?' }, { imageUrl: '/photos/sk_motorcycle_right.jpg' }];
const NO_CALLS = { textCalls: 0, textItems: 0, imageCalls: 0, imageItems: 0 };

test.describe.configure({ timeout: 600_000 });

let work = '';
const servers: Server[] = [];
let base = '';
/** The installed package's `dist/worker/`, served from another origin, as a CDN would. */
let cdn = '';
/** What `vite build` printed. */
let buildOutput = '';

test.beforeAll(async () => {
  test.setTimeout(480_000);
  work = mkdtempSync(join(tmpdir(), 'vmem-consumer-'));
  const app = join(work, 'app');
  cpSync(join(root, 'e2e/consumer-app'), app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'vmem-consumer', private: true, type: 'module' }));
  const vite = (JSON.parse(readFileSync(join(root, 'node_modules/vite/package.json'), 'utf8')) as { version: string }).version;
  npmInstall(app, [packedTarball(), `vite@${vite}`]);
  const built = spawnSync('npx', ['vite', 'build'], { cwd: app, env: userEnvironment(), encoding: 'utf8' });
  buildOutput = `${built.stdout}${built.stderr}`;
  if (built.status !== 0) throw new Error(`vite build failed:\n${buildOutput}`);
  base = await serveFolder(join(app, 'dist'), servers);
  cdn = await serveFolder(join(app, 'node_modules/vmem/dist/worker'), servers, { cors: true });
});

test.afterAll(async () => {
  await closeServers(servers);
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the app's vite build prints no warning", () => {
  // Vite prints its own progress and timing lines; anything that looks like a warning fails.
  const warnings = buildOutput.split('\n').filter((line) => /warn|doesn't exist at build time|EMPTY_IMPORT_META|\bvmem\b.*(error|warning)/i.test(line) && !/PLUGIN_TIMINGS/.test(line));
  expect(warnings).toEqual([]);
  expect(buildOutput).toMatch(/built in/);
});

function launch(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/** Loads the app; any page error fails the test. */
async function load(context: BrowserContext): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(base);
  await page.waitForFunction(() => 'consumer' in window);
  return page;
}

const askAll = (page: Page) => page.evaluate(async (queries) => Promise.all(queries.map((query) => window.consumer.ask(query))), QUERIES);
const counts = (page: Page) => page.evaluate(() => window.consumer.counts());

interface Opened {
  readonly backend: string;
  readonly backendReason: string;
  readonly size: number;
  readonly isolated: boolean;
}

declare global {
  interface Window {
    consumer: {
      open(baseUrl?: string, options?: { wordVectors?: boolean }): Promise<Opened>;
      close(): Promise<void>;
      list(): Promise<string[]>;
      addPhotos(photos: readonly { id: string; text: string; url: string }[]): Promise<number>;
      ask(query: { text?: string; imageUrl?: string }): Promise<{ case: string; trace: { roundId: string; rank?: number; hits: { signal: string }[] }[]; images: { id: string }[] }>;
      counts(): Promise<typeof NO_CALLS>;
      exportFile(): Promise<string>;
      importFile(base64: string): Promise<void>;
    };
  }
}

/** What answering `askAll`'s two questions encodes: the text question (as typed and as its content words), the photo, the photo's keywords. */
const ASKED = { textCalls: 2, textItems: 3, imageCalls: 1, imageItems: 1 };

test('an app that installed the tarball keeps photo rounds across a reload and an export/import into a fresh profile, without isolation', async () => {
  const context = await launch(join(work, 'profile'));
  const page = await load(context);
  const opened = await page.evaluate(() => window.consumer.open());
  expect(opened).toMatchObject({ backend: 'wasm', size: 0, isolated: false });
  expect(opened.backendReason).toMatch(/^WASM: WebGPU is not available/);

  expect(await page.evaluate((photos) => window.consumer.addPhotos(photos), PHOTOS)).toBe(PHOTOS.length);
  expect(await counts(page)).toMatchObject({ imageItems: PHOTOS.length });
  const before = await askAll(page);
  expect(before[0]!.images[0]?.id).toBe('cat-photo');
  expect(before[1]!.trace.find((entry) => entry.rank === 1)?.roundId).toBe('motorcycle');
  // The worker served the word vectors from the installed package: the text question has similar-words votes.
  expect(before[0]!.trace.some((entry) => entry.hits.some((hit) => hit.signal === 'similar-words'))).toBe(true);

  // Reload: the memory comes back from IndexedDB, and only the two questions are encoded (the photo
  // question twice: its picture, and the keywords the describer read off it).
  await page.reload();
  await page.waitForFunction(() => 'consumer' in window);
  expect(await page.evaluate(() => window.consumer.open())).toMatchObject({ size: PHOTOS.length, isolated: false });
  expect(await counts(page)).toEqual(NO_CALLS);
  expect(await askAll(page)).toEqual(before);
  expect(await counts(page)).toEqual(ASKED);
  const file = await page.evaluate(() => window.consumer.exportFile());
  await context.close();

  // A fresh profile holds nothing until the file is imported; then the same results, nothing re-encoded.
  const freshContext = await launch(join(work, 'fresh-profile'));
  const fresh = await load(freshContext);
  expect(await fresh.evaluate(() => window.consumer.list())).toEqual([]);
  await fresh.evaluate((vmemFile) => window.consumer.importFile(vmemFile), file);
  expect(await fresh.evaluate(() => window.consumer.open())).toMatchObject({ size: PHOTOS.length, isolated: false });
  expect(await counts(fresh)).toEqual(NO_CALLS);
  expect(await askAll(fresh)).toEqual(before);
  expect(await counts(fresh)).toEqual(ASKED);
  // The name is taken now, and a second import says so.
  await expect(fresh.evaluate((vmemFile) => window.consumer.importFile(vmemFile), file)).rejects.toThrow(/"photos" already exists/);

  // The worker folder served from another origin (`baseUrl`): the same encoders, so the same results.
  await fresh.evaluate(() => window.consumer.close());
  expect(new URL(cdn).origin).not.toBe(new URL(base).origin);
  expect(await fresh.evaluate((folder) => window.consumer.open(folder), cdn)).toMatchObject({ size: PHOTOS.length, backend: 'wasm' });
  expect(await askAll(fresh)).toEqual(before);
  expect(await counts(fresh)).toEqual(ASKED);
  await freshContext.close();
});

test('a worker folder that lacks the word-vector file: openMemory rejects with MODEL_LOAD_FAILED naming it and stops its worker; without the table it opens', async () => {
  const folder = await serveFolder(join(work, 'app/node_modules/vmem/dist/worker'), servers, { cors: true, without: '.bin' });
  const context = await launch(join(work, 'profile-without-words'));
  const page = await load(context);
  const failed = await page.evaluate((at) => window.consumer.open(at).then(() => 'opened', (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`), folder);
  expect(failed).toMatch(/^MODEL_LOAD_FAILED: Could not load word vectors from http:\/\/127\.0\.0\.1:\d+\/models\/glove-[\w-]+\.bin: HTTP 404\./);
  await expect.poll(() => page.workers().length).toBe(0);

  expect(await page.evaluate((at) => window.consumer.open(at, { wordVectors: false }), folder)).toMatchObject({ size: 0, backend: 'wasm' });
  // page.workers() does list a live worker, so the 0 above means the failed open stopped its own.
  expect(page.workers()).toHaveLength(1);
  expect(await page.evaluate((photos) => window.consumer.addPhotos(photos), PHOTOS)).toBe(PHOTOS.length);
  const [textAnswer] = await askAll(page);
  expect(textAnswer!.images[0]?.id).toBe('cat-photo');
  expect(textAnswer!.trace.some((entry) => entry.hits.some((hit) => hit.signal === 'similar-words'))).toBe(false);
  await context.close();
});
