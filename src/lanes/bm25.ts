import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import { tokenizer as oramaTokenizer } from '@orama/orama/components';

// Function words carry no evidence; dropping them keeps long questions from matching every round.
const STOP_WORDS = `a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other
our ours ourselves out over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who whom why will with would
you your yours yourself yourselves also ever please tell based conversation mentioned discussed user assistant`.split(/\s+/);

// Orama matches query tokens as prefixes ("cat" would match "catalog"); a terminal mark on every
// token makes each match a whole word.
const WORD_END = '\u0001';

function createWholeWordTokenizer() {
  const base = oramaTokenizer.createTokenizer({ language: 'english', stemming: true, stopWords: STOP_WORDS });
  return {
    ...base,
    tokenize(raw: string, language?: string, prop?: string, withCache?: boolean): string[] {
      return base.tokenize(raw, language, prop, withCache).map((token) => token + WORD_END);
    },
  };
}

/** BM25 over unit texts, on Orama. */
export class Bm25Index {
  private readonly db: AnyOrama = create({
    schema: { text: 'string' } as const,
    components: { tokenizer: createWholeWordTokenizer() },
  });
  private count = 0;

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
    const removed = removeMultiple(this.db, [...ids], ids.length);
    if (removed instanceof Promise) throw new Error('BM25 index expected synchronous removals');
    this.count -= removed;
  }

  /** Unit ids by BM25 score, best first. */
  search(query: string, limit: number): { id: string; score: number }[] {
    if (this.count === 0 || query.trim() === '') return [];
    const result = search(this.db, { term: query, properties: ['text'], limit, threshold: 1 });
    if (result instanceof Promise) throw new Error('BM25 index expected a synchronous search');
    return result.hits.map((hit) => ({ id: String(hit.id), score: hit.score }));
  }
}
