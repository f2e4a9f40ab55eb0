/**
 * The WebGPU path on Chromium's SwiftShader adapter (`--enable-unsafe-webgpu`): the encoders really
 * run on WebGPU (no fallback), agree with WASM on the probe, and a query gives the same top rounds
 * as on WASM. SwiftShader is ~100× slower than WASM, so the memory is filled on WASM and only the
 * queries are encoded on WebGPU (one WebGPU start, two queries).
 */
import { expect, test } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.js';
import { ask, loadSample, photo, SAMPLE_ROUNDS, waitReady, type ShownResult } from './helpers.js';

test.use({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--enable-unsafe-webgpu'] } });

const IMAGE_QUERY = { image: photo('sk_motorcycle_right.jpg') };
const TEXT_QUERY = { text: 'What did my cat look like?' };

test('the encoders run on WebGPU on SwiftShader, with the same top rounds as WASM', async ({ page }) => {
  // Start on "WASM only" (the app's saved settings), so the sample is encoded at WASM speed.
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('vmem-e2e-started')) {
      sessionStorage.setItem('vmem-e2e-started', '1');
      localStorage.setItem('vmem:settings', JSON.stringify({ encoders: 'embedded', backend: 'wasm', llm: { kind: 'none' } }));
    }
  });
  await page.goto('/');
  await waitReady(page);
  const status = page.locator('#backend-status');
  await expect(status).toHaveText('Backend: WASM');
  await loadSample(page);
  const wasm = { image: await ask(page, IMAGE_QUERY), text: await ask(page, TEXT_QUERY) };
  expect(wasm.image.ranked[0]).toBe('sample-motorcycle');

  await page.getByText('Settings', { exact: true }).click();
  await page.getByLabel('Automatic (WebGPU when available, else WASM)').check();
  await page.getByRole('button', { name: 'Apply settings' }).click();
  await expect(status).toHaveText('Backend: WebGPU (software adapter)', { timeout: 120_000 });
  await expect(status).toHaveAttribute('data-fallback', 'false');
  const engine = await page.evaluate(() => {
    const started = window.__vmem!.app.engine!;
    return { backend: started.backend, gpu: started.webgpu, fallbackReason: started.fallbackReason, agreement: started.info.agreement, loadMs: started.info.loadMs };
  });
  expect(engine).toMatchObject({ backend: 'webgpu', gpu: { available: true, isFallbackAdapter: true } });
  expect(engine.fallbackReason).toBeUndefined();
  // Both encoders were checked against WASM on the worker's probe inputs.
  expect(engine.agreement?.text).toBeGreaterThanOrEqual(0.999);
  expect(engine.agreement?.image).toBeGreaterThanOrEqual(0.999);
  test.info().annotations.push({ type: 'webgpu-agreement', description: `${JSON.stringify(engine.agreement)}, WebGPU worker loaded and probed in ${Math.round(engine.loadMs / 1000)} s` });
  await expect(status).toHaveAttribute('title', /^WebGPU: a software adapter .* passed the probe check, matching WASM on the probe inputs/);
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);

  // The same queries, now encoded on WebGPU, find the same top rounds in the same order. (Far down
  // the list, rounds whose evidence differs in the last digits may swap: WebGPU's vectors match
  // WASM's to cosine ≥ 0.999, not bit for bit.)
  const top = ({ case: routed, ranked, images }: ShownResult) => ({ routed, ranked: ranked.slice(0, 10), firstImage: images[0] });
  expect(top(await ask(page, IMAGE_QUERY))).toEqual(top(wasm.image));
  expect(top(await ask(page, TEXT_QUERY))).toEqual(top(wasm.text));
  // Counted by the WebGPU worker: the queries were encoded there, not served from a cache.
  const calls = await page.evaluate(() => window.__vmem!.encoderCalls());
  expect(calls.textCalls).toBeGreaterThan(0);
  expect(calls.imageCalls).toBeGreaterThan(0);
});
