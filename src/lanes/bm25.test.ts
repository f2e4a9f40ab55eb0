import { create, insertMultiple, removeMultiple, search, type AnyOrama } from '@orama/orama';
import { describe, expect, it } from 'vitest';
import { randomSentence, seededRandom } from '../testing/synthetic-rounds.js';
import { Bm25Index, buildBm25Section, createWholeWordTokenizer, mergeBm25Sections, type Bm25Part, type Bm25Parameters } from './bm25.js';

/** Plain Orama over the same documents and tokenizer: what the index's search must reproduce. */
function reference(docs: readonly { id: string; text: string }[]): AnyOrama {
  const db = create({ schema: { text: 'string' } as const, components: { tokenizer: createWholeWordTokenizer() } });
  void insertMultiple(db, [...docs], docs.length);
  return db;
}

function oramaTop(db: AnyOrama, query: string, limit: number, relevance?: Bm25Parameters) {
  const result = search(db, { term: query, properties: ['text'], limit, threshold: 1, ...(relevance ? { relevance } : {}) }) as Awaited<ReturnType<typeof search>>;
  return result.hits.map((hit) => ({ id: String(hit.id), score: hit.score }));
}

const tokenizer = createWholeWordTokenizer();

/**
 * The documents split into sections of `size` (slot = position in `docs`), as segments would hold
 * them, with a dead set the index reads.
 */
function sectioned(docs: readonly { id: string; text: string }[], size: number, parameters?: Bm25Parameters) {
  const dead = new Set<number>();
  const index = new Bm25Index((slot) => dead.has(slot), parameters);
  const parts: Bm25Part[] = [];
  for (let start = 0; start < docs.length; start += size) {
    const slice = docs.slice(start, start + size);
    const section = buildBm25Section(slice.map((doc, i) => ({ owner: i, tag: -1, tokens: tokenizer.tokenize(doc.text) })));
    parts.push({ section, docSlot: Int32Array.from(slice, (_, i) => start + i) });
  }
  index.setParts(parts);
  const top = (query: string, limit: number, accept?: (id: string) => boolean) =>
    index.search(tokenizer.tokenize(query), limit, accept && ((slot) => accept(docs[slot]!.id))).map((hit) => ({ id: docs[hit.slot]!.id, score: hit.score }));
  return { index, parts, dead, top };
}

/** Same ids in the same order, scores equal to 1e-12 (Orama keeps the average field length as a running mean). */
function expectSameHits(got: { id: string; score: number }[], want: { id: string; score: number }[]) {
  expect(got.map((hit) => hit.id)).toEqual(want.map((hit) => hit.id));
  got.forEach((hit, at) => expect(Math.abs(hit.score - want[at]!.score)).toBeLessThanOrEqual(1e-12 * Math.abs(want[at]!.score)));
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

  it('ranks and scores as Orama search does, across sections and with common words', () => {
    const db = reference(docs);
    for (const size of [3_000, 700, 64]) {
      const { top } = sectioned(docs, size);
      for (const query of queries) for (const limit of [1, 10, 80]) expectSameHits(top(query, limit), oramaTop(db, query, limit));
    }
  });

  it('scores with other BM25 parameters as Orama search does with the same relevance settings', () => {
    const parameters = { k: 1.2, b: 0.3, d: 0.5 };
    const db = reference(docs);
    const { top } = sectioned(docs, 500, parameters);
    for (const query of queries) expectSameHits(top(query, 10), oramaTop(db, query, 10, parameters));
    // Weaker length normalisation really changes the ranking.
    const plain = sectioned(docs, 500);
    expect(queries.some((query) => JSON.stringify(plain.top(query, 10).map((hit) => hit.id)) !== JSON.stringify(top(query, 10).map((hit) => hit.id)))).toBe(true);
  });

  it('leaves dead documents out of every result and statistic, and a filter keeps the best accepted documents', () => {
    const { index, dead, top } = sectioned(docs, 400);
    const removed = docs.flatMap((doc, slot) => (slot % 7 === 3 ? [slot] : []));
    for (const slot of removed) dead.add(slot);
    index.invalidate();
    const db = reference(docs);
    void removeMultiple(db, removed.map((slot) => docs[slot]!.id), removed.length);
    const accept = (id: string) => Number(id.slice(1)) % 3 === 0;
    for (const query of queries) {
      expectSameHits(top(query, 20), oramaTop(db, query, 20));
      const filtered = oramaTop(db, query, docs.length).filter((hit) => accept(hit.id)).slice(0, 20);
      expectSameHits(top(query, 20, accept), filtered);
    }
  });

  it('a merged section gives the same results as the sections it was made of, without their dead documents', () => {
    const { index, parts, dead, top } = sectioned(docs, 300);
    for (let slot = 0; slot < docs.length; slot += 5) dead.add(slot);
    index.invalidate();
    const before = queries.map((query) => top(query, 30));
    // Merge the first four sections: dead documents go, the rest keep their order.
    const merged = mergeBm25Sections(parts.slice(0, 4).map((part) => ({ section: part.section, keep: (doc) => !dead.has(part.docSlot[doc]!), owner: (owner) => owner, tag: (tag) => tag })));
    const docSlot = Int32Array.from(parts.slice(0, 4).flatMap((part) => [...part.docSlot].filter((slot) => !dead.has(slot))));
    expect(merged.owner.length).toBe(docSlot.length);
    index.setParts([{ section: merged, docSlot }, ...parts.slice(4)]);
    queries.forEach((query, at) => expectSameHits(top(query, 30), before[at]!));
  });

  it('answers nothing for an empty query, a limit of 0 or an empty index', () => {
    const { top } = sectioned(docs.slice(0, 10), 10);
    expect(top('', 10)).toEqual([]);
    expect(top('ka lo', 0)).toEqual([]);
    expect(sectioned([], 10).top('ka lo', 10)).toEqual([]);
  });
});
