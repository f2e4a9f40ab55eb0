import { describe, expect, it } from 'vitest';
import { VmemError } from '../errors.js';
import { createMemory, type MemoryOptions, type RoundInput } from '../index.js';
import { withFloatVectors } from '../internal.js';
import { createInMemoryStorage } from '../storage/memory-storage.js';
import { randomSentence, seededRandom, syntheticTextEncoder } from '../testing/synthetic-rounds.js';

const DIMENSION = 512;

/** Text-only rounds, so a text unit's text is its turn's text. */
function rounds(count: number, start = 0): RoundInput[] {
  const random = seededRandom(start + 1);
  return Array.from({ length: count }, (_, offset) => ({
    id: `r${start + offset}`,
    user: { text: randomSentence(random, 15) },
    assistant: { text: randomSentence(random, 15) },
  }));
}

/** The synthetic encoder, keeping a copy of every vector it returned (what the memory was given). */
function recordingEncoder() {
  const inner = syntheticTextEncoder(DIMENSION);
  const given = new Map<string, Float32Array>();
  const encoder = {
    ...inner,
    embed: async (texts: readonly string[]) => {
      const vectors = await inner.embed(texts);
      texts.forEach((text, i) => given.set(text, vectors[i]!.slice()));
      return vectors;
    },
  };
  return { encoder, given };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

/**
 * Adds 80 rounds in ten writes (ten segments, which a background merge folds), forgets 30 (so the rows
 * are compacted), and returns every dense score with the exact float dot product of the question and
 * the vector the encoder gave for the unit's text.
 */
async function denseAgainstExact(options: (base: MemoryOptions) => MemoryOptions) {
  const { encoder, given } = recordingEncoder();
  const memory = await createMemory(options({ textEncoder: encoder, retrieval: { llmAnchors: false } }));
  const all = rounds(80);
  for (let start = 0; start < all.length; start += 8) await memory.add(all.slice(start, start + 8));
  for (const round of all.slice(10, 40)) await memory.forget(round.id!);
  const textOf = new Map<string, string>(all.flatMap((round) => [[`${round.id}#user`, round.user!.text!], [`${round.id}#assistant`, round.assistant!.text!]]));
  const question = 'kalo ren tor mi sa';
  const hits = await memory.search({ signal: 'dense', text: question, limit: 200 });
  await memory.close();
  return hits.map((hit) => ({ unitId: hit.unitId, score: hit.score, exact: dot(given.get(question)!, given.get(textOf.get(hit.unitId)!)!) }));
}

describe('withFloatVectors (vmem/internal)', () => {
  it('scores dense hits by the exact float dot products of the stored vectors, across writes, forgets and compaction', async () => {
    const scored = await denseAgainstExact(withFloatVectors);
    expect(scored).toHaveLength(100);
    for (const { score, exact } of scored) expect(score).toBeCloseTo(exact, 6);
  });

  it('without it, the scores are the int8 ones: near the exact products, not equal to them', async () => {
    const scored = await denseAgainstExact((base) => base);
    expect(scored).toHaveLength(100);
    const errors = scored.map(({ score, exact }) => Math.abs(score - exact));
    expect(Math.max(...errors)).toBeGreaterThan(1e-5);
    expect(Math.max(...errors)).toBeLessThan(5e-3);
  });

  it('refuses a memory whose index is stored (its segments hold int8 vectors only)', async () => {
    const storage = createInMemoryStorage();
    const { encoder } = recordingEncoder();
    const stored = await createMemory({ textEncoder: encoder, storage });
    await stored.add(rounds(3));
    await stored.close();
    await expect(createMemory(withFloatVectors({ textEncoder: encoder, storage }))).rejects.toThrow(VmemError);
  });
});
