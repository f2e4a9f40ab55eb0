import { describe, expect, it } from 'vitest';
import { KEEP_CPU_COPY_MAX_ELEMENTS, avoidSyncGpuReads, keepsCpuCopy } from './webgpu-sync-reads.js';

interface FakeData {
  values: ArrayLike<unknown> | null;
  resource?: unknown;
  dtype: string;
  shape: number[];
}

/** Mimics tfjs-backend-webgpu: upload drops the CPU copy, readSync reads the "GPU" when values are gone. */
function fakeBackend() {
  const map = new Map<object, FakeData>();
  const gpuReads: object[] = [];
  const backend = {
    tensorMap: { get: (id: object) => map.get(id) },
    uploadToGPU(id: object) {
      const data = map.get(id)!;
      data.resource = { buffer: true };
      data.values = null;
    },
    readSync(id: object) {
      const data = map.get(id)!;
      if (data.values != null) return data.values;
      gpuReads.push(id);
      return new Int32Array(1);
    },
  };
  const add = (values: ArrayLike<unknown> | null, dtype = 'int32', shape = [values?.length ?? 1]) => {
    const id = {};
    map.set(id, { values, dtype, shape, ...(values ? {} : { resource: {} }) });
    return id;
  };
  return { backend, add, map, gpuReads };
}

describe('avoidSyncGpuReads', () => {
  it('keeps the CPU copy of small tensors after upload, so dataSync never reads the GPU', () => {
    const { backend, add, map, gpuReads } = fakeBackend();
    expect(avoidSyncGpuReads(backend)).toBe(true);
    const axis = add(new Int32Array([2]));
    backend.uploadToGPU(axis);
    expect(map.get(axis)!.resource).toBeDefined();
    expect(Array.from(backend.readSync(axis) as Int32Array)).toEqual([2]);
    expect(gpuReads).toEqual([]);
  });

  it('drops the CPU copy of large tensors, as TF.js does', () => {
    const { backend, add, map } = fakeBackend();
    avoidSyncGpuReads(backend);
    const weights = add(new Float32Array(KEEP_CPU_COPY_MAX_ELEMENTS + 1), 'float32');
    backend.uploadToGPU(weights);
    expect(map.get(weights)!.values).toBeNull();
  });

  it('refuses a synchronous read of GPU-only data with a typed error instead of reading zeros', () => {
    const { backend, add, gpuReads } = fakeBackend();
    avoidSyncGpuReads(backend);
    const computed = add(null, 'int32', [3]);
    expect(() => backend.readSync(computed)).toThrow(/read a int32\[3\] tensor back from the GPU synchronously/);
    expect(gpuReads).toEqual([]);
    try {
      backend.readSync(computed);
    } catch (error) {
      expect((error as Error).name).toBe('VmemError:MODEL_LOAD_FAILED');
    }
  });

  it('patches once, and declines a backend without the expected internals', () => {
    const { backend, add } = fakeBackend();
    avoidSyncGpuReads(backend);
    const patched = backend.uploadToGPU;
    expect(avoidSyncGpuReads(backend)).toBe(true);
    expect(backend.uploadToGPU).toBe(patched);
    expect(avoidSyncGpuReads({})).toBe(false);
    expect(Array.from(backend.readSync(add(new Int32Array([5]))) as Int32Array)).toEqual([5]);
  });

  it('keeps copies up to the CPU hand-off size', () => {
    expect(keepsCpuCopy(1)).toBe(true);
    expect(keepsCpuCopy(KEEP_CPU_COPY_MAX_ELEMENTS)).toBe(true);
    expect(keepsCpuCopy(KEEP_CPU_COPY_MAX_ELEMENTS + 1)).toBe(false);
  });
});
