import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { VmemProgress } from '../progress.js';
import { decodeImageNode, decodeImageNodeSync } from '../encoders/node-decoder.js';
import { createThumbImageEncoder } from '../images/testing/thumb-encoder.js';
import { createMemory } from '../memory/memory.js';
import { createHashTextEncoder } from '../testing/hash-encoder.js';
import { clipToRounds } from './clip.js';
import { meanAbsDiff } from './gray.js';
import { formatClock, segmentLabel } from './rounds.js';
import { sampleTimes, segmentBounds, selectKeyframes, uniformKeyframes } from './select.js';
import { syntheticClip, type Stretch } from './testing/synthetic-clip.js';
import { FIXTURE_PHOTOS_DIR } from '../testing/shared-data.js';

const PHOTOS = FIXTURE_PHOTOS_DIR;
const cache = new Map<string, Omit<Stretch, 'from' | 'to'>>();
function shown(name: string, from: number, to: number): Stretch {
  let photo = cache.get(name);
  if (!photo) {
    const bytes = new Uint8Array(readFileSync(`${PHOTOS}/${name}.jpg`));
    photo = { name, bytes, pixels: decodeImageNodeSync(bytes) };
    cache.set(name, photo);
  }
  return { ...photo, from, to };
}

/**
 * The test clip, 25 s:
 *   0–10 s  one photo, static (a cat);
 *  10–20 s  a new photo every 2 s (coffee, astronaut, horse, rocket, camera);
 *  20–25 s  motorcycle, the cat for one second at 22 s, then the motorcycle again.
 */
const walk = () =>
  syntheticClip([
    shown('sk_chelsea', 0, 10),
    shown('sk_coffee', 10, 12),
    shown('sk_astronaut', 12, 14),
    shown('sk_horse', 14, 16),
    shown('sk_rocket', 16, 18),
    shown('sk_camera', 18, 20),
    shown('sk_motorcycle_left', 20, 22),
    shown('sk_chelsea', 22, 23),
    shown('sk_motorcycle_left', 23, 25),
  ]);

async function sampled() {
  const clip = walk();
  const samples = await Promise.all(sampleTimes(clip.duration, 2, 10).map(async (time) => ({ time, thumb: await clip.thumbnail(time) })));
  return { clip, samples };
}

describe('video: segments and timestamps', () => {
  it('cuts a 25 s clip into 0–10, 10–20, 20–25', () => {
    expect(segmentBounds(25, 10)).toEqual([
      { start: 0, end: 10 },
      { start: 10, end: 20 },
      { start: 20, end: 25 },
    ]);
  });

  it('folds a tail shorter than a quarter segment into the segment before', () => {
    expect(segmentBounds(21.5, 10)).toEqual([
      { start: 0, end: 10 },
      { start: 10, end: 21.5 },
    ]);
    expect(segmentBounds(4, 10)).toEqual([{ start: 0, end: 4 }]);
  });

  it('samples twice a second, always at each segment start', () => {
    const times = sampleTimes(25, 2, 10);
    expect(times).toHaveLength(50);
    expect(times).toEqual(expect.arrayContaining([0, 10, 20, 24.5]));
    // A long clip is sampled more sparsely, but segment starts are kept.
    const sparse = sampleTimes(3600, 2, 10, 600);
    expect(sparse.length).toBeLessThanOrEqual(600 + 360);
    expect(sparse).toEqual(expect.arrayContaining([3590]));
  });

  it('labels segments with m:ss times', () => {
    expect(formatClock(70)).toBe('1:10');
    expect(formatClock(3725)).toBe('1:02:05');
    expect(segmentLabel('walk.webm', 10, 20)).toBe('[Video clip "walk.webm" 0:10–0:20]');
  });

  it('rejects bad options and a clip with no duration', () => {
    expect(() => selectKeyframes([], 25, { framesPerSegment: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => selectKeyframes([], 25, { minChange: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => segmentBounds(Number.POSITIVE_INFINITY, 10)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_FILE' }));
  });
});

describe('video: keyframes by visual change, against uniform sampling', () => {
  it('a static stretch gives one frame where uniform sampling gives three copies', async () => {
    const { clip, samples } = await sampled();
    const ours = selectKeyframes(samples, clip.duration);
    const uniform = uniformKeyframes(samples, clip.duration);
    expect(ours[0]!.frames.map((frame) => frame.time)).toEqual([0]);
    expect(uniform[0]!.frames.map((frame) => frame.time)).toEqual([1.5, 5, 8.5]);
    expect(uniform[0]!.frames.map((frame) => clip.shownAt(frame.time))).toEqual(['sk_chelsea', 'sk_chelsea', 'sk_chelsea']);
  });

  it('a changing stretch gives three distinct frames, each right after a change', async () => {
    const { clip, samples } = await sampled();
    const frames = selectKeyframes(samples, clip.duration)[1]!.frames;
    expect(frames).toHaveLength(3);
    expect(frames[0]!.time).toBe(10);
    const photos = frames.map((frame) => clip.shownAt(frame.time));
    expect(new Set(photos).size).toBe(3);
    // Frames after a cut: the first sample of a new photo (an even second).
    for (const frame of frames.slice(1)) expect(frame.time % 2).toBe(0);
    for (const a of frames) for (const b of frames) if (a !== b) expect(meanAbsDiff(samples[a.sampleIndex]!.thumb, samples[b.sampleIndex]!.thumb)).toBeGreaterThan(0.04);
  });

  it('a photo that comes back is kept once; uniform sampling keeps it twice', async () => {
    const { clip, samples } = await sampled();
    const ours = selectKeyframes(samples, clip.duration)[2]!.frames.map((frame) => clip.shownAt(frame.time));
    const uniform = uniformKeyframes(samples, clip.duration)[2]!.frames.map((frame) => clip.shownAt(frame.time));
    expect(ours).toEqual(['sk_motorcycle_left', 'sk_chelsea']);
    expect(uniform).toEqual(['sk_motorcycle_left', 'sk_chelsea', 'sk_motorcycle_left']);
  });
});

describe('video: clips become rounds', () => {
  it('makes one round per segment with its frames, times and labels, and reports progress', async () => {
    const events: VmemProgress[] = [];
    const result = await clipToRounds(walk(), { name: 'walk.webm', videoId: 'walk', timestamp: Date.UTC(2025, 5, 1, 12), onProgress: (event) => events.push(event) });

    expect(result.rounds.map((round) => round.user.text)).toEqual([
      '[Video clip "walk.webm" 0:00–0:10]',
      '[Video clip "walk.webm" 0:10–0:20]',
      '[Video clip "walk.webm" 0:20–0:25]',
    ]);
    expect(result.rounds.map((round) => round.meta)).toEqual([
      { videoId: 'walk', segmentStart: 0, segmentEnd: 10 },
      { videoId: 'walk', segmentStart: 10, segmentEnd: 20 },
      { videoId: 'walk', segmentStart: 20, segmentEnd: 25 },
    ]);
    expect(result.rounds.map((round) => round.timestamp)).toEqual([0, 10_000, 20_000].map((ms) => Date.UTC(2025, 5, 1, 12) + ms));
    expect(result.rounds.map((round) => round.user.images!.length)).toEqual([1, 3, 2]);
    expect(result.rounds[0]!.user.images![0]).toMatchObject({ id: 'walk@0ms', mimeType: 'image/jpeg' });

    const sampling = events.filter((event) => event.task === 'video-sample' && event.status === 'progress') as Extract<VmemProgress, { status: 'progress' }>[];
    expect(sampling.map((event) => event.loaded)).toEqual(sampling.map((_, index) => index + 1));
    expect(sampling[sampling.length - 1]).toMatchObject({ loaded: 50, total: 50 });
    expect(events.filter((event) => event.status === 'done').map((event) => event.task)).toEqual(['video-sample', 'video-capture']);
  });

  it('a question with a photo that appears in the clip retrieves that segment', async () => {
    const memory = await createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: createThumbImageEncoder(async (bytes) => decodeImageNode(bytes)) });
    await memory.add({ id: 'chat', user: { text: 'I went for a walk today.' } });
    await memory.add((await clipToRounds(walk(), { name: 'walk.webm', videoId: 'walk' })).rounds);
    const horse = cache.get('sk_horse')!;
    const result = await memory.retrieve({ text: 'Where did I see this?', image: { bytes: horse.bytes, mimeType: 'image/jpeg' } });
    expect(result.trace[0]!.roundId).toBe('walk#1');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user cancelled'));
    await expect(clipToRounds(walk(), { signal: controller.signal })).rejects.toThrow('user cancelled');
  });
});
