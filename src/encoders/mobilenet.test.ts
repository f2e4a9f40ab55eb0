import pngjs from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode } from '../errors.js';
import * as ortNode from 'onnxruntime-node';
import { createMobileNetImageEncoder } from './mobilenet.js';
import { MODEL_FILES } from './model-formats.js';
import { readShippedModel } from './node-assets.js';
import { decodeImageNode } from './node-decoder.js';
import { fixturePhotoNames, readFixturePhoto } from '../testing/shared-data.js';
import { dot } from './vectors.js';

describe('MobileNetV2 image encoder', () => {
  const encoder = createMobileNetImageEncoder({ runtime: ortNode, model: () => readShippedModel(MODEL_FILES.mobileNet, 'MobileNetV2'), decoder: decodeImageNode });
  const names = fixturePhotoNames();
  let stored: Float32Array[] = [];
  beforeAll(async () => {
    stored = await encoder.embed(names.map((name) => ({ bytes: readFixturePhoto(name), mimeType: 'image/jpeg' })));
  });
  afterAll(() => encoder.dispose());

  /** Fixture photos ranked by cosine to `query`, without the query's own file. */
  const rank = (query: string): { name: string; cos: number }[] => {
    const q = stored[names.indexOf(query)]!;
    return names
      .map((name, i) => ({ name, cos: dot(q, stored[i]!) }))
      .filter((hit) => hit.name !== query)
      .sort((a, b) => b.cos - a.cos);
  };

  it('returns unit-length 1280-d vectors', () => {
    expect(encoder.id).toBe('mobilenet-v2-1280@nsfwjs-4.4.0/squash/vmem-onnx-1');
    expect(encoder.dimension).toBe(1280);
    expect(stored).toHaveLength(names.length);
    for (const v of stored) {
      expect(v.length).toBe(1280);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    }
  });

  it('finds the motorcycle from its other viewpoint first, and by a clear margin', () => {
    const hits = rank('sk_motorcycle_right.jpg');
    expect(hits[0]!.name).toBe('sk_motorcycle_left.jpg');
    expect(hits[0]!.cos - hits[1]!.cos).toBeGreaterThan(0.1);
  });

  it('decodes PNG as well as JPEG, to nearly the same vector', async () => {
    const jpegBytes = readFixturePhoto('sk_coffee.jpg');
    const pixels = await decodeImageNode(jpegBytes);
    const png = new pngjs.PNG({ width: pixels.width, height: pixels.height });
    png.data = Buffer.from(pixels.data);
    const pngBytes = new Uint8Array(pngjs.PNG.sync.write(png));
    // A wrong MIME type does not matter: the format is read from the bytes.
    const [fromPng] = await encoder.embed([{ bytes: pngBytes, mimeType: 'image/jpeg' }]);
    expect(dot(fromPng!, stored[names.indexOf('sk_coffee.jpg')]!)).toBeGreaterThan(0.99);
  });

  it('rejects undecodable bytes with IMAGE_DECODE_FAILED naming the image index and the formats it reads', async () => {
    const good = { bytes: readFixturePhoto('sk_horse.jpg') };
    const garbage = { bytes: new TextEncoder().encode('definitely not an image'), mimeType: 'image/png' };
    const attempt = encoder.embed([good, garbage]);
    await expect(attempt).rejects.toThrow(/Image 1 .*JPEG and PNG/);
    expect(errorCode(await attempt.catch((e: unknown) => e))).toBe('IMAGE_DECODE_FAILED');
  });

  it('rejects a damaged JPEG and a WebP file with IMAGE_DECODE_FAILED', async () => {
    const jpegBytes = readFixturePhoto('sk_horse.jpg');
    const truncated = jpegBytes.slice(0, 200);
    await expect(encoder.embed([{ bytes: truncated }])).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED' });
    const webpHeader = new Uint8Array([...new TextEncoder().encode('RIFF'), 0, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8 ')]);
    await expect(encoder.embed([{ bytes: webpHeader }])).rejects.toThrow(/Image 0 .*WEBP is not supported/);
  });

  it('rejects an image without bytes (it is not a caption-only encoder)', async () => {
    expect(encoder.captionOnly).toBe(false);
    await expect(encoder.embed([{ caption: 'a red bicycle' }])).rejects.toThrow(/Image 0 has no bytes/);
  });
});
