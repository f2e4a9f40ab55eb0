import { describe, expect, it } from 'vitest';
import { resampleTaps, toModelInput } from './image-preprocess.js';
import type { RgbaImage } from './types.js';

/** A width×height image whose left half is black and right half white. */
function halves(width: number, height: number): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const v = x < width / 2 ? 0 : 255;
      data.set([v, v, v, 255], (y * width + x) * 4);
    }
  return { width, height, data };
}

const pixel = (t: Float32Array, size: number, x: number, y: number): number => t[(y * size + x) * 3]!;

describe('toModelInput', () => {
  it('scales a solid colour to the same colour in [0, 1], RGB only', () => {
    const data = new Uint8Array(10 * 6 * 4);
    for (let i = 0; i < data.length; i += 4) data.set([255, 0, 51, 7], i);
    const t = toModelInput({ width: 10, height: 6, data }, 4, 'squash');
    expect(t.length).toBe(4 * 4 * 3);
    for (let i = 0; i < t.length; i += 3) expect([t[i], t[i + 1], t[i + 2]!]).toEqual([1, 0, expect.closeTo(0.2, 5)]);
  });

  it('squash keeps the whole width; crop keeps only the centre square', () => {
    // 30×10 in three bands: black | grey | white. The centre square is the grey band alone.
    const data = new Uint8Array(30 * 10 * 4);
    for (let y = 0; y < 10; y++) for (let x = 0; x < 30; x++) data.fill(x < 10 ? 0 : x < 20 ? 102 : 255, (y * 30 + x) * 4, (y * 30 + x) * 4 + 4);
    const image = { width: 30, height: 10, data };
    const squash = toModelInput(image, 6, 'squash');
    expect([pixel(squash, 6, 0, 3), pixel(squash, 6, 3, 3), pixel(squash, 6, 5, 3)]).toEqual([0, expect.closeTo(0.4, 5), 1]);
    const crop = toModelInput(image, 6, 'crop');
    expect([pixel(crop, 6, 0, 3), pixel(crop, 6, 5, 3)]).toEqual([expect.closeTo(0.4, 5), expect.closeTo(0.4, 5)]);
  });

  it('pad fits the whole image and fills the bars with mid grey', () => {
    const t = toModelInput(halves(40, 10), 8, 'pad');
    expect(pixel(t, 8, 3, 0)).toBe(0.5); // bar above
    expect(pixel(t, 8, 0, 4)).toBe(0);
    expect(pixel(t, 8, 7, 4)).toBe(1);
  });

  it('upscales small images smoothly', () => {
    const t = toModelInput(halves(2, 1), 8, 'squash');
    const row = Array.from({ length: 8 }, (_, x) => pixel(t, 8, x, 0));
    for (let x = 1; x < 8; x++) expect(row[x]!).toBeGreaterThanOrEqual(row[x - 1]!);
    expect(row[0]).toBe(0);
    expect(row[7]).toBe(1);
  });
});

describe('resampleTaps', () => {
  it('gives weights summing to 1 for every output pixel, shrinking or enlarging', () => {
    for (const [length, out] of [[640, 224], [224, 224], [3, 224], [301, 7]] as const) {
      for (const taps of resampleTaps(0, length, out, length)) {
        expect(taps.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 6);
        for (const t of taps) expect(t.index).toBeGreaterThanOrEqual(0);
        for (const t of taps) expect(t.index).toBeLessThan(length);
      }
    }
  });
});
