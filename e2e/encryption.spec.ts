/**
 * An encrypted memory in Chromium's IndexedDB: every record, read with the raw IndexedDB API, holds
 * no marker text, no slice of the photo and no slice of a stored vector (and the same memory written
 * unencrypted holds them all, so the scan can fail); a wrong passphrase changes no byte; a changed
 * byte in one round's record fails that round only.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { quantize } from '../src/lanes/vector-matrix.js';
import { photo } from './helpers.js';

const MARKERS = ['zqalphamarker', 'zqbravomarker', 'zqcharliemarker', 'zqdeltamarker', 'zqechomarker'];
const PHOTO = [...readFileSync(photo('sk_coffee.jpg'))];
const PHOTO_SLICE = PHOTO.slice(2000, 2032);
/** Each marker as it is stored in some field: the id, the session, the turns and the caption. */
const TEXTS = MARKERS.flatMap((marker) => [`${marker}-id`, `${marker}-session`, `I said ${marker} today`, `Noted ${marker}`]).concat(`${MARKERS[0]} caption`);

async function openBench(page: Page): Promise<void> {
  await page.goto('/bench.html');
  await page.waitForFunction(() => window.__bench !== undefined);
}

/**
 * Reads every key and value of every store of `vmem:<name>` with the raw IndexedDB API (Blobs read
 * to bytes, strings as UTF-8) and says which needles occur in some record, with a SHA-256 of it all.
 */
function scanDatabase(page: Page, name: string, needles: readonly (readonly number[])[]) {
  return page.evaluate(
    async ({ name, needles }) => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open(`vmem:${name}`);
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const records: Uint8Array[] = [];
      const flatten = async (value: unknown): Promise<void> => {
        if (value instanceof Blob) records.push(new Uint8Array(await value.arrayBuffer()));
        else if (ArrayBuffer.isView(value)) records.push(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        else if (typeof value === 'string') records.push(new TextEncoder().encode(value));
        else if (typeof value === 'number') records.push(new TextEncoder().encode(String(value)));
        else if (value && typeof value === 'object') {
          for (const [key, inner] of Object.entries(value)) {
            records.push(new TextEncoder().encode(key));
            await flatten(inner);
          }
        }
      };
      const request = <T>(make: () => IDBRequest<T>) =>
        new Promise<T>((resolve, reject) => {
          const req = make();
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
      const stores = [...db.objectStoreNames].sort();
      for (const store of stores) {
        await flatten(await request(() => db.transaction(store).objectStore(store).getAllKeys()));
        await flatten(await request(() => db.transaction(store).objectStore(store).getAll()));
      }
      db.close();
      const contains = (bytes: Uint8Array, needle: readonly number[]) => {
        outer: for (let at = 0; at + needle.length <= bytes.length; at++) {
          for (let k = 0; k < needle.length; k++) if (bytes[at + k] !== needle[k]) continue outer;
          return true;
        }
        return false;
      };
      const total = records.reduce((sum, bytes) => sum + bytes.length, 0);
      const all = new Uint8Array(total);
      let at = 0;
      for (const bytes of records) (all.set(bytes, at), (at += bytes.length));
      const digest = [...new Uint8Array(await crypto.subtle.digest('SHA-256', all))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
      return { stores, records: records.length, bytes: total, digest, found: needles.map((needle) => records.some((bytes) => contains(bytes, needle))) };
    },
    { name, needles },
  );
}

const utf8 = (text: string) => [...Buffer.from(text)];

/** The first 32 bytes of a stored vector: as the index keeps it (int8, one scale) and as an export writes it (int8 × scale, float32). */
function vectorSlices(vector: readonly number[]) {
  const { values, scale } = quantize(Float32Array.from(vector));
  return { int8Slice: [...new Uint8Array(values.buffer, 0, 32)], float32Slice: [...new Uint8Array(Float32Array.from(values, (value) => value * scale).buffer, 0, 32)] };
}
const inBytes = (haystack: readonly number[], needle: readonly number[]) => Buffer.from(haystack).includes(Buffer.from(needle));

test('every IndexedDB record of an encrypted memory is unreadable; the same memory unencrypted shows every needle', async ({ page }) => {
  await openBench(page);
  const sealed = await page.evaluate(({ markers, photo }) => window.__bench!.writeMarked('sealed-scan', markers, photo, 'correct horse battery staple'), { markers: MARKERS, photo: PHOTO });
  const plain = await page.evaluate(({ markers, photo }) => window.__bench!.writeMarked('plain-scan', markers, photo), { markers: MARKERS, photo: PHOTO });
  const slices = vectorSlices(sealed.vector);
  expect(vectorSlices(plain.vector)).toEqual(slices);
  const needles = [...TEXTS.map(utf8), PHOTO_SLICE, slices.int8Slice];

  const sealedScan = await scanDatabase(page, 'sealed-scan', needles);
  expect(sealedScan.stores).toEqual(['bodies', 'chunks', 'facts', 'images', 'meta', 'segments']);
  expect(sealedScan.records).toBeGreaterThan(20);
  expect(sealedScan.found).toEqual(needles.map(() => false));
  for (const needle of [...TEXTS.map(utf8), PHOTO_SLICE, slices.float32Slice]) expect(inBytes(sealed.exported, needle)).toBe(false);

  // The scan finds what is there: unencrypted, every needle shows (the vector as int8 in the index, as float32 in the export).
  const plainScan = await scanDatabase(page, 'plain-scan', needles);
  expect(plainScan.found).toEqual(needles.map(() => true));
  for (const needle of [...TEXTS.map(utf8), PHOTO_SLICE, slices.float32Slice]) expect(inBytes(plain.exported, needle)).toBe(true);

  // With the passphrase it all reads back.
  expect(await page.evaluate((ids) => window.__bench!.readRounds('sealed-scan', ids, 'correct horse battery staple'), [`${MARKERS[1]}-id`])).toEqual([`I said ${MARKERS[1]} today`]);
});

test('a wrong passphrase changes no byte; none is refused; a changed byte in one round fails that round only', async ({ page }) => {
  await openBench(page);
  await page.evaluate(({ markers, photo }) => window.__bench!.writeMarked('sealed-tamper', markers, photo, 'right'), { markers: MARKERS, photo: PHOTO });
  const before = await scanDatabase(page, 'sealed-tamper', []);
  expect(await page.evaluate(() => window.__bench!.tryOpen('sealed-tamper', 'wrong'))).toBe('WRONG_PASSPHRASE');
  expect(await page.evaluate(() => window.__bench!.tryOpen('sealed-tamper'))).toBe('PASSPHRASE_REQUIRED');
  expect((await scanDatabase(page, 'sealed-tamper', [])).digest).toBe(before.digest);

  // Change one character of the sealed body of the round stored at position 2 (its record's name is an HMAC).
  await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('vmem:sealed-tamper');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const store = db.transaction('bodies', 'readwrite').objectStore('bodies');
    await new Promise<void>((resolve, reject) => {
      const cursor = store.openCursor();
      cursor.onsuccess = () => {
        const at = cursor.result;
        if (!at) return resolve();
        const record = at.value as { round: { seq: number; assistant: { text: string } } };
        if (record.round.seq === 2) {
          const text = record.round.assistant.text;
          const middle = text.length >> 1;
          record.round.assistant.text = text.slice(0, middle) + (text[middle] === 'A' ? 'B' : 'A') + text.slice(middle + 1);
          at.update(record);
        }
        at.continue();
      };
      cursor.onerror = () => reject(cursor.error);
    });
    db.close();
  });
  const read = await page.evaluate((ids) => window.__bench!.readRounds('sealed-tamper', ids, 'right'), MARKERS.map((marker) => `${marker}-id`));
  expect(read).toEqual(MARKERS.map((marker, index) => (index === 2 ? 'error INTEGRITY_ERROR' : `I said ${marker} today${index === 0 ? ` [Image: ${marker} caption]` : ''}`)));
});
