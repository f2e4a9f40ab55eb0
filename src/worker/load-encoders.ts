/**
 * The worker's encoder factory. `embedded`: USE-Lite text + MobileNetV2 image on TF.js, every file
 * served beside the worker (see model-files.ts). `hub`: MiniLM + SigLIP through transformers.js, downloaded
 * from the Hugging Face hub on first use (about 100 MB) and run on WebGPU or WASM.
 */
import { env } from '@tensorflow/tfjs-core';
import { createCenterNetDetector } from '../describe/centernet.js';
import { createImageDescriber } from '../describe/describer.js';
import { createTesseractTextReader } from '../describe/tesseract.js';
import type { ImageDescriber } from '../describe/types.js';
import { siblingOf } from '../encoders/assets.js';
import { createBrowserImageDecoder } from '../encoders/browser-decoder.js';
import { createMobileNetImageEncoder } from '../encoders/mobilenet.js';
import { createUseLiteTextEncoder } from '../encoders/use-lite.js';
import type { ProgressCallback } from '../progress.js';
import type { WasmPaths } from '../encoders/tfjs-runtime.js';
import { describerFiles } from './describer-files.js';
import type { EncoderFactory, HostedEncoders } from './host.js';
import { embeddedModelFiles } from './model-files.js';
import type { EncoderWorkerConfig } from './protocol.js';
import { canUseWasmThreads, patchThreadedFactorySource } from './tfjs-threads.js';
import { moveToWebGpu } from './webgpu.js';

/** Encoded once after loading, so the user's first query does not pay the graph's first run. */
const WARM_UP_TEXT = 'warm up';

/**
 * Where the embedded encoders read their files: wherever the bundler put them (see model-files.ts).
 * USE-Lite asks for each weight shard next to `model.json`; `fetch` sends it to where the shard
 * really is, since a bundler renames every file on its own.
 */
export function assetUrls() {
  const files = embeddedModelFiles();
  const shardAt = new Map([...files.useLiteShards].map(([name, url]) => [siblingOf(files.useLiteModel, name), url]));
  return {
    useLiteModel: files.useLiteModel,
    useLiteVocab: files.useLiteVocab,
    wasmPaths: files.wasm,
    fetch: (url: string) => fetch(shardAt.get(url) ?? url),
  };
}

/** Longest side the describer decodes pictures at: enough for screen text, bounded for OCR time. */
const DESCRIBER_DECODE_SIDE = 1600;
/** A WASM module that uses a SIMD instruction: it validates only where WASM SIMD runs. */
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

/**
 * The offline describer over the bundled files. Nothing loads until the first picture: the detector
 * starts TF.js (shared with the encoders) and the OCR starts its own worker then.
 */
function offlineDescriber(config: EncoderWorkerConfig, wasmPaths: WasmPaths, threads: number, onProgress?: ProgressCallback): ImageDescriber | undefined {
  if (config.describer === 'none') return undefined;
  const files = describerFiles();
  const weights = siblingOf(files.centerNetModel, 'centernet.bin');
  const progress = onProgress ? { onProgress } : {};
  return createImageDescriber({
    decoder: createBrowserImageDecoder({ maxSide: DESCRIBER_DECODE_SIDE }),
    detector: createCenterNetDetector({
      modelUrl: files.centerNetModel,
      // centernet.json names its weights centernet.bin; the bundler may have named them otherwise.
      fetch: (url) => fetch(url === weights ? files.centerNetWeights : url),
      wasmPaths,
      threads,
      ...progress,
    }),
    textReader: createTesseractTextReader({
      languageFileUrl: files.tesseractEnglish,
      workerPath: files.tesseractWorker,
      corePath: WebAssembly.validate(SIMD_PROBE) ? files.tesseractCoreSimd : files.tesseractCore,
      ...progress,
    }),
  });
}

/** Loads the encoders named by the config, waiting until their weights are in memory. */
export const loadEncoders: EncoderFactory = (config, onProgress) =>
  config.encoders === 'hub' ? loadHubEncoders(config, onProgress) : loadEmbeddedEncoders(config, onProgress);

async function loadEmbeddedEncoders(config: EncoderWorkerConfig, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  const urls = assetUrls();
  const threads = wasmThreads(config.threads);
  // Without isolation (or with one thread asked for) TF.js must not even try its threaded binary.
  if (threads === 1) env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  const progress = onProgress ? { onProgress } : {};
  const text = createUseLiteTextEncoder({ modelUrl: urls.useLiteModel, vocabUrl: urls.useLiteVocab, fetch: urls.fetch, wasmPaths: urls.wasmPaths, threads, ...progress });
  const image = createMobileNetImageEncoder({ decoder: createBrowserImageDecoder(), wasmPaths: urls.wasmPaths, threads, ...progress });
  // Side by side: one model's files arrive while the other's graph is built (the WASM runtime is
  // started once and shared).
  await Promise.all([text.load(), image.load()]);
  const describer = offlineDescriber(config, urls.wasmPaths, threads, onProgress);
  const encoders: HostedEncoders = { text, image, ...(describer ? { describer } : {}), backend: 'wasm' };
  if (config.backend === 'webgpu') return moveToWebGpu(encoders);
  // The first run of the text graph costs several times a later one; pay it before the first query.
  return { ...encoders, warmUp: async () => void (await text.embed([WARM_UP_TEXT])) };
}

/**
 * WASM threads for the embedded encoders: what the page asked for, when this worker is cross-origin
 * isolated and TF.js's pthread script could be fixed up; 1 otherwise.
 */
function wasmThreads(asked: number): number {
  if (asked <= 1 || !canUseWasmThreads()) return 1;
  return patchThreadedFactorySource() ? asked : 1;
}

async function loadHubEncoders(config: EncoderWorkerConfig, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  // Loaded on demand: transformers.js and onnxruntime-web stay out of the embedded path.
  const { createHubImageEncoder, createHubTextEncoder } = await import('../encoders/hub.js');
  const common = { device: config.backend, threads: config.threads, ...(onProgress ? { onProgress } : {}) } as const;
  const text = await createHubTextEncoder({ ...common, dtype: 'q8' });
  const image = await createHubImageEncoder({ ...common, dtype: 'q8', decoder: createBrowserImageDecoder() });
  // The describer's detector is the only TF.js model here: one thread spares it the threaded binary's set-up.
  env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  const describer = offlineDescriber(config, assetUrls().wasmPaths, 1, onProgress);
  return { text, image, ...(describer ? { describer } : {}), backend: config.backend };
}
