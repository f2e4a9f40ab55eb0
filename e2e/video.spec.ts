/**
 * Video clips as memory, in a real Chromium: the page records a WebM slideshow of fixture photos
 * (canvas + MediaRecorder), segments it with the browser frame extractor and keyframe selection,
 * stores the segments, and retrieves them with a photo.
 *
 * Self-contained: the page is bundled here with Vite and served through Playwright routing (no
 * server, no port), so it does not depend on the app's dev server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { build } from 'vite';

import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { photo as fixturePhoto } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '..');
const ORIGIN = 'http://localhost:4199';

test.use({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  },
});
test.setTimeout(180_000);

let outDir = '';
test.beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'vmem-video-e2e-'));
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      target: 'es2022',
      lib: { entry: join(ROOT, 'e2e/pages/video-page.ts'), formats: ['es'], fileName: () => 'page.js' },
    },
  });
});
test.afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

test.beforeEach(async ({ page }) => {
  page.on('pageerror', (error) => console.error('page error:', error));
  await page.route(`${ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>video e2e</title><script type="module" src="/page.js"></script>' });
    // The page and the chunks its build split off (the library's lazily loaded parts).
    if (/^\/[\w.-]+\.js$/.test(path) && existsSync(join(outDir, path))) return route.fulfill({ contentType: 'text/javascript', body: readFileSync(join(outDir, path)) });
    const photo = /^\/photos\/([\w-]+\.jpg)$/.exec(path);
    if (photo) return route.fulfill({ contentType: 'image/jpeg', body: readFileSync(fixturePhoto(photo[1]!)) });
    return route.fulfill({ status: 404, body: 'not found' });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => 'videoE2E' in window);
});

/*
 * The clip, 16 s (T = 10 s, K = 3). Cuts sit at least 1.5 s away from the 10 s segment boundary, as
 * real-time recording shifts the timeline by a few hundred milliseconds:
 *   0–3 s the cat;  3–5 s the coffee;  5–11.5 s the astronaut, static across the boundary;
 *   11.5–16 s the motorcycle, static.
 * Expected: segment 0–10 keeps cat, coffee, astronaut (one frame each, though the astronaut is
 * shown for 5 s); segment 10–16 keeps astronaut and motorcycle once each, where uniform sampling
 * keeps the motorcycle twice.
 */
const PLAN = [
  { photo: 'sk_chelsea', from: 0, to: 3 },
  { photo: 'sk_coffee', from: 3, to: 5 },
  { photo: 'sk_astronaut', from: 5, to: 11.5 },
  { photo: 'sk_motorcycle_left', from: 11.5, to: 16 },
];

test('a recorded clip is segmented by visual change and its segments are found by photo', async ({ page }) => {
  const size = await page.evaluate((plan) => window.videoE2E.record(plan), PLAN);
  expect(size).toBeGreaterThan(10_000);

  const result = await page.evaluate(() => window.videoE2E.segment());
  console.log(`clip ${result.duration.toFixed(2)} s; ours ${JSON.stringify(result.segments.map((s) => s.photos))}; uniform ${JSON.stringify(result.uniform)}; static noise ${result.staticNoise.toFixed(3)}, smallest cut ${result.smallestCut.toFixed(3)}`);

  expect(result.duration).toBeGreaterThan(14.5);
  expect(result.duration).toBeLessThan(17.5);
  expect(result.segments.map((segment) => segment.start)).toEqual([0, 10]);
  expect(result.segments[0]!.end).toBe(10);
  expect(result.segments[1]!.end).toBeCloseTo(result.duration, 3);
  expect(result.texts[0]).toBe('[Video clip "slideshow.webm" 0:00–0:10]');
  expect(result.meta[1]).toMatchObject({ videoId: 'clip', segmentStart: 10 });

  // Static stretches give their photo once; the changing stretch gives each photo.
  expect(result.segments[0]!.photos).toEqual(['sk_chelsea', 'sk_coffee', 'sk_astronaut']);
  expect(result.segments[1]!.photos).toEqual(['sk_astronaut', 'sk_motorcycle_left']);
  expect(result.uniform[1]).toHaveLength(3);
  expect(new Set(result.uniform[1]).size).toBeLessThan(3);
  // Frames are stored at the video's size (640×480 ≤ 768 px).
  for (const [width, height] of result.frameSizes) expect(Math.max(width!, height!)).toBeLessThanOrEqual(768);
  expect(result.progress).toContain('video-sample:done');
  expect(result.progress).toContain('video-capture:done');
  // The near-duplicate threshold sits well between compression noise and a real change.
  expect(result.staticNoise).toBeLessThan(0.02);
  expect(result.smallestCut).toBeGreaterThan(0.08);

  expect((await page.evaluate(() => window.videoE2E.ask('sk_coffee', 'When did I see this?')))[0]).toBe('clip#0');
  expect((await page.evaluate(() => window.videoE2E.ask('sk_motorcycle_left', 'When did I see this?')))[0]).toBe('clip#1');
});

test('the demo control segments an attached video with progress and stores it', async ({ page }) => {
  await page.evaluate(() => window.videoE2E.record([{ photo: 'sk_coffee', from: 0, to: 3 }, { photo: 'sk_rocket', from: 3, to: 6 }]));
  const webm = Buffer.from(await page.evaluate(() => window.videoE2E.recordedBase64()), 'base64');
  await page.evaluate(() => window.videoE2E.mountControl());

  const add = page.getByRole('button', { name: 'Add video' });
  await expect(add).toBeDisabled();
  await page.getByTestId('video-file').setInputFiles({ name: 'rocket.webm', mimeType: 'video/webm', buffer: webm });
  await page.getByRole('textbox', { name: 'Note about the video' }).fill('rocket launch');
  await add.click();
  await expect(page.getByLabel('Video progress')).toBeVisible();
  await expect(page.locator('.video-status')).toHaveText(/^Added "rocket\.webm" \(0:0[56]\): 1 segment, 2 keyframes\.$/, { timeout: 60_000 });
  await expect(page.getByLabel('Video progress')).toBeHidden();
  await expect(page.locator('.video-segments li')).toHaveCount(1);
  await expect(page.locator('.video-segments li img')).toHaveCount(2);
  await expect(page.locator('.video-segments li span')).toHaveText(/^\[Video clip "rocket\.webm" 0:00–0:0[67]\] rocket launch$/);
});

test('the control reports a file that is not a video', async ({ page }) => {
  await page.evaluate(() => window.videoE2E.mountControl());
  await page.getByTestId('video-file').setInputFiles({ name: 'notes.webm', mimeType: 'video/webm', buffer: Buffer.from('this is not a video') });
  await page.getByRole('button', { name: 'Add video' }).click();
  await expect(page.getByRole('alert')).toContainText('UNSUPPORTED_FILE');
  await expect(page.locator('.video-status')).toHaveText('"notes.webm" was not added.');
});

test('the browser resizer shrinks a large PNG to a ≤ 768 px JPEG', async ({ page }) => {
  const small = await page.evaluate(() => window.videoE2E.resize());
  expect(small).toEqual({ mimeType: 'image/jpeg', width: 768, height: 576, decoded: [768, 576, 0xff, 0xd8] });
});
