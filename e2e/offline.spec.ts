/**
 * The PWA: after one online visit the app and the drop-in example start and retrieve with the
 * network cut, and a new picture's text is read, and the page says so; when the offline copy cannot be stored (a 2 MB quota), the
 * page says that instead, with the reason and what to do, and the app itself still works.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type BrowserContext } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_PORT } from '../playwright.config.js';
import { renderDialog } from '../src/testing/render-text.js';
import { ask, loadSample, photo, SAMPLE_ROUNDS, screenshot, SCREENSHOT_VIEWPORTS, waitReady } from './helpers.js';

const BASE = `http://localhost:${E2E_PORT}/`;

let profile = '';
let context: BrowserContext;
test.beforeEach(async () => {
  profile = mkdtempSync(join(tmpdir(), 'vmem-e2e-offline-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
test.afterEach(async () => {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
});

/** Visits the app once online and waits until the offline copy is stored (the footer says so). */
async function firstVisit() {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(BASE);
  await waitReady(page);
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready', { timeout: 120_000 });
  await expect(page.locator('#offline-status')).toHaveText('Works offline: the app and its models are stored on this device.');
  return page;
}

test('offline after the first visit: reload, then text and image retrieval work, and a new picture\'s text is read', async () => {
  const page = await firstVisit();
  const manifest = await page.evaluate(() => fetch('precache.json').then((r) => r.json() as Promise<{ urls: string[]; aliases: Record<string, string> }>));
  // The model files are the worker's, emitted by Vite under hashed names.
  expect(manifest.urls).toContain('index.html');
  expect(manifest.urls).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^assets\/use-lite-int8-[\w-]+\.onnx$/),
      expect.stringMatching(/^assets\/use-lite-vocab-[\w-]+\.json$/),
      expect.stringMatching(/^assets\/mobilenet-v2-[\w-]+\.onnx$/),
      // onnxruntime-web's WASM-only build, which the embedded encoders start on.
      expect.stringMatching(/^assets\/ort-wasm-simd-threaded-[\w-]+\.wasm$/),
      // The describer's: CenterNet, and Tesseract's worker, core (its binary inside) and English model.
      expect.stringMatching(/^assets\/centernet-[\w-]+\.onnx$/),
      expect.stringMatching(/^assets\/worker\.min-[\w-]+\.js$/),
      expect.stringMatching(/^assets\/tesseract-core-[\w-]+\.js$/),
      expect.stringMatching(/^assets\/eng\.traineddata-[\w-]+\.gz$/),
    ]),
  );
  await loadSample(page);

  await context.setOffline(true);
  const response = await page.reload();
  expect(response?.fromServiceWorker()).toBe(true);
  await waitReady(page);
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  await expect(page.locator('#offline-status')).toHaveAttribute('data-state', 'ready');
  expect((await ask(page, { text: 'What did my cat look like?' })).images[0]).toBe('sample-cat-photo');
  expect((await ask(page, { image: photo('sk_motorcycle_right.jpg') })).ranked[0]).toBe('sample-motorcycle');
  // A new picture with text is read offline too: the nested OCR worker's files come from the cache.
  const dialog = [...(await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx.'] }))];
  const read = await page.evaluate(async ([screenshot]) => {
    const round = { id: 'offline-dialog', user: { text: 'Look what I saw today!', images: [{ bytes: new Uint8Array(screenshot!), mimeType: 'image/png' }] } };
    const [added] = await window.__vmem!.app.memory.add([round], { describe: 'wait' });
    return added!.user.images[0]!.derived?.text;
  }, [dialog]);
  expect(read).toContain('Disk quota exceeded');
});

test('the drop-in example loads offline too: its script and worker are cached, its models come from the app copy', async () => {
  const page = await firstVisit();
  const manifest = await page.evaluate(() => fetch('precache.json').then((r) => r.json() as Promise<{ urls: string[]; aliases: Record<string, string> }>));
  expect(manifest.urls).toEqual(expect.arrayContaining(['dropin-example.html', 'dropin/vmem.js', 'dropin/encoder.worker.js']));
  // What the example never loads offline stays out: the optional runtimes (WebGPU, hub) and the module build.
  expect(manifest.urls.filter((url) => /^dropin\/(chunks\/(hub|transformers|ort\.bundle)|vmem\.mjs)/.test(url))).toEqual([]);
  // Byte-identical model files are stored once, under the app's name.
  expect(Object.keys(manifest.aliases)).toEqual(expect.arrayContaining(['dropin/models/use-lite-int8.onnx', 'dropin/models/mobilenet-v2.onnx']));

  await context.setOffline(true);
  await page.goto(`${BASE}dropin-example.html`);
  const status = page.locator('#widget-status');
  await expect(status).toHaveText(/^Memory ready \(wasm, 0 rounds remembered\)\.$/, { timeout: 120_000 });
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(false);
  await page.getByRole('textbox', { name: 'Message' }).fill('My order number is 4417');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('#widget-log li.bot').last()).toHaveText('Thanks, noted!');
  // The widget's count follows what it stores.
  await expect(status).toHaveText('Memory ready (wasm, 1 round remembered).');
});

test('a 2 MB quota during the precache: the page withdraws "works offline", says why and what to do, and the app still works', { tag: '@screenshots' }, async ({}, testInfo) => {
  const page = context.pages()[0] ?? (await context.newPage());
  const devtools = await context.newCDPSession(page);
  await devtools.send('Storage.overrideQuotaForOrigin', { origin: `http://localhost:${E2E_PORT}`, quotaSize: 2 * 1024 * 1024 });
  await page.goto(BASE);
  await waitReady(page);
  const status = page.locator('#offline-status');
  await expect(status).toHaveAttribute('data-state', 'failed', { timeout: 120_000 });
  await expect(status).toContainText(/^Not available offline: browser storage for this site filled up while storing the offline copy \([\d.]+ MB\)\. Free up space/);
  expect(await page.evaluate(() => window.__vmem!.offline)).toMatchObject({ state: 'failed', reason: 'quota' });
  const notice = page.locator('#offline-notice');
  await expect(notice).toBeVisible();
  await expect(notice).toHaveText(await status.innerText());
  // The half-stored copy was removed: the memory can still store a round.
  await page.getByRole('textbox', { name: 'You', exact: true }).fill('Offline or not, remember this');
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#history .round')).toHaveCount(1);
  expect(await page.evaluate(() => caches.keys())).toEqual([]);
  for (const viewport of SCREENSHOT_VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(notice).toBeInViewport();
    await screenshot(page, testInfo, `screenshot-offline-${viewport.name}.png`);
  }
});
