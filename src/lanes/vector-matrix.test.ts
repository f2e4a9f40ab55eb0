import { describe, expect, it } from 'vitest';
import { randomUnitVector } from '../testing/synthetic-rounds.js';
import { VectorMatrix } from './vector-matrix.js';

/** The reference: score every row in float64, sort, ties by insertion order. */
function bruteForce(rows: Map<string, Float32Array>, query: Float32Array, limit: number, accept?: (id: string) => boolean) {
  const scored = [...rows].filter(([id]) => !accept || accept(id)).map(([id, vector]) => {
    let score = 0;
    for (let i = 0; i < vector.length; i++) score += vector[i]! * query[i]!;
    return { id, score };
  });
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

describe('VectorMatrix', () => {
  for (const dimension of [3, 37, 512]) {
    it(`returns the exact top rows and scores of a full scan (${dimension}-d), across growth and removals`, () => {
      const matrix = new VectorMatrix(dimension, 4);
      const rows = new Map<string, Float32Array>();
      for (let i = 0; i < 700; i++) {
        const vector = randomUnitVector(dimension, i + 1);
        matrix.add(`v${i}`, vector);
        rows.set(`v${i}`, vector);
      }
      for (let i = 0; i < 700; i += 9) {
        matrix.remove(`v${i}`);
        rows.delete(`v${i}`);
      }
      // Removal moves the last row into the hole: insertion order is no longer row order, so compare scores.
      const accept = (id: string) => Number(id.slice(1)) % 4 !== 1;
      for (let q = 0; q < 5; q++) {
        const query = randomUnitVector(dimension, 10_000 + q);
        for (const [limit, filter] of [[1, undefined], [20, undefined], [80, accept]] as const) {
          const got = matrix.nearest(query, limit, filter);
          const want = bruteForce(rows, query, limit, filter);
          expect(got.map((hit) => hit.score)).toEqual(want.map((hit) => hit.score));
          expect(new Set(got.map((hit) => hit.id))).toEqual(new Set(want.map((hit) => hit.id)));
        }
      }
      expect(matrix.size).toBe(rows.size);
      expect(matrix.get('v1')).toEqual(rows.get('v1'));
    });
  }

  it('adds rows in bulk, skips ids it holds, and rejects a wrong size', () => {
    const matrix = new VectorMatrix(2);
    matrix.addMany(['a', 'b'], [Float32Array.of(1, 0), Float32Array.of(0, 1)]);
    matrix.addMany(['a', 'c'], [Float32Array.of(5, 5), Float32Array.of(0.6, 0.8)]);
    expect(matrix.size).toBe(3);
    expect(matrix.nearest(Float32Array.of(0, 1), 2).map((hit) => hit.id)).toEqual(['b', 'c']);
    expect(() => matrix.add('d', Float32Array.of(1, 2, 3))).toThrow(RangeError);
  });
});
