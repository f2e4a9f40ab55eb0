/**
 * Hostile and damaged files in the demo. Pictures are pictures: a hand-edited .vmem whose picture is
 * HTML or SVG is refused before anything is written; the page never makes a blob: or data: URL of
 * another type for a stored picture; and the demo's Content-Security-Policy stops script in a
 * document the app opens from a blob: URL anyway. A damaged .vmem gets a typed error naming the
 * damaged part, and nothing is written.
 */
import { expect, test, type Page } from '@playwright/test';
import { appendToPayload, editMemoryFile, type EditableMemoryFile } from '../src/storage/testing/memory-file-edit.js';
import { exportOpenMemory, waitReady } from './helpers.js';

/** The types the page may give a blob: or data: URL of a stored picture. */
const PICTURE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/bmp'];
const HTML = '<!doctype html><script>document.title = "ran"; parent.postMessage("ran", "*")</script>';
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="document.title = \'ran\'"><rect width="9" height="9"/></svg>';

/** Records the type of every Blob the page turns into an object URL, and every data: URL an <img> shows. */
async function watchUrls(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { blobTypes: string[] }).blobTypes = seen;
    const create = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (object: Blob | MediaSource) => {
      seen.push(object instanceof Blob ? object.type : 'MediaSource');
      return create(object);
    };
  });
}

const blobTypes = (page: Page) => page.evaluate(() => (window as unknown as { blobTypes: string[] }).blobTypes);
const dataUrlTypes = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('img')].map((image) => image.src).filter((src) => src.startsWith('data:')).map((src) => src.slice(5, src.indexOf(';'))));
const databaseNames = (page: Page) => page.evaluate(async () => (await indexedDB.databases()).map((database) => database.name ?? '').sort());

/** The export with every picture's type (in the header and in its round) set to `mimeType`, its bytes replaced by `content`. */
function withPictures(file: Buffer, mimeType: string, content: string): Uint8Array {
  return editMemoryFile(file, (edit) => {
    const bytes = appendToPayload(edit, new TextEncoder().encode(content));
    for (const image of edit.header.images) Object.assign(image, { mimeType, bytes });
    for (const round of edit.header.rounds) for (const image of round.user.images) image.mimeType = mimeType;
  });
}

test('a .vmem whose picture is HTML or SVG is refused before anything is written, and no stored picture gets a URL of another type', async ({ page }) => {
  await watchUrls(page);
  await page.goto('/');
  await waitReady(page);
  await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch('samples/sk_chelsea.jpg')).arrayBuffer());
    await window.__vmem!.app.memory.add({ id: 'cat', user: { text: 'This is my cat Chelsea', images: [{ bytes, mimeType: 'image/jpeg' }] } });
  });
  const exported = await exportOpenMemory(page);
  const before = await databaseNames(page);

  for (const [name, mimeType, content] of [
    ['page.vmem', 'text/html', HTML],
    ['drawing.vmem', 'image/svg+xml', SVG],
    ['disguised.vmem', 'image/png', HTML],
  ] as const) {
    await page.locator('#import-memory').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(withPictures(exported, mimeType, content)) });
    const refusal = page.locator('#memory-alerts [data-code="UNSUPPORTED_FILE"]').filter({ hasText: mimeType === 'image/png' ? 'declared image/png' : `type "${mimeType}"` });
    await expect(refusal).toBeVisible();
    await expect(refusal).toContainText('round "cat"');
    expect(await databaseNames(page), `${name} wrote nothing`).toEqual(before);
  }

  // The untampered export imports, and its picture shows under its own type.
  await page.locator('#import-memory').setInputFiles({ name: 'copy.vmem', mimeType: 'application/octet-stream', buffer: exported });
  await expect(page.locator('#memory-size')).toContainText('copy: 1 round');
  await page.getByRole('textbox', { name: 'Question' }).fill('Which photo showed my cat?');
  await page.getByRole('button', { name: 'Retrieve' }).click();
  await expect(page.locator('#results .strip img').first()).toBeVisible();
  const types = await blobTypes(page);
  expect(types.length, 'the picture was shown through a blob: URL').toBeGreaterThan(0);
  expect(types.filter((type) => !PICTURE_TYPES.includes(type))).toEqual([]);
  expect((await dataUrlTypes(page)).filter((type) => !PICTURE_TYPES.includes(type))).toEqual([]);
});

test('the demo sends its Content-Security-Policy, and a text/html blob opened from the app runs no script', async ({ page, context }) => {
  const response = await page.goto('/');
  const policy = response!.headers()['content-security-policy'] ?? '';
  expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(policy).toContain("object-src 'none'");
  expect(policy).toContain("base-uri 'none'");
  await waitReady(page);

  // The attack of the review, through any other hole: a document the app's origin opens from a blob:.
  const opened = context.waitForEvent('page');
  await page.evaluate((html) => {
    window.open(URL.createObjectURL(new Blob([html], { type: 'text/html' })), '_blank');
  }, HTML);
  const popup = await opened;
  await popup.waitForLoadState('load');
  expect(await popup.evaluate(() => document.querySelector('script') !== null), 'the document holds the script').toBe(true);
  expect(await popup.title(), 'the inline script did not run').not.toBe('ran');
});

test('each damaged .vmem gets a typed error naming the damaged part, and nothing is written', async ({ page }) => {
  await page.goto('/');
  await waitReady(page);
  await page.evaluate(async () => {
    const memory = window.__vmem!.app.memory;
    await memory.add([{ id: 'r1', user: { text: 'The boiler was serviced in March' } }, { id: 'r2', user: { text: 'The car is on level two' } }]);
  });
  const exported = await exportOpenMemory(page);
  const before = await databaseNames(page);
  const cases: [string, (file: EditableMemoryFile) => void, string, string][] = [
    ['no-units.vmem', ({ header }) => delete header.units, 'INVALID_INPUT', "the header's units is missing"],
    ['null-rounds.vmem', ({ header }) => (header.rounds = null), 'INVALID_INPUT', "the header's rounds is not a list"],
    ['short-vector.vmem', (file) => (file.header.units[0].vector = appendToPayload(file, new Uint8Array(7))), 'INVALID_INPUT', 'units[0].vector is 7 bytes'],
    ['four-dimensions.vmem', (file) => (file.header.units[0].vector = appendToPayload(file, new Uint8Array(16))), 'INVALID_INPUT', 'units[0].vector is 16 bytes (4 dimensions)'],
    ['repeated-id.vmem', ({ header }) => (header.rounds[1].id = 'r1'), 'DUPLICATE_ROUND', 'round "r1" twice'],
    ['lying-counts.vmem', ({ header }) => (header.counts.rounds = 20_003), 'INVALID_INPUT', 'says it holds 20003 rounds but holds 2'],
    ['no-manifest.vmem', ({ header }) => delete header.manifest, 'INVALID_INPUT', 'has no manifest'],
  ];
  for (const [name, edit, code, part] of cases) {
    await page.locator('#import-memory').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(editMemoryFile(exported, edit)) });
    await expect(page.locator(`#memory-alerts [data-code="${code}"]`).filter({ hasText: part }), name).toBeVisible();
    expect(await databaseNames(page), `${name} wrote nothing`).toEqual(before);
  }
  // No raw TypeError or RangeError reached the page on the way.
  await expect(page.locator('#memory-alerts').getByText(/TypeError|RangeError|Cannot read properties/)).toHaveCount(0);
});
