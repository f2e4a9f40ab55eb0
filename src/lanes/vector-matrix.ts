/** A row-per-vector store in one growable Float32Array, searched by dot product (vectors are unit length). */
export class VectorMatrix {
  readonly dimension: number;
  private data: Float32Array;
  private readonly ids: string[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(dimension: number, initialCapacity = 256) {
    this.dimension = dimension;
    this.data = new Float32Array(dimension * initialCapacity);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  add(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimension) {
      throw new RangeError(`vector for ${id} has ${vector.length} dimensions, the lane holds ${this.dimension}`);
    }
    if (this.rowOf.has(id)) return;
    const row = this.ids.length;
    if ((row + 1) * this.dimension > this.data.length) {
      const grown = new Float32Array(Math.max(this.data.length * 2, (row + 1) * this.dimension));
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(vector, row * this.dimension);
    this.ids.push(id);
    this.rowOf.set(id, row);
  }

  /** A copy of the stored vector, or undefined. */
  get(id: string): Float32Array | undefined {
    const row = this.rowOf.get(id);
    return row === undefined ? undefined : this.data.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Removes a row by moving the last row into its place. */
  remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined) return;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
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

  /** The `limit` rows most similar to `query`, best first; `accept` filters by id. */
  nearest(query: Float32Array, limit: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    const dim = this.dimension;
    const data = this.data;
    const top = new TopK(limit);
    for (let row = 0; row < this.ids.length; row++) {
      const id = this.ids[row]!;
      if (accept && !accept(id)) continue;
      let dot = 0;
      const base = row * dim;
      for (let i = 0; i < dim; i++) dot += data[base + i]! * query[i]!;
      top.offer(id, dot);
    }
    return top.sorted();
  }
}

/** Keeps the best `limit` scored ids seen, with a sorted insertion (limit is small). */
class TopK {
  private readonly items: { id: string; score: number }[] = [];
  constructor(private readonly limit: number) {}

  offer(id: string, score: number): void {
    const items = this.items;
    if (items.length >= this.limit && score <= items[items.length - 1]!.score) return;
    let at = items.length;
    while (at > 0 && items[at - 1]!.score < score) at--;
    items.splice(at, 0, { id, score });
    if (items.length > this.limit) items.pop();
  }

  sorted(): { id: string; score: number }[] {
    return this.items;
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
