/** The offline describer's time per picture in the worker. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { FIXTURE_PHOTOS_DIR } from '../../src/testing/shared-data.js';
import { renderDialog } from '../../src/testing/render-text.js';
import { BASE, log, ms, waitReady } from './harness.js';
import { push } from './report.js';

/** Pictures for the describer rows: sample photos and a printed page (plus a rendered error dialog). */
const DESCRIBE_PHOTOS = ['sk_chelsea.jpg', 'sk_coffee.jpg', 'sk_astronaut.jpg', 'sk_horse.jpg', 'sk_motorcycle_left.jpg', 'mate_Storm.jpg', 'mate_Dune.jpg', 'sk_page.jpg'];

export async function describerTimes(context: BrowserContext): Promise<void> {
  log('the offline describer in the worker…');
  const page = await context.newPage();
  await page.goto(BASE);
  await waitReady(page);
  const dialog = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] });
  const pictures = [
    ...DESCRIBE_PHOTOS.map((name) => ({ name, base64: readFileSync(join(FIXTURE_PHOTOS_DIR, name)).toString('base64'), mimeType: 'image/jpeg' })),
    { name: 'error dialog screenshot (PNG)', base64: Buffer.from(dialog).toString('base64'), mimeType: 'image/png' },
  ];
  const result = await page.evaluate(async (files) => {
    const describer = window.__vmem!.app.engine!.describer;
    if (!describer) throw new Error('the worker hosts no describer');
    // (No named helper functions in here: the bundler would wrap them in a helper the page lacks.)
    const all = files.map((file) => ({ name: file.name, bytes: Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0)), mimeType: file.mimeType }));
    // The first call loads CenterNet, and the first OCR starts Tesseract: time them apart.
    const t0 = performance.now();
    await describer.describe([{ bytes: all[0]!.bytes, mimeType: all[0]!.mimeType }]);
    const firstMs = performance.now() - t0;
    const rows: { name: string; detect: number[]; ocr: number[] }[] = [];
    for (const picture of all) {
      const row = { name: picture.name, detect: [] as number[], ocr: [] as number[] };
      for (let run = 0; run < 4; run++) {
        const [description] = await describer.describe([{ bytes: picture.bytes, mimeType: picture.mimeType }]);
        // Run 0 of a text picture pays Tesseract's start; keep the three after it.
        if (run === 0) continue;
        row.detect.push(description!.timings.detect);
        if (description!.timings.ocr !== undefined) row.ocr.push(description!.timings.ocr);
      }
      rows.push(row);
    }
    return { firstMs, rows };
  }, pictures);
  await page.close();
  const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const detect = result.rows.map((row) => median(row.detect));
  const ocr = result.rows.filter((row) => row.ocr.length > 0);
  push({
    measure: 'describer: object detection per picture (CenterNet, ONNX Runtime WASM, in the worker)',
    value: ms(median(detect)),
    target: '≤ 150 ms',
    note: `median over ${detect.length} pictures (each the median of 3 runs); per picture: ${result.rows.map((row, i) => `${row.name} ${Math.round(detect[i]!)}`).join(', ')} ms; first call with model load ${ms(result.firstMs)}`,
  });
  push({
    measure: 'describer: OCR per picture when it runs (Tesseract WASM)',
    value: ocr.length ? ms(median(ocr.map((row) => median(row.ocr)))) : 'never ran',
    target: '—',
    note: `OCR ran on ${ocr.length} of ${result.rows.length} pictures (${ocr.map((row) => `${row.name} ${Math.round(median(row.ocr))} ms`).join(', ')}); the others cost only the text-line test`,
  });
}

