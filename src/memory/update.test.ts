import { describe, expect, it } from 'vitest';
import { createInMemoryStorage, createMemory, type RoundInput, type StoredRound } from 'vmem';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { sourceOf } from './turn-text.js';

const conversation: RoundInput[] = [
  { id: 'r1', sessionId: 's1', timestamp: Date.UTC(2025, 0, 1), user: { text: 'My sister lives in Lisbon.' }, assistant: { text: 'Lisbon is lovely.' } },
  {
    id: 'r2',
    sessionId: 's1',
    timestamp: Date.UTC(2025, 0, 1),
    user: { text: 'Here is my pet', images: [{ id: 'img-cat', caption: 'a grey kitten on a sofa' }], audioTranscript: 'she is called Mochi' },
    assistant: { text: 'So cute!' },
  },
  { id: 'r3', sessionId: 's2', timestamp: Date.UTC(2025, 0, 5), user: { text: 'We had pasta for dinner.' }, meta: { mood: 'happy' } },
];

async function memoryWithConversation() {
  const textEncoder = createHashTextEncoder();
  const storage = createInMemoryStorage();
  const memory = await createMemory({ textEncoder, storage });
  await memory.add(conversation);
  textEncoder.encoded.length = 0;
  return { memory, textEncoder, storage };
}

const topRound = async (memory: Awaited<ReturnType<typeof createMemory>>, question: string) =>
  (await memory.retrieve(question, { k: 1, neighbours: 0 })).trace[0]?.roundId;

describe('memory.update', () => {
  it('edits a turn and re-encodes only the text that changed', async () => {
    const { memory, textEncoder } = await memoryWithConversation();
    const updated = await memory.update('r1', { user: { text: 'My sister moved to Porto in May.' } });
    expect(updated.user.text).toBe('My sister moved to Porto in May.');
    expect(updated.assistant.text).toBe('Lisbon is lovely.');
    // The user turn changed; the assistant turn did not and keeps its stored vector.
    expect(textEncoder.encoded).toEqual(['My sister moved to Porto in May.']);
    expect((await memory.get('r1'))).toEqual(updated);
    expect(await topRound(memory, 'where did my sister move? Porto')).toBe('r1');
    const bm25 = await memory.search({ signal: 'bm25', text: 'sister' });
    expect(bm25.map((hit) => hit.unitId)).toEqual(['r1#user']);
  });

  it('re-folds the transcript and captions, keeping what the patch does not name', async () => {
    const { memory, textEncoder } = await memoryWithConversation();
    const updated = await memory.update('r2', { user: { captions: { 'img-cat': 'a black kitten asleep' } } });
    expect(updated.user.text).toBe('Here is my pet [Audio: she is called Mochi] [Image: a black kitten asleep]');
    expect(updated.user.images[0]?.caption).toBe('a black kitten asleep');
    // The caption unit and the turn text that folds it in change; nothing else is encoded.
    expect(textEncoder.encoded.sort()).toEqual(['Here is my pet [Audio: she is called Mochi] [Image: a black kitten asleep]', 'a black kitten asleep'].sort());
    const cleared = await memory.update('r2', { user: { audioTranscript: '' } });
    expect(cleared.user.text).toBe('Here is my pet [Image: a black kitten asleep]');
    expect(cleared.user.audioTranscript).toBeUndefined();
  });

  it('changes session, time and metadata without encoding anything', async () => {
    const { memory, textEncoder } = await memoryWithConversation();
    const updated = await memory.update('r3', { sessionId: 's1', timestamp: '2025-01-02T12:00:00Z', meta: null });
    expect(updated).toMatchObject({ sessionId: 's1', timestamp: Date.UTC(2025, 0, 2, 12), seq: 2 });
    expect(updated.meta).toBeUndefined();
    expect(textEncoder.encoded).toEqual([]);
    // Neighbours follow the new session: r3 now sits in s1 next to r2.
    const result = await memory.retrieve('pasta dinner', { k: 2, weights: { dense: 0 } });
    expect(result.blocks.map((block) => block.rounds.map((round) => round.id))).toEqual([['r2', 'r3']]);
  });

  it('is persisted: a reopened memory has the edit and encodes nothing', async () => {
    const { memory, storage } = await memoryWithConversation();
    await memory.update('r1', { assistant: { text: 'Porto is lovely too.' } });
    const reopenedEncoder = createHashTextEncoder();
    const reopened = await createMemory({ textEncoder: reopenedEncoder, storage });
    expect((await reopened.get('r1'))?.assistant.text).toBe('Porto is lovely too.');
    expect(reopenedEncoder.calls).toBe(0);
    expect(await topRound(reopened, 'Porto lovely')).toBe('r1');
  });

  it('refuses bad patches with a typed error and leaves the memory unchanged', async () => {
    const { memory, textEncoder } = await memoryWithConversation();
    const before: readonly StoredRound[] = structuredClone((await memory.rounds()));
    const beforeHits = await memory.search({ signal: 'bm25', text: 'Lisbon kitten pasta' });
    await expect(memory.update('nope', { user: { text: 'x' } })).rejects.toMatchObject({ code: 'UNKNOWN_ROUND' });
    await expect(memory.update('r1', {})).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r1', { user: undefined })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r1', { text: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r1', { sessionId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r1', { timestamp: 'not a date' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r2', { user: { captions: { 'img-dog': 'a dog' } } })).rejects.toMatchObject({ code: 'UNKNOWN_IMAGE' });
    await expect(memory.update('r2', { user: { captions: { 'img-cat': '' } } })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(memory.update('r3', { user: { text: '' } })).rejects.toMatchObject({ code: 'EMPTY_ROUND' });
    await expect(memory.update('r1', { user: { text: 'x'.repeat(20_001) } })).rejects.toMatchObject({ code: 'TEXT_TOO_LONG' });
    expect((await memory.rounds())).toEqual(before);
    expect(await memory.search({ signal: 'bm25', text: 'Lisbon kitten pasta' })).toEqual(beforeHits);
    expect(textEncoder.encoded).toEqual([]);
  });

  it('leaves the memory unchanged when encoding the edit fails', async () => {
    const textEncoder = createHashTextEncoder();
    const memory = await createMemory({ textEncoder });
    await memory.add(conversation);
    const before = structuredClone((await memory.rounds()));
    textEncoder.embed = async () => {
      throw new Error('encoder crashed');
    };
    await expect(memory.update('r1', { user: { text: 'something new' } })).rejects.toThrow('encoder crashed');
    expect((await memory.rounds())).toEqual(before);
  });
});

describe('sourceOf', () => {
  it('recovers the typed text and transcript of a round stored before they were kept apart', () => {
    const legacy = {
      text: 'Look [at] this [Audio: it is loud] [Image: a red bike] [Image: a helmet]',
      images: [
        { id: 'a', roundId: 'r', role: 'user' as const, caption: 'a red bike', hasBytes: true },
        { id: 'b', roundId: 'r', role: 'user' as const, caption: 'a helmet', hasBytes: true },
      ],
    };
    expect(sourceOf(legacy)).toEqual({ typed: 'Look [at] this', audioTranscript: 'it is loud' });
    expect(sourceOf({ text: '[Audio: only speech]', images: [] })).toEqual({ typed: '', audioTranscript: 'only speech' });
  });
});
