import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode } from '../errors.js';
import type { FetchAsset } from './assets.js';
import { MODEL_FILES } from './model-formats.js';
import { readFileAsFetch, readShippedModel, shippedModelPath } from './node-assets.js';
import type { VmemProgress } from '../progress.js';
import { createUseLiteTextEncoder, groupByPaddedSize } from './use-lite.js';
import type { UseLiteTextEncoderOptions } from './use-lite.js';
import { dot } from './vectors.js';

// The converted model and its vocabulary in one folder, as the app serves them.
const folder = mkdtempSync(join(tmpdir(), 'vmem-use-lite-'));
const modelPath = join(folder, 'use-lite-int8.onnx');
writeFileSync(modelPath, await readShippedModel(MODEL_FILES.useLite.int8, 'USE-Lite'));
copyFileSync(shippedModelPath(MODEL_FILES.useLiteVocab), join(folder, MODEL_FILES.useLiteVocab));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const makeEncoder = (extra: Partial<UseLiteTextEncoderOptions> = {}) =>
  createUseLiteTextEncoder({ runtime: ortNode, model: modelPath, fetch: readFileAsFetch, ...extra });

const norm = (v: Float32Array): number => Math.sqrt(dot(v, v));

describe('USE-Lite text encoder', () => {
  const encoder = makeEncoder();
  beforeAll(() => encoder.load());
  afterAll(() => encoder.dispose());

  it('names itself and returns one unit-length 512-d vector per text, in order', async () => {
    expect(encoder.id).toBe('use-lite-512@energetic-ai-0.2.0/vmem-onnx-2-int8');
    expect(encoder.dimension).toBe(512);
    const texts = ['A much longer sentence about the weather in the mountains during a cold and windy winter.', 'Hi', 'I like jazz.'];
    const vectors = await encoder.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(512);
      expect(norm(v)).toBeCloseTo(1, 4);
    }
    // Order survives the length sort inside the batch: each vector matches its own text embedded alone.
    const [alone] = await encoder.embed([texts[1]!]);
    expect(dot(alone!, vectors[1]!)).toBeGreaterThan(0.9999);
  });

  it('scores related sentences above unrelated ones', async () => {
    const [cat, kitten, stocks] = await encoder.embed(['The cat sat on the mat.', 'A kitten is sitting on a rug.', 'Stock markets fell sharply today.']);
    expect(dot(cat!, kitten!)).toBeGreaterThan(0.5);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, stocks!) + 0.3);
  });

  it('gives the same vectors in a batch as one by one', async () => {
    const texts = ['We hiked to the lake on Sunday and saw two herons.', 'My sister bought a red bicycle.', 'Remind me to call the dentist.', 'ok'];
    const batch = await encoder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await encoder.embed([texts[i]!]);
      expect(dot(single!, batch[i]!)).toBeGreaterThan(0.9999);
    }
  });

  it('still returns a unit vector for empty text, and nothing for no texts', async () => {
    const [empty] = await encoder.embed(['']);
    expect(norm(empty!)).toBeCloseTo(1, 4);
    expect(await encoder.embed([])).toEqual([]);
  });

  it('treats texts past 128 tokens as the model does (cut), and a lower cap changes the id', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const [a, b] = await encoder.embed([long, long + ' and a lot more text at the end that the model never sees']);
    expect(dot(a!, b!)).toBeGreaterThan(0.9999);
    expect(makeEncoder({ maxTokens: 64 }).id).toBe('use-lite-512@energetic-ai-0.2.0/vmem-onnx-2-int8+max64');
    expect(makeEncoder({ precision: 'fp32' }).id).toBe('use-lite-512@energetic-ai-0.2.0/vmem-onnx-2-fp32');
  });
});

describe('USE-Lite loading', () => {
  it('fails with MODEL_LOAD_FAILED naming the missing file', async () => {
    const withoutModel: FetchAsset = async (url) => (url === modelPath ? { ok: false, status: 404, arrayBuffer: async () => new ArrayBuffer(0) } : readFileAsFetch(url));
    const attempt = makeEncoder({ fetch: withoutModel }).embed(['hello']);
    await expect(attempt).rejects.toThrow(/use-lite-int8\.onnx.*HTTP 404/);
    expect(errorCode(await attempt.catch((e: unknown) => e))).toBe('MODEL_LOAD_FAILED');
  });

  it('refuses a damaged model file with MODEL_LOAD_FAILED', async () => {
    const damaged = join(folder, 'damaged.onnx');
    writeFileSync(damaged, new TextEncoder().encode('not a model'));
    await expect(makeEncoder({ model: damaged, vocabUrl: join(folder, MODEL_FILES.useLiteVocab) }).embed(['hello'])).rejects.toMatchObject({ code: 'MODEL_LOAD_FAILED', message: /ONNX Runtime could not start USE-Lite/ });
  });

  it('streams a fetched model with progress as the bytes arrive', async () => {
    const events: VmemProgress[] = [];
    const streaming: FetchAsset = async (url) => {
      const response = await readFileAsFetch(url);
      if (url !== modelPath) return response;
      const bytes = new Uint8Array(await response.arrayBuffer());
      const chunk = Math.ceil(bytes.byteLength / 4);
      return new Response(new ReadableStream({ start(controller) { for (let at = 0; at < bytes.byteLength; at += chunk) controller.enqueue(bytes.subarray(at, at + chunk)); controller.close(); } }), { headers: { 'content-length': String(bytes.byteLength) } });
    };
    const encoder = makeEncoder({ fetch: streaming, onProgress: (e) => events.push(e) });
    await encoder.load();
    const progress = events.filter((e): e is Extract<VmemProgress, { status: 'progress' }> => e.status === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress[0]!.loaded).toBeLessThan(progress[0]!.total);
    await encoder.dispose();
  });

  it('retries after a failed load, and a failed call does not block later calls', async () => {
    let failuresLeft = 1;
    const flaky: FetchAsset = async (url) => {
      if (url.endsWith(MODEL_FILES.useLiteVocab) && failuresLeft-- > 0) throw new Error('network down');
      return readFileAsFetch(url);
    };
    const encoder = makeEncoder({ fetch: flaky });
    const first = encoder.embed(['one']);
    const second = encoder.embed(['two']);
    await expect(first).rejects.toThrow(/use-lite-vocab\.json.*network down/);
    const [vector] = await second;
    expect(vector!.length).toBe(512);
    await encoder.dispose();
  });

  it('reports load progress that only grows and ends at the total', async () => {
    const events: VmemProgress[] = [];
    const encoder = makeEncoder({ onProgress: (e) => events.push(e) });
    await encoder.load();
    const statuses = events.map((e) => e.status);
    expect(statuses[0]).toBe('initiate');
    expect(statuses.slice(-2)).toEqual(['done', 'ready']);
    const progress = events.filter((e): e is Extract<VmemProgress, { status: 'progress' }> => e.status === 'progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.loaded).toBeGreaterThanOrEqual(progress[i - 1]!.loaded);
    expect(progress.at(-1)!.loaded).toBe(progress.at(-1)!.total);
    await encoder.dispose();
  });

  it('refuses calls after dispose with CLOSED', async () => {
    const encoder = makeEncoder();
    await encoder.dispose();
    await expect(encoder.embed(['x'])).rejects.toMatchObject({ code: 'CLOSED' });
  });
});

describe('groupByPaddedSize', () => {
  it('keeps count × longest within the budget, and gives an over-long item its own group', () => {
    const groups = groupByPaddedSize([1, 2, 2, 3, 5, 5, 9, 20], (n) => n, 10);
    expect(groups).toEqual([[1, 2, 2], [3, 5], [5], [9], [20]]);
    for (const g of groups) expect(g.length === 1 || g.length * Math.max(...g) <= 10).toBe(true);
  });
});
