/**
 * Keeps TF.js's WebGPU backend off its synchronous GPU→CPU read path.
 *
 * TF.js-WebGPU answers `dataSync()` on GPU-resident data by drawing the buffer through an
 * OffscreenCanvas WebGPU context. In a Chromium worker on the SwiftShader adapter that read returns
 * zeros, and the Dawn instance is dead afterwards: the next `mapAsync` rejects with "A valid external
 * Instance reference no longer exists" (measured on Chromium 156). The graph converter calls
 * `dataSync()` on small parameter tensors (ExpandDims axes, Reshape shapes); the stock backend
 * drops a tensor's CPU copy once it is uploaded, so those reads hit the broken path.
 *
 * The remedy: keep the CPU copy of small tensors after upload (tensors are immutable, so the copy
 * stays right), and refuse any remaining synchronous read of GPU-only data with a clear error
 * instead of silent zeros and a dead device.
 */
import { VmemError } from '../errors.js';

/** Tensors up to this many elements keep their CPU copy after upload (TF.js's CPU hand-off size). */
export const KEEP_CPU_COPY_MAX_ELEMENTS = 1000;

/** The parts of TF.js's `WebGPUBackend` this module patches (internal API of tfjs-backend-webgpu 4.x). */
export interface WebGpuBackendInternals {
  readonly tensorMap: { get(dataId: object): { values: ArrayLike<unknown> | null; resource?: unknown; dtype: string; shape: number[] } | undefined };
  uploadToGPU(dataId: object): void;
  readSync(dataId: object): unknown;
}

const PATCHED = Symbol('vmem.syncReadsPatched');

/** True when a tensor of this many elements keeps its CPU copy after upload. */
export function keepsCpuCopy(elements: number): boolean {
  return elements <= KEEP_CPU_COPY_MAX_ELEMENTS;
}

/**
 * Patches a WebGPU backend instance once: small tensors keep their CPU values after upload, and a
 * synchronous read of GPU-only data throws `MODEL_LOAD_FAILED` (the caller then falls back to WASM).
 * Returns false when the backend does not have the expected internals (another TF.js version).
 */
export function avoidSyncGpuReads(backend: unknown): boolean {
  const target = backend as Partial<WebGpuBackendInternals> & { [PATCHED]?: true };
  if (target[PATCHED]) return true;
  if (typeof target.uploadToGPU !== 'function' || typeof target.readSync !== 'function' || typeof target.tensorMap?.get !== 'function') return false;
  const tensorMap = target.tensorMap;
  const upload = target.uploadToGPU.bind(target);
  const readSync = target.readSync.bind(target);
  target.uploadToGPU = (dataId) => {
    const data = tensorMap.get(dataId);
    const values = data?.values;
    upload(dataId);
    if (data && values != null && data.values == null && keepsCpuCopy(values.length)) data.values = values;
  };
  target.readSync = (dataId) => {
    const data = tensorMap.get(dataId);
    if (data && data.values == null && data.dtype !== 'string' && data.dtype !== 'complex64') {
      throw new VmemError(
        'MODEL_LOAD_FAILED',
        `a model step read a ${data.dtype}[${data.shape.join(',')}] tensor back from the GPU synchronously, which this WebGPU adapter cannot do`,
      );
    }
    return readSync(dataId);
  };
  target[PATCHED] = true;
  return true;
}
