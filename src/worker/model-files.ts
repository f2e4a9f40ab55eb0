/**
 * The embedded encoders' files, each named by one literal `new URL('…', import.meta.url)`.
 *
 * A bundler (Vite, webpack 5, Parcel) sees every literal, copies that file into the app's output
 * under a name of its choosing and rewrites the URL, so an app that imports `vmem/browser` serves
 * the models with no set-up. The package's own build does this once (`scripts/build-lib.ts`): the
 * published worker names files beside it (`models/…`), which a second bundler renames again, or
 * which a `baseUrl` folder serves as they are. The two models are the ONNX files
 * `scripts/convert-models.ts` writes into `models/` (a build output, not in git). onnxruntime-web's
 * `.wasm` files are named here too (its package exports no path to them, hence node_modules): told
 * where its binary is, onnxruntime-web runs the script it was bundled with even from another origin
 * (a `baseUrl` on a CDN), instead of fetching a loader script beside the binary.
 */
/** Where each embedded model file is served from. */
export interface EmbeddedModelFiles {
  /** USE-Lite, int8 (`use-lite-int8.onnx`). */
  readonly useLiteModel: string;
  readonly useLiteVocab: string;
  /** MobileNetV2 up to its pooled features (`mobilenet-v2.onnx`). */
  readonly mobileNetModel: string;
  /** GloVe word vectors, 4-bit (`glove-20k-int4.bin`), read by the page's similar-words signal. */
  readonly wordVectors: string;
  /**
   * onnxruntime-web's WASM-only binary. The full build's (WebGPU, and the hub encoders) is not shipped:
   * the page passes its address (`webgpuWasm`), and it is fetched only when one of those runs.
   */
  readonly ortWasm: string;
}

/** The served address of every embedded model file. */
export function embeddedModelFiles(): EmbeddedModelFiles {
  // One literal per file: a bundler only follows `new URL` with a string literal.
  return {
    useLiteModel: new URL('../../models/use-lite-int8.onnx', import.meta.url).href,
    useLiteVocab: new URL('../../models/use-lite-vocab.json', import.meta.url).href,
    mobileNetModel: new URL('../../models/mobilenet-v2.onnx', import.meta.url).href,
    wordVectors: new URL('../../models/glove-20k-int4.bin', import.meta.url).href,
    ortWasm: new URL('../../node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm', import.meta.url).href,
  };
}
