/**
 * Starting the encoders with the right backend: detect WebGPU, try it, and fall back to WASM by
 * recreating the worker when WebGPU fails. The outcome says why, so the UI can show it.
 */
import { errorCode } from '../errors.js';
import { spawnEncoderWorker, startEncoderWorker, type EncoderWorkerClient, type EncoderWorkerOptions, type SpawnedEncoderWorker } from './client.js';
import { resolveBackend, type Backend, type EncoderChoice, type GpuCapability } from './protocol.js';

/**
 * Per-item call allowance on a software WebGPU adapter. SwiftShader runs the encoders 30–100× slower
 * than WASM (measured on 2 busy cores: 2–5 s per image, 1.5–2.6 s per text); the default 5 s would
 * time out on a batch.
 */
export const SOFTWARE_ADAPTER_PER_ITEM_MS = 20_000;

/** Asks the browser for a WebGPU adapter. Never throws: no adapter is an answer, not an error. */
export async function detectWebGpu(): Promise<GpuCapability> {
  const gpu = (globalThis.navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return { available: false, isFallbackAdapter: false, reason: 'this browser has no WebGPU' };
  let adapter: { isFallbackAdapter?: boolean; info?: { isFallbackAdapter?: boolean } } | null;
  try {
    adapter = (await gpu.requestAdapter()) as typeof adapter;
  } catch (error) {
    return { available: false, isFallbackAdapter: false, reason: `requesting a WebGPU adapter failed: ${String(error)}` };
  }
  if (!adapter) return { available: false, isFallbackAdapter: false, reason: 'no WebGPU adapter (GPU blocked or absent)' };
  return { available: true, isFallbackAdapter: Boolean(adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter) };
}

const WEBGPU_NOT_CHECKED: GpuCapability = { available: false, isFallbackAdapter: false, reason: "not checked, since backend 'wasm' was asked for" };

/** Options of `startEncoders`. */
export interface StartEncodersOptions extends Omit<EncoderWorkerOptions, 'config'> {
  readonly encoders: EncoderChoice;
  /** @default 'auto' */
  readonly backend?: Backend | 'auto';
  /** @default 1 */
  readonly threads?: number;
  /** As `EncoderWorkerConfig.webgpuWasm`. @default none (WASM only) */
  readonly webgpuWasm?: string;
  /** Capability probe; injectable for tests. @default detectWebGpu */
  readonly detect?: () => Promise<GpuCapability>;
}

/** A started worker and how its backend was chosen. */
export interface StartedEncoders {
  readonly client: EncoderWorkerClient;
  readonly backend: Backend;
  readonly gpu: GpuCapability;
  /** Set when WebGPU was tried and failed, so WASM runs instead. */
  readonly fallbackReason?: string;
}

/**
 * Starts the encoder worker on WebGPU when possible, else WASM. A WebGPU worker that fails to
 * load is discarded and a fresh WASM worker started.
 */
export async function startEncoders(options: StartEncodersOptions): Promise<StartedEncoders> {
  // The worker module loads while WebGPU is probed: neither waits for the other.
  const spawned = spawnEncoderWorker(options.createWorker);
  let gpu: GpuCapability;
  try {
    // Asked for WASM, nothing asks for an adapter (a browser without one says so in the console).
    gpu = options.backend === 'wasm' ? WEBGPU_NOT_CHECKED : await (options.detect ?? detectWebGpu)();
  } catch (error) {
    spawned.terminate();
    throw error;
  }
  const wanted = resolveBackend(options.backend ?? 'auto', gpu, options.webgpuWasm !== undefined);
  const slow = gpu.isFallbackAdapter ? { perItemTimeoutMs: Math.max(options.perItemTimeoutMs ?? 0, SOFTWARE_ADAPTER_PER_ITEM_MS) } : {};
  const start = (backend: Backend, worker?: SpawnedEncoderWorker) =>
    startEncoderWorker({
      ...options,
      ...(backend === 'webgpu' ? slow : {}),
      ...(worker ? { spawned: worker } : {}),
      config: { encoders: options.encoders, backend, threads: options.threads ?? 1, ...(options.webgpuWasm === undefined ? {} : { webgpuWasm: options.webgpuWasm }) },
    });
  if (wanted === 'wasm') return { client: await start('wasm', spawned), backend: 'wasm', gpu };
  try {
    const client = await start('webgpu', spawned);
    // The worker may report WASM if an encoder had no WebGPU kernel for this model.
    return { client, backend: client.info.backend, gpu };
  } catch (error) {
    const reason = `${errorCode(error) ?? 'ERROR'}: ${error instanceof Error ? error.message : String(error)}`;
    const client = await start('wasm');
    return { client, backend: 'wasm', gpu, fallbackReason: reason };
  }
}
