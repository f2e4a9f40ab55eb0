import { VmemError } from '../errors.js';
import type { FetchAsset } from './assets.js';
import { createCaptionProxyImageEncoder } from './caption-proxy.js';
import type { ImageFit } from './image-preprocess.js';
import { createMobileNetImageEncoder } from './mobilenet.js';
import type { WasmPaths } from './tfjs-runtime.js';
import type { ImageDecoder, ImageEmbedder } from './types.js';
import type { ProgressCallback } from '../progress.js';
import { createUseLiteTextEncoder } from './use-lite.js';
import type { LoadableTextEmbedder } from './use-lite.js';

/** Which image encoder goes with the embedded text encoder. */
export type EmbeddedImageMode = 'mobilenet' | 'caption-proxy' | 'none';

/** Options of `createEmbeddedEncoders`. */
export interface EmbeddedEncodersOptions {
  /** Where the TF.js WASM binaries are; one backend start serves both encoders. */
  readonly wasmPaths: WasmPaths;
  /** WASM threads (cross-origin-isolated pages only). @default TF.js's choice */
  readonly threads?: number;
  /** USE-Lite's `model.json` address. @example '/models/use-lite/model.json' */
  readonly modelUrl: string;
  /** @default `vocab.json` next to `modelUrl` */
  readonly vocabUrl?: string;
  /** Reads model files. @default the platform `fetch` */
  readonly fetch?: FetchAsset;
  /** As in `createUseLiteTextEncoder`. @default 128 */
  readonly maxTokens?: number;
  /** As in `createUseLiteTextEncoder`. @default 2048 */
  readonly batchTokens?: number;
  /**
   * `mobilenet` embeds pixels (needs `decoder`), `caption-proxy` embeds captions with the text encoder,
   * `none` leaves the image lane empty.
   * @default 'mobilenet'
   */
  readonly image?: EmbeddedImageMode;
  /** Pixel decoder for `mobilenet`: `createBrowserImageDecoder()` or (Node) `decodeImageNode`. */
  readonly decoder?: ImageDecoder;
  /** As in `createMobileNetImageEncoder`. @default 'squash' */
  readonly fit?: ImageFit;
  /** Loading progress of both models (tasks `use-lite-512` and `mobilenet-v2`). */
  readonly onProgress?: ProgressCallback;
}

/** The encoders a memory needs, built over one TF.js runtime. */
export interface EmbeddedEncoders {
  readonly text: LoadableTextEmbedder;
  /** Undefined under `image: 'none'`. */
  readonly image?: ImageEmbedder;
}

/**
 * The offline encoders (USE-Lite text + MobileNetV2 or caption-proxy images) sharing one TF.js WASM
 * backend. Nothing loads until first use (or `text.load()`).
 * @example
 * const { text, image } = createEmbeddedEncoders({
 *   wasmPaths: '/tfjs-wasm/', modelUrl: '/models/use-lite/model.json', decoder: createBrowserImageDecoder(),
 * });
 * const memory = await createMemory({ textEncoder: text, imageEncoder: image });
 */
export function createEmbeddedEncoders(options: EmbeddedEncodersOptions): EmbeddedEncoders {
  const mode = options.image ?? 'mobilenet';
  const text = createUseLiteTextEncoder({
    modelUrl: options.modelUrl,
    vocabUrl: options.vocabUrl,
    fetch: options.fetch,
    wasmPaths: options.wasmPaths,
    threads: options.threads,
    maxTokens: options.maxTokens,
    batchTokens: options.batchTokens,
    onProgress: options.onProgress,
  });
  return { text, image: imageEncoderFor(mode, text, options) };
}

/** The image encoder for `mode` (shared by the browser and Node conveniences). */
export function imageEncoderFor(
  mode: EmbeddedImageMode,
  text: LoadableTextEmbedder,
  options: { readonly wasmPaths: WasmPaths; readonly threads?: number; readonly decoder?: ImageDecoder; readonly fit?: ImageFit; readonly onProgress?: ProgressCallback },
): ImageEmbedder | undefined {
  if (mode === 'none') return undefined;
  if (mode === 'caption-proxy') return createCaptionProxyImageEncoder(text);
  if (options.decoder === undefined) {
    throw new VmemError('INVALID_INPUT', "image: 'mobilenet' needs a decoder (createBrowserImageDecoder() in browsers, decodeImageNode in Node).");
  }
  return createMobileNetImageEncoder({ decoder: options.decoder, wasmPaths: options.wasmPaths, threads: options.threads, fit: options.fit, onProgress: options.onProgress });
}
