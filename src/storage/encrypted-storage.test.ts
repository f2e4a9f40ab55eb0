/** What earlier versions of the encryption layer stored still opens. */
import { describe, expect, it } from 'vitest';
import { createMemory } from 'vmem';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { sealedKeyOf, sealStorage } from './encrypted-storage.js';
import { createInMemoryStorage } from './memory-storage.js';
import type { IndexCommit, MemoryStorage } from './types.js';

const UNLOCK = { passphrase: 'earlier' };

/** `inner`, with `close` doing nothing: the same in-memory store is opened again. */
const kept = (inner: MemoryStorage): MemoryStorage => ({ ...inner, close: async () => undefined });

describe('an encrypted store written by an earlier vmem', () => {
  it('opens with its index commit sealed whole (before commits were sealed entry by entry)', async () => {
    const inner = createInMemoryStorage();
    const storage = await sealStorage(kept(inner), UNLOCK);
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), storage });
    await memory.add(Array.from({ length: 20 }, (_, at) => ({ id: `r${at}`, user: { text: `Round ${at} about the ${at === 7 ? 'lighthouse' : 'garden'}` } })));
    const real = (await storage.open()).index!;
    const { sealer } = sealedKeyOf(storage)!.key;
    await memory.close();

    // The earlier form: entries that only name the stored segments, and the real commit sealed in one.
    const stored = (await inner.open()).index!;
    expect(stored.segments.every((segment) => segment.sealed !== undefined || segment.rounds === -1)).toBe(true);
    const whole: IndexCommit = {
      segments: stored.segments.map(({ id, rounds }) => ({ id, rounds: rounds === -1 ? -1 : 0, dead: [] })),
      sealed: await sealer.sealText('commit', '', JSON.stringify(real)),
    };
    await inner.writeIndex({ add: [], commit: whole });

    const textEncoder = createHashTextEncoder();
    const reopened = await createMemory({ textEncoder, storage: await sealStorage(kept(inner), UNLOCK) });
    expect(reopened.size).toBe(20);
    // Read from the segments the whole commit names: no round was indexed again.
    expect(textEncoder.encoded.filter((text) => text.startsWith('Round'))).toEqual([]);
    const top = (await reopened.retrieve('lighthouse', { k: 1, neighbours: 0 })).blocks.flatMap((block) => block.rounds.map((round) => round.id));
    expect(top).toEqual(['r7']);
  });
});
