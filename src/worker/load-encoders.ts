/**
 * The worker's encoder factory. `embedded`: USE-Lite text + MobileNetV2 image converted to ONNX, on
 * onnxruntime-web (WASM, or WebGPU after a check against WASM), every file served beside the worker
 * (see model-files.ts). `hub`: MiniLM + SigLIP through transformers.js (on the same
 * onnxruntime-web), downloaded from the Hugging Face hub on first use (about 100 MB).
 *
 * Each model is fetched when first needed: on WASM the text model loads with the worker, the picture
 * model on the first picture embedded, the describer's models on the first picture described (OCR
 * only for a picture that looks like it holds text). onnxruntime-web's full build (WebGPU, hub) is
 * fetched only when one of those runs.
 */
import { createCenterNetDetector } from '../describe/centernet.js';
import { createImageDescriber } from '../describe/describer.js';
import { createTesseractTextReader } from '../describe/tesseract.js';
import type { ImageDescriber } from '../describe/types.js';
import { createBrowserImageDecoder } from '../encoders/browser-decoder.js';
import { createMobileNetImageEncoder } from '../encoders/mobilenet.js';
import type { FetchAsset } from '../encoders/assets.js';
import type { OrtRuntime } from '../encoders/ort-runtime.js';
import { createUseLiteTextEncoder } from '../encoders/use-lite.js';
import { VmemError } from '../errors.js';
import type { ProgressCallback } from '../progress.js';
import { describerFiles } from './describer-files.js';
import type { EncoderFactory, HostedEncoders } from './host.js';
import { embeddedModelFiles } from './model-files.js';
import type { EncoderWorkerConfig } from './protocol.js';
import { moveToWebGpu } from './webgpu.js';
import type { LoadableEncoders } from './webgpu.js';

/** Encoded once after loading, so the user's first query does not pay the graph's first run. */
const WARM_UP_TEXT = 'warm up';

/** Longest side the describer decodes pictures at: enough for screen text, bounded for OCR time. */
const DESCRIBER_DECODE_SIDE = 1600;

/**
 * The offline describer over the bundled files. Nothing loads until the first picture: the detector
 * then starts its session on `runtime`'s WASM provider (whatever the encoders run on: CenterNet is
 * not checked against WebGPU), and the OCR starts its own worker.
 */
function offlineDescriber(config: EncoderWorkerConfig, runtime: OrtRuntime, fetch: FetchAsset, onProgress?: ProgressCallback): ImageDescriber | undefined {
  if (config.describer === 'none') return undefined;
  const files = describerFiles();
  const progress = onProgress ? { onProgress } : {};
  return createImageDescriber({
    decoder: createBrowserImageDecoder({ maxSide: DESCRIBER_DECODE_SIDE }),
    detector: createCenterNetDetector({ runtime, model: files.centerNetModel, fetch, sessionOptions: { executionProviders: ['wasm'] }, ...progress }),
    textReader: createTesseractTextReader({ languageFileUrl: files.tesseractEnglish, workerPath: files.tesseractWorker, corePath: files.tesseractCore, ...progress }),
  });
}

/**
 * The factory that loads the encoders named by the config, waiting until their weights are in memory;
 * every model file comes through `fetch`.
 */
export function createEmbeddedEncoderFactory(fetch: FetchAsset): EncoderFactory {
  return (config, onProgress) => (config.encoders === 'hub' ? loadHubEncoders(config, fetch, onProgress) : loadEmbeddedEncoders(config, fetch, onProgress));
}

async function loadEmbeddedEncoders(config: EncoderWorkerConfig, fetch: FetchAsset, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  const webgpu = config.backend === 'webgpu';
  const runtime = await onnxRuntime(config, webgpu);
  const describer = offlineDescriber(config, runtime, fetch, onProgress);
  const withDescriber = describer ? { describer } : {};
  if (webgpu) {
    // The probe compares both encoders, so both load first (side by side).
    const wasm = embeddedEncoders(runtime, fetch, ['wasm'], onProgress, onProgress);
    await Promise.all([wasm.text.load(), wasm.image?.load()]);
    return { ...(await moveToWebGpu(wasm, embeddedEncoders(runtime, fetch, ['webgpu']))), ...withDescriber };
  }
  // Ready once the text model is; the picture model loads on the first picture (a text-only page
  // never fetches it). The text graph's first run (which costs several later ones) follows quietly.
  const wasm = embeddedEncoders(runtime, fetch, ['wasm'], onProgress, onProgress);
  await wasm.text.load();
  return { ...wasm, ...withDescriber, backend: 'wasm', warmUp: async () => void (await wasm.text.embed([WARM_UP_TEXT])) };
}

function embeddedEncoders(runtime: OrtRuntime, fetch: FetchAsset, executionProviders: string[], textProgress?: ProgressCallback, imageProgress?: ProgressCallback): LoadableEncoders {
  const urls = embeddedModelFiles();
  const sessionOptions = { executionProviders };
  return {
    text: createUseLiteTextEncoder({ runtime, fetch, sessionOptions, model: urls.useLiteModel, precision: 'int8', vocabUrl: urls.useLiteVocab, ...(textProgress ? { onProgress: textProgress } : {}) }),
    image: createMobileNetImageEncoder({ runtime, fetch, sessionOptions, model: urls.mobileNetModel, decoder: createBrowserImageDecoder(), ...(imageProgress ? { onProgress: imageProgress } : {}) }),
  };
}

/**
 * onnxruntime-web set up for this worker. WASM alone loads the smaller WASM-only build and the binary
 * shipped beside the worker; WebGPU needs the full build and its binary, from `config.webgpuWasm`.
 */
async function onnxRuntime(config: EncoderWorkerConfig, webgpu: boolean): Promise<OrtRuntime> {
  const runtime = webgpu ? await import('onnxruntime-web') : await import('onnxruntime-web/wasm');
  // This worker owns its runtime's settings. Threads need SharedArrayBuffer, so a cross-origin-isolated page.
  runtime.env.wasm.numThreads = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true ? config.threads : 1;
  runtime.env.wasm.wasmPaths = { wasm: webgpu ? fullBuildWasm(config, 'WebGPU') : embeddedModelFiles().ortWasm };
  return runtime;
}

/** The full build's binary the page named; the page checks for it first, so this only guards. */
function fullBuildWasm(config: EncoderWorkerConfig, what: string): string {
  if (config.webgpuWasm === undefined) throw new VmemError('INVALID_INPUT', `${what} runs on onnxruntime-web's full build; pass webgpuWasm (the address of ort-wasm-simd-threaded.jsep.wasm).`);
  return config.webgpuWasm;
}

async function loadHubEncoders(config: EncoderWorkerConfig, fetch: FetchAsset, onProgress?: ProgressCallback): Promise<HostedEncoders> {
  // Loaded on demand: transformers.js stays out of the embedded path.
  const { createHubImageEncoder, createHubTextEncoder } = await import('../encoders/hub.js');
  const common = { device: config.backend, threads: config.threads, onnxWasmPaths: fullBuildWasm(config, 'The hub encoders'), ...(onProgress ? { onProgress } : {}) } as const;
  const text = await createHubTextEncoder({ ...common, dtype: 'q8' });
  const image = await createHubImageEncoder({ ...common, dtype: 'q8', decoder: createBrowserImageDecoder() });
  // The describer runs on the WASM-only build, apart from the full build transformers.js runs on.
  const describer = config.describer === 'none' ? undefined : offlineDescriber(config, await onnxRuntime(config, false), fetch, onProgress);
  return { text, image, ...(describer ? { describer } : {}), backend: config.backend };
}
