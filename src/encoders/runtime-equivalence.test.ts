/**
 * The converted ONNX models compute what the TF.js models compute: on 200 benchmark texts and on
 * every fixture photo, each ONNX Runtime vector (onnxruntime-node, and onnxruntime-web's WASM
 * backend in Node) has cosine ≥ 0.9999 with the TF.js vector of the same input.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMobileNetOrtEncoder } from './mobilenet-ort.js';
import { nodeMobileNetOnnx, nodeUseLiteOnnx, nodeUseLiteVocabPath, readFileAsFetch } from './node-assets.js';
import { decodeImageNode } from './node-decoder.js';
import type { OrtRuntime } from './ort-runtime.js';
import { benchTexts } from './testing/bench-texts.js';
import { tfjsPhotoVectors, tfjsTextVectors } from './testing/tfjs-reference.js';
import type { ImageEmbedder, TextEmbedder } from './types.js';
import { createUseLiteOrtEncoder } from './use-lite-ort.js';
import { dot } from './vectors.js';
import { fixturePhotoNames, readFixturePhoto } from '../testing/shared-data.js';

const EQUIVALENT = 0.9999;
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };
ortWeb.env.wasm.numThreads = 1;

/** The lowest cosine between matching vectors. */
function lowestCosine(expected: readonly Float32Array[], actual: readonly Float32Array[]): number {
  expect(actual).toHaveLength(expected.length);
  return Math.min(...expected.map((vector, i) => dot(vector, actual[i]!)));
}

describe('USE-Lite on ONNX Runtime', () => {
  const texts = benchTexts(200);
  let reference: Float32Array[] = [];
  beforeAll(async () => {
    reference = await tfjsTextVectors(texts);
  });

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`matches TF.js on 200 benchmark texts (${name})`, async () => {
      const encoder: TextEmbedder = createUseLiteOrtEncoder({ runtime, model: nodeUseLiteOnnx, vocabUrl: nodeUseLiteVocabPath(), fetch: readFileAsFetch });
      const vectors = await encoder.embed(texts);
      await encoder.dispose?.();
      expect(new Set(texts).size).toBeGreaterThan(190);
      expect(lowestCosine(reference, vectors)).toBeGreaterThanOrEqual(EQUIVALENT);
    });
  }
});

describe('MobileNetV2 on ONNX Runtime', () => {
  const names = fixturePhotoNames();
  const images = names.map((name) => ({ bytes: readFixturePhoto(name), mimeType: 'image/jpeg' }));
  let reference: Float32Array[] = [];
  beforeAll(async () => {
    reference = await tfjsPhotoVectors(names);
  });
  const encoders: ImageEmbedder[] = [];
  afterAll(() => Promise.all(encoders.map((encoder) => encoder.dispose?.())));

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`matches TF.js on every fixture photo (${name})`, async () => {
      const encoder = createMobileNetOrtEncoder({ runtime, model: nodeMobileNetOnnx, decoder: decodeImageNode });
      encoders.push(encoder);
      expect(images.length).toBeGreaterThanOrEqual(30);
      expect(lowestCosine(reference, await encoder.embed(images))).toBeGreaterThanOrEqual(EQUIVALENT);
    });
  }
});
