/**
 * The one RPC surface between the page and the encoder worker. The page speaks to the worker only
 * through `EncoderWorkerApi` (via comlink); everything crossing it is structured-cloneable.
 */
import type { ImageDescription } from '../describe/types.js';
import type { ImagePayload } from '../encoders/types.js';
import type { ProgressCallback } from '../progress.js';

/** Which encoders the worker hosts: the embedded default (served from this origin) or the hub models. */
export type EncoderChoice = 'embedded' | 'hub';

/** Where the encoders' math runs. */
export type Backend = 'webgpu' | 'wasm';

/** What the page asks the worker to load. */
export interface EncoderWorkerConfig {
  /** @default 'embedded' */
  readonly encoders: EncoderChoice;
  readonly backend: Backend;
  /** WASM threads; 1 unless the page is cross-origin isolated. @default 1 */
  readonly threads: number;
  /**
   * Address of onnxruntime-web 1.30.0's full-build binary (`ort-wasm-simd-threaded.jsep.wasm`), which
   * WebGPU and the hub encoders run on. Not shipped with the worker; without it both are unavailable.
   * @default none
   */
  readonly webgpuWasm?: string;
  /**
   * `offline` also hosts the picture describer (CenterNet objects, Tesseract OCR), its models loaded
   * on the first picture described; `none` leaves it out.
   * @default 'offline'
   */
  readonly describer?: 'offline' | 'none';
}

/** Identity of a loaded encoder, as the memory manifest records it. */
export interface EncoderDescription {
  readonly id: string;
  readonly dimension: number;
  readonly captionOnly?: boolean;
}

/** What the worker reports once its encoders are loaded. */
export interface EncoderWorkerInfo {
  /** The backend actually in use (may differ from the one asked for when an encoder lacks it). */
  readonly backend: Backend;
  /** On WebGPU: how closely the probe vectors matched WASM's. */
  readonly agreement?: WebGpuAgreement;
  readonly text: EncoderDescription;
  readonly image?: EncoderDescription;
  /** The hosted describer's id, when there is one. */
  readonly describer?: { readonly id: string };
  /** Milliseconds spent loading models. */
  readonly loadMs: number;
}

/** Lowest cosine between WebGPU and WASM vectors of the same probe inputs, per encoder (1 = identical). */
export interface WebGpuAgreement {
  readonly text: number;
  readonly image?: number;
}

/** How often the encoders ran; tests use it to prove a reload re-encodes nothing. */
export interface EncoderCallCounts {
  readonly textCalls: number;
  readonly textItems: number;
  readonly imageCalls: number;
  readonly imageItems: number;
}

/** The worker's API. Vectors come back as transferred Float32Arrays. */
export interface EncoderWorkerApi {
  /** Loads the encoders; `onProgress` reports bytes of model files. Call once per worker. */
  load(config: EncoderWorkerConfig, onProgress?: ProgressCallback): Promise<EncoderWorkerInfo>;
  embedTexts(texts: readonly string[]): Promise<Float32Array[]>;
  embedImages(images: readonly ImagePayload[]): Promise<Float32Array[]>;
  /** Machine-derived descriptions of pictures; rejects with `INVALID_INPUT` when no describer is hosted. */
  describeImages(images: readonly ImagePayload[]): Promise<ImageDescription[]>;
  counts(): EncoderCallCounts;
  /**
   * The embedded word-vector file (`glove-20k-int4.bin`, 1.2 MB), fetched from beside the worker's
   * models and transferred, for `createMemory({ wordVectors })` in the page. Needs no `load()`.
   */
  wordVectorFile(): Promise<Uint8Array>;
}

/** Posted by the worker once its module has loaded and comlink listens: the ready handshake. */
export const WORKER_READY_MESSAGE = 'vmem:encoder-worker-ready';

/** What the page knows about WebGPU before starting a worker. */
export interface GpuCapability {
  readonly available: boolean;
  /** True for software adapters such as SwiftShader: correct but slow. */
  readonly isFallbackAdapter: boolean;
  /** Why WebGPU is not available, for the UI. */
  readonly reason?: string;
}

/**
 * Chooses the backend: WebGPU when the user allows it, an adapter exists and the page named
 * onnxruntime-web's full build (`webgpuWasm`), WASM otherwise.
 * @example resolveBackend('auto', { available: true, isFallbackAdapter: false }, true) // 'webgpu'
 */
export function resolveBackend(preference: Backend | 'auto', gpu: GpuCapability, hasFullBuild: boolean): Backend {
  if (preference === 'wasm' || !hasFullBuild) return 'wasm';
  return gpu.available ? 'webgpu' : 'wasm';
}

/** Most WASM threads the encoders are given (onnxruntime-web's `env.wasm.numThreads`). */
export const MAX_WASM_THREADS = 4;

/**
 * WASM threads for the encoders: several only on a cross-origin-isolated page with more than two
 * cores. On two cores the worker, the page and the browser already share both; measured there, a
 * second WASM thread made cold start ~0.3 s slower and ingest no faster under load.
 * @example chooseWasmThreads(true, 8) // 4
 */
export function chooseWasmThreads(isolated: boolean, cores: number): number {
  if (!isolated || !(cores > 2)) return 1;
  return Math.min(MAX_WASM_THREADS, Math.floor(cores));
}
