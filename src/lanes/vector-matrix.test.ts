import { describe, expect, it } from 'vitest';
import { randomUnitVector } from '../testing/synthetic-rounds.js';
import { jsInt8Dots, simdInt8Dots } from './int8-dots.js';
import { VectorMatrix, quantize } from './vector-matrix.js';

const exactDot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

describe('quantize', () => {
  it('maps the largest component to ±127, and a dequantized vector back to the same int8 values', () => {
    const vector = randomUnitVector(512, 3);
    const { values, scale } = quantize(vector);
    expect(Math.max(...values.map(Math.abs))).toBe(127);
    const back = Float32Array.from(values, (value) => value * scale);
    const again = quantize(back);
    expect(again.scale).toBe(scale);
    expect(again.values).toEqual(values);
    expect(quantize(new Float32Array(4))).toEqual({ values: new Int8Array(4), scale: 0 });
  });
});

describe('VectorMatrix', () => {
  for (const dimension of [3, 37, 512, 1280]) {
    it(`scores every row within the int8 rounding of the exact float dot product (${dimension}-d), across growth`, () => {
      const matrix = new VectorMatrix(dimension, 4);
      const vectors = Array.from({ length: 300 }, (_, i) => randomUnitVector(dimension, i + 1));
      for (let start = 0; start < vectors.length; start += 70) matrix.addVectors(vectors.slice(start, start + 70));
      expect(matrix.size).toBe(300);
      const queries = [randomUnitVector(dimension, 10_001), randomUnitVector(dimension, 10_002)];
      const [first, second] = matrix.scan(queries);
      // Each component is off by at most half an int8 step (1/254 of the row's largest component), so a
      // dot product by at most that times the query's summed magnitudes; the int16 query adds a hair.
      const sumAbs = (vector: Float32Array) => vector.reduce((sum, value) => sum + Math.abs(value), 0);
      vectors.forEach((vector, row) => {
        const halfStep = Math.max(...vector.map(Math.abs)) / 254;
        [first!, second!].forEach((scores, q) => expect(Math.abs(scores[row]! - exactDot(vector, queries[q]!))).toBeLessThanOrEqual(halfStep * sumAbs(queries[q]!) + 1e-4));
      });
      expect(matrix.scan([queries[1]!])[0]).toEqual(second);
    });
  }

  it('gives the same integer sums with the SIMD kernel and the plain-JS loop', () => {
    const memory = new WebAssembly.Memory({ initial: 4 });
    const simd = simdInt8Dots(memory);
    expect(simd).toBeDefined();
    const stride = 64;
    const rows = 37;
    const bytes = new Int8Array(memory.buffer);
    for (let i = 0; i < rows * stride; i++) bytes[i] = ((i * 7919) % 255) - 127;
    const queryAt = rows * stride;
    const query = new Int16Array(memory.buffer, queryAt, 3 * stride);
    for (let i = 0; i < query.length; i++) query[i] = ((i * 104_729) % 65_535) - 32_767;
    const outAt = queryAt + 3 * stride * 2;
    simd!(0, queryAt, rows, stride, outAt, 3);
    const fromSimd = new Int32Array(memory.buffer, outAt, rows * 3).slice();
    jsInt8Dots(memory.buffer)(0, queryAt, rows, stride, outAt, 3);
    expect(new Int32Array(memory.buffer, outAt, rows * 3)).toEqual(fromSimd);
    expect(fromSimd.some((sum) => sum !== 0)).toBe(true);
  });

  it('hands back stored rows, drops rows on compaction in order, and rejects a wrong size', () => {
    const matrix = new VectorMatrix(2);
    matrix.addVectors([Float32Array.of(1, 0), Float32Array.of(0, 1), Float32Array.of(0.6, 0.8)]);
    const back = matrix.vector(2);
    expect(Math.abs(back[0]! - 0.6)).toBeLessThan(0.8 / 254);
    expect(Math.abs(back[1]! - 0.8)).toBeLessThan(1e-6);
    const moved = matrix.compact((row) => row !== 1);
    expect(Array.from(moved)).toEqual([0, -1, 1]);
    expect(matrix.size).toBe(2);
    expect(matrix.quantized(1).values).toEqual(Int8Array.of(95, 127));
    expect(() => matrix.addVectors([Float32Array.of(1, 2, 3)])).toThrow(RangeError);
    expect(() => matrix.vector(5)).toThrow(RangeError);
  });

  it('ranks the top rows of a 20k-row scan like exact float scores do (the quantized pass keeps the exact top)', () => {
    const dimension = 512;
    const vectors = Array.from({ length: 20_000 }, (_, i) => randomUnitVector(dimension, i + 7));
    const matrix = new VectorMatrix(dimension);
    matrix.addVectors(vectors);
    let overlap = 0;
    const queries = 10;
    for (let q = 0; q < queries; q++) {
      const query = randomUnitVector(dimension, 50_000 + q);
      const exact = vectors.map((vector, row) => ({ row, score: exactDot(vector, query) })).sort((a, b) => b.score - a.score).slice(0, 23);
      const scores = matrix.scan([query])[0]!;
      const quantized = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!).slice(0, 23);
      const want = new Set(exact.map((hit) => hit.row));
      overlap += quantized.filter((row) => want.has(row)).length / 23;
    }
    // Random vectors are the worst case (scores crowd together); real embeddings separate more.
    expect(overlap / queries).toBeGreaterThanOrEqual(0.97);
  });
});
