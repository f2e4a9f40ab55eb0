import { describe, expect, it } from 'vitest';
import { createMemory, type Memory, type RetrievalResult, type RoundInput } from 'vmem';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { topicWordVectors } from '../testing/word-vectors.js';

const DAY = 86_400_000;
const rounds: RoundInput[] = [
  { id: 'kick', sessionId: 's1', timestamp: DAY, user: { text: 'John: I started kickboxing on Tuesdays.' }, assistant: { text: 'Nice, how is it going?' } },
  { id: 'rome', sessionId: 's2', timestamp: 20 * DAY, user: { text: 'John: We flew to Rome for the weekend.' }, assistant: { text: 'Lucky you!' } },
  { id: 'soup', sessionId: 's3', timestamp: 40 * DAY, user: { text: 'John: I made banana soup, oddly good.' }, assistant: { text: 'Recipe please.' } },
  ...Array.from({ length: 6 }, (_, at): RoundInput => ({ id: `chat${at}`, sessionId: 's4', timestamp: (50 + at) * DAY, user: { text: `John: nothing much happened on day ${at}.` } })),
];

const similarWordHits = (result: RetrievalResult) => result.trace.filter((entry) => entry.hits.some((hit) => hit.signal === 'similar-words')).map((entry) => entry.roundId);
const bestBySimilarWords = async (memory: Memory, text: string) => (await memory.search({ signal: 'similar-words', text, limit: 1 }))[0]?.roundId;

async function memoryWith(wordVectors = true): Promise<Memory> {
  const memory = await createMemory({ textEncoder: createHashTextEncoder(), ...(wordVectors ? { wordVectors: topicWordVectors() } : {}) });
  await memory.add(rounds);
  return memory;
}

describe('similar-words signal (createMemory({ wordVectors }))', () => {
  it('finds the round that names an instance of what the question asks about, and says so in the trace', async () => {
    const memory = await memoryWith();
    // The hash encoder's dense ranking is arbitrary; BM25 matches only "John", which every round holds.
    const result = await memory.retrieve('What martial arts has John done?', { k: rounds.length, neighbours: 0 });
    const kick = result.trace.find((entry) => entry.roundId === 'kick');
    expect(kick?.hits.find((hit) => hit.signal === 'similar-words')).toMatchObject({ lane: 'text', rank: 1, unitId: 'kick' });
    expect(await bestBySimilarWords(memory, 'Which cities did John visit?')).toBe('rome');
  });

  it('is absent without word vectors, and off with its weight at 0', async () => {
    expect(similarWordHits(await (await memoryWith(false)).retrieve('What martial arts has John done?'))).toEqual([]);
    const memory = await memoryWith();
    expect(similarWordHits(await memory.retrieve('What martial arts has John done?', { weights: { 'similar-words': 0 } }))).toEqual([]);
  });

  it('follows updates and forgets, and keeps to the filter', async () => {
    const memory = await memoryWith();
    await memory.update('kick', { user: { text: 'John: I started baking on Tuesdays.' } });
    expect(await memory.search({ signal: 'similar-words', text: 'martial arts' })).toEqual([]);
    await memory.update('soup', { user: { text: 'John: karate tonight.' } });
    expect(await bestBySimilarWords(memory, 'martial arts')).toBe('soup');
    expect(await memory.search({ signal: 'similar-words', text: 'martial arts', filter: { sessionIds: ['s1', 's2'] } })).toEqual([]);
    const filtered = await memory.retrieve('What martial arts has John done?', { filter: { sessionIds: ['s1', 's2'] } });
    expect(similarWordHits(filtered).every((roundId) => roundId === 'kick' || roundId === 'rome')).toBe(true);
    await memory.forget('soup');
    expect(await memory.search({ signal: 'similar-words', text: 'martial arts' })).toEqual([]);
  });

  it('answers memory.search by round, and refuses it on a memory without word vectors', async () => {
    const memory = await memoryWith();
    expect((await memory.search({ signal: 'similar-words', text: 'town cities', limit: 1 })).map((hit) => hit.roundId)).toEqual(['rome']);
    await expect((await memoryWith(false)).search({ signal: 'similar-words', text: 'cities' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
