/** Shared steps of the e2e tests: wait for the app, load the sample, ask questions, read results. */
import { resolve } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { FIXTURE_PHOTOS_DIR } from '../src/testing/shared-data.js';

/** A fixture photo's path (in the repo's sibling `shared/` folder, as in CI). */
export const photo = (name: string) => resolve(FIXTURE_PHOTOS_DIR, name);

/** Waits until the encoders are loaded and a memory is open; fails fast on a startup error. */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__vmem?.isReady === true || document.querySelector('#alerts .error') !== null, null, { timeout: 120_000 });
  const startupError = await page.evaluate(() => document.querySelector('#alerts .error')?.textContent);
  expect(await page.evaluate(() => window.__vmem?.isReady), `startup failed: ${startupError}`).toBe(true);
}

/** Clicks "Load sample conversation" and waits for its 14 rounds. */
export async function loadSample(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Load sample conversation' }).click();
  await expect(page.locator('#alerts .notice').filter({ hasText: /sample conversation/ })).toBeVisible({ timeout: 120_000 });
  await expect(page.locator('#memory-size')).toContainText('sample: 14 rounds');
}

/** What the results pane shows after a query. */
export interface ShownResult {
  readonly case: string;
  /** Round ids by fused rank (hits only). */
  readonly ranked: string[];
  /** Image ids in the "Retrieved images" strip, best first. */
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
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll<HTMLTableRowElement>('#results table.trace tr[data-rank]')];
    const ranked: string[] = [];
    for (const row of rows.sort((a, b) => Number(a.dataset.rank) - Number(b.dataset.rank))) if (!ranked.includes(row.dataset.roundId!)) ranked.push(row.dataset.roundId!);
    const strip = document.querySelector('#results h3 + .thumbs');
    return {
      case: document.querySelector('#results .route')?.getAttribute('data-case') ?? '',
      ranked,
      images: [...(strip?.querySelectorAll<HTMLElement>('figure[data-image-id]') ?? [])].map((figure) => figure.dataset.imageId!),
    };
  });
}

/** How often the page's encoder worker has encoded since it started. */
export function encoderCalls(page: Page) {
  return page.evaluate(() => window.__vmem!.encoderCalls());
}
