/**
 * What the converted models look like to the code that runs them: the converter's version, the
 * precisions, the file names and the input and output names. Kept apart from the converter
 * (`onnx/`, build tooling that never ships) so the encoders and a browser bundle never carry it.
 */

/**
 * Written into each model's `producer_name` and into the encoder ids. Bump it whenever a change to
 * the converters could change the numbers a converted model computes: stored memories then re-index.
 */
export const CONVERTER_VERSION = 'vmem-onnx-1';

/**
 * `fp32` keeps TF.js's numbers; `int8` runs the large matrix products in int8 (weights per column,
 * activations per row), about twice as fast on WASM, with every benchmark text's vector within
 * cosine 0.999 of fp32 and allClue within 0.003 on both dev sets. The package ships `int8` only;
 * `fp32` is for measuring in this repository (`convert-models --fp32`).
 */
export type ModelPrecision = 'int8' | 'fp32';

/**
 * Names of the model files `scripts/convert-models.ts` writes into `models/`, and the package ships in
 * `dist/worker/models/` beside the encoder worker (with the weights' licences, `LICENSES.md`).
 */
export const MODEL_FILES = {
  useLite: { int8: 'use-lite-int8.onnx', fp32: 'use-lite.onnx' },
  useLiteVocab: 'use-lite-vocab.json',
  mobileNet: 'mobilenet-v2.onnx',
  centerNet: 'centernet.onnx',
  wordVectors: 'glove-50k-int8.bin',
  tesseractEnglish: 'eng.traineddata.gz',
} as const;

/** Input and output names of the converted models. */
export const USE_LITE_ONNX = { indices: 'indices', values: 'values', output: 'embedding' } as const;
export const MOBILENET_ONNX = { input: 'pixels', output: 'features' } as const;
/** CenterNet's graph as converted: its TF input and output names, kept. */
export const CENTERNET_ONNX = { input: 'tower_0/images', output: 'detections' } as const;
