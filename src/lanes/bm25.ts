import { count, create, insertMultiple, removeMultiple, type AnyOrama } from '@orama/orama';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';
import { createFastTextIndexComponent } from './bm25-orama-index.js';
import { TfPostings } from './bm25-postings.js';
import { ORAMA_BM25, scoreTopK, type Bm25Parameters, type OramaTextIndex, type QueryWord } from './bm25-topk.js';
import { STOP_WORDS } from './stop-words.js';

// Orama matches query tokens as prefixes ("cat" would match "catalog"); a terminal mark on every
// token makes each match a whole word.
const WORD_END = '\u0001';
const PROPERTY = 'text';

/** Orama's English tokenizer (stemmed, stop words dropped), each token marked as a whole word. */
export function createWholeWordTokenizer() {
  const base = oramaTokenizer.createTokenizer({ language: 'english', stemming: true, stopWords: STOP_WORDS });
  // Orama's tokenize calls `this.normalizeToken` per word; this one remembers each word's marked
  // token (or '' for a stop word) by the word alone, so a word is stemmed and marked once.
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

/** The parts of an Orama 3 instance this lane reads (its own index and id table). */
interface OramaInternals {
  readonly tokenizer: { tokenize(raw: string, language?: string): string[] };
  readonly data: { readonly index: OramaTextIndex };
  readonly internalDocumentIDStore: { readonly internalIdToId: readonly string[]; readonly idToInternalId: ReadonlyMap<string, number> };
}

/**
 * BM25 over unit texts, on Orama. Orama tokenizes, indexes (radix tree, posting sets) and keeps the
 * statistics (document count, word occurrences, field lengths, tf); the search finds the query's
 * words in Orama's tree, scores with Orama's BM25 formula and its statistics, and keeps only the
 * top `limit` by exact max-score pruning (bm25-topk.ts). Orama's own `search` scores, sorts and
 * fetches every match, with a de-duplication quadratic in a common word's document count: 1 s a
 * query at 100k rounds. Results equal Orama's `search(..., { threshold: 1 })`, see bm25.test.ts.
 */
export class Bm25Index {
  private readonly postings = new TfPostings();
  private readonly db: AnyOrama = create({
    schema: { [PROPERTY]: 'string' } as const,
    // Results are ranked by score here, never sorted by a field: Orama's sort index would be dead weight.
    sort: { enabled: false },
    components: {
      tokenizer: createWholeWordTokenizer(),
      index: createFastTextIndexComponent((doc, tokens, tf) => this.postings.add(doc, tokens, tf, tokens.length)),
    },
  });
  private count = 0;

  /** @param parameters BM25's k, b and d; scores equal Orama's `search` with the same `relevance`. */
  constructor(private readonly parameters: Bm25Parameters = ORAMA_BM25) {}

  get size(): number {
    return this.count;
  }

  insert(docs: readonly { id: string; text: string }[]): void {
    if (docs.length === 0) return;
    // Orama's insertMultiple is synchronous for synchronous components; it returns ids or a promise.
    const result = insertMultiple(this.db, docs.map((doc) => ({ id: doc.id, text: doc.text })), docs.length);
    if (result instanceof Promise) throw new Error('BM25 index expected synchronous inserts');
    this.count += docs.length;
  }

  remove(ids: readonly string[]): void {
    if (ids.length === 0) return;
    // Read what the documents hold before Orama forgets it.
    const frequencies = this.orama.data.index.frequencies[PROPERTY]!;
    const docs = new Set<number>();
    const words = new Set<string>();
    for (const id of ids) {
      const doc = this.orama.internalDocumentIDStore.idToInternalId.get(id);
      const tfs = doc === undefined ? undefined : frequencies[doc];
      if (!tfs) continue;
      docs.add(doc!);
      for (const word in tfs) words.add(word);
    }
    const removed = removeMultiple(this.db, [...ids], ids.length);
    if (removed instanceof Promise) throw new Error('BM25 index expected synchronous removals');
    this.count -= removed;
    this.postings.remove(docs, words);
  }

  /** Unit ids by BM25 score, best first (ties by insertion order); `accept` filters by unit id. */
  search(query: string, limit: number, accept?: (id: string) => boolean): { id: string; score: number }[] {
    if (this.count === 0 || query.trim() === '' || limit <= 0) return [];
    const orama = this.orama;
    const index = orama.data.index;
    const root = index.indexes[PROPERTY]!.node;
    // The same call Orama's search makes, so query tokens match indexed ones exactly.
    const tokens = orama.tokenizer.tokenize(query, undefined);
    const words: QueryWord[][] = tokens.map((token) =>
      wordsWithPrefix(root, token).flatMap(({ word, docs }) => {
        const list = this.postings.list(word);
        return list ? [{ word, docs, list }] : [];
      }),
    );
    const ids = orama.internalDocumentIDStore.internalIdToId;
    const acceptDoc = accept && ((doc: number) => accept(ids[doc - 1]!));
    const hits = scoreTopK(index, PROPERTY, words, count(this.db) as number, ids.length, limit, this.postings.lengths, acceptDoc, this.parameters);
    return hits.map((hit) => ({ id: ids[hit.key - 1]!, score: hit.score }));
  }

  /** How many documents hold each of the query's words (as the search tokenizes them), in order, and how many documents there are. */
  documentFrequencies(query: string): { readonly frequencies: readonly number[]; readonly documents: number } {
    if (this.count === 0 || query.trim() === '') return { frequencies: [], documents: this.count };
    const orama = this.orama;
    const root = orama.data.index.indexes[PROPERTY]!.node;
    const frequencies = orama.tokenizer.tokenize(query, undefined).map((token) => wordsWithPrefix(root, token).reduce((sum, { docs }) => sum + docs.size, 0));
    return { frequencies, documents: this.count };
  }

  private get orama(): OramaInternals {
    return this.db as unknown as OramaInternals;
  }
}

type RadixNode = OramaTextIndex['indexes'][string]['node'];

/**
 * What Orama's radix `find({ term, exact: false, tolerance: 0 })` returns, without its per-word
 * de-duplication by `Array.includes`: every indexed word starting with `term`, with its posting set.
 * For whole-word tokens that is the word itself.
 */
function wordsWithPrefix(root: RadixNode, term: string): { word: string; docs: ReadonlySet<number> }[] {
  let node = root;
  let at = 0;
  while (at < term.length) {
    const child = node.c.get(term[at]!);
    if (!child) return [];
    const label = child.s;
    let j = 0;
    while (j < label.length && at + j < term.length && label[j] === term[at + j]) j++;
    if (j < label.length && at + j < term.length) return [];
    node = child;
    at += j;
  }
  const out: { word: string; docs: ReadonlySet<number> }[] = [];
  const stack = [node];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next.e && next.d.size > 0) out.push({ word: next.w, docs: next.d });
    for (const child of next.c.values()) stack.push(child);
  }
  return out;
}
