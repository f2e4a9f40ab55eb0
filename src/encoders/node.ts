/**
 * Node entry of the encoders: everything in `./index.js`, plus the models the package ships read
 * from disk, the pure-JS JPEG/PNG decoder, and onnxruntime-node (an optional peer).
 */
import { imageEncoderFor } from './embedded.js';
import type { EmbeddedEncoders, EmbeddedImageMode } from './embedded.js';
import type { ImageFit } from './image-preprocess.js';
import { MODEL_FILES, type ModelPrecision } from './model-formats.js';
import { readFileAsFetch, readShippedModel, shippedModelPath } from './node-assets.js';
import { decodeImageNode } from './node-decoder.js';
import { nodeOrtRuntime } from './node-runtime.js';
import type { ProgressCallback } from '../progress.js';
import { createUseLiteTextEncoder, positiveInteger } from './use-lite.js';

export * from './index.js';
export { decodeImageNode, NODE_DECODER_FORMATS } from './node-decoder.js';
export { loadNodeWordVectors } from './node-assets.js';

/** Options of `createNodeEmbeddedEncoders`. */
export interface NodeEmbeddedEncodersOptions {
  /** As in `createEmbeddedEncoders`. @default 'mobilenet' */
  readonly image?: EmbeddedImageMode;
  /**
   * Threads embedding text at once, each running its own model calls over one shared model: 2 uses
   * both cores of a 2-core machine for big batches.
   * @default 1
   */
  readonly textThreads?: number;
  /**
   * As in `createUseLiteTextEncoder`. The package ships `int8`; `fp32` reads `use-lite.onnx`, which
   * only this repository writes (`npm run convert-models -- --fp32`).
   * @default 'int8'
   */
  readonly precision?: ModelPrecision;
  /** As in `createUseLiteTextEncoder`. @default 128 */
  readonly maxTokens?: number;
  /** As in `createUseLiteTextEncoder`. @default 2048 */
  readonly batchTokens?: number;
  /** As in `createMobileNetImageEncoder`. @default 'squash' */
  readonly fit?: ImageFit;
  /** Loading progress of the models. */
  readonly onProgress?: ProgressCallback;
}

/**
 * The offline encoders wired for Node: the ONNX models the package ships (`dist/worker/models/`), run
 * on onnxruntime-node, JPEG/PNG decoded in JS. onnxruntime-node is an optional peer: without it the
 * first model load rejects with `DEPENDENCY_MISSING` naming `npm install onnxruntime-node@1.30.0`.
 * @example
 * const { text, image } = createNodeEmbeddedEncoders({ textThreads: 2 });
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image });
 */
export function createNodeEmbeddedEncoders(options: NodeEmbeddedEncodersOptions = {}): EmbeddedEncoders {
  const runtime = nodeOrtRuntime();
  const precision = options.precision ?? 'int8';
  const threads = positiveInteger(options.textThreads, 1, 'textThreads');
  const text = createUseLiteTextEncoder({
    runtime,
    model: () => readShippedModel(MODEL_FILES.useLite[precision], `USE-Lite (${precision})`),
    precision,
    vocabUrl: shippedModelPath(MODEL_FILES.useLiteVocab),
    fetch: readFileAsFetch,
    // Parallel calls, one thread each: cheaper than splitting every product over threads.
    sessionOptions: { intraOpNumThreads: 1 },
    concurrency: threads,
    maxTokens: options.maxTokens,
    batchTokens: options.batchTokens,
    onProgress: options.onProgress,
  });
  const image = imageEncoderFor(options.image ?? 'mobilenet', text, {
    runtime,
    imageModel: () => readShippedModel(MODEL_FILES.mobileNet, 'MobileNetV2'),
    decoder: decodeImageNode,
    fit: options.fit,
    onProgress: options.onProgress,
  });
  return { text, image };
}
