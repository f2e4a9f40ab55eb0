/** The PWA: after one online visit, the app starts and answers retrieval queries with the network cut. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_PORT } from '../playwright.config.js';
import { ask, loadSample, photo, waitReady } from './helpers.js';

test('offline after the first visit: reload, then text and image retrieval work', async () => {
  const profile = mkdtempSync(join(tmpdir(), 'vmem-e2e-offline-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://localhost:${E2E_PORT}/`);
    await waitReady(page);
    // `ready` resolves once the service worker is active, i.e. after its precache install finished.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const manifest = await page.evaluate(() => fetch('precache.json').then((r) => r.json() as Promise<{ urls: string[] }>));
    // The model files are the worker's, emitted by Vite under hashed names.
    expect(manifest.urls).toContain('index.html');
    expect(manifest.urls).toEqual(expect.arrayContaining([expect.stringMatching(/^assets\/model-[\w-]+\.json$/), expect.stringMatching(/^assets\/tfjs-backend-wasm-simd-[\w-]+\.wasm$/)]));
    await loadSample(page);

    await context.setOffline(true);
    const response = await page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    await waitReady(page);
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
    await expect(page.locator('#memory-size')).toContainText('sample: 14 rounds');
    expect((await ask(page, { text: 'What did my cat look like?' })).images[0]).toBe('sample-cat-photo');
    expect((await ask(page, { image: photo('sk_motorcycle_right.jpg') })).ranked[0]).toBe('sample-motorcycle');
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
