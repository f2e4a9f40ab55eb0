/**
 * The package in a webpack 5 app: the tarball installed next to webpack, the consumer app's
 * `main.js` (`e2e/consumer-app/`) bundled by a plain config (`e2e/consumer-webpack/`), built without
 * a warning, served without cross-origin isolation and driven in Chromium: photo rounds in, a text
 * and a photo question answered from them, and a question only the text Tesseract read off a photo
 * of a page answers (its core script and binary under the names webpack gave them).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { closeServers, npmInstall, packedTarball, serveFolder, userEnvironment } from './consumer-helpers.js';

const root = resolve(import.meta.dirname, '..');
const PHOTOS = [
  { id: 'cat', text: 'Here is my cat Chelsea', url: '/photos/sk_chelsea.jpg' },
  { id: 'coffee', text: 'My morning coffee', url: '/photos/sk_coffee.jpg' },
  { id: 'motorcycle', text: 'I bought a motorcycle', url: '/photos/sk_motorcycle_left.jpg' },
  { id: 'page', text: 'Look at this', url: '/photos/sk_page.jpg' },
];

test.describe.configure({ mode: 'serial', timeout: 600_000 });

let work = '';
const servers: Server[] = [];
let base = '';
let buildOutput = '';

test.beforeAll(async () => {
  test.setTimeout(600_000);
  work = mkdtempSync(join(tmpdir(), 'vmem-webpack-'));
  const app = join(work, 'app');
  cpSync(join(root, 'e2e/consumer-webpack'), app, { recursive: true });
  copyFileSync(join(root, 'e2e/consumer-app/main.js'), join(app, 'main.js'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'vmem-webpack-consumer', private: true, type: 'module' }));
  npmInstall(app, [packedTarball(), 'webpack@5.113.0', 'webpack-cli@6']);
  const built = spawnSync('npx', ['webpack'], { cwd: app, env: userEnvironment(), encoding: 'utf8' });
  // Without colour codes, so the words can be matched.
  buildOutput = `${built.stdout}${built.stderr}`.replace(/\x1b\[[0-9;]*m/g, '');
  if (built.status !== 0) throw new Error(`webpack failed:\n${buildOutput}`);
  copyFileSync(join(app, 'index.html'), join(app, 'dist/index.html'));
  base = await serveFolder(join(app, 'dist'), servers);
});

test.afterAll(async () => {
  await closeServers(servers);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('webpack 5 bundles the package without a warning, and the app stores photo rounds and answers from them and from the text read off one', async ({ page }) => {
  expect(buildOutput).toMatch(/compiled successfully/);
  expect(buildOutput).not.toMatch(/WARNING|ERROR/);
  page.on('pageerror', (error) => {
    throw error;
  });
  await page.goto(base);
  await page.waitForFunction(() => 'consumer' in window);
  const opened = await page.evaluate(() => (window as unknown as { consumer: { open(): Promise<{ backend: string; size: number }> } }).consumer.open());
  expect(opened).toMatchObject({ backend: 'wasm', size: 0 });
  const answers = await page.evaluate(async (photos) => {
    const consumer = (window as unknown as {
      consumer: {
        addPhotos(list: typeof photos): Promise<number>;
        ask(query: { text?: string; imageUrl?: string }): Promise<{ trace: { roundId: string; rank?: number }[]; images: { id: string }[] }>;
      };
    }).consumer;
    await consumer.addPhotos(photos);
    const text = await consumer.ask({ text: 'What did my cat look like?' });
    const photo = await consumer.ask({ imageUrl: '/photos/sk_motorcycle_right.jpg' });
    const read = await consumer.ask({ text: 'Where did I read about region-based segmentation?' });
    const first = (result: { trace: { roundId: string; rank?: number }[] }) => result.trace.find((entry) => entry.rank === 1)?.roundId;
    return { cat: text.images[0]?.id, motorcycle: first(photo), page: first(read) };
  }, PHOTOS);
  expect(answers).toEqual({ cat: 'cat-photo', motorcycle: 'motorcycle', page: 'page' });
});
