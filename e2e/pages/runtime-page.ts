/**
 * The page `e2e/runtime-equivalence.spec.ts` and `scripts/bench-runtimes.ts` drive: the embedded
 * encoders on onnxruntime-web, on WASM (USE-Lite fp32 or int8) or WebGPU (fp32), fed the same texts
 * and photos. Exposed on `window.runtimePage`; the files it reads are routed by the caller (see
 * `runtime-page-host.ts`). `?threads=N` sets the WASM threads.
 */
import { createBrowserImageDecoder } from '../../src/encoders/browser-decoder.js';
import { createMobileNetImageEncoder } from '../../src/encoders/mobilenet.js';
import type { LoadableImageEmbedder } from '../../src/encoders/mobilenet.js';
import type { ImageDecoder } from '../../src/encoders/types.js';
import { createUseLiteTextEncoder } from '../../src/encoders/use-lite.js';
import type { LoadableTextEmbedder } from '../../src/encoders/use-lite.js';

/** Execution provider and USE-Lite precision. */
export type PageRuntime = 'wasm-fp32' | 'wasm-int8' | 'webgpu-fp32';

export interface RuntimePage {
  /** Loads both encoders on `runtime`; resolves with the milliseconds it took. */
  load(runtime: PageRuntime): Promise<number>;
  embedTexts(runtime: PageRuntime, texts: readonly string[]): Promise<number[][]>;
  /**
   * Vectors of fixture photos. `pixels: 'node'` takes the pixels Node's decoder made (served under
   * `/decoded/`), so a comparison with Node-side vectors compares the models, not two JPEG decoders.
   */
  embedPhotos(runtime: PageRuntime, names: readonly string[], pixels?: 'browser' | 'node'): Promise<number[][]>;
  /** Milliseconds to embed `texts` in calls of `batchSize`. */
  timeTexts(runtime: PageRuntime, texts: readonly string[], batchSize: number): Promise<number>;
  /** Milliseconds to embed the photos in calls of `batchSize` (decoding included, as in the app). */
  timePhotos(runtime: PageRuntime, names: readonly string[], batchSize: number): Promise<number>;
}

declare global {
  interface Window {
    runtimePage: RuntimePage;
  }
}

const threads = Number(new URLSearchParams(location.search).get('threads') ?? 1);
// Imported dynamically: threaded onnxruntime-web starts its threads from the module it lives in, and
// that module must not be this page's (which touches `window`).
const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = threads;
ort.env.wasm.wasmPaths = '/ort/';

const loaded = new Map<PageRuntime, { text: LoadableTextEmbedder; image: LoadableImageEmbedder; nodePixels: LoadableImageEmbedder }>();
const photos = new Map<string, Uint8Array>();

function encoders(runtime: PageRuntime) {
  const found = loaded.get(runtime);
  if (found === undefined) throw new Error(`load('${runtime}') first`);
  return found;
}

async function photoBytes(name: string): Promise<Uint8Array> {
  let bytes = photos.get(name);
  if (bytes === undefined) {
    bytes = new Uint8Array(await (await fetch(`/photos/${name}`)).arrayBuffer());
    photos.set(name, bytes);
  }
  return bytes;
}

const asPhotos = (names: readonly string[]) => Promise.all(names.map(async (name) => ({ bytes: await photoBytes(name), mimeType: 'image/jpeg' })));

/** Pixels Node decoded: `/decoded/<photo>` holds width and height (uint32 LE), then RGBA. */
const nodeDecoded: ImageDecoder = async (bytes) => {
  const name = [...photos].find(([, stored]) => stored === bytes)?.[0];
  const raw = new Uint8Array(await (await fetch(`/decoded/${name}`)).arrayBuffer());
  const size = new DataView(raw.buffer);
  return { width: size.getUint32(0, true), height: size.getUint32(4, true), data: raw.subarray(8) };
};

function create(runtime: PageRuntime) {
  const [provider, precision] = runtime.split('-') as ['wasm' | 'webgpu', 'fp32' | 'int8'];
  const sessionOptions = { executionProviders: [provider] };
  const image = (decoder: ImageDecoder) => createMobileNetImageEncoder({ runtime: ort, model: '/models/mobilenet-v2.onnx', decoder, sessionOptions });
  return {
    text: createUseLiteTextEncoder({ runtime: ort, model: `/models/use-lite-${precision}.onnx`, precision, vocabUrl: '/models/use-lite/vocab.json', sessionOptions }),
    image: image(createBrowserImageDecoder()),
    nodePixels: image(nodeDecoded),
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function inCalls<T>(items: readonly T[], batchSize: number, embed: (batch: readonly T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += batchSize) await embed(items.slice(start, start + batchSize));
}

window.runtimePage = {
  load: (runtime) =>
    timed(async () => {
      const created = create(runtime);
      await Promise.all([created.text.load(), created.image.load(), created.nodePixels.load()]);
      loaded.set(runtime, created);
    }),
  embedTexts: async (runtime, texts) => (await encoders(runtime).text.embed(texts)).map((vector) => Array.from(vector)),
  embedPhotos: async (runtime, names, pixels = 'browser') => {
    const { image, nodePixels } = encoders(runtime);
    return (await (pixels === 'node' ? nodePixels : image).embed(await asPhotos(names))).map((vector) => Array.from(vector));
  },
  timeTexts: (runtime, texts, batchSize) => timed(() => inCalls(texts, batchSize, (batch) => encoders(runtime).text.embed(batch))),
  timePhotos: async (runtime, names, batchSize) => {
    const images = await asPhotos(names);
    return timed(() => inCalls(images, batchSize, (batch) => encoders(runtime).image.embed(batch)));
  },
};
