/**
 * A column copy of Orama's term frequencies: per indexed word, the internal ids of its documents and
 * their tf, in typed arrays, plus each document's field length. Orama keeps tf in one object per
 * document (`frequencies[doc][word]`), which costs a hash lookup and a cache miss per posting; the
 * search scans these arrays instead (about 8 bytes per posting). Also tracks per-word score bounds.
 */

/** One word's postings: `docs[i]` has share `tfs[i]` of its field; the first `size` are in use. */
export interface PostingList {
  docs: Int32Array;
  tfs: Float64Array;
  size: number;
  /** Largest tf and shortest field seen (only ever widened, so valid after removals). */
  maxTf: number;
  minLength: number;
}

export class TfPostings {
  private readonly lists = new Map<string, PostingList>();
  private fieldLengths = new Float64Array(1024);

  list(word: string): PostingList | undefined {
    return this.lists.get(word);
  }

  /** Field length of a document by internal id. */
  get lengths(): Float64Array {
    return this.fieldLengths;
  }

  /** Records a document Orama has just indexed: its distinct words, their tf, and its field length. */
  add(doc: number, words: readonly string[], tf: number, length: number): void {
    if (doc >= this.fieldLengths.length) {
      const grown = new Float64Array(Math.max(doc + 1, this.fieldLengths.length * 2));
      grown.set(this.fieldLengths);
      this.fieldLengths = grown;
    }
    this.fieldLengths[doc] = length;
    for (const word of words) {
      let list = this.lists.get(word);
      if (!list) {
        list = { docs: new Int32Array(4), tfs: new Float64Array(4), size: 0, maxTf: tf, minLength: length };
        this.lists.set(word, list);
      }
      if (list.size === list.docs.length) {
        const docs = new Int32Array(list.size * 2);
        docs.set(list.docs);
        const grownTfs = new Float64Array(list.size * 2);
        grownTfs.set(list.tfs);
        list.docs = docs;
        list.tfs = grownTfs;
      }
      list.docs[list.size] = doc;
      list.tfs[list.size] = tf;
      list.size++;
      if (tf > list.maxTf) list.maxTf = tf;
      if (length < list.minLength) list.minLength = length;
    }
  }

  /** Drops documents (internal ids) from the lists of the given words: one pass per word. */
  remove(docs: ReadonlySet<number>, words: Iterable<string>): void {
    for (const word of words) {
      const list = this.lists.get(word);
      if (!list) continue;
      let kept = 0;
      for (let i = 0; i < list.size; i++) {
        if (docs.has(list.docs[i]!)) continue;
        list.docs[kept] = list.docs[i]!;
        list.tfs[kept] = list.tfs[i]!;
        kept++;
      }
      list.size = kept;
      if (kept === 0) this.lists.delete(word);
    }
  }
}
