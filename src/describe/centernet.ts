/**
 * COCO objects from CenterNet with a MobileNetV3 backbone (the TF.js graph model shipped in
 * `@vladmandic/human`, `models/centernet.json` + `.bin`, 4 MB). The graph already turns its heat map
 * into 100 scored boxes (`tower_0/detections`: x1, y1, x2, y2, score, class in input pixels); this
 * module fits the picture into the input, maps the boxes back and drops duplicates.
 */
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { defaultFetch, fetchBytes, fetchJson, siblingOf, type FetchAsset } from '../encoders/assets.js';
import { toModelInput } from '../encoders/image-preprocess.js';
import { ensureTfjsWasm, type WasmPaths } from '../encoders/tfjs-runtime.js';
import type { RgbaImage } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import { createLazy } from '../util/lazy.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { detectionsFromRows, letterbox, suppressDuplicates, type Letterbox } from './detections.js';
import type { ObjectDetector } from './types.js';

/** Side of the model's square input. */
export const CENTERNET_INPUT_SIZE = 512;
/** The package and version the weights come from (part of the detector id). */
const WEIGHTS_SOURCE = 'human-3.3.6';
const OUTPUT_NODE = 'tower_0/detections';
const PROGRESS_ITEM = 'centernet-mbv3';
/**
 * Least score kept. On the fixture photos every true subject scores 0.55–0.75 while most false
 * alarms stay under 0.45 (measured with the letterboxed input this module feeds).
 */
const DEFAULT_MIN_SCORE = 0.45;
/** Same-class boxes overlapping more than this are one object. */
const DUPLICATE_OVERLAP = 0.5;

/** Options of `createCenterNetDetector`. */
export interface CenterNetDetectorOptions {
  /**
   * Address of `centernet.json` (a URL in browsers, a path in Node); `centernet.bin` is read from the
   * same folder.
   * @example '/models/centernet/centernet.json'
   */
  readonly modelUrl: string;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Where the TF.js WASM binaries are (the first caller's paths win; TF.js runs only this model). */
  readonly wasmPaths: WasmPaths;
  /** Least confidence a detection needs, 0–1. Changes the detector id. @default 0.45 */
  readonly minScore?: number;
  /** Model loading progress (`task: 'model'`, `item: 'centernet-mbv3'`, `unit: 'files'`). */
  readonly onProgress?: ProgressCallback;
}

interface GraphModelJson {
  readonly modelTopology: unknown;
  readonly weightsManifest: readonly { readonly paths: readonly string[]; readonly weights: readonly tf.io.WeightsManifestEntry[] }[];
  readonly format?: string;
  readonly generatedBy?: string;
  readonly convertedBy?: string | null;
}

/**
 * The CenterNet object detector on the TF.js WASM backend. Loads lazily and once; calls run one at a
 * time.
 * @example
 * const detector = createCenterNetDetector({ modelUrl: '/models/centernet/centernet.json', wasmPaths: '/tfjs-wasm/' });
 * const found = await detector.detect(decodedPixels); // [{ label: 'motorcycle', score: 0.62, box }]
 */
export function createCenterNetDetector(options: CenterNetDetectorOptions): ObjectDetector & { load(): Promise<void>; dispose(): Promise<void> } {
  const minScore = options.minScore === undefined ? DEFAULT_MIN_SCORE : options.minScore;
  if (!(minScore >= 0 && minScore <= 1)) throw new VmemError('INVALID_INPUT', `minScore must be between 0 and 1, got ${minScore}.`);
  const fetchAsset = options.fetch ?? defaultFetch();
  const queue = createSerialQueue();
  let disposed = false;
  const model = createLazy(async () => {
    await ensureTfjsWasm({ wasmPaths: options.wasmPaths });
    return loadCenterNet(fetchAsset, options.modelUrl, options.onProgress);
  });
  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This CenterNet detector was disposed; create a new one.');
  };
  return {
    id: `centernet-mbv3-coco@${WEIGHTS_SOURCE}/${minScore}`,
    async load() {
      ensureOpen();
      await model.get();
    },
    detect(image) {
      return queue.run(async () => {
        ensureOpen();
        const graph = await model.get();
        const fit = letterbox(image.width, image.height, CENTERNET_INPUT_SIZE);
        const rows = await runDetections(graph, image, fit);
        return suppressDuplicates(detectionsFromRows(rows, fit, image, minScore), DUPLICATE_OVERLAP);
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        model.peek()?.dispose();
        model.reset();
      });
    },
  };
}

async function runDetections(graph: GraphModel, image: RgbaImage, fit: Letterbox): Promise<number[][]> {
  const pixels = toModelInput(image, CENTERNET_INPUT_SIZE, 'pad');
  blackenBars(pixels, fit);
  // The network was trained on 0–255 pixels.
  const input = tf.tidy(() => tf.mul(tf.tensor4d(pixels, [1, CENTERNET_INPUT_SIZE, CENTERNET_INPUT_SIZE, 3]), 255));
  let output: tf.Tensor | undefined;
  try {
    output = graph.execute(input, OUTPUT_NODE) as tf.Tensor;
    return ((await output.array()) as number[][][])[0] ?? [];
  } finally {
    input.dispose();
    output?.dispose();
  }
}

/**
 * Paints the letterbox bars black. On the fixture photos black bars score true objects higher than
 * grey ones (the cat close-up: 0.55 against 0.46) and leave false alarms below the threshold.
 */
function blackenBars(pixels: Float32Array, fit: Letterbox): void {
  const size = CENTERNET_INPUT_SIZE;
  for (let y = 0; y < size; y++) {
    const inRows = y >= fit.offsetY && y < fit.offsetY + fit.height;
    for (let x = 0; x < size; x++) {
      if (inRows && x >= fit.offsetX && x < fit.offsetX + fit.width) continue;
      pixels.fill(0, (y * size + x) * 3, (y * size + x) * 3 + 3);
    }
  }
}

async function loadCenterNet(fetchAsset: FetchAsset, modelUrl: string, onProgress: ProgressCallback | undefined): Promise<GraphModel> {
  const item = { task: 'model', item: PROGRESS_ITEM } as const;
  onProgress?.({ status: 'initiate', ...item });
  const modelJson = await fetchJson<GraphModelJson>(fetchAsset, modelUrl, 'the CenterNet model.json');
  if (!Array.isArray(modelJson.weightsManifest)) {
    throw new VmemError('MODEL_LOAD_FAILED', `${modelUrl} has no weightsManifest: it is not a TF.js graph model.json.`);
  }
  const paths = modelJson.weightsManifest.flatMap((group) => group.paths);
  const shards: Uint8Array[] = [];
  for (const [index, path] of paths.entries()) {
    shards.push(await fetchBytes(fetchAsset, siblingOf(modelUrl, path), `the CenterNet weights ${path}`));
    onProgress?.({ status: 'progress', ...item, loaded: index + 1, total: paths.length, unit: 'files' });
  }
  const weightData = new Uint8Array(shards.reduce((sum, shard) => sum + shard.byteLength, 0));
  let offset = 0;
  for (const shard of shards) {
    weightData.set(shard, offset);
    offset += shard.byteLength;
  }
  onProgress?.({ status: 'done', ...item });
  try {
    const graph = await loadGraphModel({
      load: async () => ({
        modelTopology: modelJson.modelTopology as tf.io.ModelArtifacts['modelTopology'],
        weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
        weightData: weightData.buffer as ArrayBuffer,
        format: modelJson.format,
        generatedBy: modelJson.generatedBy,
        convertedBy: modelJson.convertedBy ?? undefined,
      }),
    });
    onProgress?.({ status: 'ready', ...item });
    return graph;
  } catch (cause) {
    throw new VmemError('MODEL_LOAD_FAILED', `TF.js could not build the CenterNet graph from ${modelUrl}: ${String(cause)}. Check that centernet.bin beside it is the one from @vladmandic/human.`, { cause });
  }
}
