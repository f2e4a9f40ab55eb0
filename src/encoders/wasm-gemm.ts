/**
 * A small WebAssembly SIMD matrix multiply, assembled here byte by byte (no toolchain, no binary file to
 * serve), used by `tfjs-wasm-matmul.ts` for USE-Lite's products: faster than TF.js-WASM's scalar loop for
 * batched matmuls (attention) and than its XNNPACK build for the dense layers (~35-40 vs ~25 GFLOP/s
 * on one core in Node 20).
 *
 * `gemm(a, b, c, m, n, k, panel)` computes `C[m×n] = A[m×k] · B[k×n]` on float32 matrices in the
 * module's own memory: A and C row-major, B packed in panels of 8 columns (panel p: rows 0..k of
 * columns 8p..8p+8, 8 floats a row). `m` is a multiple of 4, `n` of 8 and `k` of `GEMM_K_STEP` (callers
 * pad with zeros). Each output is a plain multiply-then-add sum over k in order (no fused multiply-add),
 * 4 rows × 8 columns at a time, so results do not depend on the engine.
 */

import { I32, V128, name, section, sleb, uleb, vec } from '../util/wasm-bytes.js';

/** A compiled gemm and its memory. */
export interface WasmGemm {
  /** Float32 view of the module memory; taken again after every `reserve`. */
  f32: Float32Array;
  /** Makes the memory at least `bytes` long (keeps the contents); refreshes `f32`. */
  reserve(bytes: number): void;
  /**
   * `C = A·B`; offsets are in bytes. `m % 4 === 0`, `n % 8 === 0`, `k % GEMM_K_STEP === 0`, `k > 0`; `panel` (a multiple of 8)
   * is how many columns of B are worked on at a time (cache blocking only, same results).
   */
  gemm(a: number, b: number, c: number, m: number, n: number, k: number, panel: number): void;
}

// Opcodes used below.
const op = {
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  get: 0x20,
  set: 0x21,
  tee: 0x22,
  select: 0x1b,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  void: 0x40,
};
const simd = (code: number): number[] => [0xfd, ...uleb(code)];
const v128Load = (offset: number): number[] => [...simd(0x00), 4, ...uleb(offset)];
const v128Store = (offset: number): number[] => [...simd(0x0b), 4, ...uleb(offset)];
const f32x4Add = simd(0xe4);
const f32x4Mul = simd(0xe6);
const v128Load32Splat = (offset: number): number[] => [...simd(0x09), 2, ...uleb(offset)];
const v128Zero = [...simd(0x0c), ...new Array<number>(16).fill(0)];

function gemmModule(unroll: number): Uint8Array<ArrayBuffer> {
  // Parameters 0..6: a, b, c, m, n, k, panel. Locals: see below.
  const [A, B, C, M, N, K, P] = [0, 1, 2, 3, 4, 5, 6];
  let next = 7;
  const i32Local = (): number => next++;
  const rowEnd = i32Local(); // one past the last A row block (bytes into A)
  const aRow = i32Local(); // first A row of the block
  const cRow = i32Local(); // first C row of the block
  const j = i32Local(); // column (floats)
  const pa = i32Local();
  const pb = i32Local();
  const pc = i32Local();
  const kk = i32Local();
  const n4 = i32Local(); // row stride of B and C, bytes
  const k4 = i32Local(); // row stride of A, bytes
  const k8 = i32Local();
  const k12 = i32Local();
  const j0 = i32Local(); // first column of the current panel
  const jEnd = i32Local(); // one past its last column
  const i32Count = next - 7;
  const firstV128 = next;
  const acc = Array.from({ length: 8 }, () => next++);
  const va = next++;
  const vb0 = next++;
  const vb1 = next++;
  const v128Count = next - firstV128;

  const get = (local: number): number[] => [op.get, ...uleb(local)];
  const set = (local: number): number[] => [op.set, ...uleb(local)];
  const tee = (local: number): number[] => [op.tee, ...uleb(local)];
  const i32c = (value: number): number[] => [op.i32Const, ...sleb(value)];
  const addTo = (local: number, amount: number[]): number[] => [...get(local), ...amount, op.i32Add, ...set(local)];
  const madd = (target: number, b: number): number[] => [...get(target), ...get(va), ...get(b), ...f32x4Mul, ...f32x4Add, ...set(target)];
  // A row r of the current 4-row block: pa + r·k4.
  const aRowAddress = (r: number): number[] => (r === 0 ? get(pa) : [...get(pa), ...get([k4, k8, k12][r - 1]!), op.i32Add]);

  // `unroll` steps of k per pass; A's values are loaded already splatted.
  const kBody: number[] = [];
  for (let u = 0; u < unroll; u++) {
    kBody.push(...get(pb), ...v128Load(32 * u), ...set(vb0));
    kBody.push(...get(pb), ...v128Load(32 * u + 16), ...set(vb1));
    for (let r = 0; r < 4; r++) {
      kBody.push(...aRowAddress(r), ...v128Load32Splat(4 * u), ...set(va));
      kBody.push(...madd(acc[2 * r]!, vb0), ...madd(acc[2 * r + 1]!, vb1));
    }
  }
  kBody.push(...addTo(pa, i32c(4 * unroll)), ...addTo(pb, i32c(32 * unroll)));
  kBody.push(...get(kk), ...i32c(unroll), op.i32Sub, ...tee(kk), op.brIf, 0);

  const store: number[] = [...get(cRow), ...get(j), ...i32c(2), op.i32Shl, op.i32Add, ...set(pc)];
  for (let r = 0; r < 4; r++) {
    if (r > 0) store.push(...addTo(pc, get(n4)));
    store.push(...get(pc), ...get(acc[2 * r]!), ...v128Store(0));
    store.push(...get(pc), ...get(acc[2 * r + 1]!), ...v128Store(16));
  }

  const jBody: number[] = [
    ...acc.flatMap((a) => [...v128Zero, ...set(a)]),
    ...get(aRow), ...set(pa),
    ...get(B), ...get(j), ...get(k4), op.i32Mul, op.i32Add, ...set(pb), // panel j/8 starts at j·k floats
    ...get(K), ...set(kk),
    op.loop, op.void, ...kBody, op.end,
    ...store,
    ...get(j), ...i32c(8), op.i32Add, ...tee(j), ...get(jEnd), op.i32LtU, op.brIf, 0,
  ];

  const iBody: number[] = [
    ...get(j0), ...set(j),
    op.loop, op.void, ...jBody, op.end,
    // Next 4-row block of A and C.
    ...addTo(aRow, [...get(k4), ...i32c(2), op.i32Shl]),
    ...addTo(cRow, [...get(n4), ...i32c(2), op.i32Shl]),
    ...get(aRow), ...get(rowEnd), op.i32LtU, op.brIf, 0,
  ];

  const body: number[] = [
    ...vec([
      [...uleb(i32Count), I32],
      [...uleb(v128Count), V128],
    ]),
    ...get(N), ...i32c(2), op.i32Shl, ...set(n4),
    ...get(K), ...i32c(2), op.i32Shl, ...set(k4),
    ...get(K), ...i32c(3), op.i32Shl, ...set(k8),
    ...get(k4), ...get(k8), op.i32Add, ...set(k12),
    ...get(A), ...get(M), ...get(k4), op.i32Mul, op.i32Add, ...set(rowEnd),
    ...i32c(0), ...set(j0),
    // Column panels: B's panel stays in cache while every row block passes over it.
    op.loop, op.void,
    ...get(j0), ...get(P), op.i32Add, ...set(jEnd),
    ...get(jEnd), ...get(N), ...get(jEnd), ...get(N), op.i32LtU, op.select, ...set(jEnd), // jEnd = min(jEnd, N)
    ...get(A), ...set(aRow),
    ...get(C), ...set(cRow),
    op.loop, op.void, ...iBody, op.end,
    ...get(jEnd), ...tee(j0), ...get(N), op.i32LtU, op.brIf, 0,
    op.end,
    op.end,
  ];

  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32], [I32]]), 0x00]])),
    ...section(3, vec([[0x00]])),
    ...section(5, vec([[0x00, 0x01]])),
    ...section(7, vec([
      [...name('gemm'), 0x00, 0x00],
      [...name('mem'), 0x02, 0x00],
    ])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ];
  return new Uint8Array(bytes);
}

let cached: WasmGemm | null | undefined;

/** Steps of k per inner-loop pass (`k` must be a multiple of it); 2 and 4 measured slower in V8. */
export const GEMM_K_STEP = 1;

/**
 * The gemm module, compiled once per realm (synchronously: it is a few hundred bytes), or null where
 * WebAssembly SIMD is missing.
 */
export function wasmGemm(): WasmGemm | null {
  if (cached !== undefined) return cached;
  cached = null;
  if (typeof WebAssembly !== 'object') return cached;
  const bytes = gemmModule(GEMM_K_STEP);
  if (!WebAssembly.validate(bytes)) return cached;
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
    const memory = instance.exports.mem as WebAssembly.Memory;
    const state: WasmGemm = {
      f32: new Float32Array(memory.buffer),
      gemm: instance.exports.gemm as WasmGemm['gemm'],
      reserve(needed: number) {
        const have = memory.buffer.byteLength;
        if (needed > have) memory.grow(Math.ceil((needed - have) / 65536));
        if (state.f32.buffer !== memory.buffer) state.f32 = new Float32Array(memory.buffer);
      },
    };
    cached = state;
  } catch {
    // No SIMD after all (or no memory): the stock kernels stay.
  }
  return cached;
}

/** For tests and benchmarks: the module bytes for `unroll` steps of k per pass. */
export const gemmModuleBytes = gemmModule;
