import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode } from '../errors.js';
import { createHubImageEncoder, createHubTextEncoder } from './hub.js';
import type { LoadableImageEmbedder } from './mobilenet.js';
import { decodeImageNode } from './node-decoder.js';
import { readFixturePhoto } from '../testing/shared-data.js';
import type { LoadableTextEmbedder } from './use-lite.js';
import { writeTinyBertModel, writeTinySiglipVisionModel } from './testing/tiny-onnx.js';
import type { VmemProgress } from '../progress.js';
import { dot } from './vectors.js';

describe('hub text encoder (transformers.js) on a hand-written BERT-shaped model', () => {
  const root = mkdtempSync(join(tmpdir(), 'vmem-hub-'));
  let encoder: LoadableTextEmbedder;
  const events: VmemProgress[] = [];
  beforeAll(async () => {
    writeTinyBertModel(root, 'tiny-bert', 16);
    encoder = await createHubTextEncoder({ model: 'tiny-bert', localModelPath: root, allowRemote: false, dtype: 'fp32', onProgress: (e) => events.push(e) });
  });
  afterAll(async () => {
    await encoder?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('knows its dimension once created and returns unit vectors of that size', async () => {
    expect(encoder.dimension).toBe(16);
    expect(encoder.id).toBe('hub-text:tiny-bert@fp32/mean');
    const vectors = await encoder.embed(['the cat sat on the mat.', 'stock market fell today']);
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v.length).toBe(16);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0]!, vectors[1]!)).toBeLessThan(0.999);
  });

  it('is deterministic, and a batch equals one-by-one embedding despite padding', async () => {
    const texts = ['a red bike', 'the dog sat on a rug , the cat sat on the mat .', 'cats'];
    const first = await encoder.embed(texts);
    const again = await encoder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      expect(Array.from(again[i]!)).toEqual(Array.from(first[i]!));
      const [single] = await encoder.embed([texts[i]!]);
      expect(dot(single!, first[i]!)).toBeGreaterThan(0.9999);
    }
  });

  it('reported load progress and left the global transformers.js env as it found it', () => {
    expect(events.at(-1)).toEqual({ status: 'ready', task: 'model', item: 'tiny-bert' });
    expect(events.some((e) => e.status === 'initiate')).toBe(true);
    expect(env.localModelPath).not.toBe(root);
    expect(env.allowRemoteModels).toBe(true);
  });

  it('fails with MODEL_LOAD_FAILED naming the path when the model is missing', async () => {
    const attempt = createHubTextEncoder({ model: 'no-such-model', localModelPath: root, allowRemote: false });
    await expect(attempt).rejects.toThrow(join(root, 'no-such-model'));
    expect(errorCode(await attempt.catch((e: unknown) => e))).toBe('MODEL_LOAD_FAILED');
  });

  it('refuses calls after dispose with CLOSED', async () => {
    const other = await createHubTextEncoder({ model: 'tiny-bert', localModelPath: root, allowRemote: false, dtype: 'fp32' });
    await other.dispose();
    await expect(other.embed(['x'])).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

describe('hub image encoder (transformers.js) on a hand-written SigLIP-shaped vision tower', () => {
  const root = mkdtempSync(join(tmpdir(), 'vmem-hub-image-'));
  let encoder: LoadableImageEmbedder;
  beforeAll(async () => {
    writeTinySiglipVisionModel(root, 'tiny-siglip', 8, 32);
    encoder = await createHubImageEncoder({ model: 'tiny-siglip', localModelPath: root, allowRemote: false, dtype: 'fp32', decoder: decodeImageNode });
  });
  afterAll(async () => {
    await encoder?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('embeds decoded photos into unit vectors of the pooled size, deterministically', async () => {
    expect(encoder.dimension).toBe(8);
    expect(encoder.id).toBe('hub-image:tiny-siglip@fp32/pooled');
    const photos = ['sk_coffee.jpg', 'sk_moon.jpg'].map((name) => ({ bytes: readFixturePhoto(name), mimeType: 'image/jpeg' }));
    const [coffee, moon] = await encoder.embed(photos);
    const [coffeeAgain] = await encoder.embed([photos[0]!]);
    expect(Math.sqrt(dot(coffee!, coffee!))).toBeCloseTo(1, 5);
    expect(dot(coffee!, coffeeAgain!)).toBeGreaterThan(0.9999);
    expect(dot(coffee!, moon!)).toBeLessThan(0.999);
  });

  it('rejects bytes it cannot decode with IMAGE_DECODE_FAILED naming the image', async () => {
    await expect(encoder.embed([{ bytes: new Uint8Array([1, 2, 3, 4]) }])).rejects.toMatchObject({ code: 'IMAGE_DECODE_FAILED', message: expect.stringContaining('Image 0') });
  });
});
