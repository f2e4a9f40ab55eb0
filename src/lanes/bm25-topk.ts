/**
 * Exact top-k BM25 over an Orama text index, by max-score pruning.
 *
 * The rule: every query word has an upper bound on what it can add to one document's score:
 * idf × the BM25 term factor at the word's largest tf and shortest field seen (the factor grows
 * with tf and shrinks with field length).
 * Words are scored from the highest bound down, each over its whole posting set. Once the words
 * left could add less, together, than the k-th best score so far, no unseen document can reach
 * the top k: the words left (the common ones, with near-zero idf and huge posting sets) are only
 * looked up for the documents already in reach. The result is the same top k as scoring every
 * document; the final scores are recomputed in query order, so they equal Orama's to the bit.
 */
import type { PostingList } from './bm25-postings.js';
import { TopK, ranksAbove } from './top-k.js';

/** BM25's parameters: term-frequency saturation `k`, length normalisation `b`, and BM25+'s floor `d`. */
export interface Bm25Parameters {
  readonly k: number;
  readonly b: number;
  readonly d: number;
}

/** Orama 3's BM25 parameters (its defaults). */
export const ORAMA_BM25: Bm25Parameters = { k: 1.2, b: 0.75, d: 0.5 };

interface RadixNodeView {
  readonly s: string;
  readonly w: string;
  readonly e: boolean;
  readonly c: ReadonlyMap<string, RadixNodeView>;
  readonly d: ReadonlySet<number>;
}

/** The parts of Orama 3's index (`orama.data.index`) that BM25 reads. Documents are internal ids. */
export interface OramaTextIndex {
  readonly indexes: Readonly<Record<string, { readonly node: RadixNodeView }>>;
  readonly frequencies: Readonly<Record<string, Readonly<Record<number, Readonly<Record<string, number>> | undefined>>>>;
  readonly tokenOccurrences: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly avgFieldLength: Readonly<Record<string, number>>;
  readonly fieldLengths: Readonly<Record<string, Readonly<Record<number, number | undefined>>>>;
}

/**
 * An indexed word a query token matched: Orama's set of the documents holding it (internal ids),
 * and the same postings with their tf as typed arrays, for scanning.
 */
export interface QueryWord {
  readonly word: string;
  readonly docs: ReadonlySet<number>;
  readonly list: PostingList;
}

interface Term {
  readonly word: string;
  readonly list: PostingList;
  readonly idf: number;
  /** How many query tokens matched it (Orama adds a repeated token's score once per repeat). */
  readonly times: number;
  readonly bound: number;
}

/**
 * The BM25 term factor (d + tf(k+1)) / (tf + k(1 - b + b·len/avg)) at its largest. It grows with
 * tf (its slope has the sign of (k+1)·k(1-b+…) - d > 0) and shrinks with len, so the largest tf
 * and shortest field bound it; tf ≤ 1 and len ≥ 0 bound it for any word.
 */
function factorBound(list: PostingList, avg: number, { k: K, b: B, d: D }: Bm25Parameters): number {
  const tf = list.maxTf;
  const length = list.minLength;
  // A hair of slack so rounding in the bound can never undercut an exact score.
  return ((D + tf * (K + 1)) / (tf + K * (1 - B + (B * length) / avg))) * (1 + 1e-12);
}

/** Scratch arrays indexed by internal id, reused across queries (grown, never shrunk). */
let scores = new Float64Array(0);
let state = new Uint8Array(0);
const UNSEEN = 0;
const CANDIDATE = 1;
const REJECTED = 2;

/**
 * The `limit` best documents for the query, best first, ties by lower internal id (Orama's order).
 * @param tokenWords for each query token in order, the indexed words it matched
 * @param docsCount documents in the index (Orama's `count`)
 * @param maxInternalId the largest internal id in use
 * @param fieldLengths field length by internal id (the same numbers as Orama's)
 * @param accept filters documents by internal id; called once per document reached
 * @param parameters BM25's k, b and d (Orama's defaults unless the index says otherwise)
 */
export function scoreTopK(
  index: OramaTextIndex,
  prop: string,
  tokenWords: readonly (readonly QueryWord[])[],
  docsCount: number,
  maxInternalId: number,
  limit: number,
  fieldLengths: Float64Array,
  accept?: (doc: number) => boolean,
  parameters: Bm25Parameters = ORAMA_BM25,
): { key: number; score: number }[] {
  const { k: K, b: B, d: D } = parameters;
  const frequencies = index.frequencies[prop]!;
  const oramaLengths = index.fieldLengths[prop]!;
  const occurrences = index.tokenOccurrences[prop]!;
  const avg = index.avgFieldLength[prop]!;
  const idfOf = (word: string) => {
    const matching = typeof occurrences[word] === 'number' ? occurrences[word] : 0;
    return Math.log(1 + (docsCount - matching + 0.5) / (matching + 0.5));
  };
  // Orama's BM25 (components/algorithms.js), written the same way so scores match to the bit.
  const factor = (tf: number, length: number) => (D + tf * (K + 1)) / (tf + K * (1 - B + (B * length) / avg));
  const exactScore = (idf: number, doc: number, word: string) => {
    const tf = frequencies[doc]?.[word] ?? 0;
    return (idf * (D + tf * (K + 1))) / (tf + K * (1 - B + (B * oramaLengths[doc]!) / avg));
  };

  const byWord = new Map<string, { word: string; list: PostingList; times: number }>();
  for (const words of tokenWords) {
    for (const { word, list } of words) {
      const seen = byWord.get(word);
      if (seen) seen.times++;
      else byWord.set(word, { word, list, times: 1 });
    }
  }
  if (byWord.size === 0) return [];
  const terms: Term[] = [...byWord.values()]
    .map((term) => {
      const idf = idfOf(term.word);
      return { ...term, idf, bound: term.times * idf * factorBound(term.list, avg, parameters) };
    })
    .sort((a, b) => b.bound - a.bound);

  if (scores.length <= maxInternalId) {
    scores = new Float64Array(maxInternalId + 1024);
    state = new Uint8Array(maxInternalId + 1024);
  }
  const touched: number[] = [];
  const candidates: number[] = [];
  try {
    // Bound on what the terms after position i can still add.
    const rest = new Float64Array(terms.length);
    for (let i = terms.length - 2; i >= 0; i--) rest[i] = rest[i + 1]! + terms[i + 1]!.bound;

    let i = 0;
    let best = 0;
    let threshold = -Infinity;
    for (; i < terms.length; i++) {
      const { list, idf, times } = terms[i]!;
      const { docs, tfs, size } = list;
      const weight = times * idf;
      for (let p = 0; p < size; p++) {
        const doc = docs[p]!;
        const seen = state[doc]!;
        if (seen === REJECTED) continue;
        if (seen === UNSEEN) {
          touched.push(doc);
          if (accept && !accept(doc)) {
            state[doc] = REJECTED;
            continue;
          }
          state[doc] = CANDIDATE;
          scores[doc] = 0;
          candidates.push(doc);
        }
        const score = (scores[doc]! += weight * factor(tfs[p]!, fieldLengths[doc]!));
        if (score > best) best = score;
      }
      // Prune once the remaining words cannot lift an unseen document past the k-th best.
      if (i + 1 < terms.length && candidates.length >= limit && rest[i]! < best) {
        threshold = kthBest(candidates, limit);
        if (rest[i]! < threshold) break;
      }
    }

    let pool = candidates;
    if (i < terms.length - 1) {
      const left = rest[i]!;
      pool = [];
      for (const doc of candidates) {
        if (scores[doc]! + left >= threshold) pool.push(doc);
        else state[doc] = REJECTED;
      }
      // The words left only add to documents still in reach (state CANDIDATE), by scanning their arrays.
      for (let j = i + 1; j < terms.length; j++) {
        const { list, idf, times } = terms[j]!;
        const { docs, tfs, size } = list;
        const weight = times * idf;
        for (let p = 0; p < size; p++) {
          const doc = docs[p]!;
          if (state[doc] === CANDIDATE) scores[doc]! += weight * factor(tfs[p]!, fieldLengths[doc]!);
        }
      }
    }

    // The k-th best with a margin for summation order, then exact scores in query-token order.
    const cut = kthBest(pool, limit);
    const margin = Math.abs(cut) * 1e-9 + 1e-12;
    const finalists = pool.filter((doc) => scores[doc]! >= cut - margin);
    const exact = finalists.map((doc) => {
      let score: number | undefined;
      for (const words of tokenWords) {
        for (const { word, docs } of words) {
          if (!docs.has(doc)) continue;
          const add = exactScore(idfOf(word), doc, word);
          score = score === undefined ? add : score + add;
        }
      }
      return { key: doc, score: score ?? 0 };
    });
    exact.sort((a, b) => (ranksAbove(a.key, a.score, b.key, b.score) ? -1 : ranksAbove(b.key, b.score, a.key, a.score) ? 1 : 0));
    return exact.slice(0, limit);
  } finally {
    for (const doc of touched) state[doc] = UNSEEN;
  }
}

/** The `limit`-th best score among the documents (-Infinity when there are fewer). */
function kthBest(docs: readonly number[], limit: number): number {
  if (docs.length < limit) return -Infinity;
  const top = new TopK(limit);
  for (const doc of docs) top.offer(doc, scores[doc]!);
  return top.threshold;
}
