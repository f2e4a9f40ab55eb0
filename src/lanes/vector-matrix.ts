import { simdDots, simdStride, type DotsFunction } from './simd-dots.js';
import { TopK, ranksAbove } from './top-k.js';

const PAGE_BYTES = 65_536;

/**
 * A row-per-vector store searched by dot product (vectors are unit length), in one contiguous
 * Float32Array: WebAssembly memory scanned by a SIMD kernel where the browser has one, a plain
 * buffer and a JS loop where not. Layout: rows (`stride` floats each, zero-padded) from byte 0,
 * then scratch space for the query and the per-row scores.
 */
export class VectorMatrix {
  readonly dimension: number;
  private readonly stride: number;
  private readonly memory: WebAssembly.Memory | undefined;
  private readonly dots: DotsFunction | undefined;
  private floats: Float32Array;
  private capacity: number;
  private readonly ids: string[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(dimension: number, initialCapacity = 256) {
    this.dimension = dimension;
    this.stride = simdStride(dimension);
    this.capacity = initialCapacity;
    const bytes = this.bytesFor(initialCapacity);
    const memory = typeof WebAssembly === 'object' ? new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE_BYTES) }) : undefined;
    this.dots = memory && simdDots(memory);
    this.memory = this.dots ? memory : undefined;
    this.floats = this.memory ? new Float32Array(this.memory.buffer) : new Float32Array(bytes / 4);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  add(id: string, vector: Float32Array): void {
    this.addMany([id], [vector]);
  }

  /** Adds one row per id (room made once for all); ids already present are skipped. */
  addMany(ids: readonly string[], vectors: readonly Float32Array[]): void {
    this.reserve(this.ids.length + ids.length);
    const { dimension, stride } = this;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const vector = vectors[i]!;
      if (vector.length !== dimension) {
        throw new RangeError(`vector for ${id} has ${vector.length} dimensions, the lane holds ${dimension}`);
      }
      if (this.rowOf.has(id)) continue;
      const row = this.ids.length;
      const at = row * stride;
      this.floats.set(vector, at);
      if (stride > dimension) this.floats.fill(0, at + dimension, at + stride);
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
  }

  /** A copy of the stored vector, or undefined. */
  get(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    return row === undefined ? undefined : this.floats.slice(row * this.stride, row * this.stride + this.dimension);
  }

  /** Removes a row by moving the last row into its place. */
  remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.floats.copyWithin(row * this.stride, last * this.stride, (last + 1) * this.stride);
      this.ids[row] = lastId;
      this.rowOf.set(lastId, row);
    }
    this.ids.pop();
    this.rowOf.delete(id);
  }

  clear(): void {
    this.ids.length = 0;
    this.rowOf.clear();
  }

  /**
   * The `limit` rows most similar to `query`, best first (ties by insertion order); `accept` filters
   * by id and is only asked about rows that score high enough to matter.
   * Scores are exact float64 sums: the fast float32 scan only shortlists (with a margin far above
   * its rounding error), and the shortlist is rescored, so ranks and scores never depend on SIMD.
   */
  nearest(query: Float32Array, limit: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const rows = this.ids.length;
    if (rows === 0 || limit <= 0) return [];
    const scores = this.scan(query);
    const top = new TopK(limit);
    for (let row = 0; row < rows; row++) {
      const score = scores[row]!;
      if (top.full && score < top.threshold) continue;
      if (accept && !accept(this.ids[row]!)) continue;
      top.offer(row, score);
    }
    let norm = 0;
    for (let i = 0; i < this.dimension; i++) norm += query[i]! * query[i]!;
    const cut = top.threshold - 1e-4 * Math.max(1, Math.sqrt(norm));
    const shortlist: { row: number; score: number }[] = [];
    for (let row = 0; row < rows; row++) {
      if (scores[row]! < cut || (accept && !accept(this.ids[row]!))) continue;
      shortlist.push({ row, score: this.exactDot(row, query) });
    }
    shortlist.sort((a, b) => (ranksAbove(a.row, a.score, b.row, b.score) ? -1 : 1));
    return shortlist.slice(0, limit).map(({ row, score }) => ({ id: this.ids[row]!, score }));
  }

  /** Float32 dot products of `query` with every row (a view into scratch space, valid until the next call). */
  private scan(query: Float32Array): Float32Array {
    const rows = this.ids.length;
    const { stride, dimension } = this;
    const queryAt = this.capacity * stride;
    const scoresAt = queryAt + stride;
    this.floats.set(query.subarray(0, dimension), queryAt);
    this.floats.fill(0, queryAt + dimension, queryAt + stride);
    if (this.dots) {
      this.dots(0, queryAt * 4, rows, stride, scoresAt * 4);
    } else {
      const data = this.floats;
      for (let row = 0; row < rows; row++) {
        let base = row * stride;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        // Four running sums let the CPU overlap the multiply-adds.
        for (let i = queryAt; i < queryAt + stride; i += 4, base += 4) {
          s0 += data[base]! * data[i]!;
          s1 += data[base + 1]! * data[i + 1]!;
          s2 += data[base + 2]! * data[i + 2]!;
          s3 += data[base + 3]! * data[i + 3]!;
        }
        data[scoresAt + row] = s0 + s1 + s2 + s3;
      }
    }
    return this.floats.subarray(scoresAt, scoresAt + rows);
  }

  /** The dot product summed in float64, in dimension order. */
  private exactDot(row: number, query: Float32Array): number {
    const data = this.floats;
    const base = row * this.stride;
    let dot = 0;
    for (let i = 0; i < this.dimension; i++) dot += data[base + i]! * query[i]!;
    return dot;
  }

  private bytesFor(capacity: number): number {
    return (capacity * this.stride + this.stride + capacity) * 4;
  }

  /** Makes room for `rows` rows; rows stay where they are (the memory only grows at its end). */
  private reserve(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, this.capacity * 2);
    const bytes = this.bytesFor(capacity);
    if (this.memory) {
      const missing = bytes - this.memory.buffer.byteLength;
      if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE_BYTES));
      this.floats = new Float32Array(this.memory.buffer);
    } else {
      const grown = new Float32Array(bytes / 4);
      grown.set(this.floats.subarray(0, this.ids.length * this.stride));
      this.floats = grown;
    }
    this.capacity = capacity;
  }
}

/** Scales a vector to unit length in place; a zero vector stays zero. */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}
