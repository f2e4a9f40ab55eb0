/**
 * Node wiring of the describer: CenterNet as the package ships it (`dist/worker/models/centernet.onnx`)
 * on onnxruntime-node, Tesseract's English model shipped beside it, read by tesseract.js (an optional
 * peer, for OCR), and the pure-JS JPEG/PNG decoder. Nothing is fetched from the network.
 */
import { dirname } from 'node:path';
import { MODEL_FILES } from '../encoders/model-formats.js';
import { readShippedModel, shippedModelPath } from '../encoders/node-assets.js';
import { decodeImageNode } from '../encoders/node-decoder.js';
import { nodeOrtRuntime } from '../encoders/node-runtime.js';
import type { ProgressCallback } from '../progress.js';
import { createCenterNetDetector } from './centernet.js';
import { createImageDescriber } from './describer.js';
import { createTesseractTextReader } from './tesseract.js';
import type { ImageDescriber } from './types.js';

/** Options of `createNodeImageDescriber`. */
export interface NodeImageDescriberOptions {
  /** As in `createCenterNetDetector`. @default 0.45 */
  readonly minScore?: number;
  /**
   * Read text with Tesseract. Needs tesseract.js (`npm install tesseract.js@7.0.0`); without it the
   * first picture read rejects with `DEPENDENCY_MISSING`.
   * @default true
   */
  readonly ocr?: boolean;
  /** As in `createImageDescriber`. @default 6000 */
  readonly ocrTimeoutMs?: number;
  /** Model loading progress. */
  readonly onProgress?: ProgressCallback;
}

/**
 * The offline describer wired for Node (onnxruntime-node, an optional peer, runs the detector).
 * @example
 * const describer = createNodeImageDescriber();
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image, describer });
 */
export function createNodeImageDescriber(options: NodeImageDescriberOptions = {}): ImageDescriber & { load(): Promise<void>; dispose(): Promise<void> } {
  const detector = createCenterNetDetector({
    runtime: nodeOrtRuntime(),
    model: () => readShippedModel(MODEL_FILES.centerNet, 'CenterNet'),
    // One thread, as the embedded encoders run: ingest describes while it embeds.
    sessionOptions: { intraOpNumThreads: 1 },
    ...(options.minScore !== undefined ? { minScore: options.minScore } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const textReader =
    options.ocr === false
      ? undefined
      : createTesseractTextReader({ langPath: dirname(shippedModelPath(MODEL_FILES.tesseractEnglish)), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  return createImageDescriber({
    decoder: decodeImageNode,
    detector,
    ...(textReader ? { textReader } : {}),
    ...(options.ocrTimeoutMs !== undefined ? { ocrTimeoutMs: options.ocrTimeoutMs } : {}),
  });
}
