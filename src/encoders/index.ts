/**
 * Encoders: the swappable parts that turn text and images into vectors. Browser-safe (no Node imports);
 * Node users import `./node.js`, which re-exports all of this plus the Node runtime, file loading and
 * decoding.
 */
export type { ImageDecoder, ImageEmbedder, ImagePayload, RgbaImage, TextEmbedder } from './types.js';
export type { AssetResponse, FetchAsset } from './assets.js';
export type { OnnxModelSource, OrtRuntime, OrtSession, OrtSessionOptions, OrtTensor, OrtElementType } from './ort-runtime.js';
export type { ModelPrecision } from './model-formats.js';
export type { ImageFit } from './image-preprocess.js';
export type { ImageFormat } from '../images/image-format.js';
export type { LoadableTextEmbedder, UseLiteTextEncoderOptions } from './use-lite.js';
export type { LoadableImageEmbedder, MobileNetImageEncoderOptions } from './mobilenet.js';
export type { BrowserDecoderOptions } from './browser-decoder.js';
export type { EmbeddedEncoders, EmbeddedEncodersOptions, EmbeddedImageMode } from './embedded.js';

export { createUseLiteTextEncoder, USE_LITE_DIMENSION, USE_LITE_MAX_TOKENS } from './use-lite.js';
export { createMobileNetImageEncoder, MOBILENET_DIMENSION } from './mobilenet.js';
export { createCaptionProxyImageEncoder } from './caption-proxy.js';
export { createBrowserImageDecoder } from './browser-decoder.js';
export { createEmbeddedEncoders } from './embedded.js';
export { MODEL_FILES } from './model-formats.js';
export { sniffImageFormat } from '../images/image-format.js';
