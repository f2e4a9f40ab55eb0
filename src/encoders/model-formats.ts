/**
 * What the converted models look like to the code that runs them: the converter's version, the
 * precisions, the file names and the input and output names. Kept apart from the converter
 * (`onnx/`, build tooling that never ships) so the encoders and a browser bundle never carry it.
 */

/**
 * Each model's converter version, written into its `producer_name` and into its encoder id. Bump a
 * model's whenever a change to its converter could change the numbers it computes: memories that
 * model built then re-index, and those of the other models stay as they are.
 * USE-Lite's 2 stores its embedding table in int8 (`int8-tables.ts`); CenterNet's 2 its large
 * kernels (`int8-kernels.ts`), so pictures described by the float16 one are described again.
 */
export const CONVERTER_VERSIONS = { useLite: 'vmem-onnx-2', mobileNet: 'vmem-onnx-1', centerNet: 'vmem-onnx-2' } as const;

/**
 * `fp32` keeps TF.js's numbers. `int8`: USE-Lite runs the large matrix products in int8 (weights per
 * column, activations per row), about twice as fast on WASM, and stores the embedding table in int8
 * (a scale per row), 7.3 MB instead of 13.4, with every benchmark text's vector within cosine 0.998
 * of fp32 and allClue within 0.003 on both dev sets; CenterNet stores its large kernels in int8 (a
 * scale per output channel) and computes in float, 2.5 MB instead of 4.2, with the same objects
 * named on every fixture photo (docs/describe.md). The package ships `int8` only; `fp32` is for
 * measuring in this repository (`convert-models --fp32`, and CenterNet's equivalence test).
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
  wordVectors: 'glove-20k-int4.bin',
  tesseractEnglish: 'eng.traineddata.gz',
  tesseractCore: 'tesseract-core.js',
} as const;

/** Input and output names of the converted models. */
export const USE_LITE_ONNX = { indices: 'indices', values: 'values', output: 'embedding' } as const;
export const MOBILENET_ONNX = { input: 'pixels', output: 'features' } as const;
/** CenterNet's graph as converted: its TF input and output names, kept. */
export const CENTERNET_ONNX = { input: 'tower_0/images', output: 'detections' } as const;
