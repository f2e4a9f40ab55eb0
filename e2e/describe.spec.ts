/**
 * The offline describer in the browser: it runs in the encoder worker (CenterNet on ONNX Runtime WASM,
 * Tesseract in its own nested worker), every model file from the app's origin. An uncaptioned photo
 * and a screenshot of an error dialog (drawn by the test) are found by text questions, and the demo
 * shows what the describer saw under the thumbnail, marked as machine-derived.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { renderDialog } from '../src/testing/render-text.js';
import { ask, photo, waitReady } from './helpers.js';

test('an uncaptioned photo and an error dialog screenshot are described in the worker and found by text questions', async ({ page }) => {
  const remote: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (/^https?:$/.test(url.protocol) && url.hostname !== 'localhost') remote.push(request.url());
  });
  await page.goto('/');
  await waitReady(page);
  await page.evaluate(() => window.__vmem!.app.openMemory('describe-e2e'));
  const motorcycle = [...readFileSync(photo('sk_motorcycle_left.jpg'))];
  const dialog = [...(await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] }))];
  const added = await page.evaluate(async ([bike, screenshot]) => {
    const app = window.__vmem!.app;
    await app.memory.clear();
    const rounds = await app.memory.add([
      { id: 'talk', user: { text: 'I am planning a trip to the coast next month.' }, assistant: { text: 'Sounds lovely.' } },
      { id: 'bike', user: { text: 'Look what I saw today!', images: [{ id: 'img-bike', bytes: new Uint8Array(bike!), mimeType: 'image/jpeg' }] } },
      { id: 'dialog', user: { text: 'Look what I saw today!', images: [{ id: 'img-dialog', bytes: new Uint8Array(screenshot!), mimeType: 'image/png' }] } },
    ]);
    return rounds.map((round) => round.user.images[0]?.derived);
  }, [motorcycle, dialog]);
  expect(added[1]).toMatchObject({ text: expect.stringContaining('red motorcycle'), labelled: expect.stringMatching(/^Objects: a red motorcycle/) });
  expect(added[2]?.text).toContain('Disk quota exceeded');
  expect(added[1]?.by).toMatch(/^vmem-describer@\d+\/centernet-mbv3-coco/);

  const bike = await ask(page, { text: 'Which photo showed the red motorcycle?' });
  expect(bike.images[0]).toBe('img-bike');
  const derived = page.locator('#results figure[data-image-id="img-bike"] figcaption.derived').first();
  await expect(derived).toContainText('machine-derived');
  await expect(derived).toContainText('a red motorcycle');
  // Muted: italic, in the page's muted grey.
  expect(await derived.evaluate((node) => [getComputedStyle(node).fontStyle, getComputedStyle(node).color])).toEqual(['italic', 'rgb(90, 98, 112)']);

  // The trace says which signal matched the machine-derived unit (BM25 reads the whole round, so its row names no unit).
  await expect(page.locator('#results table.trace tr[data-round-id="bike"]').filter({ hasText: 'machine-derived' }).first()).toContainText('dense');

  const error = await ask(page, { text: 'What did the error message say?' });
  expect(error.ranked[0]).toBe('dialog');
  expect(remote).toEqual([]);
});
