/**
 * The converted ONNX models compute what the original TF.js models compute: on 200 benchmark texts
 * and on every fixture photo, each fp32 ONNX Runtime vector (onnxruntime-node, and onnxruntime-web's
 * WASM backend in Node) has cosine ≥ 0.9999 with the TF.js vector of the same input. The int8
 * USE-Lite, the default, stays close to them too.
 */
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMobileNetImageEncoder } from './mobilenet.js';
import { MODEL_FILES } from './model-formats.js';
import { readFileAsFetch, readShippedModel, shippedModelPath } from './node-assets.js';
import { convertUseLite } from './onnx/node-sources.js';
import { decodeImageNode } from './node-decoder.js';
import type { ModelPrecision } from './model-formats.js';
import type { OrtRuntime } from './ort-runtime.js';
import { benchTexts } from './testing/bench-texts.js';
import { tfjsPhotoVectors, tfjsTextVectors } from './testing/tfjs-reference.js';
import { createUseLiteTextEncoder } from './use-lite.js';
import { dot } from './vectors.js';
import { fixturePhotoNames, readFixturePhoto } from '../testing/shared-data.js';

const EQUIVALENT = 0.9999;
/** int8 matrix products and embedding table: every benchmark text within this cosine of TF.js (measured lowest: 0.9989). */
const INT8_CLOSE = 0.998;
const runtimes: Record<string, OrtRuntime> = { 'onnxruntime-node': ortNode, 'onnxruntime-web (WASM)': ortWeb };
ortWeb.env.wasm.numThreads = 1;

/** The lowest cosine between matching vectors. */
function lowestCosine(expected: readonly Float32Array[], actual: readonly Float32Array[]): number {
  expect(actual).toHaveLength(expected.length);
  return Math.min(...expected.map((vector, i) => dot(vector, actual[i]!)));
}

async function embedTexts(runtime: OrtRuntime, precision: ModelPrecision, texts: readonly string[]): Promise<Float32Array[]> {
  // int8 is the file the package ships; fp32 (not shipped) is converted here.
  const model = precision === 'int8' ? () => readShippedModel(MODEL_FILES.useLite.int8, 'USE-Lite') : () => convertUseLite(precision);
  const encoder = createUseLiteTextEncoder({ runtime, model, precision, vocabUrl: shippedModelPath(MODEL_FILES.useLiteVocab), fetch: readFileAsFetch });
  try {
    return await encoder.embed(texts);
  } finally {
    await encoder.dispose();
  }
}

describe('USE-Lite on ONNX Runtime', () => {
  const texts = benchTexts(200);
  let reference: Float32Array[] = [];
  beforeAll(async () => {
    expect(new Set(texts).size).toBeGreaterThan(190);
    reference = await tfjsTextVectors(texts);
  });

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`matches TF.js on 200 benchmark texts (fp32, ${name})`, async () => {
      expect(lowestCosine(reference, await embedTexts(runtime, 'fp32', texts))).toBeGreaterThanOrEqual(EQUIVALENT);
    });
  }

  it('stays close to TF.js in int8 (onnxruntime-node)', async () => {
    const lowest = lowestCosine(reference, await embedTexts(ortNode, 'int8', texts));
    expect(lowest).toBeGreaterThanOrEqual(INT8_CLOSE);
    expect(lowest).toBeLessThan(EQUIVALENT);
  });
});

describe('MobileNetV2 on ONNX Runtime', () => {
  const names = fixturePhotoNames();
  let reference: Float32Array[] = [];
  beforeAll(async () => {
    expect(names.length).toBeGreaterThanOrEqual(30);
    reference = await tfjsPhotoVectors(names);
  });

  for (const [name, runtime] of Object.entries(runtimes)) {
    it(`matches TF.js on every fixture photo (${name})`, async () => {
      const encoder = createMobileNetImageEncoder({ runtime, model: () => readShippedModel(MODEL_FILES.mobileNet, 'MobileNetV2'), decoder: decodeImageNode });
      try {
        const vectors = await encoder.embed(names.map((photo) => ({ bytes: readFixturePhoto(photo), mimeType: 'image/jpeg' })));
        expect(lowestCosine(reference, vectors)).toBeGreaterThanOrEqual(EQUIVALENT);
      } finally {
        await encoder.dispose();
      }
    });
  }
});
