/**
 * The worker's encoder factory. `embedded`: USE-Lite text + MobileNetV2 image on TF.js, every file
 * served from the app's own origin. `hub`: MiniLM + SigLIP through transformers.js, downloaded
 * from the Hugging Face hub on first use (about 100 MB) and run on WebGPU or WASM.
 */
import { env } from '@tensorflow/tfjs-core';
import { createBrowserImageDecoder } from '../encoders/browser-decoder.js';
import { createMobileNetImageEncoder } from '../encoders/mobilenet.js';
import { createUseLiteTextEncoder } from '../encoders/use-lite.js';
import type { ProgressCallback } from '../encoders/types.js';
import type { EncoderFactory, HostedEncoders } from './host.js';
import type { EncoderWorkerConfig } from './protocol.js';
import { moveToWebGpu } from './webgpu.js';

/** Folder layout under `assetBase`, as `scripts/copy-assets.ts` writes it. */
export function assetUrls(assetBase: string) {
  const models = new URL('models/', assetBase).href;
  return {
    useLiteModel: `${models}use-lite/model.json`,
    useLiteVocab: `${models}use-lite/vocab.json`,
    wasmFolder: `${models}wasm/`,
  };
}

/** Loads the encoders named by the config, waiting until their weights are in memory. */
export const loadEncoders: EncoderFactory = (config, onProgress) =>
  config.encoders === 'hub' ? loadHubEncoders(config, onProgress) : loadEmbeddedEncoders(config, onProgress);

async function loadEmbeddedEncoders(config: EncoderWorkerConfig, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  const urls = assetUrls(config.assetBase);
  // TF.js's threaded WASM spawns pthread workers from a blob that re-imports the bundled script;
  // inside a bundled module worker that script is not importable, so those workers crash. Use the
  // single-threaded SIMD build everywhere (it is also what non-isolated pages get).
  env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  const progress = onProgress ? { onProgress } : {};
  const text = createUseLiteTextEncoder({ modelUrl: urls.useLiteModel, vocabUrl: urls.useLiteVocab, wasmPaths: urls.wasmFolder, ...progress });
  const image = createMobileNetImageEncoder({ decoder: createBrowserImageDecoder(), wasmPaths: urls.wasmFolder, ...progress });
  // One after the other: both start the same TF.js WASM runtime, and the cores are shared with the page.
  await text.load();
  await image.load();
  const encoders: HostedEncoders = { text, image, backend: 'wasm' };
  return config.backend === 'webgpu' ? moveToWebGpu(encoders) : encoders;
}

async function loadHubEncoders(config: EncoderWorkerConfig, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  // Loaded on demand: transformers.js and onnxruntime-web stay out of the embedded path.
  const { createHubImageEncoder, createHubTextEncoder } = await import('../encoders/hub.js');
  const common = { device: config.backend, threads: config.threads, ...(onProgress ? { onProgress } : {}) } as const;
  const text = await createHubTextEncoder({ ...common, dtype: 'q8' });
  const image = await createHubImageEncoder({ ...common, dtype: 'q8', decoder: createBrowserImageDecoder() });
  return { text, image, backend: config.backend };
}
