/**
 * The checksum of index segments: Fletcher's sums over 32-bit words, in four lanes (the bytes as
 * 16-byte blocks `v`: `a += v; b += a`, every lane modulo 2^32), so eight 32-bit sums in all. It
 * catches every error a single corrupt byte or a torn or shifted block makes, and any other damage
 * but with odds of about 2^-256 — for bit rot and truncation, not against someone forging bytes
 * (a segment's name, the SHA-256 of its bytes, is what identifies it). Opening a memory checks every
 * segment, so it must be fast: a hand-assembled WebAssembly SIMD loop (i32x4) reads a large
 * memory's 150 MB of segments in well under a tenth of a second where SHA-256 through WebCrypto
 * took about 0.7 s on the main thread; the same sums in plain JS where SIMD is missing.
 *
 *   (module
 *     (import "env" "memory" (memory 1))
 *     (func (export "sum") (param $p i32) (param $end i32) (param $state i32)
 *       ;; a, b = the two v128 at $state; for each 16 bytes v from $p to $end: a += v; b += a; store a, b
 *       ...))
 */
import { I32, V128, name, section, uleb } from '../util/wasm-bytes.js';

const op = { block: 0x02, loop: 0x03, end: 0x0b, brIf: 0x0d, localGet: 0x20, localSet: 0x21, localTee: 0x22, i32Const: 0x41, i32GeU: 0x4f, i32LtU: 0x49, i32Add: 0x6a, simd: 0xfd } as const;
const v128Load = (offset: number) => [op.simd, 0x00, 4, offset];
const v128Store = (offset: number) => [op.simd, 0x0b, 4, offset];
const i32x4Add = [op.simd, 0xae, 0x01];
// Locals: 0 p, 1 end, 2 state (params); 3 a, 4 b (v128).
const [P, END, STATE, A, B] = [0, 1, 2, 3, 4];
const get = (local: number) => [op.localGet, local];
const set = (local: number) => [op.localSet, local];
const tee = (local: number) => [op.localTee, local];

const body = [
  1, 2, V128, // local declarations
  ...get(STATE), ...v128Load(0), ...set(A),
  ...get(STATE), ...v128Load(16), ...set(B),
  op.block, 0x40,
  ...get(P), ...get(END), op.i32GeU, op.brIf, 0,
  op.loop, 0x40,
  ...get(A), ...get(P), ...v128Load(0), ...i32x4Add, ...tee(A),
  ...get(B), ...i32x4Add, ...set(B),
  ...get(P), op.i32Const, 16, op.i32Add, ...tee(P),
  ...get(END), op.i32LtU, op.brIf, 0,
  op.end,
  op.end,
  ...get(STATE), ...get(A), ...v128Store(0),
  ...get(STATE), ...get(B), ...v128Store(16),
  op.end,
];

const MODULE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 3, I32, I32, I32, 0]),
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
  ...section(3, [1, 0]),
  ...section(7, [1, ...name('sum'), 0x00, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

/** Bytes of the checksum. */
export const CHECKSUM_BYTES = 32;
/** Bytes summed per call: the memory a checksum borrows stays small. */
const SLICE = 1 << 20;

type SumFunction = (p: number, end: number, state: number) => void;
let kernel: { memory: WebAssembly.Memory; sum: SumFunction } | null | undefined;

function simdKernel(): { memory: WebAssembly.Memory; sum: SumFunction } | null {
  if (kernel === undefined) {
    try {
      if (typeof WebAssembly !== 'object' || !WebAssembly.validate(MODULE_BYTES)) {
        kernel = null;
      } else {
        const memory = new WebAssembly.Memory({ initial: Math.ceil((SLICE + CHECKSUM_BYTES) / 65_536) });
        const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE_BYTES), { env: { memory } });
        kernel = { memory, sum: instance.exports['sum'] as SumFunction };
      }
    } catch {
      kernel = null;
    }
  }
  return kernel;
}

/** The checksum of `bytes`, whose length must be a multiple of 16 (segments are 16-byte aligned). */
export function checksum(bytes: Uint8Array, simd = true): Uint8Array {
  if (bytes.length % 16 !== 0) throw new RangeError(`a checksum covers whole 16-byte blocks; got ${bytes.length} bytes`);
  const wasm = simd ? simdKernel() : null;
  if (wasm) {
    const state = new Uint8Array(wasm.memory.buffer, 0, CHECKSUM_BYTES);
    state.fill(0);
    const window = new Uint8Array(wasm.memory.buffer, CHECKSUM_BYTES, SLICE);
    for (let at = 0; at < bytes.length; at += SLICE) {
      const slice = bytes.subarray(at, Math.min(bytes.length, at + SLICE));
      window.set(slice);
      wasm.sum(CHECKSUM_BYTES, CHECKSUM_BYTES + slice.length, 0);
    }
    return state.slice();
  }
  // The same sums in plain JS, four lanes of 32-bit words (little-endian, as WebAssembly reads them).
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const a = new Int32Array(4);
  const b = new Int32Array(4);
  for (let at = 0; at < bytes.length; at += 16) {
    for (let lane = 0; lane < 4; lane++) {
      a[lane] = (a[lane]! + view.getInt32(at + lane * 4, true)) | 0;
      b[lane] = (b[lane]! + a[lane]!) | 0;
    }
  }
  const out = new Uint8Array(CHECKSUM_BYTES);
  const outView = new DataView(out.buffer);
  for (let lane = 0; lane < 4; lane++) {
    outView.setInt32(lane * 4, a[lane]!, true);
    outView.setInt32(16 + lane * 4, b[lane]!, true);
  }
  return out;
}
