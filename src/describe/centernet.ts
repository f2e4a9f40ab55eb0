/**
 * COCO objects from CenterNet with a MobileNetV3 backbone (the TF.js graph model shipped in
 * `@vladmandic/human`, `models/centernet.json` + `.bin`, 4 MB), converted to ONNX by vmem's TF graph
 * converter (`scripts/convert-models.ts` writes `centernet.onnx`, its large kernels in int8, which
 * browsers and Node read) and run on ONNX Runtime, like the embedded encoders. The graph already
 * turns its heat map into 100 scored boxes (`detections`: x1, y1, x2, y2, score, class in input
 * pixels); this module fits the picture into the input, maps the boxes back and drops duplicates.
 */
import { createModelHandle } from '../encoders/model-handle.js';
import { defaultFetch, type FetchAsset } from '../encoders/assets.js';
import { toModelInput } from '../encoders/image-preprocess.js';
import { CENTERNET_ONNX, CONVERTER_VERSIONS } from '../encoders/model-formats.js';
import { loadModelSession, runForFloats, type OnnxModelSource, type OrtRuntime, type OrtSession, type OrtSessionOptions } from '../encoders/ort-runtime.js';
import type { RgbaImage } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import { detectionsFromRows, letterbox, suppressDuplicates, type Letterbox } from './detections.js';
import type { Detection, ObjectDetector } from './types.js';

/** Side of the model's square input. */
export const CENTERNET_INPUT_SIZE = 512;
/** Rows of the graph's `detections` output, and values per row. */
const DETECTION_ROWS = 100;
const DETECTION_VALUES = 6;
/** The package and version the weights come from (part of the detector id). */
const WEIGHTS_SOURCE = 'human-3.3.6';
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
   * The onnxruntime module to run on: `onnxruntime-web` in browsers and workers, `onnxruntime-node`
   * in Node (what `createNodeImageDescriber` passes).
   * @example await import('onnxruntime-web')
   */
  readonly runtime: OrtRuntime;
  /**
   * The converted model (`centernet.onnx`, written by `scripts/convert-models.ts`), read with
   * `fetch`; or a function that returns its bytes (Node reads the shipped file).
   * @example '/models/centernet.onnx'
   */
  readonly model: OnnxModelSource;
  /** Reads the model file. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Execution providers and threads. @default onnxruntime's defaults */
  readonly sessionOptions?: OrtSessionOptions;
  /** Least confidence a detection needs, 0–1. Changes the detector id. @default 0.45 */
  readonly minScore?: number;
  /** Model loading progress (`task: 'model'`, `item: 'centernet-mbv3'`, `unit: 'bytes'` of the model file). */
  readonly onProgress?: ProgressCallback;
}

/** The model's input for one picture: letterboxed 0–255 pixels, NHWC, and how the picture was fitted. */
export interface CenterNetInput {
  readonly pixels: Float32Array;
  readonly fit: Letterbox;
}

/**
 * The CenterNet object detector on ONNX Runtime. Loads lazily and once; calls run one at a time.
 * @example
 * const detector = createCenterNetDetector({ runtime: await import('onnxruntime-web'), model: '/models/centernet.onnx' });
 * const found = await detector.detect(decodedPixels); // [{ label: 'motorcycle', score: 0.62, box }]
 */
export function createCenterNetDetector(options: CenterNetDetectorOptions): ObjectDetector & { load(): Promise<void>; dispose(): Promise<void> } {
  const minScore = checkedMinScore(options.minScore);
  const fetchAsset = options.fetch ?? defaultFetch();
  const model = createModelHandle(
    (): Promise<OrtSession> => loadModelSession({ ...options, fetch: fetchAsset }, PROGRESS_ITEM, 'CenterNet'),
    'CenterNet detector',
    (session) => session.release(),
  );
  return {
    id: `centernet-mbv3-coco@${WEIGHTS_SOURCE}/${CONVERTER_VERSIONS.centerNet}/${minScore}`,
    load: model.load,
    detect(image) {
      return model.run(async (loadedSession) => {
        const session = await loadedSession();
        const input = centerNetInput(image);
        const feeds = { [CENTERNET_ONNX.input]: new options.runtime.Tensor('float32', input.pixels, [1, CENTERNET_INPUT_SIZE, CENTERNET_INPUT_SIZE, 3]) };
        const values = await runForFloats(session, feeds, CENTERNET_ONNX.output);
        return centerNetDetections(detectionRows(values), input.fit, image, minScore);
      });
    },
    dispose: model.dispose,
  };
}

/** `minScore` checked, or the default. */
export function checkedMinScore(minScore: number | undefined): number {
  const value = minScore === undefined ? DEFAULT_MIN_SCORE : minScore;
  if (!(value >= 0 && value <= 1)) throw new VmemError('INVALID_INPUT', `minScore must be between 0 and 1, got ${value}.`);
  return value;
}

/** The picture as CenterNet's input: fitted into the square with black bars, in 0–255 (what the network was trained on). */
export function centerNetInput(image: RgbaImage): CenterNetInput {
  const fit = letterbox(image.width, image.height, CENTERNET_INPUT_SIZE);
  const pixels = toModelInput(image, CENTERNET_INPUT_SIZE, 'pad');
  blackenBars(pixels, fit);
  for (let i = 0; i < pixels.length; i++) pixels[i]! *= 255;
  return { pixels, fit };
}

/** The graph's rows mapped back onto the picture, thresholded, best first, one per object. */
export function centerNetDetections(rows: readonly (readonly number[])[], fit: Letterbox, image: RgbaImage, minScore: number): Detection[] {
  return suppressDuplicates(detectionsFromRows(rows, fit, image, minScore), DUPLICATE_OVERLAP);
}

function detectionRows(values: Float32Array): number[][] {
  if (values.length !== DETECTION_ROWS * DETECTION_VALUES) {
    throw new VmemError('MODEL_LOAD_FAILED', `CenterNet gave ${values.length} detection values, not ${DETECTION_ROWS}×${DETECTION_VALUES}: the model is not the converted CenterNet vmem expects.`);
  }
  return Array.from({ length: DETECTION_ROWS }, (_, row) => Array.from(values.subarray(row * DETECTION_VALUES, (row + 1) * DETECTION_VALUES)));
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
