/**
 * Node entry of the encoders: everything in `./index.js`, plus file loading from node_modules, the
 * pure-JS JPEG/PNG decoder, and a worker-thread pool for USE-Lite.
 */
import { imageEncoderFor } from './embedded.js';
import type { EmbeddedEncoders, EmbeddedImageMode } from './embedded.js';
import type { ImageFit } from './image-preprocess.js';
import { nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './node-assets.js';
import { decodeImageNode } from './node-decoder.js';
import { createNodeUseLitePool } from './node-use-lite-pool.js';
import type { ProgressCallback } from '../progress.js';
import { createUseLiteTextEncoder } from './use-lite.js';

export * from './index.js';
export { decodeImageNode, NODE_DECODER_FORMATS } from './node-decoder.js';
export { nodeTfjsWasmDir, nodeUseLiteModelPath, readFileAsFetch } from './node-assets.js';
export { createNodeUseLitePool } from './node-use-lite-pool.js';
export type { NodeUseLitePoolOptions } from './node-use-lite-pool.js';

/** Options of `createNodeEmbeddedEncoders`. */
export interface NodeEmbeddedEncodersOptions {
  /** As in `createEmbeddedEncoders`. @default 'mobilenet' */
  readonly image?: EmbeddedImageMode;
  /**
   * Text-encoder threads. 1 runs USE-Lite in this thread; more start a worker pool (each ~130 MB),
   * about 1.8× faster on 2 free cores for big batches. Call `text.dispose()` to end the threads.
   * @default 1
   */
  readonly textWorkers?: number;
  /** As in `createUseLiteTextEncoder`. @default 128 */
  readonly maxTokens?: number;
  /** As in `createUseLiteTextEncoder`. @default 2048 */
  readonly batchTokens?: number;
  /** As in `createMobileNetImageEncoder`. @default 'squash' */
  readonly fit?: ImageFit;
  /** Loading progress (in-thread models only). */
  readonly onProgress?: ProgressCallback;
}

/**
 * The offline encoders wired for Node: models read from node_modules, JPEG/PNG decoded in JS.
 * @example
 * const { text, image } = createNodeEmbeddedEncoders({ textWorkers: 2 });
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image });
 */
export function createNodeEmbeddedEncoders(options: NodeEmbeddedEncodersOptions = {}): EmbeddedEncoders {
  const wasmPaths = nodeTfjsWasmDir();
  const workers = options.textWorkers ?? 1;
  const text =
    workers > 1
      ? createNodeUseLitePool({ workers, maxTokens: options.maxTokens, batchTokens: options.batchTokens })
      : createUseLiteTextEncoder({
          modelUrl: nodeUseLiteModelPath(),
          fetch: readFileAsFetch,
          wasmPaths,
          maxTokens: options.maxTokens,
          batchTokens: options.batchTokens,
          onProgress: options.onProgress,
        });
  const image = imageEncoderFor(options.image ?? 'mobilenet', text, { wasmPaths, decoder: decodeImageNode, fit: options.fit, onProgress: options.onProgress });
  return { text, image };
}
