/**
 * Long imports as they really go: another tab writes meanwhile, or the tab is closed halfway.
 * Every round ends up stored exactly once, nothing stored is encoded again, and an import that did
 * not finish says so and can be resumed or deleted.
 */
import { expect, test, type Page } from '@playwright/test';
import { encoderCalls, memGallery, waitReady } from './helpers.js';

/** 201 rounds; the memory is named after the dialogue. */
const FILE = 'Nature_Economics_Programming_Student_Life.json';
const MEMORY = 'Nature_Economics_Programming_Student_Life';
const ROUNDS = 201;

async function openApp(page: Page): Promise<void> {
  await page.goto('/');
  await waitReady(page);
}

/** Text units the memory's rounds hold (each non-empty turn, each caption): what encoding them costs. */
function textUnitsOf(page: Page, roundIds?: readonly string[]): Promise<number> {
  return page.evaluate(async (ids) => {
    const rounds = (await window.__vmem!.app.memory.rounds()).filter((round) => !ids || ids.includes(round.id));
    return rounds.reduce((sum, round) => sum + [round.user, round.assistant].reduce((n, turn) => n + (turn.text ? 1 : 0) + turn.images.filter((image) => image.caption).length, 0), 0);
  }, roundIds);
}

const roundIds = (page: Page) => page.evaluate(async () => (await window.__vmem!.app.memory.rounds()).map((round) => round.id));
const memorySize = (page: Page) => page.evaluate(() => window.__vmem!.app.session?.memory.size ?? 0);

test('a second tab writing during a 200-round import: the import finishes, every round is stored once, nothing is encoded twice', async ({ context }) => {
  const importing = await context.newPage();
  const other = await context.newPage();
  await openApp(importing);
  await openApp(other);
  const before = await encoderCalls(importing);
  // Every text the badge shows, to check afterwards that it counted while the import ran.
  await importing.evaluate(() => {
    const badge = document.getElementById('memory-size')!;
    const seen: string[] = [];
    new MutationObserver(() => seen.push(badge.textContent ?? '')).observe(badge, { childList: true, characterData: true, subtree: true });
    (window as unknown as { badgeTexts: string[] }).badgeTexts = seen;
  });

  await importing.locator('#import-dialogue').setInputFiles(memGallery(FILE));
  await expect(importing.locator('#ingest-progress-row')).toBeVisible();

  // The other tab opens the same memory and stores a round while the import is still running.
  await other.getByRole('textbox', { name: 'New memory name' }).fill(MEMORY);
  await other.getByRole('button', { name: 'Create' }).click();
  await expect(other.locator('#memory-size')).toContainText(`${MEMORY}:`);
  await other.getByRole('textbox', { name: 'You', exact: true }).fill('Typed in the other tab during the import');
  await other.getByRole('button', { name: 'Add to memory' }).click();
  await expect(other.locator('#compose-status')).toContainText('Stored your message');
  expect(await memorySize(importing), 'the import was still running when the other tab wrote').toBeLessThan(ROUNDS);

  await expect(importing.locator('#memory-alerts .notice').filter({ hasText: `Imported ${ROUNDS} rounds from ${FILE}` })).toBeVisible({ timeout: 150_000 });
  await expect(importing.locator('#ingest-progress-row')).toBeHidden();
  await expect(importing.locator('#memory-alerts [data-code]')).toHaveCount(0);
  // The badge counted the rounds while the import ran, instead of "0 rounds".
  const badgeTexts = await importing.evaluate(() => (window as unknown as { badgeTexts: string[] }).badgeTexts);
  expect(badgeTexts).toContainEqual(expect.stringMatching(new RegExp(`^${MEMORY}: \\d+ rounds? · storing \\d+ of ${ROUNDS} …`)));
  await expect.poll(() => memorySize(importing)).toBe(ROUNDS + 1);
  await expect.poll(() => memorySize(other)).toBe(ROUNDS + 1);
  // Each imported round was encoded exactly once (the tab reloaded the other's round from storage).
  const after = await encoderCalls(importing);
  const typed = (await roundIds(importing)).filter((id) => id.startsWith('round-'));
  expect(typed).toHaveLength(1);
  expect(after.textItems - before.textItems).toBe((await textUnitsOf(importing)) - (await textUnitsOf(importing, typed)));

  // As stored: every round once, the other tab's included.
  await importing.reload();
  await waitReady(importing);
  const stored = await roundIds(importing);
  expect(stored).toHaveLength(ROUNDS + 1);
  expect(new Set(stored).size).toBe(ROUNDS + 1);
});

test('an import cut short by closing the tab says so when the memory opens again: delete it, or resume it without encoding twice', async ({ page }) => {
  await openApp(page);
  /** Starts the import and leaves the page once the first batch is stored. */
  const interrupt = async () => {
    await page.locator('#import-dialogue').setInputFiles(memGallery(FILE));
    await expect.poll(() => memorySize(page), { timeout: 120_000 }).toBeGreaterThan(0);
    await page.reload();
    await waitReady(page);
  };
  const offer = page.locator('#memory-alerts .notice').filter({ hasText: `The import of "${FILE}" into memory "${MEMORY}" did not finish` });

  await interrupt();
  await expect(page.locator('#memory-size')).toContainText(`${MEMORY}:`);
  await expect(offer).toContainText(new RegExp(`: \\d+ of ${ROUNDS} rounds are stored\\.`));
  await expect(page.locator('#memory-select option', { hasText: `${MEMORY} (import not finished)` })).toHaveCount(1);
  page.once('dialog', (dialog) => void dialog.accept());
  await offer.getByRole('button', { name: `Delete memory "${MEMORY}"` }).click();
  await expect(page.locator('#memory-select option')).toHaveText(['default']);
  await expect(page.locator('#memory-size')).toContainText('default:');

  await interrupt();
  const stored = await memorySize(page);
  expect(stored).toBeGreaterThan(0);
  expect(stored).toBeLessThan(ROUNDS);
  const kept = await roundIds(page);
  const before = await encoderCalls(page);
  const chooser = page.waitForEvent('filechooser');
  await offer.getByRole('button', { name: `Resume (choose ${FILE} again)` }).click();
  await (await chooser).setFiles(memGallery(FILE));
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: `Imported ${ROUNDS} rounds from ${FILE} into memory "${MEMORY}" (${stored} were already stored and were kept).` })).toBeVisible({
    timeout: 150_000,
  });
  const all = await roundIds(page);
  expect(all).toHaveLength(ROUNDS);
  expect(new Set(all).size).toBe(ROUNDS);
  // Only the rounds that were missing were encoded.
  const resumed = all.filter((id) => !kept.includes(id));
  expect((await encoderCalls(page)).textItems - before.textItems).toBe(await textUnitsOf(page, resumed));
  await expect(page.locator('#memory-select option', { hasText: '(import not finished)' })).toHaveCount(0);
  await page.reload();
  await waitReady(page);
  await expect(offer).toHaveCount(0);
  expect(await memorySize(page)).toBe(ROUNDS);
});
