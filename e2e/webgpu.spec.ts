/**
 * The WebGPU path on Chromium's SwiftShader adapter (`--enable-unsafe-webgpu`): the adapter is
 * detected, the encoders are tried on WebGPU, and the app either runs there or falls back to WASM
 * visibly; either way the top rounds equal those of a WASM-only run.
 */
import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS } from '../playwright.config.js';
import { ask, loadSample, photo, waitReady } from './helpers.js';

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

test('WebGPU is detected and used or visibly declined, with the same top rounds as WASM', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  const engine = await page.evaluate(() => {
    const started = window.__vmem!.app.engine!;
    return { backend: started.backend, gpu: started.gpu, fallbackReason: started.fallbackReason };
  });
  expect(engine.gpu).toMatchObject({ available: true, isFallbackAdapter: true });
  const status = page.locator('#backend-status');
  if (engine.backend === 'webgpu') {
    await expect(status).toHaveText('Backend: WebGPU (software adapter)');
  } else {
    // The embedded TF.js encoders fail on this adapter: the fallback must be automatic and shown.
    expect(engine.fallbackReason).toMatch(/cannot run on WebGPU/);
    await expect(status).toHaveText('Backend: WASM (WebGPU failed, fell back)');
    await expect(status).toHaveAttribute('title', /cannot run on WebGPU/);
    await expect(status).toHaveAttribute('data-fallback', 'true');
  }
  await loadSample(page);
  const first = { image: await ask(page, { image: photo('sk_motorcycle_right.jpg') }), text: await ask(page, { text: 'What did my cat look like?' }) };

  await page.getByText('Settings', { exact: true }).click();
  await page.getByLabel('WASM only').check();
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(status).toHaveAttribute('data-fallback', 'false');
  await expect(status).toHaveText('Backend: WASM');
  await expect(page.locator('#memory-size')).toContainText('sample: 14 rounds');
  expect(await ask(page, { image: photo('sk_motorcycle_right.jpg') })).toEqual(first.image);
  expect(await ask(page, { text: 'What did my cat look like?' })).toEqual(first.text);
  expect(first.image.ranked[0]).toBe('sample-motorcycle');
});
