/**
 * The demo's passphrase lock, as a person uses it: a memory created locked asks for its passphrase
 * when it is opened again, says WRONG_PASSPHRASE for a wrong one and stays shut, opens with the right
 * one (from the keyboard too); after "Change passphrase" only the new one opens it, also after a
 * reload; an unlocked memory can be locked where it lies (an empty one too), and a visit where
 * every memory is locked opens none until one is unlocked; the passphrase is never stored.
 */
import { expect, test, type Page } from '@playwright/test';
import { waitReady } from './helpers.js';

const FIRST = 'correct horse zq41';
const SECOND = 'battery staple zq42';

async function addTyped(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'You', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#compose-status')).toContainText('Stored your message');
}

const openName = (page: Page) => page.evaluate(() => window.__vmem!.app.session?.name);
const openSize = (page: Page) => page.evaluate(() => window.__vmem!.app.session?.memory.size);
const lockStatus = (page: Page) => page.locator('#lock-status');
const passphrase = (page: Page) => page.getByLabel('Passphrase', { exact: true });
const wrongPassphrase = (page: Page) => page.locator('#memory-alerts .alert.error[data-code="WRONG_PASSPHRASE"]');

/** Everything this origin keeps outside IndexedDB (which holds only sealed bytes: e2e/encryption.spec.ts). */
const storedText = (page: Page) => page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie]));

test('create locked, refuse a wrong passphrase, unlock, change the passphrase, lock another memory in place', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  await expect(lockStatus(page)).toContainText('"default" is not locked');

  // Created locked: the passphrase typed beside "Create" locks the new memory.
  await page.getByRole('textbox', { name: 'New memory name' }).fill('vault');
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(lockStatus(page)).toContainText('"vault" is locked with a passphrase');
  await expect(passphrase(page)).toHaveValue('');
  await addTyped(page, 'The safe code is zq7731');

  // Opened again without it: the demo asks, and the memory open before stays open.
  await page.locator('#memory-select').selectOption('default');
  await expect.poll(() => openName(page)).toBe('default');
  await page.locator('#memory-select').selectOption('vault');
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: 'Memory "vault" is locked with a passphrase' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Unlock "vault"' })).toBeVisible();
  await expect(passphrase(page)).toBeFocused();
  expect(await openName(page)).toBe('default');

  // A wrong one is said as such, and nothing opens.
  await passphrase(page).fill('not the passphrase');
  await page.getByRole('button', { name: 'Unlock "vault"' }).click();
  await expect(wrongPassphrase(page)).toBeVisible();
  await expect(wrongPassphrase(page)).toContainText('does not unlock');
  expect(await openName(page)).toBe('default');

  // The right one, from the keyboard.
  await passphrase(page).fill(FIRST);
  await passphrase(page).press('Enter');
  await expect.poll(() => openName(page)).toBe('vault');
  expect(await openSize(page)).toBe(1);
  await expect(wrongPassphrase(page)).toHaveCount(0);

  // Change the passphrase: the current one and the new one.
  await passphrase(page).fill(FIRST);
  await page.getByLabel('New passphrase').fill(SECOND);
  await page.getByRole('button', { name: 'Change passphrase' }).click();
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: 'Changed the passphrase of memory "vault"' })).toBeVisible();
  expect(await storedText(page)).not.toContain('zq4');

  // A new visit reopens the last memory: it asks again; the old passphrase no longer opens it, the new one does.
  await page.reload();
  await waitReady(page);
  expect(await openName(page)).toBe('default');
  await expect(page.getByRole('button', { name: 'Unlock "vault"' })).toBeVisible();
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Unlock "vault"' }).click();
  await expect(wrongPassphrase(page)).toBeVisible();
  await passphrase(page).fill(SECOND);
  await page.getByRole('button', { name: 'Unlock "vault"' }).click();
  await expect.poll(() => openName(page)).toBe('vault');
  expect(await openSize(page)).toBe(1);

  // An unlocked memory locked where it lies: its rounds stay, and it asks for the passphrase from then on.
  await page.locator('#memory-select').selectOption('default');
  await expect.poll(() => openName(page)).toBe('default');
  await addTyped(page, 'A plain note zq5520');
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Lock this memory with a passphrase' }).click();
  await expect(lockStatus(page)).toContainText('"default" is locked with a passphrase');
  expect(await openSize(page)).toBe(1);
  expect(await storedText(page)).not.toContain('zq4');

  // An empty memory is locked too (made again, locked).
  await page.getByRole('textbox', { name: 'New memory name' }).fill('blank');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect.poll(() => openName(page)).toBe('blank');
  await expect(lockStatus(page)).toContainText('"blank" is not locked');
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Lock this memory with a passphrase' }).click();
  await expect(lockStatus(page)).toContainText('"blank" is locked with a passphrase');

  // Reopened on a new visit, with every memory locked: nothing opens until one is unlocked.
  await page.reload();
  await waitReady(page);
  expect(await openName(page)).toBeUndefined();
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Unlock "blank"' }).click();
  await expect.poll(() => openName(page)).toBe('blank');
  expect(await openSize(page)).toBe(0);
  await expect(lockStatus(page)).toContainText('"blank" is locked with a passphrase');
  await page.locator('#memory-select').selectOption('default');
  await passphrase(page).fill(FIRST);
  await page.getByRole('button', { name: 'Unlock "default"' }).click();
  await expect.poll(() => openName(page)).toBe('default');
  expect(await openSize(page)).toBe(1);
});
