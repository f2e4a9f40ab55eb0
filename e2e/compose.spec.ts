/**
 * Adding a round as a demanding user does it: a double-click, a five-photo round on a phone, an
 * empty draft, and a full disk. One draft is stored once; progress shows from the click and always
 * ends; every message lands next to "Add", in view and announced; a stored round is shown and said.
 */
import { expect, test, type Page } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.js';
import { photo, TINY_QUOTA, waitReady } from './helpers.js';

const PHONE = { width: 360, height: 780 };
const FIVE_PHOTOS = ['sk_coffee.jpg', 'sk_chelsea.jpg', 'sk_rocket.jpg', 'mate_Dune.jpg', 'sk_coins.jpg'].map(photo);

test.beforeEach(async ({ page }) => {
  await page.setViewportSize(PHONE);
});

async function open(page: Page): Promise<void> {
  await page.goto('/');
  await waitReady(page);
}

const you = (page: Page) => page.getByRole('textbox', { name: 'You', exact: true });
const addButton = (page: Page) => page.getByRole('button', { name: 'Add to memory' });
const storedCount = (page: Page) => page.evaluate(() => window.__vmem!.app.memory.size);

test('a double-click on "Add" stores a text round once, and a five-photo round once', async ({ page }) => {
  await open(page);
  /** Double-clicks "Add" and gives a second add time to land, as it did before the fix. */
  const doubleClickAdd = async (storedBefore: number) => {
    await addButton(page).dblclick();
    await expect.poll(() => storedCount(page)).toBeGreaterThan(storedBefore);
    await page.waitForTimeout(1_500);
  };
  await you(page).fill('The boiler was serviced in March');
  await doubleClickAdd(0);
  expect(await storedCount(page)).toBe(1);
  await expect(page.locator('#history .round')).toHaveCount(1);
  await expect(page.locator('#compose-status')).toContainText('Stored your message');

  await you(page).fill('Five photos from the weekend');
  await page.locator('#attach-images').setInputFiles(FIVE_PHOTOS);
  await expect(page.locator('#attachments li')).toHaveCount(5);
  await doubleClickAdd(1);
  expect(await storedCount(page)).toBe(2);
  await expect(page.locator('#history .round')).toHaveCount(2);
  await expect(page.locator('#history .round img')).toHaveCount(5);
  await expect(page.locator('#compose-status')).toContainText('Stored your message with 5 photos');
  await page.reload();
  await waitReady(page);
  expect(await storedCount(page)).toBe(2);
});

test('progress shows from the click of a one-round add, the new round is scrolled into view and said to be stored, in singular', async ({ page }) => {
  await open(page);
  await you(page).fill('Five photos of the garden, for the progress bar');
  await page.locator('#attach-images').setInputFiles(FIVE_PHOTOS);
  await expect(page.locator('#attachments li')).toHaveCount(5);
  // The bar is up in the same task as the click, before a single photo is encoded.
  const shownAtClick = await page.evaluate(() => {
    document.getElementById('send')!.click();
    const row = document.getElementById('ingest-progress-row')!;
    return { hidden: row.hidden, label: row.textContent?.trim() };
  });
  expect(shownAtClick).toEqual({ hidden: false, label: 'Storing your message with 5 photos…' });
  await expect(addButton(page)).toBeDisabled();
  await expect(page.locator('#ingest-progress-row')).toBeHidden();
  await expect(addButton(page)).toBeEnabled();

  const status = page.locator('#compose-status');
  await expect(status).toHaveAttribute('role', 'status');
  await expect(status).toContainText(/Stored your message with 5 photos at .*; the memory holds 1 round\./);
  await expect(status).toBeInViewport();
  await expect(page.locator('#history .round').last()).toBeInViewport();
  await expect(page.locator('#memory-size')).toContainText('default: 1 round ·');
});

test('on a phone an error after "Add" appears beside the button, in view, as an alert; repeats are counted, not stacked', async ({ page }) => {
  await open(page);
  await page.locator('#compose').scrollIntoViewIfNeeded();
  await addButton(page).click();
  const error = page.locator('#compose-alerts .alert');
  await expect(error.first()).toBeInViewport();
  await expect(error.first()).toHaveAttribute('role', 'alert');
  await expect(error.first()).toHaveAttribute('data-code', 'EMPTY_ROUND');
  const gap = await page.evaluate(() => document.getElementById('compose-alerts')!.getBoundingClientRect().top - document.getElementById('send')!.getBoundingClientRect().bottom);
  expect(gap).toBeLessThan(120);
  for (let click = 0; click < 2; click++) await addButton(page).click();
  await expect(error).toHaveCount(1);
  await expect(error).toContainText('(×3)');
  // The code stays one word: it does not wrap mid-word on a narrow screen.
  const code = error.locator('.alert-code');
  expect(await code.evaluate((element) => element.getClientRects().length)).toBe(1);
});

test('a full disk fails the add beside the button, and the progress bar ends instead of staying stuck', async ({ page, context }) => {
  const devtools = await context.newCDPSession(page);
  await devtools.send('Storage.overrideQuotaForOrigin', { origin: `http://localhost:${E2E_PORT}`, quotaSize: TINY_QUOTA });
  await open(page);
  await you(page).fill('A note that will not fit');
  await page.locator('#attach-images').setInputFiles(FIVE_PHOTOS);
  await expect(page.locator('#attachments li')).toHaveCount(5);
  await addButton(page).click();
  const error = page.locator('#compose-alerts [data-code="QUOTA_EXCEEDED"]');
  await expect(error).toContainText('Browser storage is full');
  await expect(page.locator('#ingest-progress-row')).toBeHidden();
  await expect(page.locator('#memory-size')).not.toContainText('storing');
  await expect(error).toBeInViewport();
  await expect(you(page)).toHaveValue('A note that will not fit');
  await expect(page.locator('#attachments li')).toHaveCount(5);
  expect(await storedCount(page)).toBe(0);
});
