import { int8Stride, jsInt8Dots, querySteps, simdInt8Dots, type Int8DotsFunction } from './int8-dots.js';

const PAGE_BYTES = 65_536;

/** A vector as int8 values and the scale that maps them back: vector ≈ scale × values. */
export interface QuantizedVector {
  readonly values: Int8Array;
  readonly scale: number;
}

/**
 * int8 with one scale per vector: the largest component maps to ±127. On unit vectors of 512
 * dimensions that rounds a dot product by about 3e-4 (one step is 1/127 of the largest component).
 * Quantizing a vector that was dequantized from int8 gives back the same values and scale.
 */
export function quantize(vector: Float32Array): QuantizedVector {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const values = new Int8Array(vector.length);
  if (max === 0) return { values, scale: 0 };
  const scale = max / 127;
  for (let i = 0; i < vector.length; i++) values[i] = Math.max(-127, Math.min(127, Math.round(vector[i]! / scale)));
  return { values, scale: Math.fround(scale) };
}

/**
 * Rows to append: int8 values (`dimension` each, one row after the other) with one scale a row and,
 * where the caller kept them, the float32 vectors they were quantized from (`floats`, same layout).
 */
export interface RowBatch {
  readonly values: Int8Array;
  readonly scales: Float32Array;
  readonly floats?: Float32Array;
}

/**
 * Where a lane keeps its vectors and how it scores them: `VectorMatrix` (int8, the product) or
 * `FloatRows` (float32, `vmem/internal`'s measurement of what int8 costs). A lane picks one when it
 * is made, so the choice costs the scan nothing.
 */
export interface VectorRows {
  readonly dimension: number;
  readonly size: number;
  /** Makes room for `rows` rows at once. */
  reserveRows(rows: number): void;
  /** Appends the batch's rows; returns the first new row. */
  addRows(batch: RowBatch): number;
  /** A row as int8 values and a scale: what a segment stores (a merge writes these). */
  quantized(row: number): QuantizedVector;
  /** A row as floats: what the memory hands out as the unit's vector. */
  vector(row: number): Float32Array;
  /** Dot products of each query with every row: `scores[q][row]` (with `reuse`, valid until the next such call). */
  scan(queries: readonly Float32Array[], reuse?: boolean): Float64Array[];
  /** Keeps the rows `keep` says yes to, in order; returns each old row's new row (-1 when dropped). */
  compact(keep: (row: number) => boolean): Int32Array;
}

/**
 * Rows of int8 vectors (one scale each) searched by dot product: WebAssembly memory scanned by an
 * integer SIMD kernel where the runtime has one, a plain buffer and a JS loop where not; both give
 * the same exact integer sums, so ranks and scores never depend on SIMD. A row is a quarter of its
 * float32 size. Layout: rows (`stride` bytes each, zero-padded) from byte 0, then scratch space for
 * int16 queries and int32 sums. Rows are only appended; `compact` drops the ones a caller no longer wants.
 */
export class VectorMatrix implements VectorRows {
  readonly dimension: number;
  private readonly stride: number;
  private readonly steps: number;
  private readonly memory: WebAssembly.Memory | undefined;
  private buffer: ArrayBuffer;
  private dots: Int8DotsFunction;
  private bytes: Int8Array;
  private scales: Float32Array;
  private capacity: number;
  private rows = 0;
  /** Queries the scratch space holds. */
  private queryRoom = 4;
  /** Where `scan` puts its scores, reused (a 100k-row scan would otherwise allocate megabytes per query). */
  private scored = new Float64Array(0);

  constructor(dimension: number, initialCapacity = 256) {
    this.dimension = dimension;
    this.stride = int8Stride(dimension);
    this.steps = querySteps(this.stride);
    this.capacity = Math.max(1, initialCapacity);
    const size = this.bytesFor(this.capacity, this.queryRoom);
    const memory = typeof WebAssembly === 'object' ? new WebAssembly.Memory({ initial: Math.ceil(size / PAGE_BYTES) }) : undefined;
    const simd = memory && simdInt8Dots(memory);
    this.memory = simd ? memory : undefined;
    this.buffer = this.memory ? this.memory.buffer : new ArrayBuffer(size);
    this.dots = simd ?? jsInt8Dots(this.buffer);
    this.bytes = new Int8Array(this.buffer);
    this.scales = new Float32Array(this.capacity);
  }

  get size(): number {
    return this.rows;
  }

  /** Makes room for `rows` rows at once (opening a memory: one allocation instead of repeated growth). */
  reserveRows(rows: number): void {
    this.reserve(rows, this.queryRoom);
  }

  /** Appends one row per vector (quantized); returns the first new row. */
  addVectors(vectors: readonly Float32Array[]): number {
    const first = this.rows;
    this.reserve(this.rows + vectors.length, this.queryRoom);
    for (const vector of vectors) {
      if (vector.length !== this.dimension) throw new RangeError(`a vector has ${vector.length} dimensions, the lane holds ${this.dimension}`);
      const { values, scale } = quantize(vector);
      this.put(values, 0, scale);
    }
    return first;
  }

  /** Appends rows already quantized (a batch's `floats`, if any, are not kept). */
  addRows({ values, scales }: RowBatch): number {
    const count = scales.length;
    if (values.length !== count * this.dimension) throw new RangeError(`${count} rows of ${this.dimension} dimensions need ${count * this.dimension} values, got ${values.length}`);
    const first = this.rows;
    this.reserve(this.rows + count, this.queryRoom);
    if (this.stride === this.dimension) {
      this.bytes.set(values, first * this.stride);
      this.scales.set(scales, first);
      this.rows += count;
    } else {
      for (let row = 0; row < count; row++) this.put(values, row * this.dimension, scales[row]!);
    }
    return first;
  }

  /** A row's stored values and scale (a copy of the values). */
  quantized(row: number): QuantizedVector {
    this.check(row);
    const at = row * this.stride;
    return { values: this.bytes.slice(at, at + this.dimension), scale: this.scales[row]! };
  }

  /** A row as floats (scale × values): what the memory hands out as the unit's vector. */
  vector(row: number): Float32Array {
    const { values, scale } = this.quantized(row);
    const out = new Float32Array(this.dimension);
    for (let i = 0; i < out.length; i++) out[i] = values[i]! * scale;
    return out;
  }

  /**
   * Dot products of each query with every row: `scores[q][row]`. With `reuse`, the arrays are views
   * of one buffer, valid until the next such call; without, they are the caller's. The
   * query is scaled to int16 (an error far below the rows' int8 step); a score is the exact integer
   * sum times both scales, computed in float64.
   */
  scan(queries: readonly Float32Array[], reuse = false): Float64Array[] {
    const rows = this.rows;
    if (rows === 0 || queries.length === 0) return queries.map(() => new Float64Array(0));
    this.reserve(rows, queries.length);
    const { stride } = this;
    const queryAt = this.capacity * stride;
    const sumsAt = queryAt + this.queryRoom * stride * 2;
    const queryValues = new Int16Array(this.buffer, queryAt, queries.length * stride);
    queryValues.fill(0);
    const queryScales = queries.map((query, q) => {
      let max = 0;
      for (let i = 0; i < this.dimension; i++) max = Math.max(max, Math.abs(query[i] ?? 0));
      if (max === 0) return 0;
      const step = max / this.steps;
      for (let i = 0; i < this.dimension; i++) queryValues[q * stride + i] = Math.round((query[i] ?? 0) / step);
      return step;
    });
    this.dots(0, queryAt, rows, stride, sumsAt, queries.length);
    const sums = new Int32Array(this.buffer, sumsAt, rows * queries.length);
    if (reuse && this.scored.length < rows * queries.length) this.scored = new Float64Array(Math.ceil(rows * queries.length * 1.25));
    const into = reuse ? this.scored : new Float64Array(rows * queries.length);
    const { scales } = this;
    const count = queries.length;
    return queries.map((_, q) => {
      const out = into.subarray(q * rows, (q + 1) * rows);
      const queryScale = queryScales[q]!;
      for (let row = 0, at = q; row < rows; row++, at += count) out[row] = sums[at]! * scales[row]! * queryScale;
      return out;
    });
  }

  compact(keep: (row: number) => boolean): Int32Array {
    const { moved, left } = compactRows(this.rows, keep, (from, to) => {
      this.bytes.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
      this.scales[to] = this.scales[from]!;
    });
    this.rows = left;
    return moved;
  }

  clear(): void {
    this.rows = 0;
  }

  private put(values: Int8Array, from: number, scale: number): void {
    const at = this.rows * this.stride;
    this.bytes.set(values.subarray(from, from + this.dimension), at);
    if (this.stride > this.dimension) this.bytes.fill(0, at + this.dimension, at + this.stride);
    this.scales[this.rows] = scale;
    this.rows++;
  }

  private check(row: number): void {
    if (!Number.isInteger(row) || row < 0 || row >= this.rows) throw new RangeError(`row ${row} is not in a matrix of ${this.rows} rows`);
  }

  private bytesFor(capacity: number, queries: number): number {
    // Rows, then int16 queries, then int32 sums: each part starts 16-byte aligned since stride is.
    return capacity * this.stride + queries * this.stride * 2 + capacity * queries * 4;
  }

  /** Makes room for `rows` rows and `queries` queries; rows stay where they are. */
  private reserve(rows: number, queries: number): void {
    if (rows <= this.capacity && queries <= this.queryRoom) return;
    const capacity = rows <= this.capacity ? this.capacity : Math.max(rows, Math.ceil(this.capacity * 1.5));
    const queryRoom = Math.max(queries, this.queryRoom);
    const size = this.bytesFor(capacity, queryRoom);
    if (this.memory) {
      const missing = size - this.memory.buffer.byteLength;
      if (missing > 0) this.memory.grow(Math.ceil(missing / PAGE_BYTES));
      this.buffer = this.memory.buffer;
    } else {
      const grown = new ArrayBuffer(size);
      new Int8Array(grown).set(this.bytes.subarray(0, this.rows * this.stride));
      this.buffer = grown;
      this.dots = jsInt8Dots(grown);
    }
    this.bytes = new Int8Array(this.buffer);
    if (capacity > this.capacity) {
      const scales = new Float32Array(capacity);
      scales.set(this.scales.subarray(0, this.rows));
      this.scales = scales;
    }
    this.capacity = capacity;
    this.queryRoom = queryRoom;
  }
}

/**
 * Keeps the rows `keep` says yes to, in order; `move(from, to)` copies each kept row that moves down.
 * Returns each old row's new row (-1 when dropped) and how many rows are left.
 */
export function compactRows(rows: number, keep: (row: number) => boolean, move: (from: number, to: number) => void): { moved: Int32Array; left: number } {
  const moved = new Int32Array(rows).fill(-1);
  let next = 0;
  for (let row = 0; row < rows; row++) {
    if (!keep(row)) continue;
    if (next !== row) move(row, next);
    moved[row] = next++;
  }
  return { moved, left: next };
}

/** Scales a vector to unit length in place; a zero vector stays zero. */
export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}
