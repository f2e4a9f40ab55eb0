import { describe, expect, it } from 'vitest';
import type { ImageDescriber } from '../describe/types.js';
import type { ImageEmbedder } from '../encoders/types.js';
import { VmemError } from '../errors.js';
import { createMemory, memoryContents } from './memory.js';
import { withAblation } from 'vmem/internal';
import { createInMemoryStorage } from '../storage/memory-storage.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { DAMAGED_JPEG, pictureTag, taggedPictureBytes } from '../testing/tagged-picture.js';
import type { RoundInput } from '../types.js';

/** Image "pixels" for tests: the bytes spell a word; the encoder hashes it like text. */
function wordImageEncoder(id = 'word-image-64'): ImageEmbedder & { calls: number } {
  const inner = createHashTextEncoder({ dimension: 64 });
  const encoder = {
    id,
    dimension: 64,
    calls: 0,
    async embed(images: readonly { bytes?: Uint8Array }[]) {
      encoder.calls++;
      return inner.embed(
        images.map((image, index) => {
          const word = pictureTag(image.bytes ?? new Uint8Array());
          if (word === undefined) throw new VmemError('IMAGE_DECODE_FAILED', `Image #${index + 1} could not be decoded.`);
          return word;
        }),
      );
    },
  };
  return encoder;
}
const picture = (word: string, caption?: string) => ({ bytes: taggedPictureBytes(word), mimeType: 'image/jpeg', ...(caption ? { caption } : {}) });

const day = (n: number) => Date.UTC(2025, 0, n);
const conversation: RoundInput[] = [
  { id: 'r1', sessionId: 's1', timestamp: day(1), user: { text: 'I started learning the violin this week.' }, assistant: { text: 'Great, practice scales daily.' } },
  { id: 'r2', sessionId: 's1', timestamp: day(1), user: { text: 'Here is my kitten', images: [picture('cat kitten whiskers', 'a grey kitten on a sofa')] }, assistant: { text: 'So cute!' } },
  { id: 'r3', sessionId: 's1', timestamp: day(1), user: { text: 'My sister lives in Lisbon.' }, assistant: { text: 'Lisbon is lovely.' } },
  { id: 'r4', sessionId: 's2', timestamp: day(5), user: { text: 'I bought a red motorcycle', images: [picture('motorcycle red wheels')] }, assistant: { text: 'Ride safely.' } },
  { id: 'r5', sessionId: 's2', timestamp: day(5), user: { audioTranscript: 'remind me to book the violin lesson' }, assistant: { text: 'Noted.' } },
  { id: 'r6', sessionId: 's2', timestamp: day(5), user: { text: 'We had pasta for dinner.' } },
  { id: 'r7', sessionId: 's3', timestamp: day(9), user: { text: 'The violin teacher moved to Porto.' }, assistant: { text: 'Will you keep the lessons?' } },
];

async function filledMemory() {
  const textEncoder = createHashTextEncoder();
  const imageEncoder = wordImageEncoder();
  const storage = createInMemoryStorage();
  // Every hit kept: these tests are about routing, scopes and context; confidence has its own below.
  const memory = await createMemory({ textEncoder, imageEncoder, storage, retrieval: { minConfidence: 0 } });
  await memory.add(conversation);
  return { memory, textEncoder, imageEncoder, storage };
}

describe('memory: building', () => {
  it('stores rounds in order with folded captions and voice transcripts', async () => {
    const { memory } = await filledMemory();
    expect(memory.size).toBe(7);
    expect((await memory.rounds()).map((round) => round.id)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    expect((await memory.get('r2'))!.user.text).toBe('Here is my kitten [Image: a grey kitten on a sofa]');
    expect((await memory.get('r2'))!.user.images[0]!.caption).toBe('a grey kitten on a sofa');
    expect((await memory.get('r5'))!.user.text).toBe('[Audio: remind me to book the violin lesson]');
  });

  it('adds incrementally and never re-encodes what is stored', async () => {
    const { memory, textEncoder, imageEncoder } = await filledMemory();
    const textsBefore = textEncoder.encoded.length;
    const imageCallsBefore = imageEncoder.calls;
    await memory.add({ id: 'r8', sessionId: 's3', timestamp: day(10), user: { text: 'New violin strings arrived.' } });
    expect(textEncoder.encoded.slice(textsBefore)).toEqual(['New violin strings arrived.']);
    expect(imageEncoder.calls).toBe(imageCallsBefore);
    const result = await memory.retrieve('violin strings');
    expect(result.trace[0]!.roundId).toBe('r8');
  });

  it('reopens from storage with no re-encoding and the same retrieval', async () => {
    const { memory, storage } = await filledMemory();
    const before = await memory.retrieve('where does my sister live?');
    const textEncoder = createHashTextEncoder();
    const reopened = await createMemory({ textEncoder, imageEncoder: wordImageEncoder(), storage, retrieval: { minConfidence: 0 } });
    expect(reopened.size).toBe(7);
    const after = await reopened.retrieve('where does my sister live?');
    expect(after.trace.map((entry) => entry.roundId)).toEqual(before.trace.map((entry) => entry.roundId));
    // Only the question is embedded: as asked, and its content words without the interrogative frame.
    expect(textEncoder.encoded).toEqual(['where does my sister live?', 'my sister live']);
  });

  it('ranks rounds of equal evidence by their place in the history, so a picture described after it was stored ranks the same after a reopen', async () => {
    const storage = createInMemoryStorage();
    // Every picture reads as "kettle": the described round and the round that says "kettle" tie.
    const describer: ImageDescriber = {
      id: 'kettle-describer',
      describe: async (images) =>
        images.map(() => ({ objects: [], people: 0, text: 'kettle', colours: [], mostlyText: false, screenshot: false, timings: { decode: 0, detect: 0, analyse: 0 } })),
    };
    const open = () => createMemory({ textEncoder: createHashTextEncoder(), storage, describer });
    const memory = await open();
    await memory.add(
      [
        { id: 'pictured', sessionId: 's', timestamp: day(1), user: { text: 'Look.', images: [picture('kitchen')] } },
        { id: 'told', sessionId: 's', timestamp: day(2), user: { text: 'kettle' } },
      ],
      { describe: 'background' },
    );
    await memory.describePending();
    const hits = async (opened: typeof memory) => (await opened.retrieve({ text: 'kettle' }, { k: 2 })).trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId);
    const before = await hits(memory);
    expect(before).toEqual(['pictured', 'told']);
    expect(await hits(await open())).toEqual(before);
  });

  it('refuses to open a memory built by other encoders, and offers re-indexing', async () => {
    const { storage } = await filledMemory();
    const other = createHashTextEncoder({ id: 'other-model', dimension: 32 });
    const opening = createMemory({ textEncoder: other, imageEncoder: wordImageEncoder(), storage });
    await expect(opening).rejects.toThrow(VmemError);
    await expect(opening).rejects.toMatchObject({ code: 'ENCODER_MISMATCH', message: expect.stringContaining("onEncoderMismatch: 'reindex'") });

    const reindexed = await createMemory({ textEncoder: other, imageEncoder: wordImageEncoder(), storage, onEncoderMismatch: 'reindex' });
    expect(reindexed.encoders.text).toEqual({ id: 'other-model', dimension: 32 });
    expect((await reindexed.retrieve('sister Lisbon')).trace[0]!.roundId).toBe('r3');
    // Once re-indexed, the memory opens with the new encoders and refuses the old ones.
    await expect(createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: wordImageEncoder(), storage })).rejects.toMatchObject({ code: 'ENCODER_MISMATCH' });
  });

  it('forgets a round everywhere', async () => {
    const { memory, storage } = await filledMemory();
    await memory.forget('r3');
    expect((await memory.get('r3'))).toBeUndefined();
    const result = await memory.retrieve('sister Lisbon');
    expect(result.trace.map((entry) => entry.roundId)).not.toContain('r3');
    expect((await storage.open()).rounds.map((round) => round.id)).not.toContain('r3');
  });
});

describe('memory: bad input leaves memory unchanged', () => {
  const cases: [string, RoundInput | RoundInput[], string][] = [
    ['an empty round', { user: { text: '   ' }, assistant: { text: '' } }, 'EMPTY_ROUND'],
    ['text over the limit', { user: { text: 'x'.repeat(20_001) } }, 'TEXT_TOO_LONG'],
    ['an image that fails to decode', { user: { text: 'look', images: [{ bytes: DAMAGED_JPEG, mimeType: 'image/jpeg' }] } }, 'IMAGE_DECODE_FAILED'],
    ['a non-image attachment', { user: { text: 'doc', images: [{ bytes: new Uint8Array([1]), mimeType: 'application/pdf' }] } }, 'UNSUPPORTED_FILE'],
    ['a duplicate id', { id: 'r1', user: { text: 'again' } }, 'DUPLICATE_ROUND'],
    ['a batch with one bad round', [{ id: 'ok', user: { text: 'fine' } }, { user: { text: '' } }], 'EMPTY_ROUND'],
  ];
  it.each(cases)('rejects %s', async (_label, input, code) => {
    const { memory, storage } = await filledMemory();
    await expect(memory.add(input)).rejects.toMatchObject({ code });
    expect(memory.size).toBe(7);
    expect((await storage.open()).rounds).toHaveLength(7);
    expect((await memory.get('ok'))).toBeUndefined();
  });

  it('rejects forgetting an unknown round', async () => {
    const { memory } = await filledMemory();
    await expect(memory.forget('nope')).rejects.toMatchObject({ code: 'UNKNOWN_ROUND' });
    expect(memory.size).toBe(7);
  });

  it('rejects a query with neither text nor image', async () => {
    const { memory } = await filledMemory();
    await expect(memory.retrieve({ text: '  ' })).rejects.toMatchObject({ code: 'EMPTY_QUERY' });
  });

  it('refuses to answer without an LLM, with advice', async () => {
    const { memory } = await filledMemory();
    await expect(memory.answer('where does my sister live?')).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE' });
  });
});

describe('memory: routed retrieval', () => {
  const bm25Only = { weights: { dense: 0 } } as const;

  it('text→text ranks the hit first and fills the rest with the rounds around it, in one block, with a trace', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('Where does my sister live? Lisbon', { ...bm25Only, k: 2 });
    expect(result.case).toBe('text-to-text');
    expect(result.trace[0]).toMatchObject({ roundId: 'r3', rank: 1, neighbour: false });
    expect(result.trace[0]!.hits.map((hit) => hit.signal)).toEqual(['bm25']);
    // r2 shares r3's session and sits next to it; no signal found it, so it is context.
    expect(result.trace[1]).toMatchObject({ roundId: 'r2', neighbour: true, neighbourOf: ['r3'] });
    expect(result.blocks.map((block) => block.rounds.map((round) => round.id))).toEqual([['r2', 'r3']]);
  });

  it('routes everyday picture phrasing to the image target: "cat photo", "what did my kitten look like?"', async () => {
    const { memory } = await filledMemory();
    expect((await memory.retrieve('cat photo')).case).toBe('text-to-image');
    const looked = await memory.retrieve('What did my kitten look like?');
    expect(looked.case).toBe('text-to-image');
    expect(looked.trace[0]!.roundId).toBe('r2');
    expect(looked.images[0]!.caption).toBe('a grey kitten on a sofa');
    // "How much" asks for an amount and "policy number" names an identifier: neither counts.
    expect((await memory.retrieve('How much pasta did we have?')).route.counting).toBe(false);
    expect((await memory.retrieve('What is the policy number of my bike insurance?')).route.counting).toBe(false);
  });

  it('returns k rounds, hits before context', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('violin', { k: 4 });
    expect(result.trace).toHaveLength(4);
    const firstContext = result.trace.findIndex((entry) => entry.neighbour);
    expect(result.trace.slice(0, firstContext < 0 ? undefined : firstContext).every((entry) => !entry.neighbour)).toBe(true);
    expect(result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId)).toEqual(expect.arrayContaining(['r1', 'r5', 'r7']));
  });

  it('aggregation questions ("list…", "how many…") get aggregationK rounds instead of k', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('List the violin things I mentioned', { ...bm25Only, k: 1, aggregationK: 3 });
    expect(result.route.aggregation).toBe(true);
    expect(result.trace.map((entry) => entry.roundId).sort()).toEqual(['r1', 'r5', 'r7']);
    expect(result.trace.every((entry) => !entry.neighbour)).toBe(true);
    // V-Mem's "no neighbours" (a benchmark ablation) ranks them by their own evidence alone.
    const strict = await memory.retrieve('List the violin things I mentioned', withAblation({ ...bm25Only, k: 1, aggregationK: 5 }, { aggregationContext: false }));
    expect(strict.trace.map((entry) => entry.roundId).sort()).toEqual(['r1', 'r5', 'r7']);
    const counted = await memory.retrieve('How many times did I mention the violin?', { ...bm25Only, k: 1, aggregationK: 2 });
    expect(counted.route.aggregation).toBe(true);
    expect(counted.trace).toHaveLength(2);
  });

  it('a text→text question lists only the hit rounds’ pictures, best first', async () => {
    const { memory } = await filledMemory();
    // r4 (the motorcycle) is the hit; r5 and r6 share its session and come along as context.
    const result = await memory.retrieve('red motorcycle', { ...bm25Only, k: 3 });
    expect(result.case).toBe('text-to-text');
    expect(result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId)).toEqual(['r4']);
    expect(result.images.map((image) => image.roundId)).toEqual(['r4']);
    // A picture in a context round stays in its block but is not an answer.
    const kitten = await memory.retrieve('sister Lisbon', { ...bm25Only, k: 3 });
    expect(kitten.blocks.flatMap((block) => block.rounds.map((round) => round.id))).toContain('r2');
    expect(kitten.images).toEqual([]);
    // Two hits with pictures, the later round ranked first: their pictures come in rank order, not history order.
    const both = await memory.retrieve('I bought a red motorcycle, ride safely; and a kitten', { ...bm25Only, k: 3 });
    const hitsWithPictures = both.trace.filter((entry) => !entry.neighbour && ['r2', 'r4'].includes(entry.roundId)).map((entry) => entry.roundId);
    expect(hitsWithPictures).toEqual(['r4', 'r2']);
    expect(both.images.map((image) => image.roundId)).toEqual(hitsWithPictures);
  });

  it('text→image keeps only rounds near images as hits and returns their pictures', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('Which photo showed the kitten?');
    expect(result.case).toBe('text-to-image');
    expect(result.images[0]!.caption).toBe('a grey kitten on a sofa');
    // r6 and r7 have no image within ±1 of their session, so the filter keeps them from being hits.
    const hitIds = result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId);
    expect(hitIds).not.toContain('r7');
    expect(hitIds).not.toContain('r6');
    const unfiltered = await memory.retrieve('Which photo showed the violin?', withAblation({}, { imageRoundFilter: false }));
    expect(unfiltered.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId)).toContain('r7');
  });

  it('image+text→image finds the stored picture through the image lane only', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve({ text: 'Which earlier photo shows the same thing as this one?', image: picture('red motorcycle wheels') });
    expect(result.case).toBe('image+text-to-image');
    expect(result.images[0]!.roundId).toBe('r4');
    expect(result.imageMatch).toMatchObject({ roundId: 'r4', imageId: result.images[0]!.id });
    const top = result.trace[0]!;
    expect(top.hits.map((hit) => `${hit.lane}/${hit.signal}`)).toEqual(['image/image']);
  });

  it('image+text→image also looks for pictures described in the words of the attached picture’s caption', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve({ text: 'Which earlier photo shows the same thing as this one?', image: { ...picture('fur paws tail'), caption: 'a grey kitten' } });
    expect(result.case).toBe('image+text-to-image');
    const kitten = result.trace.find((entry) => entry.roundId === 'r2');
    expect(kitten?.hits.map((hit) => `${hit.lane}/${hit.signal}`)).toEqual(expect.arrayContaining(['text/bm25']));
    expect(result.images.map((image) => image.roundId)).toContain('r2');
    const uncaptioned = await memory.retrieve({ text: 'Which earlier photo shows the same thing as this one?', image: picture('fur paws tail') });
    expect(uncaptioned.trace.flatMap((entry) => entry.hits).every((hit) => hit.lane === 'image')).toBe(true);
  });

  it('image+text→text returns the text of the round whose image matches', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve({ text: 'What did I say about this?', image: picture('kitten cat whiskers') });
    expect(result.case).toBe('image+text-to-text');
    expect(result.trace[0]!.roundId).toBe('r2');
    expect(result.blocks.flatMap((block) => block.rounds.map((round) => round.id))).toContain('r2');
  });

  it('image+text→text echoes the matched picture into the text lane, bringing back rounds that talk about it', async () => {
    const { memory } = await filledMemory();
    await memory.add({ id: 'tyres', sessionId: 's9', timestamp: day(20), user: { text: 'I changed the tyres on my red motorcycle' } });
    const result = await memory.retrieve({ text: 'What do I know about this?', image: picture('motorcycle red wheels') });
    const tyres = result.trace.find((entry) => entry.roundId === 'tyres');
    expect(tyres?.neighbour).toBe(false);
    expect(tyres?.hits.map((hit) => hit.signal)).toContain('image-echo');
    const off = await memory.retrieve({ text: 'What do I know about this?', image: picture('motorcycle red wheels') }, { weights: { 'image-echo': 0 } });
    expect(off.trace.flatMap((entry) => entry.hits).some((hit) => hit.signal === 'image-echo')).toBe(false);
  });

  it('image+text→text searches every round with the words of the attached picture’s caption', async () => {
    const { memory } = await filledMemory();
    await memory.add({ id: 'tyres', sessionId: 's9', timestamp: day(20), user: { text: 'I changed the tyres today' } });
    const question = 'When did I do this?';
    const captioned = await memory.retrieve({ text: question, image: { ...picture('rubber wheel'), caption: 'new tyres being fitted' } });
    expect(captioned.case).toBe('image+text-to-text');
    const tyres = captioned.trace.find((entry) => entry.roundId === 'tyres');
    expect(tyres?.hits.map((hit) => hit.signal)).toContain('bm25');
    // Without a caption the question's own words only re-rank the image matches, and tyres has no picture.
    const bare = await memory.retrieve({ text: question, image: picture('rubber wheel') });
    expect(bare.trace.find((entry) => entry.roundId === 'tyres')?.hits.some((hit) => hit.signal === 'bm25') ?? false).toBe(false);
  });

  it('rounds inside a time the question names rank first', async () => {
    const { memory } = await filledMemory();
    // r1 (1 January) and r7 (9 January) both talk about the violin; the question names the 9th.
    const named = await memory.retrieve('What did I say about the violin on 9 January 2025?', { ...bm25Only, k: 1 });
    expect(named.trace[0]!.roundId).toBe('r7');
    expect(named.timeSpans).toEqual([{ start: day(9), end: day(10), text: 'on 9 January 2025' }]);
    const early = await memory.retrieve('What did I say about the violin in early January 2025?', { ...bm25Only, k: 1, weights: { dense: 0 } });
    expect(['r1', 'r5', 'r7']).toContain(early.trace[0]!.roundId);
    const unnamed = await memory.retrieve('What did I say about the violin teacher?', { ...bm25Only, k: 1 });
    expect(unnamed.timeSpans).toBeUndefined();
  });

  it('unit granularity (a benchmark ablation) returns bare units', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('sister Lisbon', withAblation({ k: 2 }, { granularity: 'unit' }));
    expect(result.units).toHaveLength(2);
    expect(result.units![0]!.roundId).toBe('r3');
  });
});

describe('memory: retrieval filters', () => {
  const ids = (result: { trace: readonly { roundId: string }[] }) => result.trace.map((entry) => entry.roundId).sort();

  it('keeps to the given sessions; an unknown session matches nothing', async () => {
    const { memory } = await filledMemory();
    expect(ids(await memory.retrieve('violin', { filter: { sessionIds: ['s3'] } }))).toEqual(['r7']);
    expect(ids(await memory.retrieve('violin', { filter: { sessionIds: ['s1', 's2'] } })).every((id) => ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].includes(id))).toBe(true);
    const none = await memory.retrieve('violin', { filter: { sessionIds: ['no-such-session'] } });
    expect(none.trace).toEqual([]);
    expect(none.blocks).toEqual([]);
  });

  it('keeps to a time range, context rounds included', async () => {
    const { memory } = await filledMemory();
    const result = await memory.retrieve('violin', { k: 7, filter: { timeRange: { from: '2025-01-02', to: new Date(Date.UTC(2025, 0, 9)) } } });
    expect(ids(result)).toEqual(['r4', 'r5', 'r6']);
    expect(ids(await memory.retrieve('violin', { filter: { timeRange: { from: day(9) } } }))).toEqual(['r7']);
  });

  it('keeps to rounds whose metadata matches exactly', async () => {
    const { memory } = await filledMemory();
    await memory.add([
      { id: 'm1', sessionId: 's4', timestamp: day(12), user: { text: 'violin recital tickets' }, meta: { source: 'email', starred: true } },
      { id: 'm2', sessionId: 's4', timestamp: day(12), user: { text: 'violin case repair' }, meta: { source: 'chat', starred: true } },
    ]);
    expect(ids(await memory.retrieve('violin', { filter: { meta: { source: 'email' } } }))).toEqual(['m1']);
    expect(ids(await memory.retrieve('violin', { filter: { meta: { starred: true, source: 'chat' } } }))).toEqual(['m2']);
    expect(ids(await memory.retrieve('violin', { filter: { meta: { starred: 'true' } } }))).toEqual([]);
  });

  it('single-signal BM25 search sees rounds added, edited and forgotten after its first use', async () => {
    const { memory } = await filledMemory();
    expect((await memory.search({ signal: 'bm25', text: 'violin' })).map((hit) => hit.roundId).sort()).toEqual(['r1', 'r5', 'r7']);
    await memory.add({ id: 'r8', sessionId: 's3', timestamp: day(10), user: { text: 'New violin strings arrived.' } });
    await memory.forget('r1');
    await memory.update('r7', { user: { text: 'The piano teacher moved to Porto.' } });
    expect((await memory.search({ signal: 'bm25', text: 'violin' })).map((hit) => hit.unitId).sort()).toEqual(['r5#user', 'r8#user']);
    expect((await memory.search({ signal: 'bm25', text: 'kitten sofa' })).map((hit) => hit.unitId)).toContain(`${(await memory.get('r2'))!.user.images[0]!.id}#caption`);
  });

  it('applies to single-signal search too', async () => {
    const { memory } = await filledMemory();
    const hits = await memory.search({ signal: 'bm25', text: 'violin', filter: { sessionIds: ['s2'] } });
    expect(hits.map((hit) => hit.roundId)).toEqual(['r5']);
  });

  it.each([
    ['an inverted time range', { timeRange: { from: '2025-02-01', to: '2025-01-01' } }, /starts .* after it ends/],
    ['an unreadable time', { timeRange: { from: 'last tuesday-ish' } }, /not a time/],
    ['a non-scalar metadata value', { meta: { tags: ['a'] } }, /must be a string, number or boolean/],
    ['session ids that are not strings', { sessionIds: [1] }, /array of session id strings/],
    ['an unknown key', { session: 's1' }, /Unknown retrieval filter key "session"/],
  ])('rejects %s with INVALID_INPUT', async (_label, filter, message) => {
    const { memory } = await filledMemory();
    await expect(memory.retrieve('violin', { filter: filter as never })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringMatching(message) }));
    await expect(memory.search({ signal: 'bm25', text: 'violin', filter: filter as never })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('memory: retrieval options are checked', () => {
  it.each([
    ['k: -1', { k: -1 }],
    ['k: 0', { k: 0 }],
    ['k: NaN', { k: Number.NaN }],
    ['k: 2.5', { k: 2.5 }],
    ['negative neighbours', { neighbours: -1 }],
    ['a fractional pool', { poolSize: 1.5 }],
    ['rrfK: Infinity', { rrfK: Number.POSITIVE_INFINITY }],
    ['a negative weight', { weights: { bm25: -1 } }],
    ['an unknown signal', { weights: { bogus: 1 } }],
    ['an unknown option', { topK: 5 }],
    ['a misspelt option', { neighbors: 1 }],
  ])('refuses %s with INVALID_INPUT', async (_label, options) => {
    const { memory } = await filledMemory();
    await expect(memory.retrieve('violin', options as never)).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it.each([['yesterday-ish'], [Number.NaN], [new Date('not a date')]])('refuses now: %s with INVALID_INPUT naming it', async (now) => {
    const { memory } = await filledMemory();
    await expect(memory.retrieve('violin', { now: now as never })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('now') }));
  });

  it('refuses bad defaults when the memory is created', async () => {
    await expect(createMemory({ textEncoder: createHashTextEncoder(), retrieval: { k: -1 } })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('refuses a search limit that is not a whole number of at least 1', async () => {
    const { memory } = await filledMemory();
    await expect(memory.search({ signal: 'bm25', text: 'violin', limit: 0 })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('memory: confidence and abstention', () => {
  const shop: RoundInput[] = [
    { id: 'order', user: { text: 'My order number is 4417 and the rake never arrived.' }, assistant: { text: 'Sorry! We will resend the rake.' } },
    { id: 'tulips', user: { text: 'I also like tulips in spring.' }, assistant: { text: 'Tulips are lovely.' } },
    { id: 'sister', user: { text: 'My sister lives in Lisbon.' }, assistant: { text: 'Lisbon is lovely.' } },
  ];

  it('answers a question memory holds with a confident hit, and one it does not hold with relevant: false, no rounds and the closest as candidates', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await memory.add(shop);
    const known = await memory.retrieve('What was my order number?');
    expect(known.relevant).toBe(true);
    expect(known.trace[0]).toMatchObject({ roundId: 'order', confidence: known.confidence });
    expect(known.confidence).toBeGreaterThan(0.5);
    // By default every ranked hit comes back, and relevant only flags the result.
    const flagged = await memory.retrieve('What is the name of my dentist?');
    expect(flagged.relevant).toBe(false);
    expect(flagged.confidence).toBeLessThan(0.1);
    expect(flagged.trace.length).toBeGreaterThan(0);
    expect(flagged.candidates).toBeUndefined();
    // dropWeakHits leaves out what falls under minConfidence: no rounds, the closest as candidates.
    const unknown = await memory.retrieve('What is the name of my dentist?', { dropWeakHits: true });
    expect(unknown).toMatchObject({ relevant: false, blocks: [], images: [], trace: [] });
    expect(unknown.candidates!.map((entry) => entry.roundId)).toEqual(flagged.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId));
    expect(unknown.candidates!.every((entry) => entry.confidence! < 0.1)).toBe(true);
    // minConfidence 0 makes every hit count.
    expect((await memory.retrieve('What is the name of my dentist?', { minConfidence: 0, dropWeakHits: true })).relevant).toBe(true);
  });

  it('takes a round that only asks the same question as weak evidence: it is left out, the round that states the answer stays', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await memory.add([...shop, { id: 'asked', user: { text: 'What did I order for the garden?' }, assistant: { text: "I don't remember anything about that yet." } }]);
    // By default it still comes back, with less confidence than the round that states the answer.
    const open = await memory.retrieve('What did I order for the garden?');
    const confidenceOf = (roundId: string) => open.trace.find((entry) => entry.roundId === roundId)!.confidence!;
    expect(confidenceOf('asked')).toBeLessThan(confidenceOf('order'));
    const result = await memory.retrieve('What did I order for the garden?', { dropWeakHits: true });
    expect(result.trace.map((entry) => entry.roundId)).not.toContain('asked');
    expect(result.candidates!.map((entry) => entry.roundId)).toContain('asked');
    expect(result.trace[0]!.roundId).toBe('order');
  });

  it('refuses a dropWeakHits that is not true or false with INVALID_INPUT', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await expect(memory.retrieve('rake', { dropWeakHits: 'yes' as never })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('dropWeakHits') }));
  });

  it.each([[-0.1], [1.5], [Number.NaN]])('refuses minConfidence: %s with INVALID_INPUT', async (minConfidence) => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await expect(memory.retrieve('rake', { minConfidence })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining('minConfidence') }));
    await expect(createMemory({ textEncoder: createHashTextEncoder(), retrieval: { minConfidence } })).rejects.toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });
});

describe('memory: times the question names', () => {
  // Tuesday 1 December 2026.
  const now = '2026-12-01T10:00:00Z';
  const daysAgo = (n: number) => Date.parse(now) - n * 86_400_000;
  const week: RoundInput[] = [
    { id: 'garage', sessionId: 'a', timestamp: daysAgo(10), user: { text: 'I spent the whole weekend clearing out the garage.' }, assistant: { text: 'That sounds like hard work.' } },
    { id: 'zoo', sessionId: 'b', timestamp: daysAgo(3), user: { text: 'We took the kids to the zoo and saw the penguins.' }, assistant: { text: 'Fun! Did they like the penguins?' } },
    { id: 'plan', sessionId: 'c', timestamp: daysAgo(1), user: { text: 'Next weekend I want to try the climbing gym.' }, assistant: { text: 'Good luck with the climbing!' } },
  ];

  it('"What did I do last weekend?" on a Tuesday puts that Saturday\'s round first, not the plan and not the weekend before', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder() });
    await memory.add(week);
    const result = await memory.retrieve('What did I do last weekend?', { now });
    expect(result.trace[0]!.roundId).toBe('zoo');
    expect(result.timeSpans).toEqual([{ start: Date.UTC(2026, 10, 28), end: Date.UTC(2026, 10, 30), text: 'last weekend' }]);
    // The plan was told the Monday after and only plans: it ranks after the zoo, the garage (ten days back) last.
    expect(result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId)).toEqual(['zoo', 'plan', 'garage']);
  });

  it('takes now from createMemory\'s defaults, and a Date or epoch ms as well as an ISO string', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), retrieval: { now: new Date(now) } });
    await memory.add(week);
    expect((await memory.retrieve('What did I do last weekend?')).trace[0]!.roundId).toBe('zoo');
    expect((await memory.retrieve('What did I do 10 days ago?', { now: Date.parse(now) })).trace[0]!.roundId).toBe('garage');
  });
});

describe('memory: captions added later', () => {
  it('setCaption folds the caption into the turn, indexes it, and keeps the image vector', async () => {
    const { memory, imageEncoder, storage } = await filledMemory();
    const imageId = (await memory.get('r4'))!.user.images[0]!.id;
    const imageCalls = imageEncoder.calls;
    const updated = await memory.setCaption(imageId, 'a shiny red motorcycle parked by a lighthouse');
    expect(updated.user.text).toBe('I bought a red motorcycle [Image: a shiny red motorcycle parked by a lighthouse]');
    expect(imageEncoder.calls).toBe(imageCalls);
    const result = await memory.retrieve('lighthouse');
    expect(result.trace[0]!.roundId).toBe('r4');
    const imageHit = await memory.retrieve({ text: 'Which earlier photo is like this?', image: picture('motorcycle red wheels') });
    expect(imageHit.images[0]!.id).toBe(imageId);
    const reopened = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: wordImageEncoder(), storage });
    expect((await memoryContents(reopened)).units.filter((unit) => unit.roundId === 'r4').map((unit) => unit.kind).sort()).toEqual(['caption', 'image', 'text', 'text']);
  });

  it('setCaption rejects an unknown image and an empty caption', async () => {
    const { memory } = await filledMemory();
    await expect(memory.setCaption('nope', 'x')).rejects.toMatchObject({ code: 'UNKNOWN_IMAGE' });
    await expect(memory.setCaption((await memory.get('r2'))!.user.images[0]!.id, '  ')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
