import { getKernel, registerKernel, unregisterKernel, util } from '@tensorflow/tfjs-core';
import type { DataId, KernelFunc, NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import { getThreadsCount } from '@tensorflow/tfjs-backend-wasm';
import type { BackendWasm } from '@tensorflow/tfjs-backend-wasm';
import { GEMM_K_STEP, wasmGemm } from './wasm-gemm.js';
import type { WasmGemm } from './wasm-gemm.js';

/**
 * Replaces TF.js-WASM's `BatchMatMul` and its 1×1 `Conv2D` with a SIMD gemm (`wasm-gemm.ts`).
 * - Batched products (attention's `Q·Kᵀ` and `P·V` per sentence and head) ran in the stock kernel's
 *   scalar triple loop with strided reads, ~2 GFLOP/s: ~25% of USE-Lite's time.
 * - Unbatched products and 1×1 convolutions (USE-Lite's dense layers) ran in XNNPACK at ~25 GFLOP/s;
 *   the gemm here runs them at ~35 on the same inputs, with the weights packed once and kept.
 * Results equal the stock kernels' up to float rounding. Other shapes and dtypes keep the stock kernels.
 * With WASM threads (cross-origin-isolated pages) Conv2D stays on XNNPACK, which then uses them; the
 * gemm is single-threaded, as the stock BatchMatMul is. Call after the wasm backend is ready.
 */
export function installFastMatMul(): void {
  const gemm = wasmGemm();
  if (gemm === null) return;
  const runner = createRunner(gemm);
  let threads = 1;
  try {
    threads = getThreadsCount();
  } catch {
    // Backend not started: count it as one thread.
  }
  replaceKernel('BatchMatMul', (args, fallback) => {
    const { a, b } = args.inputs as { a?: TensorInfo; b?: TensorInfo };
    if (a === undefined || b === undefined || !matMulFits(a, b)) return fallback(args as never);
    const attrs = args.attrs ?? {};
    return runner.matMul(a, b, attrs.transposeA === true, attrs.transposeB === true, args.backend as BackendWasm);
  });
  if (threads > 1) return;
  replaceKernel('Conv2D', (args, fallback) => {
    const { x, filter } = args.inputs as { x?: TensorInfo; filter?: TensorInfo };
    if (x === undefined || filter === undefined || !pointwiseConv(x, filter, args.attrs ?? {})) return fallback(args as never);
    return runner.conv1x1(x, filter, args.backend as BackendWasm);
  });
}

type KernelArgs = { inputs: Record<string, TensorInfo | undefined>; attrs?: NamedAttrMap; backend: unknown };

function replaceKernel(name: string, body: (args: KernelArgs, fallback: KernelFunc) => TensorInfo | TensorInfo[]): void {
  const stock = getKernel(name, 'wasm');
  if (stock === undefined || (stock.kernelFunc as { gemm?: boolean }).gemm === true) return;
  const fallback = stock.kernelFunc;
  const fast = ((args: KernelArgs) => body(args, fallback)) as KernelFunc & { gemm?: boolean };
  fast.gemm = true;
  unregisterKernel(name, 'wasm');
  // The stock setup stays: it binds the wasm function the fallback calls, should the backend restart.
  registerKernel({ kernelName: name, backendName: 'wasm', kernelFunc: fast, setupFunc: stock.setupFunc, disposeFunc: stock.disposeFunc });
}

function matMulFits(a: TensorInfo, b: TensorInfo): boolean {
  if (a.dtype !== 'float32' || b.dtype !== 'float32') return false;
  const rank = a.shape.length;
  if (rank < 2 || rank !== b.shape.length) return false;
  for (let d = 0; d < rank - 2; d++) if (a.shape[d] !== b.shape[d]) return false;
  return util.sizeFromShape(a.shape) > 0 && util.sizeFromShape(b.shape) > 0;
}

function pointwiseConv(x: TensorInfo, filter: TensorInfo, attrs: NamedAttrMap): boolean {
  if (x.dtype !== 'float32' || filter.dtype !== 'float32' || x.shape.length !== 4 || filter.shape.length !== 4) return false;
  if (filter.shape[0] !== 1 || filter.shape[1] !== 1 || filter.shape[2] !== x.shape[3]) return false;
  const dataFormat = (attrs.dataFormat as string | undefined) ?? 'NHWC';
  if (dataFormat !== 'NHWC' && dataFormat !== 'channelsLast') return false;
  const ones = (value: unknown): boolean => value === undefined || value === 1 || (Array.isArray(value) && value.every((v) => v === 1));
  if (!ones(attrs.strides) || !ones(attrs.dilations)) return false;
  // A 1×1 window needs no padding under 'same' or 'valid'; explicit padding would.
  if (attrs.pad !== 'same' && attrs.pad !== 'valid') return false;
  return util.sizeFromShape(x.shape) > 0 && util.sizeFromShape(filter.shape) > 0;
}

const roundUp = (value: number, step: number): number => Math.ceil(value / step) * step;

/** Most bytes of packed weights kept in the gemm memory (USE-Lite needs ~20 MB); past it, the cache starts over. */
const WEIGHT_CACHE_BYTES = 64 << 20;
/** Columns of B worked on at a time (the panel stays in cache over all rows). */
const PANEL = 256;

interface PackedB {
  /** Float offset in the gemm memory. */
  readonly at: number;
  readonly k: number;
  readonly n: number;
}

function createRunner(gemm: WasmGemm) {
  // Packed weights sit at the start of the gemm memory; scratch for each call follows them.
  let weightsEnd = 0;
  let packedWeights = new WeakMap<DataId, PackedB>();
  // A matrix B is kept packed the second time it is seen: a model's weights recur on every call,
  // intermediate tensors never do.
  const seenOnce = new WeakSet<DataId>();

  /**
   * Writes B (k×n, or n×k when transposed) into 8-column panels of kPad rows: panel p holds
   * B[0..k)[8p..8p+8), then zero rows; columns past n are zero.
   */
  const packB = (src: Float32Array, base: number, k: number, n: number, transposed: boolean, at: number): void => {
    const mem = gemm.f32;
    const kPad = roundUp(k, GEMM_K_STEP);
    const nPad = roundUp(n, 8);
    for (let p = 0; p < nPad; p += 8) {
      const panel = at + p * kPad;
      const width = Math.min(8, n - p);
      if (width < 8) mem.fill(0, panel, panel + 8 * kPad);
      else if (kPad !== k) mem.fill(0, panel + 8 * k, panel + 8 * kPad);
      if (transposed) {
        for (let c = 0; c < width; c++) {
          const row = base + (p + c) * k;
          for (let kk = 0; kk < k; kk++) mem[panel + kk * 8 + c] = src[row + kk]!;
        }
      } else if (width === 8) {
        for (let kk = 0, from = base + p, to = panel; kk < k; kk++, from += n, to += 8) {
          mem[to] = src[from]!;
          mem[to + 1] = src[from + 1]!;
          mem[to + 2] = src[from + 2]!;
          mem[to + 3] = src[from + 3]!;
          mem[to + 4] = src[from + 4]!;
          mem[to + 5] = src[from + 5]!;
          mem[to + 6] = src[from + 6]!;
          mem[to + 7] = src[from + 7]!;
        }
      } else {
        for (let kk = 0; kk < k; kk++) {
          const from = base + kk * n + p;
          const to = panel + kk * 8;
          for (let c = 0; c < width; c++) mem[to + c] = src[from + c]!;
        }
      }
    }
  };

  /** The packed copy of a whole (unbatched) B kept in the gemm memory, when it is a recurring weight. */
  const cachedWeight = (b: TensorInfo, k: number, n: number, transposed: boolean, backend: BackendWasm): PackedB | undefined => {
    const known = packedWeights.get(b.dataId);
    if (known !== undefined) return known.k === k && known.n === n ? known : undefined;
    if (!seenOnce.has(b.dataId)) {
      seenOnce.add(b.dataId);
      return undefined;
    }
    const size = roundUp(n, 8) * roundUp(k, GEMM_K_STEP);
    if (size * 4 > WEIGHT_CACHE_BYTES) return undefined;
    if ((weightsEnd + size) * 4 > WEIGHT_CACHE_BYTES) {
      // Full (models were disposed and loaded again, or many models): start over.
      packedWeights = new WeakMap();
      weightsEnd = 0;
    }
    // Growing the weights region moves the scratch region, which holds nothing between calls.
    const packed: PackedB = { at: weightsEnd, k, n };
    gemm.reserve((weightsEnd + size) * 4);
    packB(backend.typedArrayFromHeap(b) as Float32Array, 0, k, n, transposed, packed.at);
    weightsEnd += size;
    packedWeights.set(b.dataId, packed);
    return packed;
  };

  /**
   * out[s] = A[s]·B[s] for s < batch (one B for all when it is a packed weight); `loadA` writes slice
   * s of A as m rows of k floats, `rowStride` apart, from float offset `at`; `out` gets m×n slices.
   */
  const run = (
    batch: number,
    m: number,
    k: number,
    n: number,
    loadA: (mem: Float32Array, slice: number, at: number, rowStride: number) => void,
    loadB: ((slice: number, at: number) => void) | PackedB,
    outHeap: () => Float32Array,
  ): void => {
    const mPad = roundUp(m, 4);
    const nPad = roundUp(n, 8);
    const kPad = roundUp(k, GEMM_K_STEP);
    const shared = typeof loadB !== 'function';
    // Scratch (floats): A [mPad×kPad], B panels [nPad×kPad] (unless a packed weight), C [mPad×nPad].
    const aAt = roundUp(weightsEnd, 4);
    const bAt = shared ? loadB.at : aAt + mPad * kPad;
    const cAt = shared ? aAt + mPad * kPad : bAt + nPad * kPad;
    gemm.reserve((cAt + mPad * nPad) * 4);
    const mem = gemm.f32;
    // Padding (rows past m, columns past k) is zero for every slice: slices only write the rest.
    if (kPad !== k) mem.fill(0, aAt, aAt + mPad * kPad);
    else mem.fill(0, aAt + m * k, aAt + mPad * k);
    const out = outHeap();
    for (let s = 0; s < batch; s++) {
      loadA(mem, s, aAt, kPad);
      if (!shared) loadB(s, bAt);
      gemm.gemm(aAt * 4, bAt * 4, cAt * 4, mPad, nPad, kPad, Math.min(PANEL, nPad));
      const outBase = s * m * n;
      if (nPad === n) {
        out.set(mem.subarray(cAt, cAt + m * n), outBase);
      } else {
        for (let r = 0; r < m; r++) out.set(mem.subarray(cAt + r * nPad, cAt + r * nPad + n), outBase + r * n);
      }
    }
  };

  const matMul = (a: TensorInfo, b: TensorInfo, transposeA: boolean, transposeB: boolean, backend: BackendWasm): TensorInfo => {
    const rank = a.shape.length;
    const batch = util.sizeFromShape(a.shape.slice(0, rank - 2));
    const [aRows, aCols] = [a.shape[rank - 2]!, a.shape[rank - 1]!];
    const [bRows, bCols] = [b.shape[rank - 2]!, b.shape[rank - 1]!];
    const m = transposeA ? aCols : aRows;
    const k = transposeA ? aRows : aCols;
    const n = transposeB ? bRows : bCols;
    if ((transposeB ? bCols : bRows) !== k) throw new Error(`BatchMatMul: inner sizes differ (${a.shape} × ${b.shape}).`);
    const out = backend.makeOutput([...a.shape.slice(0, rank - 2), m, n], 'float32');
    const aSize = aRows * aCols;
    const bSize = bRows * bCols;
    // Heap views are taken only after every allocation: an allocation may grow (and replace) the heap.
    const loadA = (mem: Float32Array, s: number, at: number, rowStride: number): void => {
      const aHeap = backend.typedArrayFromHeap(a) as Float32Array;
      const base = s * aSize;
      if (transposeA) {
        for (let r = 0; r < aRows; r++) for (let c = 0; c < aCols; c++) mem[at + c * rowStride + r] = aHeap[base + r * aCols + c]!;
      } else if (rowStride === k) {
        mem.set(aHeap.subarray(base, base + aSize), at);
      } else {
        for (let r = 0; r < m; r++) mem.set(aHeap.subarray(base + r * k, base + r * k + k), at + r * rowStride);
      }
    };
    const weight = batch === 1 ? cachedWeight(b, k, n, transposeB, backend) : undefined;
    const loadB = weight ?? ((s: number, at: number): void => packB(backend.typedArrayFromHeap(b) as Float32Array, s * bSize, k, n, transposeB, at));
    run(batch, m, k, n, loadA, loadB, () => backend.typedArrayFromHeap(out) as Float32Array);
    return out;
  };

  const conv1x1 = (x: TensorInfo, filter: TensorInfo, backend: BackendWasm): TensorInfo => {
    const [batch, height, width, inChannels] = x.shape as [number, number, number, number];
    const outChannels = filter.shape[3]!;
    const out = backend.makeOutput([batch, height, width, outChannels], 'float32');
    const m = batch * height * width;
    const xHeap = (): Float32Array => backend.typedArrayFromHeap(x) as Float32Array;
    const loadA = (mem: Float32Array, _s: number, at: number, rowStride: number): void => {
      if (rowStride === inChannels) {
        mem.set(xHeap().subarray(0, m * inChannels), at);
      } else {
        const heap = xHeap();
        for (let r = 0; r < m; r++) mem.set(heap.subarray(r * inChannels, r * inChannels + inChannels), at + r * rowStride);
      }
    };
    const weight = cachedWeight(filter, inChannels, outChannels, false, backend);
    const loadB = weight ?? ((_s: number, at: number): void => packB(backend.typedArrayFromHeap(filter) as Float32Array, 0, inChannels, outChannels, false, at));
    run(1, m, inChannels, outChannels, loadA, loadB, () => backend.typedArrayFromHeap(out) as Float32Array);
    return out;
  };

  return { matMul, conv1x1 };
}
