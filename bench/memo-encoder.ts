import { VmemError, type TextEmbedder } from 'vmem';
import type { VectorCache } from './vector-cache.js';

/** A text encoder that remembers the vector of every text it embedded. */
export interface MemoTextEncoder extends TextEmbedder {
  /**
   * When false, every text is embedded again (vectors are still remembered). The benchmark turns it
   * off while timing queries, so latency includes embedding the question.
   */
  useCache: boolean;
  /** Texts served from memory so far. */
  readonly hits: number;
  /** Texts the wrapped encoder embedded so far. */
  readonly misses: number;
  /** Texts served from the on-disk cache so far (counted among `hits`). */
  readonly diskHits: number;
  /** Seconds spent in the wrapped encoder so far (to tell embedding from indexing in build time). */
  readonly embedSeconds: number;
}

/**
 * Wraps a text encoder with a per-text memo. Same id and dimension, so a memory cannot tell the
 * difference. In caption-proxy mode it saves embedding each caption twice (text lane and image lane,
 * which a memory encodes concurrently, so pending vectors are shared too), and it lets the
 * matched-budget search re-ask questions without re-embedding them. A failed call is not remembered.
 * With a `store`, vectors embedded in earlier runs come from disk (while the cache is on) and new
 * ones go there.
 */
export function memoizeTextEncoder(inner: TextEmbedder, store?: VectorCache): MemoTextEncoder {
  const memo = new Map<string, Promise<Float32Array>>();
  let hits = 0;
  let misses = 0;
  let diskHits = 0;
  let embedMs = 0;

  const embedFresh = (texts: readonly string[]): void => {
    const start = performance.now();
    const batch = inner.embed(texts).then((vectors) => {
      embedMs += performance.now() - start;
      if (vectors.length !== texts.length) {
        throw new VmemError('MODEL_LOAD_FAILED', `Text encoder ${inner.id} returned ${vectors.length} vectors for ${texts.length} texts.`);
      }
      vectors.forEach((vector, i) => store?.put(texts[i]!, vector));
      return vectors;
    });
    texts.forEach((text, i) => {
      const vector = batch.then((vectors) => vectors[i] as Float32Array);
      memo.set(text, vector);
      vector.catch(() => {
        if (memo.get(text) === vector) memo.delete(text);
      });
    });
  };

  const encoder: MemoTextEncoder = {
    id: inner.id,
    dimension: inner.dimension,
    useCache: true,
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    get diskHits() {
      return diskHits;
    },
    get embedSeconds() {
      return embedMs / 1000;
    },
    async embed(texts) {
      if (encoder.useCache && store) {
        for (const text of texts) {
          const stored = memo.has(text) ? undefined : store.get(text);
          if (stored) {
            memo.set(text, Promise.resolve(stored));
            diskHits++;
          }
        }
      }
      const fresh = [...new Set(texts.filter((text) => !(encoder.useCache && memo.has(text))))];
      if (fresh.length > 0) embedFresh(fresh);
      misses += fresh.length;
      hits += texts.length - fresh.length;
      const vectors = await Promise.all(texts.map((text) => memo.get(text) as Promise<Float32Array>));
      // Copies, so a caller that writes into its vector cannot change what others get.
      return vectors.map((vector) => vector.slice());
    },
    ...(inner.dispose ? { dispose: () => (inner.dispose as () => Promise<void>)() } : {}),
  };
  return encoder;
}
