/**
 * The demo's state follows the truth: a memory built by other models is offered a re-encode while the
 * memory open before stays usable; clearing the site's data is noticed; a forget asks first and the
 * count and results follow it; a message whose add the page did not finish comes back; every outcome
 * is said.
 */
import { expect, test, type Page } from '@playwright/test';
import { editMemoryFile } from '../src/storage/testing/memory-file-edit.js';
import { ask, exportOpenMemory, waitReady } from './helpers.js';

async function addTyped(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'You', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#compose-status')).toContainText('Stored your message');
}

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
});

test('a memory built by other models is offered a re-encode; until then the memory open before stays open and usable', async ({ page }) => {
  await addTyped(page, 'The boiler was serviced in March');
  const exported = await exportOpenMemory(page);
  // The same file as another device's export: a text encoder this device does not run.
  const foreign = editMemoryFile(exported, ({ header }) => (header.manifest.encoders.text.id = 'all-minilm-l6-v2@another-device'));
  await page.locator('#import-memory').setInputFiles({ name: 'laptop.vmem', mimeType: 'application/octet-stream', buffer: Buffer.from(foreign) });

  const offer = page.locator('#memory-alerts [data-code="ENCODER_MISMATCH"]');
  await expect(offer).toContainText('Memory "laptop" was built with other models');
  await expect(offer).toContainText('Memory "default" is still open.');
  await expect(offer).not.toContainText('onEncoderMismatch');
  await expect(page.locator('#memory-select option', { hasText: 'laptop' })).toHaveCount(1);
  await expect(page.locator('#memory-select')).toHaveValue('default');
  await expect(page.locator('#memory-size')).toContainText('default: 1 round');
  expect((await ask(page, { text: 'when was the boiler serviced?' })).ranked).toHaveLength(1);
  await addTyped(page, 'The car is parked on level two');

  await offer.getByRole('button', { name: "Re-encode with this device's models" }).click();
  await expect(page.locator('#memory-alerts .notice').filter({ hasText: 'Re-encoded memory "laptop"' })).toContainText('1 round, ready to search');
  await expect(page.locator('#memory-size')).toContainText('laptop: 1 round');
  expect((await ask(page, { text: 'when was the boiler serviced?' })).ranked).toHaveLength(1);
});

test('an import says what it imported, and that a name was taken', async ({ page }) => {
  await addTyped(page, 'The boiler was serviced in March');
  const exported = await exportOpenMemory(page);
  for (const expected of ['as memory "notes": 1 round.', 'A memory named "notes" already exists, so this one is "notes-2".']) {
    await page.locator('#import-memory').setInputFiles({ name: 'notes.vmem', mimeType: 'application/octet-stream', buffer: exported });
    await expect(page.locator('#memory-alerts .notice').filter({ hasText: expected })).toBeVisible();
  }
  await expect(page.locator('#memory-size')).toContainText('notes-2: 1 round');
});

test('forget asks first; the count and the results follow it, and a switch clears the results', async ({ page }) => {
  await addTyped(page, 'The boiler was serviced in March');
  await addTyped(page, 'The car is parked on level two');
  await ask(page, { text: 'when was the boiler serviced?' });
  const forget = page.locator('#history .round').filter({ hasText: 'boiler' }).getByRole('button', { name: /^Forget/ });

  page.once('dialog', (dialog) => void dialog.dismiss());
  await forget.click();
  await expect(page.locator('#history .round')).toHaveCount(2);

  page.once('dialog', (dialog) => {
    expect(dialog.message()).toContain('It is removed from this memory for good');
    void dialog.accept();
  });
  await forget.click();
  await expect(page.locator('#history .round')).toHaveCount(1);
  await expect(page.locator('#memory-size')).toContainText('default: 1 round');
  await expect(page.locator('#compose-status')).toContainText('the memory holds 1 round');
  await expect(page.locator('#results')).toHaveText('A round was forgotten; ask again to see what it holds.');

  await ask(page, { text: 'where is the car?' });
  await page.getByRole('textbox', { name: 'New memory name' }).fill('other');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('#memory-size')).toContainText('other: 0 rounds');
  await expect(page.locator('#results')).toHaveText('Memory "other" is open now; ask again to see what it holds.');
});

test('after the browser clears the site data, the page says the memory is gone, and a new add works', async ({ page }) => {
  await addTyped(page, 'The boiler was serviced in March');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: new URL(page.url()).origin, storageTypes: 'indexeddb,local_storage,cache_storage,service_workers' });
  await expect(page.locator('#alerts .notice').filter({ hasText: 'Memory "default" is no longer stored on this device' })).toBeVisible();
  await expect(page.locator('#memory-size')).toContainText('default: 0 rounds');
  await addTyped(page, 'A fresh start');
  await expect(page.locator('#memory-size')).toContainText('default: 1 round');
});

test('a stale error goes once a later action succeeds; the LLM buttons wait for an LLM', async ({ page }) => {
  await expect(page.getByRole('button', { name: 'Answer with LLM' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Ask LLM to reply' })).toBeDisabled();
  await page.locator('#query-image').setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
  const refused = page.locator('#ask-alerts [data-code="UNSUPPORTED_FILE"]');
  await expect(refused).toContainText('"notes.pdf" is an application/pdf file; ask with a JPEG');
  await expect(refused).toContainText('Choose another picture to ask with.');
  await page.getByRole('textbox', { name: 'Question' }).fill('anything');
  await page.getByRole('button', { name: 'Retrieve' }).click();
  await expect(page.locator('#results .route')).toBeVisible();
  await expect(refused).toHaveCount(0);
});

test('a tab reloaded while a message is being stored warns first, and the next visit brings the message back', async ({ page }) => {
  const photos = await page.evaluate(async () => [...new Uint8Array(await (await fetch('samples/sk_chelsea.jpg')).arrayBuffer())]);
  const files = Array.from({ length: 12 }, (_, i) => ({ name: `photo-${i}.jpg`, mimeType: 'image/jpeg', buffer: Buffer.from(photos) }));
  await page.locator('#attach-images').setInputFiles(files);
  await expect(page.locator('#attachments li')).toHaveCount(12);
  await page.getByRole('textbox', { name: 'You', exact: true }).fill('Twelve photos of the cat');
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#ingest-progress-row')).toBeVisible();

  const warned = new Promise<string>((resolve) => page.once('dialog', (dialog) => (resolve(dialog.type()), void dialog.accept())));
  await page.reload({ waitUntil: 'commit' }).catch(() => undefined);
  expect(await warned).toBe('beforeunload');
  await waitReady(page);
  // Twelve photos take seconds to encode and describe; the reload came first.
  expect(await page.evaluate(() => window.__vmem!.app.memory.size)).toBe(0);
  const notice = page.locator('#compose-alerts .notice').filter({ hasText: 'Your last message' });
  await expect(notice).toContainText('was not stored');
  await expect(notice).toContainText('Its 12 pictures could not be kept');
  await expect(page.getByRole('textbox', { name: 'You', exact: true })).toHaveValue('Twelve photos of the cat');
});
