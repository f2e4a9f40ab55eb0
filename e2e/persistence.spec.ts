/**
 * The memory outlives the page: reload, browser restart on the same profile, and export → import
 * into a fresh profile, each giving the same retrieval without re-encoding anything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type BrowserContext } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH, E2E_PORT } from '../playwright.config.js';
import { ask, encoderCalls, loadSample, photo, SAMPLE_ROUNDS, waitReady } from './helpers.js';

const BASE = `http://localhost:${E2E_PORT}/`;
const CAT = { text: 'What did my cat look like?' };
const MOTORCYCLE = { image: photo('sk_motorcycle_right.jpg') };

function launch(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, acceptDownloads: true });
}

let profile = '';
test.beforeEach(() => {
  profile = mkdtempSync(join(tmpdir(), 'vmem-e2e-profile-'));
});
test.afterEach(() => rmSync(profile, { recursive: true, force: true }));

test('after a reload and after a browser restart the same questions give the same results, with nothing re-encoded', async () => {
  let context = await launch(profile);
  let page = context.pages()[0] ?? (await context.newPage());
  await page.goto(BASE);
  await waitReady(page);
  await loadSample(page);
  const catBefore = await ask(page, CAT);
  const motorcycleBefore = await ask(page, MOTORCYCLE);
  expect(motorcycleBefore.ranked[0]).toBe('sample-motorcycle');

  await page.reload();
  await waitReady(page);
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  expect(await encoderCalls(page)).toEqual({ textCalls: 0, textItems: 0, imageCalls: 0, imageItems: 0 });
  expect(await ask(page, CAT)).toEqual(catBefore);
  // Only the question was encoded: as typed and as its content words, no image.
  expect(await encoderCalls(page)).toMatchObject({ textItems: 2, imageItems: 0 });

  await context.close();
  context = await launch(profile);
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(BASE);
  await waitReady(page);
  await expect(page.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  expect(await ask(page, MOTORCYCLE)).toEqual(motorcycleBefore);
  // The query picture, and the keywords the describer read off it (image+text→text without a vision LLM).
  expect(await encoderCalls(page)).toMatchObject({ textItems: 1, imageItems: 1 });
  await context.close();
});

test('export, then import into a fresh profile, gives identical retrieval without re-encoding', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  await loadSample(page);
  const cat = await ask(page, CAT);
  const motorcycle = await ask(page, MOTORCYCLE);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export to file' }).click()]);
  expect(download.suggestedFilename()).toBe('sample.vmem');
  const file = join(profile, 'sample.vmem');
  await download.saveAs(file);

  const fresh = await launch(join(profile, 'fresh'));
  const other = fresh.pages()[0] ?? (await fresh.newPage());
  await other.goto(BASE);
  await waitReady(other);
  await other.locator('#import-memory').setInputFiles(file);
  await expect(other.locator('#memory-size')).toContainText(`sample: ${SAMPLE_ROUNDS} rounds`);
  expect(await encoderCalls(other)).toEqual({ textCalls: 0, textItems: 0, imageCalls: 0, imageItems: 0 });
  expect(await ask(other, CAT)).toEqual(cat);
  expect(await ask(other, MOTORCYCLE)).toEqual(motorcycle);
  await expect(other.locator('#results img').first()).toBeVisible();
  await fresh.close();
});
