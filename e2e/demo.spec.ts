/** The demo in a fresh profile: the sample conversation, image and text queries, bad input, inert HTML. */
import { expect, test } from '@playwright/test';
import { ask, loadSample, photo, waitReady } from './helpers.js';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
});

test('the sample loads; the motorcycle from the right finds the round with the left view; the cat question returns the cat photo', async ({ page }) => {
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await loadSample(page);
  await expect(page.locator('#history .round')).toHaveCount(14);
  await expect(page.locator('#history img')).toHaveCount(10);
  const dunes = page.locator('#history img[alt^="sand dunes"]');
  await dunes.scrollIntoViewIfNeeded();
  await expect(dunes).toBeVisible();
  expect(await dunes.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);

  const byImage = await ask(page, { image: photo('sk_motorcycle_right.jpg') });
  expect(byImage.case).toMatch(/^image\+text→/);
  expect(byImage.ranked[0]).toBe('sample-motorcycle');
  await expect(page.locator('#results .block li.hit').first()).toBeVisible();

  const byText = await ask(page, { text: 'What did my cat look like?' });
  expect(byText.images[0]).toBe('sample-cat-photo');
  await expect(page.locator('#results img[alt="a tabby cat with green eyes looking up"]').first()).toBeVisible();
});

test('a corrupt image, an unsupported file and a 5 MB paste each give a clear error, and nothing is lost', async ({ page }) => {
  const userText = page.getByRole('textbox', { name: 'You', exact: true });
  await userText.fill('My draft about the garden');
  await page.locator('#attach-images').setInputFiles(photo('sk_coffee.jpg'));
  await expect(page.locator('#attachments li')).toHaveCount(1);

  await page.locator('#attach-images').setInputFiles({ name: 'broken.jpg', mimeType: 'image/jpeg', buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8]) });
  await expect(page.locator('#alerts [data-code="IMAGE_DECODE_FAILED"]')).toContainText('"broken.jpg" could not be read as an image');

  await page.locator('#attach-images').setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 …') });
  await expect(page.locator('#alerts [data-code="UNSUPPORTED_FILE"]')).toContainText('"notes.pdf" is a application/pdf file');

  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData('text/plain', 'x'.repeat(5_000_000));
    document.getElementById('user-text')!.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await expect(page.locator('#alerts [data-code="TEXT_TOO_LONG"]')).toContainText('5,000,000 characters');

  // A 5 MB message that got in by other means (typed, or by script) is refused at "Add" too.
  await page.evaluate(() => ((document.getElementById('assistant-text') as HTMLTextAreaElement).value = 'y'.repeat(5_000_000)));
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#alerts [data-code="TEXT_TOO_LONG"]')).toHaveCount(2);

  // Nothing lost: the draft, the good attachment and the (empty) memory are as they were.
  await expect(userText).toHaveValue('My draft about the garden');
  await expect(page.locator('#attachments li')).toHaveCount(1);
  expect(await page.evaluate(() => window.__vmem!.app.memory.size)).toBe(0);

  await page.evaluate(() => ((document.getElementById('assistant-text') as HTMLTextAreaElement).value = 'Lovely!'));
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#history .round')).toHaveCount(1);
  await expect(page.locator('#history .round img')).toHaveCount(1);
});

test('pasted HTML is stored and shown as text, never run', async ({ page }) => {
  const payload = '<img src=x onerror="window.__pwned = true"> <script>window.__pwned = true</script><b>bold?</b>';
  await page.getByRole('textbox', { name: 'You', exact: true }).fill(payload);
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#history .turn.user .text')).toHaveText(payload);
  await ask(page, { text: 'bold img' });
  await expect(page.locator('#results .turn.user .text').first()).toHaveText(payload);
  expect(await page.evaluate(() => (window as { __pwned?: boolean }).__pwned)).toBeUndefined();
  expect(await page.locator('img[src="x"], b').count()).toBe(0);
});
