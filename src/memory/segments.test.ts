import { describe, expect, it } from 'vitest';
import { Lanes } from '../lanes/lanes.js';
import { decodeSegmentData } from '../lanes/segment.js';
import { createInMemoryStorage } from '../storage/memory-storage.js';
import type { MemoryStorage } from '../storage/types.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { randomUnitVector, syntheticImageEncoder, syntheticRounds } from '../testing/synthetic-rounds.js';
import { createMemory } from './memory.js';
import { MAX_SEGMENT_ROUNDS, MERGE_FACTOR, planMerge } from './merge-policy.js';

const open = (storage: MemoryStorage) => createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: syntheticImageEncoder(8), storage, retrieval: { llmAnchors: false } });

/** The stored commit and, per segment, the round ids its bytes hold. */
async function storedIndex(storage: MemoryStorage) {
  const { index } = await storage.open();
  const segments = index?.segments ?? [];
  const bytes = await storage.readSegments(segments.map((segment) => segment.id));
  return segments.map((segment, at) => ({ ...segment, roundIds: decodeSegmentData(bytes[at]!).roundIds }));
}

/** Every round id any signal returns for the question. */
async function everythingFound(memory: Awaited<ReturnType<typeof open>>, question: string): Promise<Set<string>> {
  const found = new Set<string>();
  for (const signal of ['bm25', 'dense', 'caption-dense'] as const) for (const hit of await memory.search({ signal, text: question, limit: 500 })) found.add(hit.roundId);
  for (const entry of (await memory.retrieve(question, { k: 40 })).trace) found.add(entry.roundId);
  return found;
}

/** Rounds BM25 finds for the question (only rounds holding its words). */
async function bm25Found(memory: Awaited<ReturnType<typeof open>>, question: string): Promise<Set<string>> {
  return new Set((await memory.search({ signal: 'bm25', text: question, limit: 500 })).map((hit) => hit.roundId));
}

describe('index segments', () => {
  it('each write adds one small segment; the background merge folds them, keeping every round and the same answers', async () => {
    const storage = createInMemoryStorage();
    const memory = await open(storage);
    const rounds = syntheticRounds(240);
    for (let start = 0; start < rounds.length; start += 10) await memory.add(rounds.slice(start, start + 10));
    const question = 'kalo ren tor';
    const before = (await memory.retrieve(question)).trace.map((entry) => entry.roundId);
    // 24 writes of 10 rounds: runs of eight merge into segments of 80.
    await expect.poll(async () => (await storedIndex(storage)).length, { timeout: 10_000 }).toBeLessThan(MERGE_FACTOR);
    const index = await storedIndex(storage);
    expect(index.flatMap((segment) => segment.roundIds)).toEqual(rounds.map((round) => round.id));
    expect((await memory.retrieve(question)).trace.map((entry) => entry.roundId)).toEqual(before);
    await memory.close();
    const reopened = await open(storage);
    expect((await reopened.retrieve(question)).trace.map((entry) => entry.roundId)).toEqual(before);
    await reopened.close();
  });

  it('a forgotten or replaced round is never returned, before the merge and after it, and the merge drops it from every segment', async () => {
    const storage = createInMemoryStorage();
    const memory = await open(storage);
    const rounds = syntheticRounds(120);
    await memory.add(rounds.slice(0, 60));
    await memory.add(rounds.slice(60));
    const question = rounds[33]!.user.text!;
    expect(await everythingFound(memory, question)).toContain('r33');
    await memory.forget('r33');
    await memory.update('r34', { user: { text: 'an entirely different sentence now' }, assistant: { text: 'and a new reply' } });
    const gone = async () => {
      const found = await everythingFound(memory, question);
      expect(found.has('r33')).toBe(false);
      // The old version's words are gone with it; the new one's are found.
      expect((await bm25Found(memory, rounds[34]!.user.text!)).has('r34')).toBe(false);
      expect((await bm25Found(memory, 'an entirely different sentence now')).has('r34')).toBe(true);
    };
    await gone();
    // Before the merge, the dead copies are still in their segment, marked dead in the commit.
    const marked = (await storedIndex(storage)).find((segment) => segment.roundIds.includes('r33'))!;
    expect(marked.dead).toEqual([33, 34].map((id) => marked.roundIds.indexOf(`r${id}`)));
    // Forgetting a quarter of a segment makes the merge rewrite it without its dead rounds.
    for (let index = 0; index < 14; index++) await memory.forget(`r${index}`);
    await expect.poll(async () => (await storedIndex(storage)).some((segment) => segment.roundIds.includes('r33')), { timeout: 10_000 }).toBe(false);
    const index = await storedIndex(storage);
    expect(index.flatMap((segment) => segment.roundIds).filter((id) => id === 'r34')).toHaveLength(1);
    expect(index.every((segment) => segment.dead.length === 0 || segment.dead.length < segment.rounds / 4)).toBe(true);
    await gone();
    await memory.close();
    const reopened = await open(storage);
    expect(reopened.size).toBe(120 - 15);
    expect((await everythingFound(reopened, question)).has('r33')).toBe(false);
    await reopened.close();
  });

  it('equal scores go in history order: a round replaced into a later segment ties as before, as in a memory indexed again from its rounds', async () => {
    const same = (id: string) => ({ id, user: { text: 'the blue kettle whistles' }, assistant: { text: 'tea time' } });
    const rounds = ['a0', 'a1', 'a2', 'a3'].map(same);
    const edited = await open(createInMemoryStorage());
    await edited.add(rounds);
    // Away and back: a1 ends with its old text, its index in a later segment than a2's and a3's.
    await edited.update('a1', { user: { text: 'something else entirely' } });
    await edited.update('a1', { user: { text: 'the blue kettle whistles' } });
    const fresh = await open(createInMemoryStorage());
    await fresh.add(rounds);
    const question = 'blue kettle';
    for (const memory of [edited, fresh]) {
      for (const signal of ['bm25', 'dense'] as const) {
        // Dense: the four user turns tie first (one text, one vector), the replies after them.
        expect((await memory.search({ signal, text: question, limit: 10 })).slice(0, 4).map((hit) => hit.roundId)).toEqual(['a0', 'a1', 'a2', 'a3']);
      }
    }
    const trace = async (memory: typeof edited) => (await memory.retrieve(question)).trace.map((entry) => entry.roundId);
    expect(await trace(edited)).toEqual(await trace(fresh));
    await edited.close();
    await fresh.close();
  });

  it('attaches a segment a step at a time (4,096 vectors a step), answering as segments small enough to take one step each', async () => {
    const lanes = new Lanes(8, undefined);
    const data = lanes.build(
      Array.from({ length: 5_000 }, (_, n) => ({ id: `r${n}`, units: [{ id: `u${n}`, roundId: `r${n}`, lane: 'text' as const, kind: 'text' as const, role: 'user' as const, text: `word${n}`, vector: randomUnitVector(8, n) }] })),
    );
    // The rounds, then two batches of vectors.
    expect([...lanes.attachSteps('s', data)]).toHaveLength(2);
    expect(lanes.size).toBe(5_000);

    const rounds = syntheticRounds(4_500);
    const questions = [rounds[5]!.user.text!, rounds[2_600]!.assistant!.text!, rounds[4_499]!.user.text!];
    const traces = async (of: Awaited<ReturnType<typeof open>>) => Promise.all(questions.map(async (question) => (await of.retrieve(question)).trace.map((entry) => entry.roundId)));
    // Ten segments of 900 text vectors each, against one of 9,000 (three steps of vectors).
    const reference = await open(createInMemoryStorage());
    for (let start = 0; start < rounds.length; start += 450) await reference.add(rounds.slice(start, start + 450));
    const expected = await traces(reference);
    await reference.close();
    const storage = createInMemoryStorage();
    const memory = await open(storage);
    await memory.add(rounds);
    expect(await traces(memory)).toEqual(expected);
    await memory.close();
    expect(await storedIndex(storage)).toHaveLength(1);
    const reopened = await open(storage);
    expect(await traces(reopened)).toEqual(expected);
    expect(await everythingFound(reopened, questions[2]!)).toContain('r4499');
    await reopened.close();
  }, 60_000);
});

describe('planMerge', () => {
  const segment = (id: string, rounds: number, dead = 0) => ({ id, rounds, dead: Array.from({ length: dead }, (_, i) => i) });

  it('merges the first run of eight adjacent segments of one size level, and nothing less', () => {
    const small = Array.from({ length: 7 }, (_, i) => segment(`s${i}`, 3));
    expect(planMerge([segment('big', 5000), ...small])).toBeUndefined();
    const eight = [...small, segment('s7', 5)];
    expect(planMerge([segment('big', 5000), ...eight])).toEqual(eight.map((s) => s.id));
    // Levels are powers of eight: 10 and 60 rounds are one level (8–63), 60 and 70 are not.
    expect(planMerge(Array.from({ length: 8 }, (_, i) => segment(`m${i}`, i % 2 ? 10 : 60)))).toHaveLength(8);
    expect(planMerge([...Array.from({ length: 4 }, (_, i) => segment(`a${i}`, 60)), ...Array.from({ length: 4 }, (_, i) => segment(`b${i}`, 70))])).toBeUndefined();
  });

  it('rewrites a segment a quarter dead alone, and never makes one larger than the cap', () => {
    expect(planMerge([segment('a', 100), segment('b', 100, 25), segment('c', 100)])).toEqual(['b']);
    expect(planMerge([segment('a', 100), segment('b', 100, 24)])).toBeUndefined();
    const huge = Array.from({ length: 8 }, (_, i) => segment(`h${i}`, MAX_SEGMENT_ROUNDS / 4));
    expect(planMerge(huge)).toBeUndefined();
  });

  it('with too many segments of mixed sizes, merges the smallest adjacent window', () => {
    const mixed = Array.from({ length: 60 }, (_, i) => segment(`x${i}`, i % 2 ? 9 : 70 + i));
    const plan = planMerge(mixed)!;
    expect(plan).toHaveLength(MERGE_FACTOR);
    // Every window holds four of each size; the first holds the smallest large ones.
    expect(plan[0]).toBe('x0');
  });
});
