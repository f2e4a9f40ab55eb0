import { afterAll, describe, expect, it } from 'vitest';
import { createMemory, type RoundInput } from 'vmem';
import { clipToRounds } from 'vmem/video';
import { createNodeEmbeddedEncoders, createNodeImageDescriber, decodeImageNode } from 'vmem/node';
import { syntheticClip, type Stretch } from '../video/testing/synthetic-clip.js';
import { readFixturePhoto } from '../testing/shared-data.js';

/** Video keyframes get machine-derived descriptions like any picture, so a clip is found by what it showed. */

const encoders = createNodeEmbeddedEncoders();
const describer = createNodeImageDescriber({ ocr: false });
afterAll(async () => {
  await describer.dispose();
  await encoders.text.dispose();
});

async function shown(file: string, from: number, to: number): Promise<Stretch> {
  const bytes = readFixturePhoto(file);
  return { name: file, bytes, pixels: await decodeImageNode(bytes), from, to };
}

describe('a video clip in a memory with a describer', () => {
  it('describes each keyframe and finds the segment that showed the horse', { timeout: 300_000 }, async () => {
    // 30 s: a cat, then a horse, then a motorcycle, ten seconds each.
    const clip = syntheticClip([await shown('sk_chelsea.jpg', 0, 10), await shown('sk_horse.jpg', 10, 20), await shown('sk_motorcycle_left.jpg', 20, 30)]);
    const { rounds } = await clipToRounds(clip, { name: 'holiday.webm', videoId: 'holiday', sessionId: 'videos', timestamp: Date.UTC(2024, 6, 1) });
    const chat: RoundInput[] = [
      { sessionId: 'chat', user: { text: 'I went riding at the stables last weekend.' }, assistant: { text: 'Sounds fun!' } },
      { sessionId: 'chat', user: { text: 'My neighbour has a new dog.' }, assistant: { text: 'What breed?' } },
    ];
    const memory = await createMemory({ textEncoder: encoders.text, imageEncoder: encoders.image!, describer });
    try {
      await memory.add([...chat, ...rounds]);
      const segments = (await memory.rounds()).filter((round) => round.meta?.['videoId'] === 'holiday');
      expect(segments).toHaveLength(3);
      const named = segments.map((segment) => segment.user.images.map((image) => image.derived?.text ?? '').join(' '));
      expect(named[0]).toMatch(/\bcat\b/);
      expect(named[1]).toMatch(/\bhorse\b/);
      expect(named[2]).toMatch(/\bmotorcycle\b/);

      const result = await memory.retrieve('Which clip showed the horse?');
      const top = (await memory.get(result.trace[0]!.roundId))!;
      expect(top.meta).toMatchObject({ videoId: 'holiday', segmentStart: 10, segmentEnd: 20 });
      expect(result.images[0]?.roundId).toBe(top.id);
    } finally {
      await memory.close();
    }
  });
});
