import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import { describe, expect, it } from 'vitest';
import { randomSentence, seededRandom } from '../testing/synthetic-rounds.js';
import { Bm25Index, createWholeWordTokenizer } from './bm25.js';

/** Plain Orama over the same documents and tokenizer: what the lane's search must reproduce. */
function reference(docs: readonly { id: string; text: string }[]): AnyOrama {
  const db = create({ schema: { text: 'string' } as const, components: { tokenizer: createWholeWordTokenizer() } });
  void insertMultiple(db, [...docs], docs.length);
  return db;
}

function oramaTop(db: AnyOrama, query: string, limit: number) {
  const result = search(db, { term: query, properties: ['text'], limit, threshold: 1 }) as Awaited<ReturnType<typeof search>>;
  return result.hits.map((hit) => ({ id: String(hit.id), score: hit.score }));
}

describe('Bm25Index', () => {
  const random = seededRandom(5);
  const docs = Array.from({ length: 3_000 }, (_, i) => ({ id: `u${i}`, text: randomSentence(random, 5 + Math.floor(random() * 25)) }));
  const queries = [
    ...Array.from({ length: 40 }, () => randomSentence(random, 1 + Math.floor(random() * 8))),
    'ka ka lo lo lo',
    'the cat and the dog',
    'zzzunknown',
  ];

  it('ranks and scores exactly as Orama search does, common words included', () => {
    const index = new Bm25Index();
    index.insert(docs);
    const db = reference(docs);
    for (const query of queries) {
      for (const limit of [1, 10, 80]) expect(index.search(query, limit)).toEqual(oramaTop(db, query, limit));
    }
  });

  it('stays exact after removals, and a filter keeps the best accepted documents', () => {
    const index = new Bm25Index();
    index.insert(docs);
    const removed = docs.filter((_, i) => i % 7 === 3).map((doc) => doc.id);
    index.remove(removed);
    const db = reference(docs);
    void removeMultiple(db, removed, removed.length);
    const accept = (id: string) => Number(id.slice(1)) % 3 === 0;
    for (const query of queries) {
      expect(index.search(query, 20)).toEqual(oramaTop(db, query, 20));
      const filtered = oramaTop(db, query, docs.length).filter((hit) => accept(hit.id)).slice(0, 20);
      expect(index.search(query, 20, accept)).toEqual(filtered);
    }
  });
});
