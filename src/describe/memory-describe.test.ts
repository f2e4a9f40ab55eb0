import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory, type StoredRound } from 'vmem';
import { createNodeEmbeddedEncoders, createNodeImageDescriber } from 'vmem/node';
import { readFixturePhoto } from '../testing/shared-data.js';
import { NEUTRAL_TURN, PHOTO_QUESTIONS, uncaptionedPhotoScenario } from '../testing/uncaptioned-photos.js';

/**
 * The offline describer inside a real memory: uncaptioned fixture photos under neutral turn text,
 * among a LoCoMo conversation's ordinary rounds (text only), with the embedded encoders and the Node
 * describer, all through the public entries.
 */

const encoders = createNodeEmbeddedEncoders();
// A generous OCR cap: these tests are about what is read, on a machine that may be busy (the cap has its own test).
const describer = createNodeImageDescriber({ ocrTimeoutMs: 60_000 });
let memory: Memory;
let ordinaryRounds = 0;

beforeAll(async () => {
  const { ordinary, photos } = await uncaptionedPhotoScenario();
  ordinaryRounds = ordinary.length;
  memory = await createMemory({ textEncoder: encoders.text, imageEncoder: encoders.image!, describer });
  await memory.add(ordinary);
  await memory.add(photos);
}, 600_000);

afterAll(async () => {
  await memory?.close();
  await describer.dispose();
  await encoders.text.dispose();
});

const roundOf = async (name: string): Promise<StoredRound> => (await memory.get(`photo-${name}`))!;
const derivedOf = async (name: string) => (await roundOf(name)).user.images[0]!.derived;

describe('a memory with a describer', () => {
  it('keeps a machine-derived description beside each picture, apart from any caption', async () => {
    expect(ordinaryRounds).toBeGreaterThanOrEqual(200);
    const cat = (await roundOf('cat')).user.images[0]!;
    expect(cat.caption).toBeUndefined();
    expect(cat.derived).toMatchObject({ by: describer.id });
    expect(cat.derived!.text).toMatch(/\bcat\b/);
    expect(cat.derived!.labelled).toMatch(/^Objects: /);
    // The turn's own text is untouched: the description is its own unit, not folded in.
    expect((await roundOf('cat')).user.text).toBe(NEUTRAL_TURN);
    expect(memory.encoders.describer).toEqual({ id: describer.id });
  });

  it.each(PHOTO_QUESTIONS.filter(([, name]) => name !== 'dialog'))('"%s" finds the %s photo first', { timeout: 60_000 }, async (question, name) => {
    const result = await memory.retrieve(question);
    expect(result.case).toBe('text-to-image');
    expect(result.images[0]?.id).toBe(`img-${name}`);
    const top = result.trace[0]!;
    expect(top.roundId).toBe(`photo-${name}`);
    // The trace says the match came through the machine-derived description.
    expect(top.hits.some((hit) => hit.unitKind === 'derived' && hit.unitId === `img-${name}#derived`)).toBe(true);
  });

  it('reads the printed page', async () => {
    expect((await derivedOf('page'))!.text.toLowerCase()).toContain('region-based segmentation');
  });

  it('finds the screenshot of an error dialog by what the message said', { timeout: 60_000 }, async () => {
    expect((await derivedOf('dialog'))!.text).toContain('Disk quota exceeded');
    const result = await memory.retrieve('What did the error message say?');
    expect(result.trace[0]!.roundId).toBe('photo-dialog');
  });

  it('uses the query picture’s own description as keywords when no vision LLM is configured', { timeout: 60_000 }, async () => {
    const result = await memory.retrieve({ text: 'What did we talk about around this?', image: { bytes: readFixturePhoto('sk_motorcycle_right.jpg'), mimeType: 'image/jpeg' } });
    expect(result.case).toBe('image+text-to-text');
    expect(result.queryText).toContain('red motorcycle');
    expect(result.trace[0]!.roundId).toBe('photo-motorcycle');
  });
});
