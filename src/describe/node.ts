/**
 * Node wiring of the describer: CenterNet from `@vladmandic/human`'s weights, converted to ONNX in
 * memory and run on onnxruntime-node, Tesseract's English
 * model from `@tesseract.js-data/eng`, tesseract.js's own worker script and core from node_modules,
 * and the pure-JS JPEG/PNG decoder. Nothing is fetched from the network.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ortNode from 'onnxruntime-node';
import { readFileAsFetch } from '../encoders/node-assets.js';
import { centerNetToOnnx, readTfjsModel } from '../encoders/onnx/embedded-models.js';
import { decodeImageNode } from '../encoders/node-decoder.js';
import type { ProgressCallback } from '../progress.js';
import { createCenterNetDetector } from './centernet.js';
import { createImageDescriber } from './describer.js';
import { createTesseractTextReader } from './tesseract.js';
import type { ImageDescriber } from './types.js';

const require = createRequire(import.meta.url);

/** Options of `createNodeImageDescriber`. */
export interface NodeImageDescriberOptions {
  /** As in `createCenterNetDetector`. @default 0.45 */
  readonly minScore?: number;
  /** Read text with Tesseract. @default true */
  readonly ocr?: boolean;
  /** As in `createImageDescriber`. @default 6000 */
  readonly ocrTimeoutMs?: number;
  /** Model loading progress. */
  readonly onProgress?: ProgressCallback;
}

/**
 * The offline describer wired for Node.
 * @example
 * const describer = createNodeImageDescriber();
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image, describer });
 */
export function createNodeImageDescriber(options: NodeImageDescriberOptions = {}): ImageDescriber & { load(): Promise<void>; dispose(): Promise<void> } {
  const detector = createCenterNetDetector({
    runtime: ortNode,
    model: nodeCenterNetOnnx,
    // One thread, as the embedded encoders run: ingest describes while it embeds.
    sessionOptions: { intraOpNumThreads: 1 },
    ...(options.minScore !== undefined ? { minScore: options.minScore } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const textReader =
    options.ocr === false ? undefined : createTesseractTextReader({ langPath: nodeTesseractLangPath(), ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
  return createImageDescriber({
    decoder: decodeImageNode,
    detector,
    ...(textReader ? { textReader } : {}),
    ...(options.ocrTimeoutMs !== undefined ? { ocrTimeoutMs: options.ocrTimeoutMs } : {}),
  });
}

/** Path of CenterNet's `centernet.json` inside `@vladmandic/human` (its `centernet.bin` is beside it). */
export function nodeCenterNetModelPath(): string {
  // The package's exports map hides package.json; its Node entry sits in dist/, one level below the root.
  return join(dirname(dirname(require.resolve('@vladmandic/human'))), 'models', 'centernet.json');
}

/** CenterNet as ONNX, converted in memory from the TF.js files in `@vladmandic/human` (about half a second). */
export async function nodeCenterNetOnnx(): Promise<Uint8Array> {
  return centerNetToOnnx(await readTfjsModel(readFileAsFetch, nodeCenterNetModelPath(), 'CenterNet'));
}

/** Folder of Tesseract's English `best_int` model (`eng.traineddata.gz`) in `@tesseract.js-data/eng`. */
export function nodeTesseractLangPath(): string {
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}
