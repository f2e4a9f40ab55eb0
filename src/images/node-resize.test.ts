import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { downscaleRgba } from './downscale.js';
import { fitWithin } from './fit.js';
import { decodeImageNodeSync } from '../encoders/node-decoder.js';
import { nodeImageResizer } from './node-resize.js';
import { FIXTURE_PHOTOS_DIR } from '../testing/shared-data.js';

const PHOTOS = FIXTURE_PHOTOS_DIR;

describe('fitWithin', () => {
  it('shrinks the longest side to the limit and keeps the aspect ratio', () => {
    expect(fitWithin(1600, 1200, 768)).toEqual({ width: 768, height: 576 });
    expect(fitWithin(500, 2000, 768)).toEqual({ width: 192, height: 768 });
  });
  it('never enlarges', () => expect(fitWithin(451, 300, 768)).toEqual({ width: 451, height: 300 }));
  it('rejects a bad limit', () => expect(() => fitWithin(10, 10, 0)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' })));
});

describe('downscaleRgba', () => {
  it('averages the area each output pixel covers (a fine checkerboard becomes mid grey)', () => {
    const size = 8;
    const data = new Uint8Array(size * size * 4);
    for (let i = 0; i < size * size; i++) {
      const on = ((i % size) + Math.floor(i / size)) % 2 === 0;
      data.set([on ? 255 : 0, on ? 255 : 0, on ? 255 : 0, 255], i * 4);
    }
    const small = downscaleRgba({ width: size, height: size, data }, 3, 3);
    for (let i = 0; i < 9; i++) {
      expect(small.data[i * 4]).toBeGreaterThan(100);
      expect(small.data[i * 4]).toBeLessThan(155);
      expect(small.data[i * 4 + 3]).toBe(255);
    }
  });
  it('refuses to enlarge', () => {
    expect(() => downscaleRgba({ width: 2, height: 2, data: new Uint8Array(16) }, 3, 3)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('nodeImageResizer', () => {
  it('shrinks a large JPEG to ≤ 768 px and keeps its colours', async () => {
    const width = 2000;
    const height = 1000;
    const data = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) data.set(i % width < width / 2 ? [220, 30, 30, 255] : [30, 30, 220, 255], i * 4);
    const big = jpeg.encode({ width, height, data }, 90).data;
    const small = await nodeImageResizer(new Uint8Array(big), 'image/jpeg', 768, 80);
    expect(small).toMatchObject({ mimeType: 'image/jpeg', width: 768, height: 384 });
    const decoded = jpeg.decode(small.bytes, { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([768, 384]);
    const left = (100 * 768 + 100) * 4;
    const right = (100 * 768 + 600) * 4;
    expect(decoded.data[left]).toBeGreaterThan(180); // red half stays red
    expect(decoded.data[right + 2]).toBeGreaterThan(180); // blue half stays blue
  });

  it('re-encodes a fixture photo below the limit as JPEG at its own size', async () => {
    const small = await nodeImageResizer(new Uint8Array(readFileSync(`${PHOTOS}/sk_chelsea.jpg`)), 'image/jpeg', 768, 80);
    expect(small).toMatchObject({ width: 451, height: 300, mimeType: 'image/jpeg' });
  });

  it('turns a transparent PNG into JPEG over white', async () => {
    const png = new PNG({ width: 40, height: 20 });
    png.data.fill(0); // fully transparent black
    const small = await nodeImageResizer(new Uint8Array(PNG.sync.write(png)), 'image/png', 768, 80);
    const decoded = jpeg.decode(small.bytes, { useTArray: true });
    expect(decoded.data[0]).toBeGreaterThan(245);
  });

  it('rejects formats it cannot read and damaged files with typed errors', async () => {
    await expect(nodeImageResizer(new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0]), 'image/webp', 768, 80)).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED', message: expect.stringContaining('not supported') });
    await expect(nodeImageResizer(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2]), 'image/jpeg', 768, 80)).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED' });
    expect(() => decodeImageNodeSync(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0]))).toThrow(expect.objectContaining({ code: 'IMAGE_DECODE_FAILED' }));
  });
});
