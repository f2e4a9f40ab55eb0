/** Shared steps of the e2e tests: wait for the app, load the sample, ask questions, read results. */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { BENCH_DATA_DIR, FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';

/** A fixture photo's path (in the repo's sibling `shared/` folder, as in CI). */
export const photo = (name: string) => resolve(FIXTURE_PHOTOS_DIR, name);

/** A Mem-Gallery dialogue file of the dev set. */
export const memGallery = (name: string) => resolve(BENCH_DATA_DIR, 'memgallery', name);

/** Rounds and photos of the sample conversation (app/sample-conversation.ts). */
export const SAMPLE_ROUNDS = 61;
export const SAMPLE_PHOTO_COUNT = 31;

/** Waits until the encoders are loaded and a memory is open; fails fast on a startup error. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__vmem?.isReady === true || document.querySelector('#alerts .error') !== null, null, { timeout: 120_000 });
  const startupError = await page.evaluate(() => document.querySelector('#alerts .error')?.textContent);
  expect(await page.evaluate(() => window.__vmem?.isReady), `startup failed: ${startupError}`).toBe(true);
}

/**
 * Clicks "Load sample conversation" and waits for all of its rounds, and for the descriptions of its
 * photos, which the demo makes in the background (they add units, so results change until they end).
 */
export async function loadSample(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Load sample conversation' }).click();
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: /sample conversation/ })).toBeVisible({ timeout: 120_000 });
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  await expect(page.locator('#ingest-progress-row')).toBeHidden({ timeout: 180_000 });
}

/** What the results pane shows after a query. */
export interface ShownResult {
  readonly case: string;
  /** Round ids of the hits, in the order shown (best first). */
  readonly ranked: string[];
  /** Image ids in the "Retrieved images" strip, in the order shown. */
  readonly images: string[];
}

/** Asks the memory (text and/or image) and reads the shown result. */
export async function ask(page: Page, query: { text?: string; image?: string }): Promise<ShownResult> {
  await page.getByRole('textbox', { name: 'Question' }).fill(query.text ?? '');
  if (query.image) await page.locator('#query-image').setInputFiles(query.image);
  else if (await page.getByRole('button', { name: 'Remove query image' }).isVisible()) await page.getByRole('button', { name: 'Remove query image' }).click();
  await page.evaluate(() => document.getElementById('results')!.replaceChildren());
  await page.getByRole('button', { name: 'Retrieve' }).click();
  await expect(page.locator('#results .route')).toBeVisible({ timeout: 60_000 });
  return readResult(page);
}

export async function readResult(page: Page): Promise<ShownResult> {
  return page.evaluate(() => ({
    case: document.querySelector('#results .route')?.getAttribute('data-case') ?? '',
    ranked: [...document.querySelectorAll<HTMLElement>('#results ol.hits > li[data-round-id]')].map((item) => item.dataset.roundId!),
    images: [...document.querySelectorAll<HTMLElement>('#results .strip figure[data-image-id]')].map((figure) => figure.dataset.imageId!),
  }));
}

/** How often the page's encoder worker has encoded since it started. */
export function encoderCalls(page: Page) {
  return page.evaluate(() => window.__vmem!.encoderCalls());
}

/** Ids of the rounds of the open memory, in history order (after a reload: as stored in IndexedDB). */
export function storedRoundIds(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await window.__vmem!.app.memory.rounds()).map((round) => round.id));
}

/**
 * Saves a screenshot: into docs/ under `npm run screenshots` (VMEM_SCREENSHOTS=1), else into the
 * test's output folder, so a plain test run never changes tracked files.
 */
export async function screenshot(page: Page, testInfo: TestInfo, file: string): Promise<void> {
  const docs = resolve(import.meta.dirname, '../docs');
  await page.screenshot({ path: process.env.VMEM_SCREENSHOTS === '1' ? resolve(docs, file) : testInfo.outputPath(file), fullPage: false });
}

/** The viewports the README screenshots are taken at. */
export const SCREENSHOT_VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: '360', width: 360, height: 780 },
] as const;

/**
 * A storage quota that holds an empty memory but not a round with photos, nor the offline copy.
 * Set it with the DevTools protocol before the first visit: Chromium applies
 * `Storage.overrideQuotaForOrigin` to an origin whose storage is not open yet.
 */
export const TINY_QUOTA = 200_000;

/** Kills every process of the browser using `profile`, at once, as a crash or a power cut would. */
export function killBrowser(profile: string): void {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!args.includes(`--user-data-dir=${profile}`)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone with its parent.
    }
  }
}

/** A .vmem export of the memory open in the demo, as bytes. */
export async function exportOpenMemory(page: Page): Promise<Buffer> {
  const base64 = await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await window.__vmem!.app.session!.memory.export()).arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  });
  return Buffer.from(base64, 'base64');
}
