/**
 * A browser without a WebGPU adapter is asked for one once a week, not on every visit: each ask makes
 * Chromium log "No available adapters." in the page's console.
 */
import { expect, test, type Page } from '@playwright/test';
import { waitReady } from './helpers.js';

function adapterWarnings(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (message) => {
    if (/no available adapters/i.test(message.text())) seen.push(message.text());
  });
  return seen;
}

test('without a WebGPU adapter, the first visit asks and the next one does not, and the badge says why it runs on WASM', async ({ page }) => {
  const warnings = adapterWarnings(page);
  await page.goto('/');
  await waitReady(page);
  // This browser (no --enable-unsafe-webgpu, no GPU) has the WebGPU API but no adapter.
  await expect.poll(() => warnings.length).toBeGreaterThan(0);
  const status = page.locator('#backend-status');
  await expect(status).toHaveText('Backend: WASM');

  warnings.length = 0;
  await page.reload();
  await waitReady(page);
  await expect(status).toHaveText('Backend: WASM');
  await expect(status).toHaveAttribute('title', /^WASM: this browser had no WebGPU adapter on .*; it is asked again a week after that\./);
  expect(warnings).toEqual([]);
});
