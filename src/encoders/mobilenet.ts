import { createModelHandle } from './model-handle.js';
import { VmemError, isVmemError } from '../errors.js';
import { defaultFetch } from './assets.js';
import type { FetchAsset } from './assets.js';
import { toModelInput } from './image-preprocess.js';
import type { ImageFit } from './image-preprocess.js';
import { CONVERTER_VERSIONS, MOBILENET_ONNX } from './model-formats.js';
import { loadModelSession, runForFloats } from './ort-runtime.js';
import type { OnnxModelSource, OrtRuntime, OrtSession, OrtSessionOptions } from './ort-runtime.js';
import type { ImageDecoder, ImageEmbedder, ImagePayload } from './types.js';
import type { ProgressCallback } from '../progress.js';
import { positiveInteger } from './use-lite.js';
import { normalizedRows } from './vectors.js';

/** Length of the feature vector (MobileNetV2's pooled `flatten_1` layer). */
export const MOBILENET_DIMENSION = 1280;
/** Side of the model's square input. */
export const MOBILENET_INPUT_SIZE = 224;
/** `item` of this encoder's progress events (`task: 'model'`). */
const PROGRESS_ITEM = 'mobilenet-v2';

/** Options of `createMobileNetImageEncoder`. */
export interface MobileNetImageEncoderOptions {
  /**
   * The onnxruntime module to run on: `onnxruntime-web` in browsers and workers, `onnxruntime-node`
   * in Node (what `createNodeEmbeddedEncoders` passes).
   * @example await import('onnxruntime-web')
   */
  readonly runtime: OrtRuntime;
  /**
   * The converted model (`mobilenet-v2.onnx`, written by `scripts/convert-models.ts`), read with
   * `fetch`; or a function that returns its bytes (Node converts in memory).
   * @example '/models/mobilenet-v2.onnx'
   */
  readonly model: OnnxModelSource;
  /** Reads the model file. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Turns file bytes into pixels: `decodeImageNode` in Node, `createBrowserImageDecoder()` in browsers. */
  readonly decoder: ImageDecoder;
  /** Execution providers and threads. @default onnxruntime's defaults */
  readonly sessionOptions?: OrtSessionOptions;
  /**
   * How non-square images become the square input. `squash` keeps everything in view, which finds the
   * same scene from another viewpoint best on the fixture photos. Changes the encoder `id`.
   * @default 'squash'
   */
  readonly fit?: ImageFit;
  /** Images per model call. @default 8 */
  readonly batchSize?: number;
  /** Model download progress (`task: 'model'`, `item: 'mobilenet-v2'`, `unit: 'bytes'` of the model file). */
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
 * Image features from MobileNetV2 (the backbone bundled in `nsfwjs`, converted to ONNX): the 1280-d
 * pooled layer, L2-normalised. Finds the same photo after crops, flips and re-exposure, and the
 * same scene from a nearby viewpoint; it has no text tower, so text→image goes through captions.
 * @example
 * const image = createMobileNetImageEncoder({ runtime, model: '/models/mobilenet-v2.onnx', decoder: createBrowserImageDecoder() });
 * const [v] = await image.embed([{ bytes: jpegBytes, mimeType: 'image/jpeg' }]); // Float32Array(1280)
 */
export function createMobileNetImageEncoder(options: MobileNetImageEncoderOptions): LoadableImageEmbedder {
  const fit = options.fit ?? 'squash';
  const batchSize = positiveInteger(options.batchSize, 8, 'batchSize');
  const fetchAsset = options.fetch ?? defaultFetch();
  const model = createModelHandle(
    (): Promise<OrtSession> => loadModelSession({ ...options, fetch: fetchAsset }, PROGRESS_ITEM, 'MobileNetV2'),
    'MobileNet image encoder',
    (session) => session.release(),
  );

  return {
    id: `mobilenet-v2-1280@nsfwjs-4.4.0/${fit}/${CONVERTER_VERSIONS.mobileNet}`,
    dimension: MOBILENET_DIMENSION,
    captionOnly: false,
    load: model.load,
    embed(images) {
      return model.run(async (loadedSession) => {
        if (images.length === 0) return [];
        // Decode everything first: a bad image fails the call before any model time is spent.
        const inputs: Float32Array[] = [];
        for (let index = 0; index < images.length; index++) {
          const pixels = await decodeOne(options.decoder, images[index]!, index);
          inputs.push(toModelInput(pixels, MOBILENET_INPUT_SIZE, fit));
        }
        const session = await loadedSession();
        const vectors: Float32Array[] = [];
        for (let start = 0; start < inputs.length; start += batchSize) {
          vectors.push(...(await runBatch(options.runtime, session, inputs.slice(start, start + batchSize))));
        }
        return vectors;
      });
    },
    dispose: model.dispose,
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

async function runBatch(runtime: OrtRuntime, session: OrtSession, inputs: readonly Float32Array[]): Promise<Float32Array[]> {
  const pixels = new Float32Array(inputs.length * inputs[0]!.length);
  inputs.forEach((input, i) => pixels.set(input, i * input.length));
  const feeds = { [MOBILENET_ONNX.input]: new runtime.Tensor('float32', pixels, [inputs.length, MOBILENET_INPUT_SIZE, MOBILENET_INPUT_SIZE, 3]) };
  const data = await runForFloats(session, feeds, MOBILENET_ONNX.output);
  return normalizedRows(data, inputs.length, MOBILENET_DIMENSION);
}
