import type { FeatureExtractionPipeline, ImageProcessor, PreTrainedModel, RawImage, Tensor } from '@huggingface/transformers';
import { VmemError, isVmemError } from '../errors.js';
import { importPeer } from '../util/optional-peer.js';
import { createSerialQueue } from '../util/serial-queue.js';
import type { ImageDecoder } from './types.js';
import type { ProgressCallback } from '../progress.js';
import type { LoadableImageEmbedder } from './mobilenet.js';
import type { LoadableTextEmbedder } from './use-lite.js';
import { normalizedRows } from './vectors.js';

/** transformers.js, an optional peer of `vmem/hub`, imported on the first encoder created. */
type Transformers = typeof import('@huggingface/transformers');
const loadTransformers = (): Promise<Transformers> => importPeer('@huggingface/transformers', 'vmem/hub', () => import('@huggingface/transformers'));

/** Where and how a hub encoder gets its model (transformers.js 4; `npm install @huggingface/transformers@4`). */
export interface HubModelOptions {
  /**
   * Base URL of a Hugging Face-compatible file host (a mirror or your own server).
   * @default 'https://huggingface.co/'
   */
  readonly remoteHost?: string;
  /**
   * Folder (Node) or URL path (browser) holding `<model>/config.json`, `<model>/onnx/…`. Tried before
   * the remote host.
   * @example '/models/'
   */
  readonly localModelPath?: string;
  /** Allow downloads from `remoteHost`. `false` = local files only. @default true */
  readonly allowRemote?: boolean;
  /** @default transformers.js's choice: 'cpu' in Node, 'wasm' in browsers */
  readonly device?: 'webgpu' | 'wasm' | 'cpu';
  /**
   * Weight precision (which ONNX file is read). Part of the encoder `id`; pass it explicitly, since
   * transformers.js's default depends on the device.
   * @default transformers.js's choice
   */
  readonly dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'q4f16' | 'bnb4';
  /**
   * Where onnxruntime-web's `.wasm` files are (browser only): a folder (ending in `/`), the address of
   * the one binary to use (ending in `.wasm`), or `'bundled'` for the files your bundler ships with
   * onnxruntime-web (no CDN).
   * @default 'bundled'
   */
  readonly onnxWasmPaths?: string;
  /** onnxruntime-web threads (browser, cross-origin-isolated pages only). @default onnxruntime's choice */
  readonly threads?: number;
  /** Items per model call. @default 32 for text, 8 for images */
  readonly batchSize?: number;
  /** Download progress, per file (`task: '<model>/<file>'`, bytes), then `ready` for the model. */
  readonly onProgress?: ProgressCallback;
}

/** Options of `createHubTextEncoder`. */
export interface HubTextEncoderOptions extends HubModelOptions {
  /** A feature-extraction model with ONNX weights. @default 'Xenova/all-MiniLM-L6-v2' */
  readonly model?: string;
}

/** Options of `createHubImageEncoder`. */
export interface HubImageEncoderOptions extends HubModelOptions {
  /** A SigLIP model with an ONNX vision tower (`onnx/vision_model*.onnx`). @default 'Xenova/siglip-base-patch16-224' */
  readonly model?: string;
  /** Turns file bytes into pixels: `decodeImageNode` in Node, `createBrowserImageDecoder()` in browsers. */
  readonly decoder: ImageDecoder;
}

// transformers.js reads its file locations from one global `env`. Loads are serialised here, `env` is
// set from the options right before each load and put back right after, so one encoder's settings
// never leak into another's load or into other code using transformers.js.
const loadQueue = createSerialQueue();

/**
 * Text encoder on a Hugging Face feature-extraction model (mean pooling, L2-normalised).
 * Resolves once the model is loaded, so `dimension` is known (384 for all-MiniLM-L6-v2).
 * Rejects with `MODEL_LOAD_FAILED` naming the model and where it was looked for.
 * @example
 * const text = await createHubTextEncoder({ dtype: 'q8' });
 * const offline = await createHubTextEncoder({ model: 'my-model', localModelPath: '/srv/models/', allowRemote: false });
 */
export async function createHubTextEncoder(options: HubTextEncoderOptions = {}): Promise<LoadableTextEmbedder> {
  const model = options.model ?? 'Xenova/all-MiniLM-L6-v2';
  const batchSize = positiveInteger(options.batchSize, 32, 'batchSize');
  const transformers = await loadTransformers();
  // The cast keeps TypeScript from expanding pipeline()'s overloads (a union too complex to represent).
  const loadExtractor = transformers.pipeline as unknown as (task: 'feature-extraction', model: string, settings: PretrainedSettings) => Promise<FeatureExtractionPipeline>;
  const extractor = await loadWithEnv(transformers, model, options, (settings) => loadExtractor('feature-extraction', model, settings));
  const queue = createSerialQueue();
  let disposed = false;
  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      const output = await extractor(batch as string[], { pooling: 'mean', normalize: true });
      vectors.push(...tensorRows(output, batch.length));
      output.dispose();
    }
    return vectors;
  };
  const [probe] = await run(['dimension probe']);
  return {
    id: `hub-text:${model}@${options.dtype ?? 'default'}/mean`,
    dimension: probe!.length,
    async load() {
      if (disposed) throw closed('text');
    },
    embed(texts) {
      return queue.run(async () => {
        if (disposed) throw closed('text');
        return texts.length === 0 ? [] : run(texts);
      });
    },
    dispose() {
      return queue.run(async () => {
        if (disposed) return;
        disposed = true;
        await extractor.dispose();
      });
    },
  };
}

/**
 * Image encoder on a SigLIP vision tower (pooled output, L2-normalised; 768-d for siglip-base).
 * Pixels come from the injected decoder, so Node needs no native image library.
 * Resolves once the model is loaded. Rejects with `MODEL_LOAD_FAILED` naming the model and where it was looked for.
 * @example
 * const image = await createHubImageEncoder({ decoder: createBrowserImageDecoder(), device: 'webgpu', dtype: 'fp16' });
 */
export async function createHubImageEncoder(options: HubImageEncoderOptions): Promise<LoadableImageEmbedder> {
  const model = options.model ?? 'Xenova/siglip-base-patch16-224';
  const batchSize = positiveInteger(options.batchSize, 8, 'batchSize');
  const transformers = await loadTransformers();
  const { AutoImageProcessor, RawImage, SiglipVisionModel } = transformers;
  const { processor, vision } = await loadWithEnv(transformers, model, options, async (settings) => {
    const [loadedProcessor, loadedVision] = await Promise.all([
      AutoImageProcessor.from_pretrained(model, settings) as Promise<ImageProcessor>,
      SiglipVisionModel.from_pretrained(model, settings) as Promise<PreTrainedModel>,
    ]);
    return { processor: loadedProcessor, vision: loadedVision };
  });
  const queue = createSerialQueue();
  let disposed = false;
  const run = async (images: readonly RawImage[]): Promise<Float32Array[]> => {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < images.length; start += batchSize) {
      const batch = images.slice(start, start + batchSize);
      const { pixel_values } = (await processor(batch as RawImage[])) as { pixel_values: Tensor };
      const outputs = (await vision({ pixel_values })) as Record<string, Tensor>;
      const pooled = outputs.pooler_output;
      if (pooled === undefined) {
        throw new VmemError('MODEL_LOAD_FAILED', `${model} has no pooler_output; use a SigLIP vision model exported with it.`);
      }
      vectors.push(...tensorRows(pooled, batch.length));
      for (const tensor of [pixel_values, ...Object.values(outputs)]) tensor.dispose();
    }
    return vectors;
  };
  const [probe] = await run([new RawImage(new Uint8ClampedArray(8 * 8 * 3).fill(128), 8, 8, 3)]);
  return {
    id: `hub-image:${model}@${options.dtype ?? 'default'}/pooled`,
    dimension: probe!.length,
    captionOnly: false,
    async load() {
      if (disposed) throw closed('image');
    },
    embed(images) {
      return queue.run(async () => {
        if (disposed) throw closed('image');
        if (images.length === 0) return [];
        const raw: RawImage[] = [];
        for (let index = 0; index < images.length; index++) {
          const bytes = images[index]!.bytes;
          if (bytes === undefined || bytes.length === 0) {
            throw new VmemError('IMAGE_DECODE_FAILED', `Image ${index} has no bytes. This encoder reads pixels; for caption-only images use createCaptionProxyImageEncoder.`);
          }
          try {
            const pixels = await options.decoder(bytes, images[index]!.mimeType);
            raw.push(new RawImage(new Uint8ClampedArray(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength), pixels.width, pixels.height, 4).rgb());
          } catch (cause) {
            const reason = isVmemError(cause) ? cause.message : String((cause as Error)?.message ?? cause);
            throw new VmemError('IMAGE_DECODE_FAILED', `Image ${index} could not be decoded: ${reason}.`, { cause });
          }
        }
        return run(raw);
      });
    },
    dispose() {
      return queue.run(async () => {
        if (disposed) return;
        disposed = true;
        await vision.dispose();
      });
    },
  };
}

/** The options transformers.js takes per call (the rest must go through `env`). */
interface PretrainedSettings {
  device?: HubModelOptions['device'];
  dtype?: HubModelOptions['dtype'];
  local_files_only: boolean;
  progress_callback?: (info: TransformersProgress) => void;
}

interface TransformersProgress {
  readonly status: string;
  readonly file?: string;
  readonly loaded?: number;
  readonly total?: number;
}

/** Runs one load with `env` set from `options`, then puts `env` back; loads never overlap. */
function loadWithEnv<T>({ env }: Transformers, model: string, options: HubModelOptions, load: (settings: PretrainedSettings) => Promise<T>): Promise<T> {
  return loadQueue.run(async () => {
    const wasm = env.backends.onnx.wasm as { wasmPaths?: unknown; numThreads?: number } | undefined;
    const saved = {
      remoteHost: env.remoteHost,
      localModelPath: env.localModelPath,
      allowLocalModels: env.allowLocalModels,
      allowRemoteModels: env.allowRemoteModels,
      hasWasmPaths: wasm !== undefined && 'wasmPaths' in wasm,
      wasmPaths: wasm?.wasmPaths,
      numThreads: wasm?.numThreads,
    };
    const allowRemote = options.allowRemote ?? true;
    try {
      if (options.remoteHost !== undefined) env.remoteHost = options.remoteHost;
      if (options.localModelPath !== undefined) {
        env.localModelPath = options.localModelPath;
        env.allowLocalModels = true;
      }
      env.allowRemoteModels = allowRemote;
      if (wasm !== undefined) {
        const paths = options.onnxWasmPaths ?? 'bundled';
        // Without wasmPaths, onnxruntime-web loads the .wasm its bundler shipped instead of a CDN copy.
        if (paths === 'bundled') delete wasm.wasmPaths;
        else wasm.wasmPaths = paths.endsWith('.wasm') ? { wasm: paths } : paths;
        if (options.threads !== undefined) wasm.numThreads = options.threads;
      }
      const settings: PretrainedSettings = {
        device: options.device,
        dtype: options.dtype,
        local_files_only: !allowRemote,
        progress_callback: options.onProgress === undefined ? undefined : forwardProgress(model, options.onProgress),
      };
      const loaded = await load(settings);
      options.onProgress?.({ status: 'ready', task: 'model', item: model });
      return loaded;
    } catch (cause) {
      const where = [
        options.localModelPath === undefined ? undefined : `${joinPath(options.localModelPath, model)}`,
        allowRemote ? `${options.remoteHost ?? 'https://huggingface.co/'}${model}` : undefined,
      ].filter((place) => place !== undefined);
      throw new VmemError(
        'MODEL_LOAD_FAILED',
        `Could not load the model '${model}' from ${where.join(' or ') || 'nowhere (no localModelPath and allowRemote is false)'}${allowRemote ? '' : ' (remote downloads off)'}: ${String((cause as Error)?.message ?? cause)}`,
        { cause },
      );
    } finally {
      env.remoteHost = saved.remoteHost;
      env.localModelPath = saved.localModelPath;
      env.allowLocalModels = saved.allowLocalModels;
      env.allowRemoteModels = saved.allowRemoteModels;
      if (wasm !== undefined) {
        if (saved.hasWasmPaths) wasm.wasmPaths = saved.wasmPaths;
        else delete wasm.wasmPaths;
        wasm.numThreads = saved.numThreads;
      }
    }
  });
}

/** transformers.js progress → VmemProgress, per file; `loaded` never goes down. */
function forwardProgress(model: string, onProgress: ProgressCallback): (info: TransformersProgress) => void {
  const lastLoaded = new Map<string, number>();
  return (info) => {
    const item = info.file === undefined ? model : `${model}/${info.file}`;
    if (info.status === 'initiate') onProgress({ status: 'initiate', task: 'model', item });
    else if (info.status === 'progress' && info.loaded !== undefined && info.total !== undefined) {
      const loaded = Math.max(lastLoaded.get(item) ?? 0, info.loaded);
      lastLoaded.set(item, loaded);
      onProgress({ status: 'progress', task: 'model', item, loaded, total: info.total, unit: 'bytes' });
    } else if (info.status === 'done') onProgress({ status: 'done', task: 'model', item });
  };
}

function tensorRows(tensor: Tensor, rows: number): Float32Array[] {
  const dims = tensor.dims as number[];
  const dimension = dims[dims.length - 1]!;
  return normalizedRows(Float32Array.from(tensor.data as Float32Array), rows, dimension);
}

function joinPath(base: string, model: string): string {
  return base.endsWith('/') ? base + model : `${base}/${model}`;
}

function closed(kind: 'text' | 'image'): VmemError {
  return new VmemError('CLOSED', `This hub ${kind} encoder was disposed; create a new one.`);
}

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new VmemError('INVALID_INPUT', `${name} must be a positive integer, got ${value}.`);
  return value;
}
