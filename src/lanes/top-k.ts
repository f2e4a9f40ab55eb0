/**
 * The best `limit` (key, score) pairs offered, without sorting everything offered: a bounded
 * min-heap in typed arrays, so a scan over 100k rows allocates nothing per row.
 * Order: higher score first; equal scores by lower `order(key)` when an order is given (the lanes
 * pass the rounds' history order, so ties do not depend on how the segments lie), then lower key
 * (Orama's tie rule for BM25: insertion order).
 */
export class TopK {
  readonly limit: number;
  private readonly keys: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(
    limit: number,
    private readonly order?: (key: number) => number,
  ) {
    this.limit = Math.max(0, Math.floor(limit));
    this.keys = new Int32Array(this.limit);
    this.scores = new Float64Array(this.limit);
  }

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.limit;
  }

  /** The worst kept score once full (a new pair must beat it); -Infinity before. */
  get threshold(): number {
    return this.count >= this.limit && this.limit > 0 ? this.scores[0]! : -Infinity;
  }

  offer(key: number, score: number): void {
    if (this.limit === 0) return;
    if (this.count < this.limit) {
      this.siftUp(this.count++, key, score);
      return;
    }
    if (!this.above(key, score, this.keys[0]!, this.scores[0]!)) return;
    this.siftDown(key, score);
  }

  /** Kept pairs, best first. */
  sorted(): { key: number; score: number }[] {
    const out: { key: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ key: this.keys[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || this.tie(a.key, b.key));
  }

  private above(keyA: number, scoreA: number, keyB: number, scoreB: number): boolean {
    return scoreA > scoreB || (scoreA === scoreB && this.tie(keyA, keyB) < 0);
  }

  /** Negative when key A goes first among equal scores. */
  private tie(keyA: number, keyB: number): number {
    return (this.order ? this.order(keyA) - this.order(keyB) : 0) || keyA - keyB;
  }

  private siftUp(at: number, key: number, score: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      // The root holds the worst pair: move the parent down while the new pair is worse than it.
      if (!this.above(this.keys[parent]!, this.scores[parent]!, key, score)) break;
      this.keys[at] = this.keys[parent]!;
      this.scores[at] = this.scores[parent]!;
      at = parent;
    }
    this.keys[at] = key;
    this.scores[at] = score;
  }

  private siftDown(key: number, score: number): void {
    const n = this.count;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= n) break;
      // Pick the worse child; it moves up if it is worse than the new pair.
      if (child + 1 < n && this.above(this.keys[child]!, this.scores[child]!, this.keys[child + 1]!, this.scores[child + 1]!)) child++;
      if (!this.above(key, score, this.keys[child]!, this.scores[child]!)) break;
      this.keys[at] = this.keys[child]!;
      this.scores[at] = this.scores[child]!;
      at = child;
    }
    this.keys[at] = key;
    this.scores[at] = score;
  }
}
