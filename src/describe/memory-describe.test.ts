import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemory, type Memory, type RoundInput, type StoredRound } from 'vmem';
import { createNodeEmbeddedEncoders, createNodeImageDescriber } from 'vmem/node';
import { renderDialog } from '../testing/render-text.js';
import { locomoTextRounds } from '../testing/locomo-rounds.js';
import { readFixturePhoto } from '../testing/shared-data.js';

/**
 * The offline describer inside a real memory: uncaptioned fixture photos under neutral turn text,
 * among a LoCoMo conversation's ordinary rounds (text only), with the
 * embedded encoders and the Node describer, all through the public entries.
 */

const NEUTRAL = 'Look what I saw today!';
const PHOTOS = {
  cat: 'sk_chelsea.jpg',
  motorcycle: 'sk_motorcycle_left.jpg',
  coffee: 'sk_coffee.jpg',
  person: 'sk_astronaut.jpg',
  horse: 'sk_horse.jpg',
  page: 'sk_page.jpg',
  // Pictures with no COCO object in them, so the questions have more than one photo to choose from.
  meadow: 'mate_GreenMeadow.jpg',
  storm: 'mate_Storm.jpg',
  rocket: 'sk_rocket.jpg',
  gravel: 'sk_gravel.jpg',
} as const;

const encoders = createNodeEmbeddedEncoders();
const describer = createNodeImageDescriber();
let memory: Memory;
let ordinaryRounds = 0;

function photoRound(name: string, bytes: Uint8Array, mimeType: string, day: number): RoundInput {
  return { id: `photo-${name}`, sessionId: 'photos', timestamp: Date.UTC(2024, 5, day, 18), user: { text: NEUTRAL, images: [{ id: `img-${name}`, bytes, mimeType }] }, assistant: { text: 'Nice!' } };
}

beforeAll(async () => {
  const ordinary = locomoTextRounds();
  ordinaryRounds = ordinary.length;
  memory = await createMemory({ textEncoder: encoders.text, imageEncoder: encoders.image!, describer });
  await memory.add(ordinary);
  const dialog = await renderDialog({ title: 'Error', lines: ['Disk quota exceeded while saving', 'report.docx. Free some space and', 'try again.'] });
  await memory.add([
    ...Object.entries(PHOTOS).map(([name, file], day) => photoRound(name, readFixturePhoto(file), 'image/jpeg', day + 1)),
    photoRound('dialog', dialog, 'image/png', 20),
  ]);
}, 600_000);

afterAll(async () => {
  await memory?.close();
  await describer.dispose();
  await encoders.text.dispose();
});

const roundOf = (name: string): StoredRound => memory.get(`photo-${name}`)!;
const derivedOf = (name: string) => roundOf(name).user.images[0]!.derived;

describe('a memory with a describer', () => {
  it('keeps a machine-derived description beside each picture, apart from any caption', () => {
    expect(ordinaryRounds).toBeGreaterThanOrEqual(200);
    const cat = roundOf('cat').user.images[0]!;
    expect(cat.caption).toBeUndefined();
    expect(cat.derived).toMatchObject({ by: describer.id });
    expect(cat.derived!.text).toMatch(/\bcat\b/);
    expect(cat.derived!.labelled).toMatch(/^Objects: /);
    // The turn's own text is untouched: the description is its own unit, not folded in.
    expect(roundOf('cat').user.text).toBe(NEUTRAL);
    expect(memory.encoders.describer).toEqual({ id: describer.id });
  });

  it.each([
    ['Which photo showed the cat?', 'cat'],
    ['Which photo showed the motorcycle?', 'motorcycle'],
    ['Which photo showed the coffee?', 'coffee'],
    ['Which photo showed the person?', 'person'],
    ['Which photo showed the horse?', 'horse'],
    ['Show me the photo with the red motorcycle', 'motorcycle'],
  ])('"%s" finds the %s photo first', { timeout: 60_000 }, async (question, name) => {
    const result = await memory.retrieve(question);
    expect(result.case).toBe('text→image');
    expect(result.images[0]?.id).toBe(`img-${name}`);
    const top = result.trace[0]!;
    expect(top.roundId).toBe(`photo-${name}`);
    // The trace says the match came through the machine-derived description.
    expect(top.hits.some((hit) => hit.unitKind === 'derived' && hit.unitId === `img-${name}#derived`)).toBe(true);
  });

  it('reads the printed page', () => {
    expect(derivedOf('page')!.text.toLowerCase()).toContain('region-based segmentation');
  });

  it('finds the screenshot of an error dialog by what the message said', { timeout: 60_000 }, async () => {
    expect(derivedOf('dialog')!.text).toContain('Disk quota exceeded');
    const result = await memory.retrieve('What did the error message say?');
    expect(result.trace[0]!.roundId).toBe('photo-dialog');
  });

  it('uses the query picture’s own description as keywords when no vision LLM is configured', { timeout: 60_000 }, async () => {
    const result = await memory.retrieve({ text: 'What did we talk about around this?', image: { bytes: readFixturePhoto('sk_motorcycle_right.jpg'), mimeType: 'image/jpeg' } });
    expect(result.case).toBe('image+text→text');
    expect(result.queryText).toContain('red motorcycle');
    expect(result.trace[0]!.roundId).toBe('photo-motorcycle');
  });
});
