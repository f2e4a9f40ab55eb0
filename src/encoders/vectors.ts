/** Small vector helpers shared by the encoders. */

/**
 * Scales `vector` in place to unit length and returns it. A zero vector stays zero (its cosine with
 * anything is 0, which is the honest answer for an input with no signal).
 */
export function l2NormalizeInPlace(vector: Float32Array): Float32Array {
  let sumOfSquares = 0;
  for (let i = 0; i < vector.length; i++) sumOfSquares += vector[i]! * vector[i]!;
  if (sumOfSquares === 0) return vector;
  const scale = 1 / Math.sqrt(sumOfSquares);
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! * scale;
  return vector;
}

/**
 * Cuts a row-major `[rows, dimension]` buffer into one unit-length copy per row.
 * Copies, so the vectors own their memory (they outlive the tensor they came from).
 */
export function normalizedRows(data: Float32Array, rows: number, dimension: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let row = 0; row < rows; row++) {
    out.push(l2NormalizeInPlace(data.slice(row * dimension, (row + 1) * dimension)));
  }
  return out;
}

/** Dot product; the cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}
