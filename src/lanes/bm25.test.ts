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

function oramaTop(db: AnyOrama, query: string, limit: number, relevance?: { k: number; b: number; d: number }) {
  const result = search(db, { term: query, properties: ['text'], limit, threshold: 1, ...(relevance ? { relevance } : {}) }) as Awaited<ReturnType<typeof search>>;
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

  it('scores with other BM25 parameters exactly as Orama search does with the same relevance settings', () => {
    const parameters = { k: 1.2, b: 0.3, d: 0.5 };
    const index = new Bm25Index(parameters);
    index.insert(docs);
    const db = reference(docs);
    for (const query of queries) expect(index.search(query, 10)).toEqual(oramaTop(db, query, 10, parameters));
    // Weaker length normalisation really changes the ranking.
    const plain = new Bm25Index();
    plain.insert(docs);
    expect(queries.some((query) => JSON.stringify(plain.search(query, 10).map((hit) => hit.id)) !== JSON.stringify(index.search(query, 10).map((hit) => hit.id)))).toBe(true);
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

  it('stays exact when documents are inserted after removals, words whose documents were all removed included', () => {
    const index = new Bm25Index();
    const db = reference([]);
    const first = docs.slice(0, 1_000);
    index.insert(first);
    void insertMultiple(db, [...first], first.length);
    // Remove every document holding some word, so the word is left with no postings at all.
    const lonely = 'zebraquartz';
    const withWord = [{ id: 'w1', text: `${lonely} ka lo` }, { id: 'w2', text: `${lonely} lo` }];
    index.insert(withWord);
    void insertMultiple(db, [...withWord], withWord.length);
    const removed = [...first.filter((_, i) => i % 3 === 0).map((doc) => doc.id), 'w1', 'w2'];
    index.remove(removed);
    void removeMultiple(db, removed, removed.length);
    // Insert after the removals: new ids, an id that was removed, and the word that lost every document.
    const later = [...docs.slice(1_000, 1_600), { id: first[0]!.id, text: `${lonely} is back ka` }, { id: 'w3', text: `${lonely} ${lonely} lo` }];
    index.insert(later);
    void insertMultiple(db, [...later], later.length);
    for (const query of [...queries, lonely, `${lonely} lo`]) {
      for (const limit of [1, 10, 80]) expect(index.search(query, limit)).toEqual(oramaTop(db, query, limit));
    }
    expect(index.search(lonely, 10).map((hit) => hit.id).sort()).toEqual([first[0]!.id, 'w3'].sort());
  });

  it('ignores removing ids it never held', () => {
    const index = new Bm25Index();
    index.insert(docs.slice(0, 10));
    const before = index.search('ka lo', 10);
    index.remove(['no-such-id']);
    expect(index.search('ka lo', 10)).toEqual(before);
  });
});
