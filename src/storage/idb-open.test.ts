import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticImageEncoder, syntheticRounds, syntheticTextEncoder } from '../testing/synthetic-rounds.js';
import { createMemory } from '../memory/memory.js';
import { createIdbStorage, deleteMemory } from './idb.js';

const textEncoder = syntheticTextEncoder(16);
const imageEncoder = syntheticImageEncoder(8);
const questions = ['kalo mi', 'ren tor sa vel', 'dun pi gar ne bro'];

afterEach(async () => {
  await deleteMemory('reopen-memory');
});

describe('opening a memory stored in IndexedDB', () => {
  it('answers every signal exactly as the memory that wrote it, after forgetting and re-captioning', async () => {
    const memory = await createMemory({ textEncoder, imageEncoder, storage: await createIdbStorage('reopen-memory'), retrieval: { llmAnchors: false } });
    await memory.add(syntheticRounds(300));
    await memory.forget('r7');
    await memory.setCaption('img20', 'a red bicycle by the lake');
    const before = await Promise.all(questions.map((q) => answers(memory, q)));
    await memory.close();

    const reopened = await createMemory({ textEncoder, imageEncoder, storage: await createIdbStorage('reopen-memory'), retrieval: { llmAnchors: false } });
    expect(reopened.size).toBe(299);
    const after = await Promise.all(questions.map((q) => answers(reopened, q)));
    expect(after).toEqual(before);
    await reopened.close();
  });
});

/** What a user sees per signal (ids, scores to 9 digits: reopening may order exact ties differently). */
async function answers(memory: Awaited<ReturnType<typeof createMemory>>, text: string) {
  const sorted = (hits: readonly { unitId: string; score: number }[]) =>
    hits.map((hit) => `${hit.unitId}:${hit.score.toFixed(9)}`).sort();
  return {
    bm25: sorted(await memory.search({ signal: 'bm25', text, limit: 10 })),
    dense: sorted(await memory.search({ signal: 'dense', text, limit: 10 })),
    image: sorted(await memory.search({ signal: 'image', image: { caption: text }, limit: 5 })),
  };
}
