import { VmemError } from '../errors.js';
import { defaultFetch, fetchBytes, fetchJson, siblingOf } from './assets.js';
import type { FetchAsset } from './assets.js';
import { createLazy } from '../util/lazy.js';
import { USE_LITE_ONNX } from './onnx/embedded-models.js';
import { createOrtSession, runForFloats } from './ort-runtime.js';
import type { OrtRuntime, OrtSession, OrtSessionOptions } from './ort-runtime.js';
import { createSentencePieceTokenizer } from './sentencepiece.js';
import type { SentencePieceTokenizer, VocabEntry } from './sentencepiece.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { groupByPaddedSize, USE_LITE_BATCH_TOKENS, USE_LITE_DIMENSION, USE_LITE_MAX_TOKENS } from './use-lite.js';
import type { LoadableTextEmbedder } from './use-lite.js';
import type { ProgressCallback } from '../progress.js';
import { normalizedRows } from './vectors.js';

const BASE_ID = 'use-lite-512@energetic-ai-0.2.0/onnx';
/** `item` of this encoder's progress events (`task: 'model'`). */
const PROGRESS_ITEM = 'use-lite-512';

/** Where USE-Lite's converted model comes from: the URL (or path) of `use-lite.onnx`, or a function giving its bytes. */
export type OnnxModelSource = string | (() => Promise<Uint8Array>);

/** Options of `createUseLiteOrtEncoder`. */
export interface UseLiteOrtEncoderOptions {
  /** The onnxruntime module to run on: `onnxruntime-web` in browsers, `onnxruntime-node` in Node. */
  readonly runtime: OrtRuntime;
  /**
   * The converted model (`use-lite.onnx`, written by `scripts/convert-models.ts`), read with `fetch`;
   * or a function that returns its bytes (Node converts in memory).
   * @example '/models/use-lite/use-lite.onnx'
   */
  readonly model: OnnxModelSource;
  /**
   * Address of the sentencepiece vocabulary.
   * @default `vocab.json` next to `model` when it is an address
   */
  readonly vocabUrl?: string;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Execution providers and threads. @default onnxruntime's defaults */
  readonly sessionOptions?: OrtSessionOptions;
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

interface LoadedUseLite {
  readonly session: OrtSession;
  readonly tokenizer: SentencePieceTokenizer;
  readonly wordStartId: number;
}

/**
 * Universal Sentence Encoder Lite (512-d) on ONNX Runtime, with its own sentencepiece tokenizer.
 * Loads lazily and once; calls are serialised.
 * @example
 * const text = createUseLiteOrtEncoder({ runtime: await import('onnxruntime-web'), model: '/models/use-lite/use-lite.onnx' });
 * const [v] = await text.embed(['A red bicycle by the door']); // Float32Array(512), unit length
 */
export function createUseLiteOrtEncoder(options: UseLiteOrtEncoderOptions): LoadableTextEmbedder {
  const maxTokens = positiveInteger(options.maxTokens, USE_LITE_MAX_TOKENS, 'maxTokens');
  const batchTokens = positiveInteger(options.batchTokens, USE_LITE_BATCH_TOKENS, 'batchTokens');
  const effectiveCap = Math.min(maxTokens, USE_LITE_MAX_TOKENS);
  const fetchAsset = options.fetch ?? defaultFetch();
  const queue = createSerialQueue();
  let disposed = false;

  const loaded = createLazy(async (): Promise<LoadedUseLite> => {
    const vocabUrl = options.vocabUrl ?? (typeof options.model === 'string' ? siblingOf(options.model, 'vocab.json') : undefined);
    if (vocabUrl === undefined) throw new VmemError('INVALID_INPUT', 'USE-Lite needs vocabUrl when its model is given as bytes.');
    options.onProgress?.({ status: 'initiate', task: 'model', item: PROGRESS_ITEM });
    // The small file first: if it fails, no model bytes were read.
    const vocab = await fetchJson<VocabEntry[]>(fetchAsset, vocabUrl, 'the USE-Lite vocabulary');
    if (!Array.isArray(vocab) || vocab.length < 7) {
      throw new VmemError('MODEL_LOAD_FAILED', `${vocabUrl} is not a sentencepiece vocabulary ([piece, score][]).`);
    }
    const bytes = await readModel(options.model, fetchAsset, options.onProgress);
    const session = await createOrtSession(options.runtime, bytes, options.sessionOptions ?? {}, 'USE-Lite');
    const wordStartId = vocab.findIndex(([piece]) => piece === '\u2581');
    options.onProgress?.({ status: 'ready', task: 'model', item: PROGRESS_ITEM });
    return { session, tokenizer: createSentencePieceTokenizer(vocab), wordStartId: wordStartId < 0 ? 0 : wordStartId };
  });

  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This USE-Lite text encoder was disposed; create a new one.');
  };

  return {
    id: effectiveCap >= USE_LITE_MAX_TOKENS ? BASE_ID : `${BASE_ID}+max${effectiveCap}`,
    dimension: USE_LITE_DIMENSION,
    async load() {
      ensureOpen();
      await loaded.get();
    },
    embed(texts) {
      return queue.run(async () => {
        ensureOpen();
        if (texts.length === 0) return [];
        const { session, tokenizer, wordStartId } = await loaded.get();
        const ids = texts.map((text) => {
          const tokens = tokenizer.encode(text);
          // A row with no tokens would vanish from the sparse batch; a lone word mark keeps it.
          return tokens.length === 0 ? [wordStartId] : tokens.slice(0, effectiveCap);
        });
        // Similar lengths share a call (least padding); vectors go back in input order.
        const order = ids.map((_, index) => index).sort((a, b) => ids[a]!.length - ids[b]!.length);
        const vectors: Float32Array[] = new Array(ids.length);
        for (const batch of groupByPaddedSize(order, (index) => ids[index]!.length, batchTokens)) {
          const batchVectors = await runBatch(options.runtime, session, batch.map((index) => ids[index]!));
          batch.forEach((index, row) => {
            vectors[index] = batchVectors[row]!;
          });
        }
        return vectors;
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        const current = loaded.peek();
        loaded.reset();
        await current?.session.release();
      });
    },
  };
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

/** The model bytes, with download progress when they are fetched. */
export async function readModel(source: OnnxModelSource, fetchAsset: FetchAsset, onProgress: ProgressCallback | undefined, item = PROGRESS_ITEM): Promise<Uint8Array> {
  const model = { task: 'model', item, unit: 'bytes' } as const;
  const bytes = typeof source === 'string' ? await fetchBytes(fetchAsset, source, `the ${item} model`) : await source();
  onProgress?.({ status: 'progress', ...model, loaded: bytes.byteLength, total: bytes.byteLength });
  onProgress?.({ status: 'done', task: 'model', item });
  return bytes;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new VmemError('INVALID_INPUT', `${name} must be a positive integer, got ${value}.`);
  }
  return value;
}
