import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTesseractTextReader, type ImageDescription } from 'vmem';
import { derivedText, labelledDescription } from 'vmem/internal';
import { createNodeImageDescriber, decodeImageNode } from 'vmem/node';
import { dirname } from 'node:path';
import { MODEL_FILES } from '../encoders/model-formats.js';
import { shippedModelPath } from '../encoders/node-assets.js';
import { renderDialog } from '../testing/render-text.js';
import { readFixturePhoto } from '../testing/shared-data.js';

// A generous OCR cap: these tests are about what is read, on a machine that may be busy (the cap has its own test).
const describer = createNodeImageDescriber({ ocrTimeoutMs: 60_000 });
const seen = new Map<string, ImageDescription>();

/** Describes a fixture photo once per run (the model calls are the slow part). */
async function describePhoto(name: string): Promise<ImageDescription> {
  if (!seen.has(name)) {
    const [description] = await describer.describe([{ bytes: readFixturePhoto(name), mimeType: 'image/jpeg' }]);
    seen.set(name, description!);
  }
  return seen.get(name)!;
}

const labels = (description: ImageDescription) => description.objects.map((group) => group.label);

beforeAll(() => describer.load(), 180_000);
afterAll(() => describer.dispose());

describe('createNodeImageDescriber', () => {
  it('names the subject of each photo, with its colour', { timeout: 180_000 }, async () => {
    expect(labels(await describePhoto('sk_chelsea.jpg'))).toContain('cat');
    expect(labels(await describePhoto('sk_coffee.jpg'))).toContain('cup');
    expect(labels(await describePhoto('sk_horse.jpg'))).toContain('horse');
    const motorcycle = (await describePhoto('sk_motorcycle_left.jpg')).objects.find((group) => group.label === 'motorcycle');
    expect(motorcycle).toMatchObject({ count: 1, colour: 'red' });
    const astronaut = await describePhoto('sk_astronaut.jpg');
    expect(astronaut.people).toBe(1);
    expect(astronaut.peopleColour).toBe('orange');
    expect(derivedText(await describePhoto('sk_motorcycle_left.jpg'))).toContain('a red motorcycle');
  });

  it('reads the printed page, and spends no OCR on photos without text', { timeout: 180_000 }, async () => {
    const page = await describePhoto('sk_page.jpg');
    expect(page.text.toLowerCase()).toContain('region-based segmentation');
    expect(page.mostlyText).toBe(true);
    expect(page.timings.ocr).toBeGreaterThan(0);
    expect(derivedText(page).toLowerCase()).toContain('"region-based segmentation');
    for (const name of ['sk_chelsea.jpg', 'sk_horse.jpg', 'sk_motorcycle_left.jpg']) {
      const photo = await describePhoto(name);
      expect(photo.timings.ocr, name).toBeUndefined();
      expect(photo.text, name).toBe('');
    }
  });

  it('reads a rendered error dialog and calls it a screenshot', { timeout: 120_000 }, async () => {
    const png = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] });
    const [dialog] = await describer.describe([{ bytes: png, mimeType: 'image/png' }]);
    expect(dialog!.text).toContain('Error');
    expect(dialog!.text).toContain('Disk quota exceeded');
    expect(dialog!.screenshot).toBe(true);
    expect(labelledDescription(dialog!)).toMatch(/^Text: "Error Disk quota exceeded.*Picture: a screenshot/);
  });

  it('leaves out what it did not see instead of denying it, and indexes no field labels', { timeout: 120_000 }, async () => {
    const cat = await describePhoto('sk_chelsea.jpg');
    const indexed = derivedText(cat);
    expect(indexed).toMatch(/^a brown cat\. mostly /);
    expect(indexed).not.toMatch(/\b(no|not|none|without)\b/);
    expect(indexed).not.toMatch(/Objects|Text|People|Picture/);
    expect(labelledDescription(cat)).toMatch(/^Objects: a brown cat\. Picture: mostly /);
  });

  it('rejects a picture it cannot decode, naming it', async () => {
    await expect(describer.describe([{ bytes: readFixturePhoto('sk_horse.jpg') }, { bytes: new Uint8Array([1, 2, 3, 4]) }])).rejects.toThrow(
      /Image 1 could not be decoded/,
    );
    await expect(describer.describe([{ mimeType: 'image/png' }])).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED' });
  });

  it('has an id that covers its version, its detector and its OCR', () => {
    expect(describer.id).toMatch(/^vmem-describer@\d+\/centernet-mbv3-coco@human-[\d.]+\/vmem-onnx-\d+\/0\.45\/tesseract-/);
    expect(createNodeImageDescriber({ minScore: 0.5, ocr: false }).id).toMatch(/\/0\.5\/no-ocr$/);
  });
});

describe('createTesseractTextReader', () => {
  it('gives up at its time cap, then reads the next picture with a fresh worker', { timeout: 120_000 }, async () => {
    const reader = createTesseractTextReader({ langPath: dirname(shippedModelPath(MODEL_FILES.tesseractEnglish)) });
    try {
      const page = await decodeImageNode(readFixturePhoto('sk_page.jpg'));
      await reader.load();
      expect(await reader.read(page, { timeoutMs: 1, lighting: 'uneven' })).toEqual({ text: '', timedOut: true });
      const read = await reader.read(page, { timeoutMs: 60_000, lighting: 'uneven' });
      expect(read.timedOut).toBe(false);
      expect(read.text.toLowerCase()).toContain('region-based segmentation');
    } finally {
      await reader.dispose();
    }
    await expect(reader.read({ width: 1, height: 1, data: new Uint8Array(4) }, { timeoutMs: 10, lighting: 'even' })).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
