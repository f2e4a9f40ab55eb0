/**
 * BM25 over packed postings. Orama earns its place as the tokenizer (its English stemmer and stop
 * words); the index itself is ours, in typed arrays, so it can be written to a segment and read back
 * without tokenizing anything again:
 *
 * - a section (`Bm25Section`) holds a batch of documents: each document's field length, a sorted
 *   term table, and per term its documents in ascending order. The tokenizer keeps one of each token,
 *   so every term frequency is 1 / field length and needs no storage;
 * - an index (`Bm25Index`) searches a list of sections at once, with the statistics (documents,
 *   average field length, document frequencies) of their live documents, and Orama's BM25 formula:
 *   the scores are Orama's `search` scores (up to the last bits of the average field length, which
 *   Orama keeps as a running mean), and the ranking keeps Orama's tie rule (insertion order).
 *
 * The search keeps only the top `limit` by exact max-score pruning: each term bounds what it can add
 * to one document (idf × the BM25 factor at its shortest document), terms are scored from the highest
 * bound down, and once the terms left cannot lift an unseen document past the k-th best, they only
 * add to the documents already in reach. Final scores are recomputed in query-token order.
 */
import type { Tokenizer } from '@orama/orama';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { encodeStrings, findString, decodeStrings, type StringTable } from './string-table.js';
import { STOP_WORDS } from './stop-words.js';
import { TopK } from './top-k.js';

// Orama matches query tokens as prefixes ("cat" would match "catalog"); a terminal mark on every
// token keeps the words whole (and the tokens the same as the earlier Orama-based index made).
const WORD_END = '\u0001';

/** Orama's English tokenizer (stemmed, stop words dropped, one of each token), each token marked as a whole word. */
export function createWholeWordTokenizer(): Tokenizer {
  const base = oramaTokenizer.createTokenizer({ language: 'english', stemming: true, stopWords: STOP_WORDS });
  // Orama's tokenize calls `this.normalizeToken` per word; this one remembers each word's marked
  // token (or '' for a stop word), so a word is stemmed and marked once.
  const normalize = base.normalizeToken;
  const marked = new Map<string, string>();
  base.normalizeToken = function (this: typeof base, prop: string, word: string): string {
    let token = marked.get(word);
    if (token === undefined) {
      const stem = normalize.call(this, prop, word, false);
      token = stem === '' ? '' : stem + WORD_END;
      marked.set(word, token);
    }
    return token;
  };
  return {
    ...base,
    tokenize(raw: string, language?: string, prop?: string): string[] {
      return base.tokenize(raw, language, prop, false);
    },
  };
}

/** BM25's parameters: term-frequency saturation `k`, length normalisation `b`, and BM25+'s floor `d`. */
export interface Bm25Parameters {
  readonly k: number;
  readonly b: number;
  readonly d: number;
}

/** Orama 3's BM25 parameters (its defaults). */
export const ORAMA_BM25: Bm25Parameters = { k: 1.2, b: 0.75, d: 0.5 };

/** A batch of documents' postings, as a segment stores them. */
export interface Bm25Section {
  /** Per document: the local round it belongs to. */
  readonly owner: Uint32Array;
  /** Per document: what it is within its round (the caption's image, as an index the segment defines; -1 for none). */
  readonly tag: Int32Array;
  /** Per document: its distinct tokens. */
  readonly lengths: Uint32Array;
  /** The terms, sorted in JS string order. */
  readonly terms: StringTable;
  /** Per term: the shortest document that holds it (what bounds its score). */
  readonly minLength: Uint32Array;
  /** Per term, and one more: where its documents start in `postings`. */
  readonly starts: Uint32Array;
  /** Documents per term, ascending. */
  readonly postings: Uint32Array;
}

/** A document to index: its round (local), its tag, and its distinct tokens. */
export interface Bm25Doc {
  readonly owner: number;
  readonly tag: number;
  readonly tokens: readonly string[];
}

export function buildBm25Section(docs: readonly Bm25Doc[]): Bm25Section {
  const docsOf = new Map<string, number[]>();
  docs.forEach((doc, index) => {
    for (const token of doc.tokens) {
      const list = docsOf.get(token);
      if (list) list.push(index);
      else docsOf.set(token, [index]);
    }
  });
  const terms = [...docsOf.keys()].sort();
  const lengths = Uint32Array.from(docs, (doc) => doc.tokens.length);
  return packSection(
    Uint32Array.from(docs, (doc) => doc.owner),
    Int32Array.from(docs, (doc) => doc.tag),
    lengths,
    terms,
    terms.map((term) => docsOf.get(term)!),
  );
}

/** A section to fold into a merge: which of its documents survive, and their new owners and tags. */
export interface Bm25MergeInput {
  readonly section: Bm25Section;
  readonly keep: (doc: number) => boolean;
  readonly owner: (owner: number) => number;
  readonly tag: (tag: number) => number;
}

/** One section with the kept documents of `inputs`, in input order (so insertion order survives). */
export function mergeBm25Sections(inputs: readonly Bm25MergeInput[]): Bm25Section {
  const owners: number[] = [];
  const tags: number[] = [];
  const lengths: number[] = [];
  const renumbered = inputs.map(({ section, keep, owner, tag }) => {
    const next = new Int32Array(section.owner.length).fill(-1);
    for (let doc = 0; doc < section.owner.length; doc++) {
      if (!keep(doc)) continue;
      next[doc] = owners.length;
      owners.push(owner(section.owner[doc]!));
      tags.push(tag(section.tag[doc]!));
      lengths.push(section.lengths[doc]!);
    }
    return next;
  });
  const docsOf = new Map<string, number[]>();
  inputs.forEach(({ section }, input) => {
    const names = decodeStrings(section.terms);
    const map = renumbered[input]!;
    names.forEach((term, t) => {
      let list: number[] | undefined;
      for (let p = section.starts[t]!; p < section.starts[t + 1]!; p++) {
        const doc = map[section.postings[p]!]!;
        if (doc < 0) continue;
        list ??= docsOf.get(term) ?? [];
        list.push(doc);
      }
      if (list && !docsOf.has(term)) docsOf.set(term, list);
    });
  });
  const terms = [...docsOf.keys()].sort();
  return packSection(Uint32Array.from(owners), Int32Array.from(tags), Uint32Array.from(lengths), terms, terms.map((term) => docsOf.get(term)!));
}

function packSection(owner: Uint32Array, tag: Int32Array, lengths: Uint32Array, terms: readonly string[], docsOfTerm: readonly (readonly number[])[]): Bm25Section {
  const starts = new Uint32Array(terms.length + 1);
  let total = 0;
  docsOfTerm.forEach((docs, t) => {
    starts[t] = total;
    total += docs.length;
  });
  starts[terms.length] = total;
  const postings = new Uint32Array(total);
  const minLength = new Uint32Array(terms.length);
  docsOfTerm.forEach((docs, t) => {
    let shortest = Infinity;
    docs.forEach((doc, i) => {
      postings[starts[t]! + i] = doc;
      shortest = Math.min(shortest, lengths[doc]!);
    });
    minLength[t] = shortest;
  });
  return { owner, tag, lengths, terms: encodeStrings(terms), minLength, starts, postings };
}

/** A section in an index: which slot (the in-memory identity of a round) each document belongs to. */
export interface Bm25Part {
  readonly section: Bm25Section;
  /** Per document: its round's slot; a slot `dead` marks is left out of every statistic and result. */
  readonly docSlot: Int32Array;
}

/** A hit: the part and document, its slot, and its BM25 score. */
export interface Bm25Hit {
  readonly part: Bm25Part;
  readonly doc: number;
  readonly slot: number;
  readonly score: number;
}

interface Statistics {
  /** Live documents, and their summed lengths. */
  readonly docs: number;
  readonly length: number;
  readonly liveOfPart: readonly number[];
  /** BM25's factor of a term in a document of each length (index: the document's distinct tokens). */
  readonly factorOf: Float64Array;
}

interface Term {
  /** How many query tokens are this term (Orama adds a repeated token's score once per repeat). */
  times: number;
  readonly lists: { part: number; term: number }[];
  /** Per part: the term's index in it, -1 where the part does not hold it. */
  readonly termOfPart: Int32Array;
  idf: number;
  bound: number;
}

/** Steps a galloping probe costs against reading one posting, roughly: below that share of a list, probing wins. */
const GALLOP_COST = 8;

const UNSEEN = 0;
const CANDIDATE = 1;
const REJECTED = 2;

/**
 * BM25 over the documents of several sections. Liveness comes from `dead` (by slot), shared with the
 * other lanes; call `invalidate` after marking slots dead so the statistics are counted again.
 */
export class Bm25Index {
  private parts: Bm25Part[] = [];
  private bases: number[] = [];
  private total = 0;
  private stats: Statistics | undefined;
  private scores = new Float64Array(0);
  private state = new Uint8Array(0);
  // Scratch lists reused by every search: a common word touches most documents, and fresh arrays
  // that size on every query made garbage collection pauses the slowest queries' cost.
  private readonly touched = new IntList();
  private readonly candidates = new IntList();
  private readonly pool = new IntList();

  /**
   * @param parameters BM25's k, b and d; scores equal Orama's `search` with the same `relevance`.
   * @param slotOrder orders equal scores by their slots (the lanes give the rounds' history order);
   *   without it, or among equal orders, the earlier part and document go first.
   */
  constructor(
    private readonly isDead: (slot: number) => boolean,
    private readonly parameters: Bm25Parameters = ORAMA_BM25,
    private readonly slotOrder?: (slot: number) => number,
  ) {}

  get sections(): readonly Bm25Part[] {
    return this.parts;
  }

  /** Live documents. */
  get size(): number {
    return this.statistics().docs;
  }

  /** Replaces the parts (in order: their order is the tie order of equal scores). */
  setParts(parts: readonly Bm25Part[]): void {
    this.parts = [...parts];
    this.bases = [];
    let base = 0;
    for (const part of this.parts) {
      this.bases.push(base);
      base += part.section.owner.length;
    }
    this.total = base;
    this.stats = undefined;
  }

  addPart(part: Bm25Part): void {
    this.setParts([...this.parts, part]);
  }

  /** Counts the statistics again on the next search (after slots were marked dead). */
  invalidate(): void {
    this.stats = undefined;
  }

  /**
   * The `limit` best documents for the tokens, best first (ties: the slot order, then the earlier
   * part, then the earlier document). `accept` filters by slot, asked once per document reached.
   */
  search(tokens: readonly string[], limit: number, accept?: (slot: number) => boolean): Bm25Hit[] {
    const { docs: docsCount, length, liveOfPart, factorOf } = this.statistics();
    if (docsCount === 0 || limit <= 0 || tokens.length === 0) return [];
    const { k: K, b: B, d: D } = this.parameters;
    const avg = length / docsCount;

    const byToken = new Map<string, Term>();
    for (const token of tokens) {
      const seen = byToken.get(token);
      if (seen) {
        seen.times++;
        continue;
      }
      const lists: Term['lists'] = [];
      let df = 0;
      let shortest = Infinity;
      this.parts.forEach((part, p) => {
        const t = findString(part.section.terms, token);
        if (t < 0) return;
        const live = this.liveDocuments(p, t, liveOfPart);
        if (live === 0) return;
        df += live;
        shortest = Math.min(shortest, part.section.minLength[t]!);
        lists.push({ part: p, term: t });
      });
      if (lists.length === 0) continue;
      const idf = Math.log(1 + (docsCount - df + 0.5) / (df + 0.5));
      const termOfPart = new Int32Array(this.parts.length).fill(-1);
      for (const list of lists) termOfPart[list.part] = list.term;
      // A hair of slack so rounding in the bound can never undercut an exact score.
      byToken.set(token, { times: 1, lists, termOfPart, idf, bound: idf * factorOf[shortest]! * (1 + 1e-12) });
    }
    if (byToken.size === 0) return [];
    const terms = [...byToken.values()].map((term) => ({ ...term, bound: term.bound * term.times })).sort((a, b) => b.bound - a.bound);

    if (this.scores.length < this.total) {
      this.scores = new Float64Array(this.total + 1024);
      this.state = new Uint8Array(this.total + 1024);
    }
    const { scores, state, touched, candidates } = this;
    touched.clear();
    candidates.clear();
    try {
      const rest = new Float64Array(terms.length);
      for (let i = terms.length - 2; i >= 0; i--) rest[i] = rest[i + 1]! + terms[i + 1]!.bound;
      let i = 0;
      let best = 0;
      let threshold = -Infinity;
      for (; i < terms.length; i++) {
        const { lists, idf, times } = terms[i]!;
        const weight = times * idf;
        for (const list of lists) {
          const part = this.parts[list.part]!;
          const base = this.bases[list.part]!;
          const { starts, postings, lengths } = part.section;
          for (let p = starts[list.term]!; p < starts[list.term + 1]!; p++) {
            const doc = postings[p]!;
            const global = base + doc;
            const seen = state[global]!;
            if (seen === REJECTED) continue;
            if (seen === UNSEEN) {
              touched.push(global);
              const slot = part.docSlot[doc]!;
              if (this.isDead(slot) || (accept && !accept(slot))) {
                state[global] = REJECTED;
                continue;
              }
              state[global] = CANDIDATE;
              scores[global] = 0;
              candidates.push(global);
            }
            const score = (scores[global]! += weight * factorOf[lengths[doc]!]!);
            if (score > best) best = score;
          }
        }
        // Prune once the remaining terms cannot lift an unseen document past the k-th best.
        if (i + 1 < terms.length && candidates.size >= limit && rest[i]! < best) {
          threshold = this.kthBest(candidates, limit);
          if (rest[i]! < threshold) break;
        }
      }

      let pool = candidates;
      if (i < terms.length - 1) {
        pool = this.pool;
        pool.clear();
        for (let c = 0; c < candidates.size; c++) {
          const global = candidates.data[c]!;
          if (scores[global]! + rest[i]! >= threshold) pool.push(global);
          else state[global] = REJECTED;
        }
        // The terms left only add to documents still in reach. After each, the documents that can no
        // longer reach the k-th best leave, so the reach shrinks and the longest lists (the commonest
        // words come last) are probed for its few documents instead of read whole.
        pool.sort();
        for (let j = i + 1; j < terms.length; j++) {
          const { lists, idf, times } = terms[j]!;
          const weight = times * idf;
          for (const list of lists) this.addToReach(list, weight, factorOf, pool);
          if (j + 1 < terms.length && pool.size > limit) {
            // With the final cut's margin for summation order, so only documents that could not be finalists leave.
            const reach = this.kthBest(pool, limit);
            const floor = reach - (Math.abs(reach) * 1e-9 + 1e-12);
            pool.keep((global) => {
              if (scores[global]! + rest[j]! >= floor) return true;
              state[global] = REJECTED;
              return false;
            });
          }
        }
      }

      // The k-th best with a margin for summation order, then exact scores in query-token order.
      const cut = this.kthBest(pool, limit);
      const margin = Math.abs(cut) * 1e-9 + 1e-12;
      const finalists: number[] = [];
      for (let c = 0; c < pool.size; c++) if (scores[pool.data[c]!]! >= cut - margin) finalists.push(pool.data[c]!);
      // Per query token (a repeat adds again, as in Orama): its term's rarity and its list in each part.
      const tokenTerms = tokens.map((token) => byToken.get(token));
      const exact = finalists.map((global) => {
        const p = this.partOf(global);
        const part = this.parts[p]!;
        const doc = global - this.bases[p]!;
        const fieldLength = part.section.lengths[doc]!;
        let score: number | undefined;
        for (const term of tokenTerms) {
          const t = term ? term.termOfPart[p]! : -1;
          if (t < 0 || !holds(part.section, t, doc)) continue;
          const tf = 1 / fieldLength;
          const add = (term!.idf * (D + tf * (K + 1))) / (tf + K * (1 - B + (B * fieldLength) / avg));
          score = score === undefined ? add : score + add;
        }
        return { key: global, score: score ?? 0, slot: part.docSlot[doc]! };
      });
      // The slot order is asked only of equal scores (it may look the round up).
      const order = this.slotOrder;
      exact.sort((a, b) => b.score - a.score || (order ? order(a.slot) - order(b.slot) : 0) || a.key - b.key);
      return exact.slice(0, limit).map(({ key, score, slot }) => {
        const p = this.partOf(key);
        return { part: this.parts[p]!, doc: key - this.bases[p]!, slot, score };
      });
    } finally {
      for (let t = 0; t < touched.size; t++) state[touched.data[t]!] = UNSEEN;
    }
  }

  /**
   * Adds a term's share to the documents of `reach` (ascending) that its list in one part holds: by
   * reading the list when it is short beside them, else by galloping through it from one document to
   * the next. Either way each document gets the same addition, in the same term order.
   */
  private addToReach(list: { part: number; term: number }, weight: number, factorOf: Float64Array, reach: IntList): void {
    const { scores, state } = this;
    const base = this.bases[list.part]!;
    const { starts, postings, lengths, owner } = this.parts[list.part]!.section;
    const from = starts[list.term]!;
    const to = starts[list.term + 1]!;
    const first = lowerBound(reach.data, 0, reach.size, base);
    const end = lowerBound(reach.data, first, reach.size, base + owner.length);
    if (end === first) return;
    if ((end - first) * GALLOP_COST >= to - from) {
      for (let p = from; p < to; p++) {
        const doc = postings[p]!;
        if (state[base + doc] !== CANDIDATE) continue;
        scores[base + doc]! += weight * factorOf[lengths[doc]!]!;
      }
      return;
    }
    let p = from;
    for (let r = first; r < end && p < to; r++) {
      const doc = reach.data[r]! - base;
      if (postings[p]! < doc) {
        // Gallop: double the step until past the document, then search the last step.
        let step = 1;
        while (p + step < to && postings[p + step]! < doc) step *= 2;
        p = lowerBound(postings, p + (step >> 1) + 1, Math.min(p + step, to), doc);
        if (p === to) break;
      }
      if (postings[p] === doc) scores[base + doc]! += weight * factorOf[lengths[doc]!]!;
    }
  }

  /** How many live documents hold each token, in order, and how many live documents there are. */
  documentFrequencies(tokens: readonly string[]): { readonly frequencies: readonly number[]; readonly documents: number } {
    const { docs, liveOfPart } = this.statistics();
    const frequencies = tokens.map((token) => {
      let df = 0;
      this.parts.forEach((part, p) => {
        const t = findString(part.section.terms, token);
        if (t >= 0) df += this.liveDocuments(p, t, liveOfPart);
      });
      return df;
    });
    return { frequencies, documents: docs };
  }

  /** Live documents of part `p` that hold its term `t`. */
  private liveDocuments(p: number, t: number, liveOfPart: readonly number[]): number {
    const part = this.parts[p]!;
    const { starts, postings, owner } = part.section;
    if (liveOfPart[p]! === owner.length) return starts[t + 1]! - starts[t]!;
    let live = 0;
    for (let i = starts[t]!; i < starts[t + 1]!; i++) if (!this.isDead(part.docSlot[postings[i]!]!)) live++;
    return live;
  }

  private statistics(): Statistics {
    if (!this.stats) {
      let docs = 0;
      let length = 0;
      let longest = 0;
      const liveOfPart = this.parts.map((part) => {
        let live = 0;
        const { lengths } = part.section;
        for (let doc = 0; doc < lengths.length; doc++) {
          longest = Math.max(longest, lengths[doc]!);
          if (this.isDead(part.docSlot[doc]!)) continue;
          live++;
          length += lengths[doc]!;
        }
        docs += live;
        return live;
      });
      // Orama's BM25 factor (components/algorithms.js), written the same way so scores match it. A
      // document's term frequency is 1 / its length, so the factor depends on the length alone: one
      // table per statistics instead of a division per posting.
      const { k: K, b: B, d: D } = this.parameters;
      const avg = length / docs;
      const factorOf = new Float64Array(longest + 1);
      for (let fieldLength = 1; fieldLength <= longest; fieldLength++) {
        const tf = 1 / fieldLength;
        factorOf[fieldLength] = (D + tf * (K + 1)) / (tf + K * (1 - B + (B * fieldLength) / avg));
      }
      this.stats = { docs, length, liveOfPart, factorOf };
    }
    return this.stats;
  }

  private partOf(global: number): number {
    let low = 0;
    let high = this.bases.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.bases[middle]! <= global) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The `limit`-th best score among the documents (-Infinity when there are fewer). */
  private kthBest(docs: IntList, limit: number): number {
    if (docs.size < limit) return -Infinity;
    const top = new TopK(limit);
    for (let d = 0; d < docs.size; d++) top.offer(docs.data[d]!, this.scores[docs.data[d]!]!);
    return top.threshold;
  }
}

/** A growable list of int32s, cleared and refilled rather than allocated again. */
class IntList {
  data = new Int32Array(1024);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  /** Ascending order. */
  sort(): void {
    this.data.subarray(0, this.size).sort();
  }

  /** Keeps the values `test` says yes to, in order. */
  keep(test: (value: number) => boolean): void {
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const value = this.data[i]!;
      if (test(value)) this.data[kept++] = value;
    }
    this.size = kept;
  }

  push(value: number): void {
    if (this.size === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.size++] = value;
  }
}

/** The first index in `from … to` of the ascending `values` whose value is not below `value` (`to` when none). */
function lowerBound(values: Int32Array | Uint32Array, from: number, to: number, value: number): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Does term `t` of the section hold `doc`? (Binary search in its ascending postings.) */
function holds(section: Bm25Section, t: number, doc: number): boolean {
  let low = section.starts[t]!;
  let high = section.starts[t + 1]! - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = section.postings[middle]!;
    if (value === doc) return true;
    if (value < doc) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
