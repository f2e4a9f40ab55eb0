import { VmemError } from '../errors.js';
import type { FetchAsset } from './assets.js';
import { createCaptionProxyImageEncoder } from './caption-proxy.js';
import type { ImageFit } from './image-preprocess.js';
import { createMobileNetImageEncoder } from './mobilenet.js';
import type { ModelPrecision } from './model-formats.js';
import type { OnnxModelSource, OrtRuntime, OrtSessionOptions } from './ort-runtime.js';
import type { ImageDecoder, ImageEmbedder } from './types.js';
import type { ProgressCallback } from '../progress.js';
import { createUseLiteTextEncoder } from './use-lite.js';
import type { LoadableTextEmbedder } from './use-lite.js';

/** Which image encoder goes with the embedded text encoder. */
export type EmbeddedImageMode = 'mobilenet' | 'caption-proxy' | 'none';

/** Options of `createEmbeddedEncoders`. */
export interface EmbeddedEncodersOptions {
  /**
   * The onnxruntime module both encoders run on (one runtime, set up once by the caller).
   * @example await import('onnxruntime-web')
   */
  readonly runtime: OrtRuntime;
  /** USE-Lite's converted model. @example '/models/use-lite-int8.onnx' */
  readonly textModel: OnnxModelSource;
  /** As in `createUseLiteTextEncoder`. @default 'int8' */
  readonly precision?: ModelPrecision;
  /** @default `vocab.json` next to `textModel` */
  readonly vocabUrl?: string;
  /** MobileNetV2's converted model, for `image: 'mobilenet'`. @example '/models/mobilenet-v2.onnx' */
  readonly imageModel?: OnnxModelSource;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** Execution providers and threads of both sessions. @default onnxruntime's defaults */
  readonly sessionOptions?: OrtSessionOptions;
  /** As in `createUseLiteTextEncoder`. @default 1 */
  readonly concurrency?: number;
  /** As in `createUseLiteTextEncoder`. @default 128 */
  readonly maxTokens?: number;
  /** As in `createUseLiteTextEncoder`. @default 2048 */
  readonly batchTokens?: number;
  /**
   * `mobilenet` embeds pixels (needs `imageModel` and `decoder`), `caption-proxy` embeds captions
   * with the text encoder, `none` leaves the image lane empty.
   * @default 'mobilenet'
   */
  readonly image?: EmbeddedImageMode;
  /** Pixel decoder for `mobilenet`: `createBrowserImageDecoder()` or (Node) `decodeImageNode`. */
  readonly decoder?: ImageDecoder;
  /** As in `createMobileNetImageEncoder`. @default 'squash' */
  readonly fit?: ImageFit;
  /** Loading progress of both models (items `use-lite-512` and `mobilenet-v2`). */
  readonly onProgress?: ProgressCallback;
}

/** The encoders a memory needs, on one onnxruntime. */
export interface EmbeddedEncoders {
  readonly text: LoadableTextEmbedder;
  /** Undefined under `image: 'none'`. */
  readonly image?: ImageEmbedder;
}

/**
 * The offline encoders (USE-Lite text + MobileNetV2 or caption-proxy images) on one onnxruntime.
 * Nothing loads until first use (or `text.load()`). vmem never changes the runtime's global
 * settings (`env`): set threads and file locations before calling, or pass `sessionOptions`.
 * @example
 * const { text, image } = createEmbeddedEncoders({
 *   runtime: await import('onnxruntime-web'),
 *   textModel: '/models/use-lite-int8.onnx',
 *   imageModel: '/models/mobilenet-v2.onnx',
 *   decoder: createBrowserImageDecoder(),
 * });
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image });
 */
export function createEmbeddedEncoders(options: EmbeddedEncodersOptions): EmbeddedEncoders {
  const text = createUseLiteTextEncoder({
    runtime: options.runtime,
    model: options.textModel,
    precision: options.precision,
    vocabUrl: options.vocabUrl,
    fetch: options.fetch,
    sessionOptions: options.sessionOptions,
    concurrency: options.concurrency,
    maxTokens: options.maxTokens,
    batchTokens: options.batchTokens,
    onProgress: options.onProgress,
  });
  return { text, image: imageEncoderFor(options.image ?? 'mobilenet', text, options) };
}

/** The image encoder for `mode` (shared by the browser and Node conveniences). */
export function imageEncoderFor(
  mode: EmbeddedImageMode,
  text: LoadableTextEmbedder,
  options: Pick<EmbeddedEncodersOptions, 'runtime' | 'imageModel' | 'decoder' | 'fit' | 'fetch' | 'sessionOptions' | 'onProgress'>,
): ImageEmbedder | undefined {
  if (mode === 'none') return undefined;
  if (mode === 'caption-proxy') return createCaptionProxyImageEncoder(text);
  if (options.decoder === undefined || options.imageModel === undefined) {
    throw new VmemError('INVALID_INPUT', "image: 'mobilenet' needs imageModel and a decoder (createBrowserImageDecoder() in browsers, decodeImageNode in Node).");
  }
  return createMobileNetImageEncoder({
    runtime: options.runtime,
    model: options.imageModel,
    decoder: options.decoder,
    fit: options.fit,
    fetch: options.fetch,
    sessionOptions: options.sessionOptions,
    onProgress: options.onProgress,
  });
}
