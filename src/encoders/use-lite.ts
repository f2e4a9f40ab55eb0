import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import { VmemError } from '../errors.js';
import { defaultFetch, fetchBytes, fetchJson, siblingOf } from './assets.js';
import type { FetchAsset } from './assets.js';
import { createLazy } from '../util/lazy.js';
import { createSentencePieceTokenizer } from './sentencepiece.js';
import type { SentencePieceTokenizer, VocabEntry } from './sentencepiece.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { ensureTfjsWasm } from './tfjs-runtime.js';
import type { WasmPaths } from './tfjs-runtime.js';
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
   * Address of the graph model's `model.json` (a URL in browsers, a path in Node); the weight shards
   * are read from the same folder.
   * @example '/models/use-lite/model.json'
   */
  readonly modelUrl: string;
  /**
   * Address of the sentencepiece vocabulary.
   * @default `vocab.json` next to `modelUrl`
   */
  readonly vocabUrl?: string;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Where the TF.js WASM binaries are (shared with the image encoder; the first caller's paths win). */
  readonly wasmPaths: WasmPaths;
  /** WASM threads (cross-origin-isolated pages only). @default TF.js's choice */
  readonly threads?: number;
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
  /** Model download progress (`task: 'model'`, `item: 'use-lite-512'`, `unit: 'bytes'` of the weight shards). */
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
  readonly model: GraphModel;
  readonly tokenizer: SentencePieceTokenizer;
  readonly wordStartId: number;
}

interface WeightsManifestGroup {
  readonly paths: readonly string[];
  readonly weights: readonly tf.io.WeightsManifestEntry[];
}

interface ModelJson {
  readonly modelTopology: unknown;
  readonly weightsManifest: readonly WeightsManifestGroup[];
  readonly format?: string;
  readonly generatedBy?: string;
  readonly convertedBy?: string | null;
}

/**
 * Universal Sentence Encoder Lite (512-d) on TF.js WASM, with its own sentencepiece tokenizer.
 * Runs in Node and in browser workers: every file comes through `fetch`, nothing is imported from Node.
 * Loads lazily and once; calls are serialised.
 * @example
 * const text = createUseLiteTextEncoder({ modelUrl: '/models/use-lite/model.json', wasmPaths: '/tfjs-wasm/' });
 * const [v] = await text.embed(['A red bicycle by the door']); // Float32Array(512), unit length
 */
export function createUseLiteTextEncoder(options: UseLiteTextEncoderOptions): LoadableTextEmbedder {
  const maxTokens = positiveInteger(options.maxTokens, USE_LITE_MAX_TOKENS, 'maxTokens');
  const batchTokens = positiveInteger(options.batchTokens, USE_LITE_BATCH_TOKENS, 'batchTokens');
  const effectiveCap = Math.min(maxTokens, USE_LITE_MAX_TOKENS);
  const id = useLiteId(effectiveCap);
  const fetchAsset = options.fetch ?? defaultFetch();
  const queue = createSerialQueue();
  let disposed = false;

  const loaded = createLazy(async (): Promise<LoadedUseLite> => {
    await ensureTfjsWasm({ wasmPaths: options.wasmPaths, threads: options.threads });
    const vocabUrl = options.vocabUrl ?? siblingOf(options.modelUrl, 'vocab.json');
    // The small files first: if one fails, no weights were read and no model memory is held.
    options.onProgress?.({ status: 'initiate', task: 'model', item: PROGRESS_ITEM });
    const modelJson = await fetchJson<ModelJson>(fetchAsset, options.modelUrl, 'the USE-Lite model.json');
    const vocab = await fetchJson<VocabEntry[]>(fetchAsset, vocabUrl, 'the USE-Lite vocabulary');
    if (!Array.isArray(vocab) || vocab.length < 7) {
      throw new VmemError('MODEL_LOAD_FAILED', `${vocabUrl} is not a sentencepiece vocabulary ([piece, score][]).`);
    }
    const model = await loadUseLiteGraph(fetchAsset, options.modelUrl, modelJson, options.onProgress);
    const tokenizer = createSentencePieceTokenizer(vocab);
    const wordStartId = vocab.findIndex(([piece]) => piece === '\u2581');
    options.onProgress?.({ status: 'ready', task: 'model', item: PROGRESS_ITEM });
    return { model, tokenizer, wordStartId: wordStartId < 0 ? 0 : wordStartId };
  });

  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This USE-Lite text encoder was disposed; create a new one.');
  };

  return {
    id,
    dimension: USE_LITE_DIMENSION,
    async load() {
      ensureOpen();
      await loaded.get();
    },
    embed(texts) {
      return queue.run(async () => {
        ensureOpen();
        if (texts.length === 0) return [];
        const { model, tokenizer, wordStartId } = await loaded.get();
        const ids = texts.map((text) => {
          const tokens = tokenizer.encode(text);
          // A row with no tokens would vanish from the sparse batch; a lone word mark keeps it.
          return tokens.length === 0 ? [wordStartId] : tokens.slice(0, effectiveCap);
        });
        return embedTokenLists(model, ids, batchTokens);
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        loaded.peek()?.model.dispose();
        loaded.reset();
      });
    },
  };
}

/** The encoder id for a token cap: the base id, plus `+max<N>` when texts are cut shorter than the model does. */
export function useLiteId(tokenCap: number): string {
  return tokenCap >= USE_LITE_MAX_TOKENS ? BASE_ID : `${BASE_ID}+max${tokenCap}`;
}

/**
 * Runs the model over token lists grouped by length (least padding), and returns the vectors in input order.
 */
async function embedTokenLists(model: GraphModel, ids: readonly number[][], batchTokens: number): Promise<Float32Array[]> {
  const order = ids.map((_, index) => index).sort((a, b) => ids[a]!.length - ids[b]!.length);
  const vectors: Float32Array[] = new Array(ids.length);
  for (const batch of groupByPaddedSize(order, (index) => ids[index]!.length, batchTokens)) {
    const batchVectors = await runBatch(model, batch.map((index) => ids[index]!));
    batch.forEach((index, row) => {
      vectors[index] = batchVectors[row]!;
    });
  }
  return vectors;
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

async function runBatch(model: GraphModel, rows: readonly number[][]): Promise<Float32Array[]> {
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
  const inputs = {
    indices: tf.tensor2d(indices, [total, 2], 'int32'),
    values: tf.tensor1d(values, 'int32'),
  };
  let output: tf.Tensor | undefined;
  try {
    // The graph has dynamic ops (Where), so it must run through executeAsync.
    output = (await model.executeAsync(inputs)) as tf.Tensor;
    const data = (await output.data()) as Float32Array;
    return normalizedRows(data, rows.length, USE_LITE_DIMENSION);
  } finally {
    tf.dispose([inputs.indices, inputs.values]);
    output?.dispose();
  }
}

async function loadUseLiteGraph(
  fetchAsset: FetchAsset,
  modelUrl: string,
  modelJson: ModelJson,
  onProgress: ProgressCallback | undefined,
): Promise<GraphModel> {
  const model = { task: 'model', item: PROGRESS_ITEM, unit: 'bytes' } as const;
  if (!Array.isArray(modelJson.weightsManifest)) {
    throw new VmemError('MODEL_LOAD_FAILED', `${modelUrl} has no weightsManifest: it is not a TF.js graph model.json.`);
  }
  const weightSpecs = modelJson.weightsManifest.flatMap((group) => group.weights);
  const paths = modelJson.weightsManifest.flatMap((group) => group.paths);
  const total = weightSpecs.reduce((sum, spec) => sum + spec.shape.reduce((a: number, b: number) => a * b, 1) * 4, 0);
  let loaded = 0;
  onProgress?.({ status: 'progress', ...model, loaded, total });
  // Shards are read one after another so progress only grows and memory peaks once.
  const shards: Uint8Array[] = [];
  for (const path of paths) {
    const shard = await fetchBytes(fetchAsset, siblingOf(modelUrl, path), `the USE-Lite weight shard ${path}`);
    shards.push(shard);
    loaded = Math.min(total, loaded + shard.byteLength);
    onProgress?.({ status: 'progress', ...model, loaded, total });
  }
  const weightData = concatBytes(shards);
  if (weightData.byteLength !== total) {
    throw new VmemError('MODEL_LOAD_FAILED', `USE-Lite weight shards next to ${modelUrl} hold ${weightData.byteLength} bytes, expected ${total}: a shard is truncated or from another model.`);
  }
  onProgress?.({ status: 'progress', ...model, loaded: total, total });
  onProgress?.({ status: 'done', task: 'model', item: PROGRESS_ITEM });
  try {
    return await loadGraphModel({
      load: async () => ({
        modelTopology: modelJson.modelTopology as tf.io.ModelArtifacts['modelTopology'],
        weightSpecs,
        weightData: weightData.buffer as ArrayBuffer,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy ?? undefined,
      }),
    });
  } catch (cause) {
    throw new VmemError('MODEL_LOAD_FAILED', `TF.js could not build the USE-Lite graph from ${modelUrl}: ${String(cause)}`, { cause });
  }
}

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new VmemError('INVALID_INPUT', `${name} must be a positive integer, got ${value}.`);
  }
  return value;
}
