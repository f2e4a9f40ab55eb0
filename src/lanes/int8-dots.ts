/**
 * A hand-assembled WebAssembly module (SIMD) that computes the integer dot products of int16 queries
 * with every row of an int8 matrix: `i16x8.load8x8_s` widens 8 row bytes, `i32x4.dot_i16x8_s`
 * multiplies them with 8 query values and adds pairs, so 16 dimensions cost 2 loads of the row and
 * 2 of the query. The sums are exact integers, so the plain-JS fallback gives the very same numbers.
 * The text form:
 *
 *   (module
 *     (import "env" "memory" (memory 1))
 *     (func (export "dots") (param $data i32) (param $query i32) (param $rows i32) (param $stride i32)
 *                           (param $out i32) (param $queries i32)
 *       ;; for each row, for each query: out[row × queries + q] = Σ row[i] · query_q[i] (i32)
 *       ...))
 *
 * Rows are `stride` bytes apart and queries `2 × stride` bytes apart (stride a multiple of 32,
 * zero-padded). The caller keeps every sum inside int32 (see `querySteps`).
 */

import { I32, V128, name, section, uleb } from '../util/wasm-bytes.js';

const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Store: 0x36,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  simd: 0xfd,
} as const;
// SIMD opcodes after the 0xfd prefix (LEB128), with their memory arguments (log2 alignment, offset).
const v128Load = (offset: number) => [op.simd, 0x00, 4, offset];
const i16x8Load8x8S = (offset: number) => [op.simd, 0x01, 3, offset];
const i32x4Splat = [op.simd, 0x11];
const i32x4ExtractLane = (lane: number) => [op.simd, 0x1b, lane];
const i32x4Add = [op.simd, 0xae, 0x01];
const i32x4DotI16x8S = [op.simd, 0xba, 0x01];

// Locals: 0 data, 1 query, 2 rows, 3 stride, 4 out, 5 queries (params); 6 end, 7 p, 8 pp, 9 qp, 10 rowEnd, 11 qi; 12–15 accumulators.
const [DATA, QUERY, ROWS, STRIDE, OUT, QUERIES, END, P, PP, QP, ROW_END, QI, A0, A1, A2, A3] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
const tee = (local: number) => [op.localTee, local];
const i32 = (value: number) => [op.i32Const, value];

/** acc += dot(widened row[pp + rowOffset .. +8], query[qp + 2·rowOffset .. +16 bytes]) */
const multiplyAdd = (acc: number, rowOffset: number) => [...get(acc), ...get(PP), ...i16x8Load8x8S(rowOffset), ...get(QP), ...v128Load(2 * rowOffset), ...i32x4DotI16x8S, ...i32x4Add, ...set(acc)];

const body = [
  2, 6, I32, 4, V128, // local declarations
  ...get(OUT), ...get(ROWS), ...get(QUERIES), op.i32Mul, ...i32(2), op.i32Shl, op.i32Add, ...set(END),
  ...get(DATA), ...set(P),
  op.block, 0x40,
  ...get(OUT), ...get(END), op.i32GeU, op.brIf, 0,
  op.loop, 0x40, // per row
  ...get(P), ...get(STRIDE), op.i32Add, ...set(ROW_END),
  ...get(QUERY), ...set(QP),
  ...i32(0), ...set(QI),
  op.loop, 0x40, // per query
  ...i32(0), ...i32x4Splat, ...tee(A0), ...tee(A1), ...tee(A2), ...set(A3),
  ...get(P), ...set(PP),
  op.loop, 0x40, // per 32 bytes of the row: four independent sums, so the CPU overlaps them
  ...multiplyAdd(A0, 0), ...multiplyAdd(A1, 8), ...multiplyAdd(A2, 16), ...multiplyAdd(A3, 24),
  ...get(PP), ...i32(32), op.i32Add, ...set(PP),
  ...get(QP), ...[op.i32Const, 0xc0, 0x00], op.i32Add, ...set(QP),
  ...get(PP), ...get(ROW_END), op.i32LtU, op.brIf, 0,
  op.end,
  ...get(OUT),
  ...get(A0), ...get(A1), ...i32x4Add, ...get(A2), ...get(A3), ...i32x4Add, ...i32x4Add, ...tee(A0), ...i32x4ExtractLane(0),
  ...get(A0), ...i32x4ExtractLane(1), op.i32Add,
  ...get(A0), ...i32x4ExtractLane(2), op.i32Add,
  ...get(A0), ...i32x4ExtractLane(3), op.i32Add,
  op.i32Store, 2, 0,
  ...get(OUT), ...i32(4), op.i32Add, ...set(OUT),
  ...get(QI), ...i32(1), op.i32Add, ...tee(QI), ...get(QUERIES), op.i32LtU, op.brIf, 0,
  op.end,
  ...get(ROW_END), ...set(P),
  ...get(OUT), ...get(END), op.i32LtU, op.brIf, 0,
  op.end,
  op.end,
  op.end,
];

const MODULE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]),
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('dots'), 0x00, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

/** Bytes per row in the SIMD layout: the dimension rounded up to a multiple of 32. */
export function int8Stride(dimension: number): number {
  return Math.ceil(dimension / 32) * 32;
}

/**
 * The largest query step count that keeps every dot product inside int32: with rows in [-127, 127]
 * and query values in [-steps, steps], a sum is at most 127 × steps × dimension (Cauchy-Schwarz on
 * unit vectors scaled to those ranges), and int16 caps the steps at 32767.
 */
export function querySteps(stride: number): number {
  return Math.min(32_767, Math.floor(0x7fff_ffff / (127 * stride)));
}

/** `dots(dataByte, queryByte, rows, stride, outByte, queries)` over a memory, or the plain-JS loop. */
export type Int8DotsFunction = (data: number, query: number, rows: number, stride: number, out: number, queries: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** Instantiates the kernel over `memory`; undefined where WebAssembly or its SIMD is missing. */
export function simdInt8Dots(memory: WebAssembly.Memory): Int8DotsFunction | undefined {
  if (compiled === undefined) {
    try {
      compiled = typeof WebAssembly === 'object' && WebAssembly.validate(MODULE_BYTES) ? new WebAssembly.Module(MODULE_BYTES) : null;
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return undefined;
  const instance = new WebAssembly.Instance(compiled, { env: { memory } });
  return instance.exports['dots'] as Int8DotsFunction;
}

/** The same sums as the kernel, in plain JS over the same layout (bytes of `buffer`). */
export function jsInt8Dots(buffer: ArrayBuffer): Int8DotsFunction {
  return (data, query, rows, stride, out, queries) => {
    const rowBytes = new Int8Array(buffer, data, rows * stride);
    const queryValues = new Int16Array(buffer, query, queries * stride);
    const sums = new Int32Array(buffer, out, rows * queries);
    for (let row = 0; row < rows; row++) {
      const base = row * stride;
      for (let q = 0; q < queries; q++) {
        const at = q * stride;
        let sum = 0;
        for (let i = 0; i < stride; i++) sum += rowBytes[base + i]! * queryValues[at + i]!;
        sums[row * queries + q] = sum;
      }
    }
  };
}
