/**
 * The best `limit` (key, score) pairs offered, without sorting everything offered: a bounded
 * min-heap in typed arrays, so a scan over 100k rows allocates nothing per row.
 * Order: higher score first; equal scores by lower key first (Orama's tie rule for BM25).
 */
export class TopK {
  readonly limit: number;
  private readonly keys: Int32Array;
  private readonly scores: Float64Array;
  private count = 0;

  constructor(limit: number) {
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
    if (!ranksAbove(key, score, this.keys[0]!, this.scores[0]!)) return;
    this.siftDown(key, score);
  }

  /** Kept pairs, best first. */
  sorted(): { key: number; score: number }[] {
    const out: { key: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ key: this.keys[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.key - b.key);
  }

  private siftUp(at: number, key: number, score: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      // The root holds the worst pair: move the parent down while the new pair is worse than it.
      if (!ranksAbove(this.keys[parent]!, this.scores[parent]!, key, score)) break;
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
      if (child + 1 < n && ranksAbove(this.keys[child]!, this.scores[child]!, this.keys[child + 1]!, this.scores[child + 1]!)) child++;
      if (!ranksAbove(key, score, this.keys[child]!, this.scores[child]!)) break;
      this.keys[at] = this.keys[child]!;
      this.scores[at] = this.scores[child]!;
      at = child;
    }
    this.keys[at] = key;
    this.scores[at] = score;
  }
}

/** Does pair A rank above pair B (higher score, then lower key)? */
export function ranksAbove(keyA: number, scoreA: number, keyB: number, scoreB: number): boolean {
  return scoreA > scoreB || (scoreA === scoreB && keyA < keyB);
}
