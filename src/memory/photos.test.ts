import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from './types.js';
import { createMemory } from './memory.js';
import { createNodeEmbeddedEncoders } from '../node.js';
import type { RoundInput } from '../types.js';
import { FIXTURE_PHOTOS_DIR } from '../testing/shared-data.js';

// Real photos with the embedded offline encoders (USE-Lite text, MobileNetV2 image features).
const photosDir = FIXTURE_PHOTOS_DIR;
const photo = async (name: string) => ({ bytes: new Uint8Array(await readFile(photosDir + name)), mimeType: 'image/jpeg' });

let memory: Memory;
const encoders = createNodeEmbeddedEncoders();

beforeAll(async () => {
  memory = await createMemory({ textEncoder: encoders.text, imageEncoder: encoders.image! });
  const day = (n: number) => Date.UTC(2025, 4, n, 9);
  const rounds: RoundInput[] = [
    { id: 'coffee', sessionId: 'morning', timestamp: day(1), user: { text: 'First coffee of the day.', images: [await photo('sk_coffee.jpg')] }, assistant: { text: 'Looks strong. Enjoy!' } },
    { id: 'plans', sessionId: 'morning', timestamp: day(1), user: { text: 'Today I need to renew my passport.' }, assistant: { text: 'Bring two passport photos.' } },
    { id: 'bike', sessionId: 'garage', timestamp: day(3), user: { text: 'I finally bought the motorcycle I wanted, parked it in the garage.', images: [await photo('sk_motorcycle_left.jpg')] }, assistant: { text: 'Congratulations! Get a good helmet.' } },
    { id: 'helmet', sessionId: 'garage', timestamp: day(3), user: { text: 'Which helmet size should I get for a 58 cm head?' }, assistant: { text: 'Size M usually fits 57–58 cm.' } },
    { id: 'cat', sessionId: 'home', timestamp: day(6), user: { text: 'My cat Chelsea has been sleeping all day.', images: [{ ...(await photo('sk_chelsea.jpg')), caption: 'a tabby cat looking up' }] }, assistant: { text: 'Cats sleep up to 16 hours a day.' } },
    { id: 'rocket', sessionId: 'home', timestamp: day(6), user: { text: 'Watched a launch on TV tonight.', images: [await photo('sk_rocket.jpg')] }, assistant: { text: 'Launches are spectacular.' } },
    { id: 'garden', sessionId: 'home', timestamp: day(7), user: { text: 'The flowers in my garden opened.', images: [await photo('mate_YellowFlower.jpg')] }, assistant: { text: 'Lovely colour.' } },
    { id: 'astro', sessionId: 'space', timestamp: day(9), user: { text: 'Reading about astronauts on the space station.', images: [await photo('sk_astronaut.jpg')] }, assistant: { text: 'They train for years.' } },
  ];
  await memory.add(rounds);
}, 180_000);

afterAll(async () => {
  await memory?.close();
  await encoders.text.dispose();
});

describe('real photos, embedded encoders', () => {
  it('image+text→image: the right view of the motorcycle finds the round with the left view', async () => {
    const result = await memory.retrieve({ text: 'Which photo I shared earlier shows the same thing as this one?', image: await photo('sk_motorcycle_right.jpg') });
    expect(result.case).toBe('image+text-to-image');
    expect(result.trace[0]!.roundId).toBe('bike');
    expect(result.images[0]!.roundId).toBe('bike');
  });

  it('image+text→text: what was said about the attached photo comes back as that round’s text', async () => {
    const result = await memory.retrieve({ text: 'What did I say about this?', image: await photo('sk_motorcycle_right.jpg') });
    expect(result.case).toBe('image+text-to-text');
    expect(result.trace[0]!.roundId).toBe('bike');
    const texts = result.blocks.flatMap((block) => block.rounds.map((round) => round.user.text));
    expect(texts).toContain('I finally bought the motorcycle I wanted, parked it in the garage.');
  });

  it('text→image: "which photo showed the cat?" returns the cat photo', async () => {
    const result = await memory.retrieve('Which photo showed the cat?');
    expect(result.case).toBe('text-to-image');
    expect(result.images[0]!.roundId).toBe('cat');
    expect(result.images[0]!.caption).toBe('a tabby cat looking up');
  });
});
