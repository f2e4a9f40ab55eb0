/**
 * The page `e2e/video.spec.ts` drives: records a slideshow video from fixture photos, segments it
 * with the browser extractor, stores the segments in a memory, and answers photo queries.
 * Exposed on `window.videoE2E`; the spec bundles this file with Vite.
 */
import { VmemError } from '../../src/errors.js';
import { browserImageResizer } from '../../src/images/browser-resize.js';
import { decodeInBrowser } from '../../src/images/testing/browser-decode.js';
import { createThumbImageEncoder } from '../../src/images/testing/thumb-encoder.js';
import { createMemory } from '../../src/memory/memory.js';
import { createHashTextEncoder } from '../../src/testing/hash-encoder.js';
import type { VmemProgress } from '../../src/progress.js';
import { mountVideoControl } from '../../app/video-control.js';
import { openVideoFrames } from '../../src/video/browser-frames.js';
import { clipToRounds } from '../../src/video/clip.js';
import { grayThumbnail, meanAbsDiff, type GrayImage } from '../../src/video/gray.js';
import { uniformKeyframes } from '../../src/video/select.js';
import { recordSlideshow } from '../../src/video/testing/record-slideshow.js';

const photoBytes = async (name: string) => new Uint8Array(await (await fetch(`/photos/${name}.jpg`)).arrayBuffer());

let video: Blob | undefined;
const references = new Map<string, GrayImage>();
const memoryReady = createMemory({ textEncoder: createHashTextEncoder(), imageEncoder: createThumbImageEncoder(decodeInBrowser) });

/** The fixture photo a thumbnail looks most like. */
function nearestPhoto(thumb: GrayImage): string {
  let best = '';
  let bestDiff = Infinity;
  for (const [name, reference] of references) {
    const diff = meanAbsDiff(thumb, reference);
    if (diff < bestDiff) [best, bestDiff] = [name, diff];
  }
  return best;
}

const api = {
  /** Records the slideshow; resolves with the WebM size in bytes. */
  async record(plan: readonly { photo: string; from: number; to: number }[]): Promise<number> {
    const stretches = [];
    for (const item of plan) {
      const bytes = await photoBytes(item.photo);
      const image = await createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }), { resizeWidth: 640, resizeHeight: 480 });
      stretches.push({ from: item.from, to: item.to, image });
      references.set(item.photo, grayThumbnail(await decodeInBrowser(bytes, 'image/jpeg')));
    }
    video = await recordSlideshow(stretches, { width: 640, height: 480 });
    return video.size;
  },

  /** Segments the recorded video and adds it to the memory; returns what was chosen. */
  async segment() {
    if (!video) throw new VmemError('INVALID_INPUT', 'Call record() before segment().');
    const events: VmemProgress[] = [];
    const frames = await openVideoFrames(new File([video], 'slideshow.webm', { type: 'video/webm' }));
    try {
      const result = await clipToRounds(frames, { name: 'slideshow.webm', videoId: 'clip', onProgress: (event) => events.push(event) });
      const memory = await memoryReady;
      await memory.add({ id: 'chat', user: { text: 'I made a slideshow of my photos.' } });
      await memory.add(result.rounds);
      const shows = (sampleIndex: number) => nearestPhoto(result.samples[sampleIndex]!.thumb);
      const sampleDiffs = result.samples.slice(1).map((sample, index) => meanAbsDiff(sample.thumb, result.samples[index]!.thumb));
      return {
        duration: frames.duration,
        segments: result.segments.map((segment) => ({ start: segment.start, end: segment.end, photos: segment.frames.map((frame) => shows(frame.sampleIndex)) })),
        uniform: uniformKeyframes(result.samples, frames.duration).map((segment) => segment.frames.map((frame) => shows(frame.sampleIndex))),
        texts: result.rounds.map((round) => round.user.text),
        meta: result.rounds.map((round) => round.meta),
        frameSizes: await Promise.all(result.rounds.flatMap((round) => round.user.images!.map(async (image) => {
          const decoded = await decodeInBrowser(image.bytes!, image.mimeType);
          return [decoded.width, decoded.height];
        }))),
        progress: events.map((event) => (event.status === 'progress' ? `${event.task}:${event.loaded}/${event.total}` : `${event.task}:${event.status}`)),
        // Near-duplicate noise between consecutive samples of one photo, to check `minChange` against real compression.
        staticNoise: Math.max(...sampleDiffs.filter((diff) => diff < 0.04)),
        smallestCut: Math.min(...sampleDiffs.filter((diff) => diff >= 0.04)),
      };
    } finally {
      frames.close();
    }
  },

  /** Round ids retrieved for a question with a fixture photo attached, best first. */
  async ask(photo: string, text: string): Promise<string[]> {
    const memory = await memoryReady;
    const result = await memory.retrieve({ text, image: { bytes: await photoBytes(photo), mimeType: 'image/jpeg' } });
    return result.trace.filter((entry) => !entry.neighbour).map((entry) => entry.roundId);
  },

  /** The recorded WebM, base64, so the spec can hand it to a file input. */
  async recordedBase64(): Promise<string> {
    if (!video) throw new VmemError('INVALID_INPUT', 'Call record() first.');
    const bytes = new Uint8Array(await video.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(binary);
  },

  /** Mounts the demo control on the page, storing into this page's memory. */
  async mountControl(): Promise<void> {
    const memory = await memoryReady;
    const slot = document.createElement('div');
    document.body.append(slot);
    mountVideoControl(slot, { memory });
  },

  /** Shrinks a synthetic 1600×1200 PNG with the browser resizer. */
  async resize(): Promise<{ mimeType: string; width: number; height: number; decoded: number[] }> {
    const canvas = new OffscreenCanvas(1600, 1200);
    const context = canvas.getContext('2d')!;
    context.fillStyle = '#c03';
    context.fillRect(0, 0, 1600, 1200);
    const png = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
    const small = await browserImageResizer(png, 'image/png', 768, 80);
    const decoded = await decodeInBrowser(small.bytes, small.mimeType);
    return { mimeType: small.mimeType, width: small.width, height: small.height, decoded: [decoded.width, decoded.height, small.bytes[0]!, small.bytes[1]!] };
  },
};

declare global {
  interface Window {
    videoE2E: typeof api;
  }
}
window.videoE2E = api;
