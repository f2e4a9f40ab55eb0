/** The demo in a fresh profile: the sample conversation, image and text queries, bad input, inert HTML. */
import { expect, test } from '@playwright/test';
import { ask, loadSample, photo, SAMPLE_PHOTO_COUNT, SAMPLE_ROUNDS, waitReady } from './helpers.js';

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
});

test('the sample loads; the motorcycle from the right finds the left view; the cat question shows its hits first and only their photos; a question memory cannot answer says so', async ({ page }) => {
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await loadSample(page);
  await expect(page.locator('#history .round')).toHaveCount(50);
  await expect(page.locator('#history > li.muted')).toHaveText(`Showing the last 50 of ${SAMPLE_ROUNDS} rounds; all of them are searchable.`);
  expect(await page.evaluate(async () => (await window.__vmem!.app.memory.rounds()).flatMap((round) => round.user.images).length)).toBe(SAMPLE_PHOTO_COUNT);
  const dunes = page.locator('#history img[alt^="tall dune grass"]');
  await dunes.scrollIntoViewIfNeeded();
  await expect(dunes).toBeVisible();
  expect(await dunes.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);

  const byImage = await ask(page, { image: photo('sk_motorcycle_right.jpg') });
  expect(byImage.case).toMatch(/^image\+text-to-/);
  expect(byImage.ranked[0]).toBe('sample-motorcycle');
  await expect(page.locator('#results ol.hits > li').first()).toContainText('Finally bought the motorcycle');

  // "look like" asks for a picture: text→image.
  const byText = await ask(page, { text: 'What did my cat look like?' });
  expect(byText.case).toBe('text-to-image');
  expect(byText.ranked[0]).toBe('sample-cat');
  // Retrieval selects: the best hit's photo first, and not every photo of the memory (with a picture
  // target the strip holds the photos of the hits and of the context rounds around them).
  expect(byText.images[0]).toBe('sample-cat-photo');
  expect(byText.images.length).toBeLessThan(SAMPLE_PHOTO_COUNT);
  // The best hit comes first with its own photo; its caption is shown once, under that photo.
  const first = page.locator('#results ol.hits > li').first();
  await expect(first.locator('img[alt="close-up of a tabby cat with green eyes looking up"]')).toBeVisible();
  await expect(page.locator('#results').getByText('close-up of a tabby cat with green eyes looking up', { exact: true })).toHaveCount(1);
  // Neighbours are context, folded under their hit; the time-ordered blocks and the trace are folded too.
  await expect(page.locator('#results details.blocks-details')).not.toHaveAttribute('open');
  await expect(page.locator('#results details.trace-details')).not.toHaveAttribute('open');

  // Nothing in the sample is about a dentist: the demo says so above the closest rounds.
  await ask(page, { text: 'What is the name of my dentist?' });
  await expect(page.locator('#results .nothing-found')).toHaveText('Nothing in memory seems to match.');
  await expect(page.locator('#results ol.hits > li').first()).toBeVisible();
  // A question it can answer does not say so.
  await ask(page, { text: 'What did my cat look like?' });
  await expect(page.locator('#results .nothing-found')).toHaveCount(0);
});

test('a corrupt image, an unsupported file and a 5 MB message each give a clear error next to the form, and nothing is lost', async ({ page }) => {
  const userText = page.getByRole('textbox', { name: 'You', exact: true });
  await userText.fill('My draft about the garden');
  await page.locator('#attach-images').setInputFiles(photo('sk_coffee.jpg'));
  await expect(page.locator('#attachments li')).toHaveCount(1);

  await page.locator('#attach-images').setInputFiles({ name: 'broken.jpg', mimeType: 'image/jpeg', buffer: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8]) });
  await expect(page.locator('#compose-alerts [data-code="IMAGE_DECODE_FAILED"]')).toContainText('"broken.jpg" could not be read as an image');

  await page.locator('#attach-images').setInputFiles({ name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4 …') });
  await expect(page.locator('#compose-alerts [data-code="UNSUPPORTED_FILE"]')).toContainText('"notes.pdf" is an application/pdf file');

  // A 5 MB message that got in by other means (a script, an extension) is refused at "Add".
  await page.evaluate(() => ((document.getElementById('assistant-text') as HTMLTextAreaElement).value = 'y'.repeat(5_000_000)));
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#compose-alerts [data-code="TEXT_TOO_LONG"]')).toContainText('The assistant text is 5,000,000 characters; the limit is 20,000');

  // Nothing lost: the draft, the good attachment and the (empty) memory are as they were.
  await expect(userText).toHaveValue('My draft about the garden');
  await expect(page.locator('#attachments li')).toHaveCount(1);
  expect(await page.evaluate(() => window.__vmem!.app.memory.size)).toBe(0);

  await page.evaluate(() => ((document.getElementById('assistant-text') as HTMLTextAreaElement).value = 'Lovely!'));
  await page.getByRole('button', { name: 'Add to memory' }).click();
  await expect(page.locator('#history .round')).toHaveCount(1);
  await expect(page.locator('#history .round img')).toHaveCount(1);
});

test('a real 5 MB paste into the question box is refused at once: the page never blocks for half a second, and the limit reads 20,000', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate(async () => {
    await navigator.clipboard.writeText('x'.repeat(5_000_000));
    const longTasks: number[] = [];
    new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({ type: 'longtask', buffered: false });
    (window as unknown as { longTasks: number[] }).longTasks = longTasks;
  });
  const question = page.getByRole('textbox', { name: 'Question' });
  await question.fill('what did I ');
  await question.press('ControlOrMeta+V');
  await expect(page.locator('#ask-alerts [data-code="TEXT_TOO_LONG"]')).toContainText('The pasted text is 5,000,000 characters; the limit is 20,000.');
  await expect(question).toHaveValue('what did I ');
  // Give a blocked page time to show up in the observer, then check every task it saw. Inserting the
  // text would block for seconds; reading 5 MB off the clipboard, which the refusal must do to count
  // it, alone took 200-360 ms on a busy 2-core machine, so the bound is half a second.
  await page.waitForTimeout(500);
  const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
  expect(longTasks.filter((duration) => duration > 500)).toEqual([]);
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
