/**
 * Node-only: the model files the package ships, found on disk, and a `fetch` that reads files.
 * Nothing is converted at run time: `scripts/convert-models.ts` writes the files at build time.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { AssetResponse, FetchAsset } from './assets.js';
import { MODEL_FILES } from './model-formats.js';
import { parseWordVectors } from './word-vectors.js';
import { VmemError } from '../errors.js';
import type { WordVectors } from '../types.js';

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

/**
 * Path of a model file the package ships (`MODEL_FILES`): in `dist/worker/models/` beside the
 * encoder worker, or, in this repository, in `models/` as `npm run convert-models` writes it. When
 * neither has it, the package's path, so the error that follows names where it belongs.
 */
export function shippedModelPath(file: string): string {
  const packaged = fileURLToPath(new URL(`../worker/models/${file}`, import.meta.url));
  const converted = fileURLToPath(new URL(`../../models/${file}`, import.meta.url));
  return existsSync(packaged) || !existsSync(converted) ? packaged : converted;
}

/** A shipped model file's bytes; `MODEL_LOAD_FAILED` naming the path when it is not there. */
export async function readShippedModel(file: string, what: string): Promise<Uint8Array> {
  const path = shippedModelPath(file);
  try {
    return await readFile(path);
  } catch (cause) {
    throw new VmemError('MODEL_LOAD_FAILED', `Could not read ${what} from ${path} (${(cause as NodeJS.ErrnoException).code ?? String(cause)}): the file ships with vmem in dist/worker/models/; reinstall the package.`, { cause });
  }
}

/**
 * The embedded word vectors (GloVe, the package's `dist/worker/models/glove-…-int8.bin`) for
 * `createMemory({ wordVectors })`.
 * @throws VmemError `MODEL_LOAD_FAILED` when the file is missing or damaged.
 * @example const memory = await createMemory({ textEncoder, wordVectors: await loadNodeWordVectors() });
 */
export async function loadNodeWordVectors(): Promise<WordVectors> {
  return parseWordVectors(await readShippedModel(MODEL_FILES.wordVectors, 'the word vectors'));
}
