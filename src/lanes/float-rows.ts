import { VmemError } from '../errors.js';
import { compactRows, quantize, type QuantizedVector, type RowBatch, type VectorRows } from './vector-matrix.js';

/**
 * Rows of float32 vectors scored by exact dot products (summed in float64): no quantization and no
 * int8 stage. Only for measuring what int8 costs retrieval (`withFloatVectors` in `vmem/internal`,
 * the benchmark's `--float-vectors`); the product never makes one. Its rows come from the float
 * vectors a segment carries when it was just built for such a memory: a stored segment holds only
 * int8, so attaching one is refused rather than searched at int8 precision under a float32 name.
 */
export class FloatRows implements VectorRows {
  readonly dimension: number;
  private values: Float32Array;
  private rows = 0;

  constructor(dimension: number, initialCapacity = 256) {
    this.dimension = dimension;
    this.values = new Float32Array(Math.max(1, initialCapacity) * dimension);
  }

  get size(): number {
    return this.rows;
  }

  reserveRows(rows: number): void {
    if (rows * this.dimension <= this.values.length) return;
    const grown = new Float32Array(Math.max(rows, Math.ceil((this.values.length / this.dimension) * 1.5)) * this.dimension);
    grown.set(this.values.subarray(0, this.rows * this.dimension));
    this.values = grown;
  }

  addRows({ scales, floats }: RowBatch): number {
    if (!floats) {
      throw new VmemError('INVALID_INPUT', 'This memory has stored index segments, which hold int8 vectors only; withFloatVectors (vmem/internal) needs a new memory, built afresh.');
    }
    const count = scales.length;
    if (floats.length !== count * this.dimension) throw new RangeError(`${count} rows of ${this.dimension} dimensions need ${count * this.dimension} floats, got ${floats.length}`);
    const first = this.rows;
    this.reserveRows(first + count);
    this.values.set(floats, first * this.dimension);
    this.rows += count;
    return first;
  }

  /** The row quantized as `VectorMatrix` stores it, so a merged segment's bytes are what int8 lanes would write. */
  quantized(row: number): QuantizedVector {
    return quantize(this.vector(row));
  }

  vector(row: number): Float32Array {
    if (!Number.isInteger(row) || row < 0 || row >= this.rows) throw new RangeError(`row ${row} is not in a matrix of ${this.rows} rows`);
    return this.values.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Fresh arrays every call (`reuse` is a saving this measurement does not need). */
  scan(queries: readonly Float32Array[]): Float64Array[] {
    const { dimension, values, rows } = this;
    return queries.map((query) => {
      const scores = new Float64Array(rows);
      for (let row = 0, at = 0; row < rows; row++, at += dimension) {
        let sum = 0;
        for (let i = 0; i < dimension; i++) sum += values[at + i]! * (query[i] ?? 0);
        scores[row] = sum;
      }
      return scores;
    });
  }

  compact(keep: (row: number) => boolean): Int32Array {
    const { moved, left } = compactRows(this.rows, keep, (from, to) => this.values.copyWithin(to * this.dimension, from * this.dimension, (from + 1) * this.dimension));
    this.rows = left;
    return moved;
  }
}
