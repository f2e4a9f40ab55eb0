import * as tf from '@tensorflow/tfjs-core';
import { loadLayersModel, model as functionalModel } from '@tensorflow/tfjs-layers';
import type { LayersModel } from '@tensorflow/tfjs-layers';
import { VmemError, isVmemError } from '../errors.js';
import { toModelInput } from './image-preprocess.js';
import type { ImageFit } from './image-preprocess.js';
import { createLazy } from '../util/lazy.js';
import { createSerialQueue } from '../util/serial-queue.js';
import { ensureTfjsWasm } from './tfjs-runtime.js';
import type { WasmPaths } from './tfjs-runtime.js';
import type { ImageDecoder, ImageEmbedder, ImagePayload } from './types.js';
import type { ProgressCallback } from '../progress.js';
import { normalizedRows } from './vectors.js';

/** Length of the feature vector (MobileNetV2's pooled `flatten_1` layer). */
export const MOBILENET_DIMENSION = 1280;
/** Side of the model's square input. */
export const MOBILENET_INPUT_SIZE = 224;
/** `item` of this encoder's progress events (`task: 'model'`). */
const PROGRESS_ITEM = 'mobilenet-v2';
const FEATURE_LAYER = 'flatten_1';

/** Options of `createMobileNetImageEncoder`. */
export interface MobileNetImageEncoderOptions {
  /** Turns file bytes into pixels: `decodeImageNode` in Node, `createBrowserImageDecoder()` in browsers. */
  readonly decoder: ImageDecoder;
  /** Where the TF.js WASM binaries are (shared with the text encoder; the first caller's paths win). */
  readonly wasmPaths: WasmPaths;
  /** WASM threads (cross-origin-isolated pages only). @default TF.js's choice */
  readonly threads?: number;
  /**
   * How non-square images become the square input. `squash` keeps everything in view, which finds the
   * same scene from another viewpoint best on the fixture photos. Changes the encoder `id`.
   * @default 'squash'
   */
  readonly fit?: ImageFit;
  /** Images per model call. @default 8 */
  readonly batchSize?: number;
  /** Model loading progress (`task: 'model'`, `item: 'mobilenet-v2'`, `unit: 'files'`: the two model files). */
  readonly onProgress?: ProgressCallback;
}

/** An image encoder that can also be loaded ahead of the first `embed`. */
export interface LoadableImageEmbedder extends ImageEmbedder {
  /** Loads the model now (otherwise the first `embed` does). Retries after a failed load. */
  load(): Promise<void>;
  /** Frees the model; later calls reject with `CLOSED`. */
  dispose(): Promise<void>;
}

/**
 * Image features from MobileNetV2 (the backbone bundled in `nsfwjs`, no download): the 1280-d pooled
 * layer, L2-normalised. Finds the same photo after crops, flips and re-exposure, and the same scene
 * from a nearby viewpoint; it has no text tower, so text→image goes through captions.
 * @example
 * const image = createMobileNetImageEncoder({ decoder: decodeImageNode, wasmPaths: nodeTfjsWasmDir() });
 * const [v] = await image.embed([{ bytes: jpegBytes, mimeType: 'image/jpeg' }]); // Float32Array(1280)
 */
export function createMobileNetImageEncoder(options: MobileNetImageEncoderOptions): LoadableImageEmbedder {
  const fit = options.fit ?? 'squash';
  const batchSize = options.batchSize ?? 8;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new VmemError('INVALID_INPUT', `batchSize must be a positive integer, got ${batchSize}.`);
  }
  const queue = createSerialQueue();
  let disposed = false;

  const loaded = createLazy(async () => {
    await ensureTfjsWasm({ wasmPaths: options.wasmPaths, threads: options.threads });
    return loadFeatureModel(options.onProgress);
  });

  const ensureOpen = (): void => {
    if (disposed) throw new VmemError('CLOSED', 'This MobileNet image encoder was disposed; create a new one.');
  };

  return {
    id: `mobilenet-v2-1280@nsfwjs-4.4.0/${fit}`,
    dimension: MOBILENET_DIMENSION,
    captionOnly: false,
    async load() {
      ensureOpen();
      await loaded.get();
    },
    embed(images) {
      return queue.run(async () => {
        ensureOpen();
        if (images.length === 0) return [];
        // Decode everything first: a bad image fails the call before any model time is spent.
        const inputs: Float32Array[] = [];
        for (let index = 0; index < images.length; index++) {
          const pixels = await decodeOne(options.decoder, images[index]!, index);
          inputs.push(toModelInput(pixels, MOBILENET_INPUT_SIZE, fit));
        }
        const model = await loaded.get();
        const vectors: Float32Array[] = [];
        for (let start = 0; start < inputs.length; start += batchSize) {
          vectors.push(...(await runBatch(model, inputs.slice(start, start + batchSize))));
        }
        return vectors;
      });
    },
    dispose() {
      return queue.run(async () => {
        disposed = true;
        // The feature model shares the classifier's layers; disposing the classifier frees them all once.
        loaded.peek()?.full.dispose();
        loaded.reset();
      });
    },
  };
}

async function decodeOne(decoder: ImageDecoder, image: ImagePayload, index: number) {
  if (image.bytes === undefined || image.bytes.length === 0) {
    throw new VmemError(
      'IMAGE_DECODE_FAILED',
      `Image ${index} has no bytes. This encoder reads pixels; for caption-only images use createCaptionProxyImageEncoder.`,
    );
  }
  try {
    return await decoder(image.bytes, image.mimeType);
  } catch (cause) {
    const reason = isVmemError(cause) ? cause.message : String((cause as Error)?.message ?? cause);
    throw new VmemError('IMAGE_DECODE_FAILED', `Image ${index} could not be decoded: ${reason}.`, { cause });
  }
}

async function runBatch(model: FeatureModel, inputs: readonly Float32Array[]): Promise<Float32Array[]> {
  const pixels = new Float32Array(inputs.length * inputs[0]!.length);
  inputs.forEach((input, i) => pixels.set(input, i * input.length));
  const batch = tf.tensor4d(pixels, [inputs.length, MOBILENET_INPUT_SIZE, MOBILENET_INPUT_SIZE, 3]);
  let features: tf.Tensor | undefined;
  try {
    features = model.features.predict(batch) as tf.Tensor;
    const data = (await features.data()) as Float32Array;
    return normalizedRows(data, inputs.length, MOBILENET_DIMENSION);
  } finally {
    batch.dispose();
    features?.dispose();
  }
}

interface LayersModelJson {
  readonly modelTopology: tf.io.ModelArtifacts['modelTopology'];
  readonly weightsManifest: readonly { readonly paths: readonly string[]; readonly weights: readonly tf.io.WeightsManifestEntry[] }[];
}

interface FeatureModel {
  /** The classifier as shipped; owns the weights (dispose this one only). */
  readonly full: LayersModel;
  /** Input → pooled 1280-d features. */
  readonly features: LayersModel;
}

/** Loads nsfwjs's bundled MobileNetV2 and cuts it at the pooled features (no classifier head). */
async function loadFeatureModel(onProgress: ProgressCallback | undefined): Promise<FeatureModel> {
  const model = { task: 'model', item: PROGRESS_ITEM } as const;
  onProgress?.({ status: 'initiate', ...model });
  try {
    // The weights ship as JS modules inside nsfwjs: nothing is fetched from the network.
    const { MobileNetV2Model } = await import('nsfwjs/models/mobilenet_v2');
    onProgress?.({ status: 'progress', ...model, loaded: 0, total: 2, unit: 'files' });
    const modelJson = ((await MobileNetV2Model.modelJson()) as { default: LayersModelJson }).default;
    onProgress?.({ status: 'progress', ...model, loaded: 1, total: 2, unit: 'files' });
    const weightsBase64 = ((await MobileNetV2Model.weightBundles[0]!()) as { default: string }).default;
    onProgress?.({ status: 'progress', ...model, loaded: 2, total: 2, unit: 'files' });
    onProgress?.({ status: 'done', ...model });
    const full = await loadLayersModel(
      tf.io.fromMemory({
        modelTopology: modelJson.modelTopology,
        weightSpecs: modelJson.weightsManifest.flatMap((group) => group.weights),
        weightData: base64ToBytes(weightsBase64).buffer as ArrayBuffer,
      }),
    );
    const features = functionalModel({ inputs: full.inputs, outputs: full.getLayer(FEATURE_LAYER).output });
    onProgress?.({ status: 'ready', ...model });
    return { full, features };
  } catch (cause) {
    if (isVmemError(cause)) throw cause;
    throw new VmemError(
      'MODEL_LOAD_FAILED',
      `Could not load MobileNetV2 from nsfwjs (nsfwjs/models/mobilenet_v2 and its group1-shard1of1.min.js): ${String((cause as Error)?.message ?? cause)}. Check that nsfwjs@4 is installed and bundled.`,
      { cause },
    );
  }
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
