import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeTfjsWasmDir } from './node-assets.js';
import { ensureTfjsWasm } from './tfjs-runtime.js';
import { gemmModuleBytes, wasmGemm } from './wasm-gemm.js';

/** Deterministic pseudo-random values in [-1, 1). */
function values(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = state / 2 ** 31 - 1;
  }
  return out;
}

/** Plain triple-loop product of row-major matrices, in float64. */
function reference(a: Float32Array, b: Float32Array, m: number, k: number, n: number, transposeA = false, transposeB = false): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let t = 0; t < k; t++) sum += a[transposeA ? t * m + i : i * k + t]! * b[transposeB ? j * k + t : t * n + j]!;
      out[i * n + j] = sum;
    }
  }
  return out;
}

function maxDiff(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  expect(actual.length).toBe(expected.length);
  let diff = 0;
  for (let i = 0; i < actual.length; i++) diff = Math.max(diff, Math.abs(actual[i]! - expected[i]!));
  return diff;
}

describe('wasm gemm', () => {
  it('assembles a valid module and multiplies padded matrices like a plain loop', () => {
    expect(WebAssembly.validate(gemmModuleBytes(1))).toBe(true);
    const gemm = wasmGemm();
    expect(gemm).not.toBeNull();
    const [m, k, n] = [8, 5, 24];
    const a = values(m * k, 1);
    const b = values(k * n, 2);
    const [aAt, bAt, cAt] = [0, m * k, m * k + k * n];
    gemm!.reserve((cAt + m * n) * 4);
    gemm!.f32.set(a, aAt);
    // B in 8-column panels.
    for (let p = 0; p < n; p += 8) for (let t = 0; t < k; t++) for (let c = 0; c < 8; c++) gemm!.f32[bAt + p * k + t * 8 + c] = b[t * n + p + c]!;
    for (const panel of [8, 16, 24]) {
      gemm!.f32.fill(0, cAt, cAt + m * n);
      gemm!.gemm(aAt * 4, bAt * 4, cAt * 4, m, n, k, panel);
      expect(maxDiff(gemm!.f32.subarray(cAt, cAt + m * n), reference(a, b, m, k, n))).toBeLessThan(1e-5);
    }
  });
});

describe('TF.js WASM kernels on the gemm', () => {
  beforeAll(() => ensureTfjsWasm({ wasmPaths: nodeTfjsWasmDir() }));

  it('runs BatchMatMul for every transpose, odd sizes, batches and a weight seen repeatedly', () => {
    for (const [batch, m, k, n] of [[1, 1, 1, 1], [1, 7, 13, 9], [3, 5, 67, 67], [6, 67, 64, 67], [1, 33, 40, 130]] as const) {
      for (const transposeA of [false, true]) {
        for (const transposeB of [false, true]) {
          const a = values(batch * m * k, m + k);
          const b = values(batch * k * n, n + 7);
          const aShape = batch === 1 ? (transposeA ? [k, m] : [m, k]) : transposeA ? [batch, k, m] : [batch, m, k];
          const bShape = batch === 1 ? (transposeB ? [n, k] : [k, n]) : transposeB ? [batch, n, k] : [batch, k, n];
          const bTensor = tf.tensor(b, bShape);
          // Three runs: the weight cache packs B on the second sighting and reuses it on the third.
          for (let run = 0; run < 3; run++) {
            const out = tf.matMul(tf.tensor(a, aShape), bTensor, transposeA, transposeB);
            expect(out.shape).toEqual(batch === 1 ? [m, n] : [batch, m, n]);
            const got = out.dataSync();
            for (let s = 0; s < batch; s++) {
              const expected = reference(a.subarray(s * m * k, (s + 1) * m * k), b.subarray(s * k * n, (s + 1) * k * n), m, k, n, transposeA, transposeB);
              expect(maxDiff(got.subarray(s * m * n, (s + 1) * m * n), expected)).toBeLessThan(1e-4);
            }
            out.dispose();
          }
          bTensor.dispose();
        }
      }
    }
  });

  it('runs 1×1 Conv2D (same and valid padding) and leaves other convolutions to the stock kernel', () => {
    const x = values(2 * 3 * 5 * 12, 3);
    const w = values(12 * 20, 4);
    const expected = reference(x, w, 30, 12, 20);
    for (const pad of ['same', 'valid'] as const) {
      const out = tf.conv2d(tf.tensor4d(x, [2, 3, 5, 12]), tf.tensor4d(w, [1, 1, 12, 20]), 1, pad);
      expect(out.shape).toEqual([2, 3, 5, 20]);
      expect(maxDiff(out.dataSync(), expected)).toBeLessThan(1e-4);
    }
    // A 3×3 window keeps the stock kernel: the centre tap of a one-hot filter copies the input.
    const filter = new Float32Array(3 * 3 * 12 * 12);
    for (let c = 0; c < 12; c++) filter[(1 * 3 + 1) * 144 + c * 12 + c] = 1;
    const same = tf.conv2d(tf.tensor4d(x, [2, 3, 5, 12]), tf.tensor4d(filter, [3, 3, 12, 12]), 1, 'same');
    expect(maxDiff(same.dataSync(), x)).toBeLessThan(1e-6);
  });
});
